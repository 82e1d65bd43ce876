package org.arbiter.grm.control;

import java.util.Map;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.grm.Problem;

/**
 * What {@link FlowEstimator} (stage 1 of {@link GrmStep}) hands the problem builder for one period.
 *
 * @param serviceTimes per class, the smoothed S̃ (seconds); a class that has not completed a request yet is absent
 * @param deltaMu      per live flow, the PI term Δμ (req/s) of liu with {@code control.liu.pi}; empty otherwise
 */
record FlowEstimates(Map<String, Double> serviceTimes, Map<Problem.FlowId, Double> deltaMu) {

    /** No estimate yet: every flow falls back to what its gateway measured. */
    static final FlowEstimates NONE = new FlowEstimates(Map.of(), Map.of());

    FlowEstimates {
        serviceTimes = Map.copyOf(serviceTimes);
        deltaMu = Map.copyOf(deltaMu);
    }

    /** The class's smoothed S̃ when there is one, else what the flow's gateway measured (0: nothing). */
    double serviceTime(String cls, GatewayStats.ClassStats cs) {
        Double s = serviceTimes.get(cls);
        return s != null ? s : measuredServiceTime(cs);
    }

    /** S̃ as one gateway measured it over the window, the mean time its requests held a slot; 0 (not measured) without completions. */
    static double measuredServiceTime(GatewayStats.ClassStats cs) {
        double s = cs.meanServiceTime();
        return cs.throughput() > 0 && s > 0 && Double.isFinite(s) ? s : 0;
    }

    /**
     * The slots a flow held on average over the window, X̃·S̃ (Little's law at the servers): 003
     * §IV-C's "server threads concurrently executing" the flow, which under a work-conserving WRR
     * differs from its weight. 0 (not measured) without completions.
     */
    static double slotsInUse(GatewayStats.ClassStats cs) {
        double x = cs.throughput() * cs.meanServiceTime();
        return x > 0 && Double.isFinite(x) ? x : 0;
    }
}
