package org.arbiter.gateway;

import org.arbiter.common.utility.YieldFunction;

/**
 * Chooses which class queue releases its head when a slot is free. A scheduler only decides; the
 * {@link GatewayCore} enforces (it calls {@link #next} only when some server has a free slot, and
 * dequeues, counts and dispatches itself).
 *
 * <p>Implementations may keep private state (a round-robin cursor) and are confined to the thread
 * that drives their core: not thread-safe. They live in {@code scheduler/}, with their factories in
 * {@code scheduler.Schedulers}; this contract names none of them.
 */
public interface Scheduler {

    /** The index of the class to release next, or -1 when every queue is empty. */
    int next(ClassView classes);

    /**
     * Whether the core drops, before each decision, every queue head that can earn no yield (002
     * Fig. 5 step 1, {@link DropReason#ZERO_YIELD}). True for the yield schedulers.
     */
    default boolean dropsZeroYield() {
        return false;
    }

    /** Read-only view of the class queues as the core sees them now. */
    interface ClassView {
        int classCount();

        /** Requests waiting in class c's queue. */
        int backlog(int c);

        /** Requests of class c at servers. */
        int inFlight(int c);

        /** w(g,c) in force (may be fractional, may be 0). */
        double weight(int c);

        /** The arrival sequence number of class c's head (smaller = earlier); meaningful if backlog > 0. */
        long headSequence(int c);

        // What the yield schedulers (002 §4) read. The defaults describe a view that measures
        // nothing: time 0, heads that just arrived, unit throughput yields with a 1 h deadline, no
        // service estimate, no consumption, no guarantees, no drops.

        /** The core's time now, ns. */
        default long nowNanos() {
            return 0;
        }

        /** When class c's head arrived, ns (its wait is {@code nowNanos() − headArrivalNanos(c)}); meaningful if backlog > 0. */
        default long headArrivalNanos(int c) {
            return nowNanos();
        }

        /** Class c's yield function (002 §2.2). */
        default YieldFunction yield(int c) {
            return YieldFunction.UNIT;
        }

        /** Class c's expected service time, s: an EWMA of its measured service times (0 before the first). */
        default double expectedServiceSeconds(int c) {
            return 0;
        }

        /**
         * Class c's decayed resource consumption u_c(t) of 002 eq. 2-3 (β = 0.95 per second), in seconds of
         * service; 0 when nothing was consumed. Every class's is given as of one instant (it may be the latest
         * completion rather than now: decaying all of them alike leaves their shares as they are).
         */
        default double consumption(int c) {
            return 0;
        }

        /** The same with a memory of a few seconds (β = 0.75 per second): what class c consumed just now. */
        default double recentConsumption(int c) {
            return consumption(c);
        }

        /** Class c's guaranteed share g_c ({@code classes[].minShare}, 002 §4). */
        default double minShare(int c) {
            return 0;
        }

        /** Requests the gateway dropped over arrivals, over the adaptive window (002 §4.2); 0 without arrivals. */
        default double dropRatio() {
            return 0;
        }
    }
}
