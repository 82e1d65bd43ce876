package org.arbiter.gateway;

import static java.util.Objects.requireNonNull;

import java.util.Optional;

/**
 * A gateway's readiness and drain state: pure, with time passed in (nanoTime-style readings).
 *
 * <p>Readiness: {@code /ready} answers whether a load balancer should send this gateway new
 * requests. It is not ready (in this order of precedence) while
 * <ol>
 *   <li>{@link Reason#DRAINING draining}: from SIGTERM or {@code POST /drain} on, for good;</li>
 *   <li>{@link Reason#AWAITING_ALLOCATION awaiting its allocation}: with a Kafka bootstrap, until the
 *       first allocation from the GRM is applied, but at most {@code startupGraceNanos} after
 *       {@link #started} (the gateway listening); past the grace it serves on the configured
 *       allocation and says so;</li>
 *   <li>{@link Reason#NO_CAPACITY without capacity}: no server can take a request (no servers, every
 *       cap 0, or every server down) — the caller passes that in, read from the allocation in force.</li>
 * </ol>
 * A broker that goes away after the first allocation does not make the gateway unready: serving on
 * the last allocation is the intended behaviour.
 *
 * <p>Drain: {@link #beginDrain} fixes the deadline once; later calls return false and change nothing.
 *
 * <p>Thread-safe: every method is synchronized (they are called from the admin loop, the signal
 * thread and the data-plane loop, rarely).
 */
public final class Lifecycle {

    /** Why the gateway is not ready. */
    public enum Reason {
        DRAINING("draining"),
        AWAITING_ALLOCATION("awaitingAllocation"),
        NO_CAPACITY("noCapacity");

        private final String wireName;

        Reason(String wireName) {
            this.wireName = wireName;
        }

        /** The name in {@code /ready}'s JSON body. */
        public String wireName() {
            return wireName;
        }
    }

    /** The answer to {@code /ready}: ready, or not with a reason and a sentence for humans. */
    public record Readiness(Optional<Reason> reason, String detail) {
        public Readiness {
            requireNonNull(reason, "reason");
            requireNonNull(detail, "detail");
        }

        public boolean ready() {
            return reason.isEmpty();
        }
    }

    private boolean started;
    private long startNanos;
    private final long startupGraceNanos;
    private final long drainTimeoutNanos;
    private boolean awaitingAllocation;
    private boolean draining;
    private long drainStartNanos;

    /**
     * @param awaitAllocation   true with a Kafka bootstrap: not ready until the first GRM allocation (or the grace)
     * @param startupGraceNanos the longest wait for the first allocation after {@link #started}, ≥ 0
     * @param drainTimeoutNanos how long a drain may answer requests normally, ≥ 0
     */
    public Lifecycle(boolean awaitAllocation, long startupGraceNanos, long drainTimeoutNanos) {
        if (startupGraceNanos < 0) {
            throw new IllegalArgumentException("startupGraceNanos: " + startupGraceNanos + " (expected: >= 0)");
        }
        if (drainTimeoutNanos < 0) {
            throw new IllegalArgumentException("drainTimeoutNanos: " + drainTimeoutNanos + " (expected: >= 0)");
        }
        this.awaitingAllocation = awaitAllocation;
        this.startupGraceNanos = startupGraceNanos;
        this.drainTimeoutNanos = drainTimeoutNanos;
    }

    /** The gateway listens from {@code nowNanos} on: the start-up grace runs from here (first call only). */
    public synchronized void started(long nowNanos) {
        if (!started) {
            started = true;
            startNanos = nowNanos;
        }
    }

    /** The first allocation from the GRM was applied: the start-up wait is over. */
    public synchronized void allocationKnown() {
        awaitingAllocation = false;
    }

    /**
     * Starts the drain at {@code nowNanos}. Returns true the first time, false if already draining
     * (the deadline stays the first one).
     */
    public synchronized boolean beginDrain(long nowNanos) {
        if (draining) {
            return false;
        }
        draining = true;
        drainStartNanos = nowNanos;
        return true;
    }

    public synchronized boolean draining() {
        return draining;
    }

    /** When the drain started; meaningful once {@link #draining()}. */
    public synchronized long drainStartNanos() {
        return drainStartNanos;
    }

    /** When what is still queued or in flight gets 503; meaningful once {@link #draining()}. */
    public synchronized long drainDeadlineNanos() {
        return drainStartNanos + drainTimeoutNanos;
    }

    /**
     * Readiness at {@code nowNanos}.
     *
     * @param canServe whether at least one server can take a request under the allocation in force
     */
    public synchronized Readiness readiness(long nowNanos, boolean canServe) {
        if (draining) {
            return new Readiness(Optional.of(Reason.DRAINING), "the gateway is draining: it answers what it holds and exits");
        }
        if (awaitingAllocation) {
            long waited = started ? nowNanos - startNanos : 0;
            if (!started || waited < startupGraceNanos) {
                return new Readiness(Optional.of(Reason.AWAITING_ALLOCATION),
                        "no allocation from the GRM yet (start-up grace ends in "
                                + Math.max(1, (startupGraceNanos - waited) / 1_000_000) + " ms)");
            }
        }
        if (!canServe) {
            return new Readiness(Optional.of(Reason.NO_CAPACITY),
                    "no server can take a request (no servers, every cap 0, or every server down)");
        }
        return new Readiness(Optional.empty(), awaitingAllocation
                ? "serving on the configured allocation (no allocation from the GRM within the start-up grace)"
                : "ready");
    }
}
