package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.TreeMap;
import org.arbiter.common.message.Allocation;

/*
 * Design note — slots held by gateways left out of a period.
 *
 * Model: a gateway enforces the last allocation it received until it receives another; the GRM
 * cannot take slots back from a gateway except by publishing it a new allocation. A gateway left
 * out of a period (its statistics late, or missing: not live) therefore keeps its last caps in
 * force, and the GRM must count them: the invariant is
 *
 *     Σ_g N(g,s) ≤ N_s for every server s, summed over the caps in force at every gateway
 *     (the last allocation published to each), live or not.
 *
 * So every period the caps of the left-out ("held") gateways are reserved, and only the rest,
 * free(s) = N_s − Σ_held N(g,s), is optimised among the live gateways. Held caps are not
 * republished, except when they no longer fit: a server that is not ON any more (its N_s is
 * absent), or whose N_s fell below what the held gateways hold (an N_s pin, auto concurrency).
 * Then the held caps are cut to fit, greedily in gateway order, and those gateways get their
 * allocation republished with the cut caps and unchanged weights, so that what the GRM counts as
 * in force is what was last published. When nothing is solved (an infeasible problem) the live
 * gateways' last caps stay in force as well and are cut the same way, after the held ones. A gateway declared gone (silent past StatsBook's expiry)
 * is not held: the step publishes it caps of 0 and its slots are free again.
 *
 * Pure value; not thread-safe (built and read on the control thread).
 */

/** What the gateways left out of a period hold, and what is free for the live ones; see the design note. */
final class CapReserve {

    private final Map<String, Integer> free = new LinkedHashMap<>();
    private final Map<String, Map<String, Integer>> cut = new TreeMap<>();

    /**
     * @param held the last allocation of each gateway whose caps stay in force (left out of the period: not
     *             live, not gone), in the order they are served when N_s is too small for all
     * @param ns   N_s of every server that gets caps this period (ON, pins applied)
     */
    CapReserve(Collection<Allocation> held, Map<String, Integer> ns) {
        requireNonNull(held, "held");
        requireNonNull(ns, "ns");
        free.putAll(ns);
        for (Allocation a : held) {
            Map<String, Integer> caps = new LinkedHashMap<>();
            boolean changed = false;
            for (Map.Entry<String, Integer> e : a.serverCaps().entrySet()) {
                int room = free.getOrDefault(e.getKey(), 0);
                int kept = Math.min(e.getValue(), room);
                caps.put(e.getKey(), kept);
                if (free.containsKey(e.getKey())) {
                    free.put(e.getKey(), room - kept);
                }
                changed |= kept != e.getValue();
            }
            if (changed) {
                cut.put(a.gateway(), caps);
            }
        }
    }

    /** Per server (the {@code ns} given), N_s less what the held gateways keep: what the live gateways may share. */
    Map<String, Integer> free() {
        return Map.copyOf(free);
    }

    /** Per server, the free N_s where it is above 0, in the order given. */
    Map<String, Integer> freePositive() {
        Map<String, Integer> out = new LinkedHashMap<>();
        free.forEach((s, n) -> {
            if (n > 0) {
                out.put(s, n);
            }
        });
        return out;
    }

    /** Held gateways whose caps had to be cut to fit, with the caps they keep (to be republished). */
    Map<String, Map<String, Integer>> cut() {
        return Map.copyOf(cut);
    }
}
