package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.grm.Solution;
import org.arbiter.grm.optimize.CapPartition;

/*
 * Design note — stage 4 of the GRM step: cap partition and reserve.
 *
 * What it computes: the allocation each gateway is to receive this period, before stamping — its
 * weights w(g,c), its caps N(g,s) and the source — such that Σ_g N(g,s) ≤ N_s over the caps then in
 * force at every gateway (CapReserve's invariant):
 *
 * - Left out (before the period is built): every configured gateway with a last allocation that is
 *   neither live nor gone is held (its caps stay in force and are reserved); a gone gateway whose
 *   last allocation still gives it a slot gets caps of 0 on every server, so that what is in force
 *   there is what the GRM counts.
 * - Solved: each live gateway gets the solution's w(g,c) and N(g,s) (the optimiser's partition of
 *   the free N_s, 003 eq. 5-6), with 0 on a server the left-out gateways hold in full.
 * - Configured (no gateway live yet, or idle: no arrivals anywhere): the configured weights, the
 *   operator's weight pins on that gateway, and the N_s given split evenly over the gateways given
 *   (CapPartition with equal weights).
 * - No server ON: the last weights (else the configured ones) and no caps; every slot held by the
 *   left-out gateways: caps of 0 on every server.
 * - Nothing solved (no valid or no feasible problem): every gateway's last caps stay in force, the
 *   live ones' too, cut where they no longer fit N_s (held gateways first, then the live ones, each
 *   in id order).
 * - Always appended: the gateways newly gone (caps 0) and the held gateways whose caps had to be cut
 *   to fit (republished with unchanged weights).
 *
 * Output: a Plan, a list of unstamped allocations in publishing order; stage 5 (Stamper) gives them
 * one (epoch, counter) stamp.
 *
 * Stateless over the configuration; thread-safe.
 */

/** Stage 4 of {@link GrmStep}: who gets which caps this period, unstamped; see the design note. */
final class CapPlanner {

    /** The last even split of N_s ({@link #configured}): for which gateways and N_s, and the result. */
    private List<String> evenAmong = List.of();
    private Map<String, Integer> evenNs = Map.of();
    private Map<String, Map<String, Integer>> evenSplit = Map.of();

    /** One gateway's allocation before stamping. */
    record Planned(String gateway, Map<String, Double> weights, Map<String, Integer> caps, String source) {
        Planned {
            requireNonNull(gateway, "gateway");
            requireNonNull(weights, "weights");
            requireNonNull(caps, "caps");
            requireNonNull(source, "source");
        }
    }

    /** The period's allocations, in publishing order. */
    record Plan(List<Planned> allocations) {
        static final Plan NONE = new Plan(List.of());

        Plan {
            allocations = List.copyOf(allocations);
        }

        boolean isEmpty() {
            return allocations.isEmpty();
        }
    }

    /**
     * The gateways left out of a period.
     *
     * @param held      by gateway id: the last allocation of each gateway whose caps stay in force (neither live nor gone)
     * @param newlyGone gone gateways whose last allocation still gives them a slot, with caps of 0 on every server
     */
    record LeftOut(Map<String, Allocation> held, List<Planned> newlyGone) {
        LeftOut {
            held = Collections.unmodifiableMap(new TreeMap<>(held));
            newlyGone = List.copyOf(newlyGone);
        }
    }

    private final ClusterConfig config;

    CapPlanner(ClusterConfig config) {
        this.config = requireNonNull(config, "config");
    }

    /** Which gateways are held and which newly gone, given the live ones, the gone ones and the last allocations. */
    LeftOut leftOut(Set<String> live, Set<String> gone, Map<String, Allocation> lastAllocations) {
        Map<String, Allocation> held = new TreeMap<>();
        for (GatewayConfig g : config.gateways()) {
            Allocation a = lastAllocations.get(g.id());
            if (a != null && !live.contains(g.id()) && !gone.contains(g.id())) {
                held.put(g.id(), a);
            }
        }
        List<Planned> newlyGone = new ArrayList<>();
        for (String g : new TreeSet<>(gone)) {
            Allocation a = lastAllocations.get(g);
            if (a != null && !live.contains(g) && a.serverCaps().values().stream().anyMatch(n -> n > 0)) {
                Map<String, Integer> zero = new TreeMap<>();
                a.serverCaps().keySet().forEach(s -> zero.put(s, 0));
                config.servers().forEach(s -> zero.put(s.id(), 0));
                newlyGone.add(new Planned(g, a.weights(), zero, "grm: gateway gone"));
            }
        }
        return new LeftOut(held, newlyGone);
    }

