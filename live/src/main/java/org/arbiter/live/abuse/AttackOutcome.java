package org.arbiter.live.abuse;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * What one attack counted of its own connections or requests. Immutable.
 *
 * @param attempted connections opened or requests sent
 * @param refused   refused or closed by the gateway (within the attack's bound)
 * @param accepted  accepted and still held, or answered as if legitimate
 * @param statuses  the gateway's answers to the attack's requests by status ("none": no answer), if it sends any
 * @param wire      answers in the order they came on the wire (the pipelined attack), else empty
 * @param details   further facts, one short line each (times, exit codes, what the log said)
 * @param verdicts  the attack's own criteria, computed from the counts above ({@link Verdict#ATTACK_REFUSED} first)
 */
public record AttackOutcome(int attempted, int refused, int accepted, Map<String, Integer> statuses, List<String> wire,
                            List<String> details, List<Verdict> verdicts) {

    public AttackOutcome {
        statuses = Collections.unmodifiableMap(new TreeMap<>(requireNonNull(statuses, "statuses")));
        wire = List.copyOf(requireNonNull(wire, "wire"));
        details = List.copyOf(requireNonNull(details, "details"));
        verdicts = List.copyOf(requireNonNull(verdicts, "verdicts"));
        if (attempted < 0 || refused < 0 || accepted < 0) {
            throw new IllegalArgumentException("counts: " + attempted + "/" + refused + "/" + accepted
                    + " (expected: >= 0)");
        }
    }

    /** Nothing attempted: the run without an attack. */
    public static final AttackOutcome NONE = new AttackOutcome(0, 0, 0, Map.of(), List.of(), List.of(), List.of());
}
