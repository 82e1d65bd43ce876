package org.arbiter.loadgen.client;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * How a load generator's requests ended, by HTTP status: every request sent ends in exactly one of
 * an answer with a status ({@code statuses}), a connection error (refused, reset or closed without
 * an answer and no other target left), a time-out, or lost (unanswered when the run ended), so
 * {@code sent = answered + connectionErrors + timedOut + lost}. {@code failovers} counts requests
 * moved to another target after their connection failed before any answer byte (each one is still
 * one request sent); {@code failoversAfterConnect} those of them whose first connection had been
 * established — the request may have reached the first target (in flight when it closed), where
 * the others were refused.
 *
 * <p>Immutable value; thread-safe.
 */
public record StatusTally(long sent, SortedMap<Integer, Long> statuses, long connectionErrors, long timedOut, long lost,
                          long failovers, long failoversAfterConnect) {

    public StatusTally {
        requireNonNull(statuses, "statuses");
        statuses = Collections.unmodifiableSortedMap(new TreeMap<>(statuses));
        for (var e : statuses.entrySet()) {
            if (e.getKey() < 100 || e.getKey() > 599) {
                throw new IllegalArgumentException("statuses: " + e.getKey() + " (expected: an HTTP status 100..599)");
            }
            if (e.getValue() < 0) {
                throw new IllegalArgumentException("statuses[" + e.getKey() + "]: " + e.getValue() + " (expected: >= 0)");
            }
        }
        if (failoversAfterConnect < 0 || failoversAfterConnect > failovers) {
            throw new IllegalArgumentException("failoversAfterConnect: " + failoversAfterConnect + " (expected: 0.."
                    + failovers + ")");
        }
        if (connectionErrors < 0 || timedOut < 0 || lost < 0 || failovers < 0) {
            throw new IllegalArgumentException("counts: " + connectionErrors + "/" + timedOut + "/" + lost + "/" + failovers
                    + " (expected: >= 0)");
        }
        long answered = statuses.values().stream().mapToLong(Long::longValue).sum();
        if (sent != answered + connectionErrors + timedOut + lost) {
            throw new IllegalArgumentException("sent: " + sent + " (expected: answered " + answered + " + connectionErrors "
                    + connectionErrors + " + timedOut " + timedOut + " + lost " + lost + ")");
        }
    }

    /** Requests that got an HTTP answer, whatever its status. */
    public long answered() {
        return statuses.values().stream().mapToLong(Long::longValue).sum();
    }

    /** Requests answered with {@code status} (0 when none). */
    public long count(int status) {
        return statuses.getOrDefault(status, 0L);
    }
}