    /**
     * When nothing is solved, every gateway's last caps stay in force, the live gateways' too: they
     * are cut (held gateways first, then the live ones, each in id order) where they no longer fit N_s.
     */
    CapReserve keptInForce(Map<String, Integer> ns, Collection<String> live, LeftOut leftOut,
                           Map<String, Allocation> lastAllocations) {
        Map<String, Allocation> kept = new LinkedHashMap<>(leftOut.held());
        new TreeSet<>(live).forEach(g -> {
            Allocation a = lastAllocations.get(g);
            if (a != null) {
                kept.put(g, a);
            }
        });
        return new CapReserve(kept.values(), ns);
    }

    /** The solved period: each live gateway's w(g,c) and N(g,s), then the gone and the cut. */
    Plan solved(Collection<String> live, Solution solution, CapReserve reserve, LeftOut leftOut,
                Map<String, Allocation> lastAllocations) {
        List<Planned> out = new ArrayList<>();
        for (String g : live) {
            // the servers g gets slots on; any other is 0 (CapListing names it where g holds a cap)
            out.add(new Planned(g, solution.weights().get(g), solution.serverCaps().get(g), "grm"));
        }
        return withGoneAndCut(out, reserve, leftOut, lastAllocations);
    }

    /**
     * The configured allocation of each of {@code gateways}: class weights as configured (with the
     * operator's weight pins on that gateway), {@code ns} (server → N_s) split evenly among
     * {@code splitAmong}, stamped {@code source}.
     */
    List<Planned> configured(List<String> gateways, List<String> splitAmong, Map<String, Integer> ns,
                             Map<OverrideBook.Flow, Double> weightPins, String source) {
        List<Planned> out = new ArrayList<>();
        for (String gateway : gateways) {
            Map<String, Double> weights = new LinkedHashMap<>();
            config.classes().forEach(c -> weights.put(c.name(), c.weight()));
            weightPins.forEach((f, w) -> {
                if (f.gateway().equals(gateway)) {
                    weights.put(f.cls(), w);
                }
            });
            Map<String, Integer> caps = evenSplit(splitAmong, ns).get(gateway);
            out.add(new Planned(gateway, weights, caps, source));
        }
        return out;
    }

    /**
     * N_s split evenly among {@code among}; the last split is kept, so asking for every gateway's configured
     * allocation in turn (a simulator starting 1 000 gateways) partitions once, not once per gateway.
     */
    private Map<String, Map<String, Integer>> evenSplit(List<String> among, Map<String, Integer> ns) {
        if (!among.equals(evenAmong) || !ns.equals(evenNs)) {
            Map<String, Double> equal = new LinkedHashMap<>();
            among.forEach(g -> equal.put(g, 1.0));
            evenSplit = CapPartition.partition(equal, ns);
            evenAmong = List.copyOf(among);
            evenNs = Map.copyOf(ns);
        }
        return evenSplit;
    }

    /** {@code first}, then the gateways newly gone (caps 0) and the held ones whose caps were cut to fit. */
    Plan withGoneAndCut(List<Planned> first, CapReserve reserve, LeftOut leftOut, Map<String, Allocation> lastAllocations) {
        List<Planned> out = new ArrayList<>(first);
        out.addAll(leftOut.newlyGone());
        reserve.cut().forEach((g, caps) -> out.add(new Planned(g, lastAllocations.get(g).weights(), caps,
                "grm: caps cut to fit")));
        return new Plan(out);
    }

    /** Nothing is ON (all booting): every live gateway keeps its weights (else the configured ones) with no caps. */
    Plan noServerOn(Collection<String> live, LeftOut leftOut, Map<String, Allocation> lastAllocations) {
        List<Planned> out = new ArrayList<>();
        for (String g : live) {
            out.add(new Planned(g, lastOrConfiguredWeights(g, lastAllocations), Map.of(), "grm: no server on"));
        }
        return withGoneAndCut(out, new CapReserve(leftOut.held().values(), Map.of()), leftOut, lastAllocations);
    }

    /**
     * The gateways left out of this period hold every slot: the live ones get none until those report
     * again or are gone (their weights unchanged).
     */
    Plan everySlotHeld(Collection<String> live, CapReserve reserve, LeftOut leftOut,
                       Map<String, Allocation> lastAllocations) {
        List<Planned> out = new ArrayList<>();
        for (String g : live) {
            Map<String, Integer> zero = new LinkedHashMap<>();
            reserve.free().keySet().forEach(id -> zero.put(id, 0));
            out.add(new Planned(g, lastOrConfiguredWeights(g, lastAllocations), zero, "grm: every slot held"));
        }
        return withGoneAndCut(out, reserve, leftOut, lastAllocations);
    }

    private Map<String, Double> lastOrConfiguredWeights(String gateway, Map<String, Allocation> lastAllocations) {
        Allocation last = lastAllocations.get(gateway);
        Map<String, Double> w = new LinkedHashMap<>();
        config.classes().forEach(c -> w.put(c.name(), c.weight()));
        return last != null ? last.weights() : w;
    }
}
