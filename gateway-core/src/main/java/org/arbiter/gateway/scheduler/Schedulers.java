package org.arbiter.gateway.scheduler;

import org.arbiter.common.config.Choice;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.gateway.Scheduler;

/**
 * The {@link Scheduler}s by name and by configuration ({@code dispatch.scheduler}): the static
 * factories, kept beside the implementations so that the contract imports none of them.
 * Each call returns a new scheduler (they keep private state); thread-safe.
 */
public final class Schedulers {

    private Schedulers() {
    }

    /** 003's dynamic-boundary WRR over w(g,c) (003 §III-A, docs/gateway.md). */
    public static Scheduler ofWeightedRoundRobin() {
        return new WeightedRoundRobin();
    }

    /** One queue in arrival order across classes: 003's FCFS baseline (003 §V-C). */
    public static Scheduler ofFcfs() {
        return new Fcfs();
    }

    /** Static priority in file order (class 0 first): 003's other baseline (003 §V-C). */
    public static Scheduler ofPriority() {
        return new StaticPriority();
    }

    /**
     * 002's node-level scheduler (002 Fig. 5, Table 1) with its step-2b policy: edf, yid, greedy, or
     * adaptive (yid, greedy while more than {@code adaptive.dropRatio} of arrivals were dropped).
     */
    public static Scheduler ofYield(YieldScheduler.Policy policy, DispatchConfig.Adaptive adaptive) {
        return new YieldScheduler(policy, adaptive.dropRatio());
    }

    /**
     * The scheduler named in {@code dispatch.scheduler}, with the default adaptive switch.
     *
     * @throws IllegalArgumentException for an unknown name
     */
    public static Scheduler named(String name) {
        return of(Choice.find(DispatchConfig.Scheduler.class, name).orElseThrow(() -> new IllegalArgumentException(
                "dispatch.scheduler: " + name + " (expected: wrr, fcfs, priority, edf, yid, greedy or adaptive)")));
    }

    /** The scheduler {@code dispatch.scheduler} names, with the default adaptive switch. */
    public static Scheduler of(DispatchConfig.Scheduler kind) {
        return of(DispatchConfig.builder().scheduler(kind).build());
    }

    /** The scheduler {@code dispatch} configures. */
    public static Scheduler of(DispatchConfig dispatch) {
        return switch (dispatch.scheduler()) {
            case WRR -> ofWeightedRoundRobin();
            case FCFS -> ofFcfs();
            case PRIORITY -> ofPriority();
            case EDF -> ofYield(YieldScheduler.Policy.EDF, dispatch.adaptive());
            case YID -> ofYield(YieldScheduler.Policy.YID, dispatch.adaptive());
            case GREEDY -> ofYield(YieldScheduler.Policy.GREEDY, dispatch.adaptive());
            case ADAPTIVE -> ofYield(YieldScheduler.Policy.ADAPTIVE, dispatch.adaptive());
        };
    }
}
