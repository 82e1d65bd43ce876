package org.arbiter.sim.experiment;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code distribution} experiment's result (002 Fig. 11): aggregate yield of Neptune's random polling
 * and of server partitioning, per workload, demand and cluster size; and the node-level scheduler check
 * (YID against Greedy behind random polling on 16 servers).
 *
 * @param workloads      search and micro → the runs
 * @param schedulerCheck LossPercent of yid and greedy on 16 servers, search, behind random polling, per demand
 * @param setup          the constants of the run
 */
public record DistributionResult(Map<String, List<Point>> workloads, SchedulerCheck schedulerCheck, Setup setup) {

    public DistributionResult {
        workloads = Collections.unmodifiableMap(new LinkedHashMap<>(workloads));
    }

    /**
     * One run.
     *
     * @param policy          neptune or partitioning
     * @param demand          arrival demand, 1 = servers / mean service time
     * @param yieldPerSecond  realised yield per measured second
     * @param normalised      yieldPerSecond over Neptune's at the highest demand on the most servers
     * @param lossPercent     002's LossPercent
     * @param lost            requests lost as errors (no node answered)
     */
    public record Point(String policy, int servers, double demand, double yieldPerSecond, double normalised,
                        double lossPercent, long lost) {
    }

    /** LossPercent per scheduler at each demand. */
    public record SchedulerCheck(int servers, List<Double> demand, Map<String, List<Double>> lossPercent) {
        public SchedulerCheck {
            demand = List.copyOf(demand);
            lossPercent = Collections.unmodifiableMap(new LinkedHashMap<>(lossPercent));
        }
    }

    /**
     * @param pollCount           d
     * @param pollDeadlineSeconds polls answered later are discarded
     * @param pollRttSeconds      mean poll round trip (exponential)
     * @param intervalSeconds     server partitioning's interval
     */
    public record Setup(long seed, double warmupSeconds, double seconds, int pollCount, double pollDeadlineSeconds,
                        double pollRttSeconds, double intervalSeconds, double deadlineSeconds, String scheduler) {
    }
}
