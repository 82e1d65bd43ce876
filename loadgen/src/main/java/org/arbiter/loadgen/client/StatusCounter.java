package org.arbiter.loadgen.client;

import java.util.TreeMap;

/**
 * Counts how the load generator's requests ended (HTTP status, connection error, timed out, lost)
 * and its failovers; {@link #snapshot()} gives the immutable {@link StatusTally}. Thread-safe: the
 * event loop records, any thread may take a snapshot.
 */
final class StatusCounter {

    private final TreeMap<Integer, Long> statuses = new TreeMap<>();
    private long connectionErrors;
    private long timedOut;
    private long lost;
    private long failovers;
    private long failoversAfterConnect;

    /** A request ended: with an answer of HTTP {@code status} when {@code status > 0}, else as {@code outcome}. */
    synchronized void ended(ResultRecorder.Outcome outcome, int status) {
        if (status > 0) {
            statuses.merge(status, 1L, Long::sum);
        } else {
            switch (outcome) {
                case TIMED_OUT -> timedOut++;
                case LOST -> lost++;
                default -> connectionErrors++;
            }
        }
    }

    /** A request moved to another target; {@code afterConnect} when its connection had been established. */
    synchronized void failedOver(boolean afterConnect) {
        failovers++;
        if (afterConnect) {
            failoversAfterConnect++;
        }
    }

    synchronized StatusTally snapshot() {
        long answered = statuses.values().stream().mapToLong(Long::longValue).sum();
        return new StatusTally(answered + connectionErrors + timedOut + lost, statuses, connectionErrors, timedOut, lost,
                failovers, failoversAfterConnect);
    }
}
