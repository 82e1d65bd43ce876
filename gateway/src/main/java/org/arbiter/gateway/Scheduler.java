package org.arbiter.gateway;

import org.arbiter.common.config.Choice;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.gateway.scheduler.Fcfs;
import org.arbiter.gateway.scheduler.StaticPriority;
import org.arbiter.gateway.scheduler.WeightedRoundRobin;

/**
 * Chooses which class queue releases its head when a slot is free. A scheduler only decides; the
 * {@link GatewayCore} enforces (it calls {@link #next} only when some server has a free slot, and
 * dequeues, counts and dispatches itself).
 *
 * <p>Implementations may keep private state (a round-robin cursor) and are confined to the thread
 * that drives their core: not thread-safe.
 */
public interface Scheduler {

    /** The index of the class to release next, or -1 when every queue is empty. */
    int next(ClassView classes);

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
    }

    /** 003's dynamic-boundary WRR over w(g,c) (003 §III-A, docs/gateway.md). */
    static Scheduler ofWeightedRoundRobin() {
        return new WeightedRoundRobin();
    }

    /** One queue in arrival order across classes: 003's FCFS baseline (003 §V-C). */
    static Scheduler ofFcfs() {
        return new Fcfs();
    }

    /** Static priority in file order (class 0 first): 003's other baseline (003 §V-C). */
    static Scheduler ofPriority() {
        return new StaticPriority();
    }

    /**
     * The scheduler named in {@code dispatch.scheduler}. 002's edf, yid, greedy and adaptive (002 §4.2)
     * are reserved names: their seam is this interface, they are not implemented yet.
     *
     * @throws IllegalArgumentException for an unknown or not yet implemented name
     */
    static Scheduler named(String name) {
        return of(Choice.find(DispatchConfig.Scheduler.class, name).orElseThrow(() -> new IllegalArgumentException(
                "dispatch.scheduler: " + name + " (expected: wrr, fcfs or priority)")));
    }

    /**
     * The scheduler {@code dispatch.scheduler} names.
     *
     * @throws IllegalArgumentException for a reserved, not yet implemented one
     */
    static Scheduler of(DispatchConfig.Scheduler kind) {
        return switch (kind) {
            case WRR -> ofWeightedRoundRobin();
            case FCFS -> ofFcfs();
            case PRIORITY -> ofPriority();
            case EDF, YID, GREEDY, ADAPTIVE -> throw new IllegalArgumentException(
                    "dispatch.scheduler: " + kind + " (expected: wrr, fcfs or priority; " + kind + " is not implemented yet)");
        };
    }
}
