package org.arbiter.sim.experiment;

import com.fasterxml.jackson.annotation.JsonInclude;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code yield} experiment's result (002 Fig. 8-10): LossPercent against demand for each
 * workload, yield shape and policy, and the per-class breakdown of Differentiated Search with the
 * hybrid yield at the highest demand.
 *
 * @param workloads search and micro → yield shape (hybrid, throughput, response-time) → curve
 * @param breakdown policy → class → completions and response times (search, hybrid, highest demand)
 * @param setup     the constants of the run
 */
public record YieldResult(Map<String, Map<String, Curve>> workloads, Map<String, Map<String, ClassBreakdown>> breakdown,
                          Setup setup) {

    public YieldResult {
        workloads = ordered(workloads);
        breakdown = ordered(breakdown);
    }

    /** LossPercent (0-100) at each demand (1.0 = the capacity found for EDF), per policy (edf, yid, greedy, adaptive). */
    public record Curve(List<Double> demand, Map<String, List<Double>> lossPercent) {
        public Curve {
            demand = List.copyOf(demand);
            lossPercent = ordered(lossPercent);
        }
    }

    /** One class under one policy: completions per second, mean and 95th-percentile response time (s) of the completed. */
    public record ClassBreakdown(double throughput, double meanResponse, double p95Response) {
    }

    /**
     * @param seed              the seed
     * @param servers           servers, one request at a time each
     * @param warmupSeconds     simulated before measuring, per run
     * @param seconds           measured, per run
     * @param capacityPerSecond per workload, the arrival rate taken as 100 % demand: the highest at which
     *                          EDF (hybrid yield) completes 95 % of the requests within D, found by bisection
     * @param breakdownDemand   the demand of {@code breakdown}
     * @param classes           the classes: share of requests, full yield, mean service time per workload (s)
     * @param layout            null for the default (pooled: one gateway queue per class in front of {@code servers}
     *                          one-request servers); "pooled" or "per-node" (16 nodes, each with its own class queues
     *                          and {@code threadsPerNode} threads, behind random polling of {@code pollCount} nodes)
     * @param arrivals          null for the default (Poisson); "poisson" or "mmpp" (see {@code mmpp})
     * @param threadsPerNode    per-node only: requests a node serves at once
     * @param pollCount         per-node only: nodes polled per request (the least loaded is sent the request)
     * @param pollDeadlineSeconds per-node only: polls answered later are discarded (round trips Exp(1 ms))
     * @param mmpp              mmpp only: rate factor 1 ± {@code amplitude}, dwell in each state Exp with mean
     *                          {@code dwellMeanSeconds}
     * @param interArrivalCv    mmpp only: per workload, the inter-arrival std-dev / mean measured over
     *                          {@code cvSeconds} of arrivals at 100 % demand, per class and over all ("all")
     */
    @JsonInclude(JsonInclude.Include.NON_NULL)
    public record Setup(long seed, int servers, double warmupSeconds, double seconds, Map<String, Double> capacityPerSecond,
                        double breakdownDemand, double deadlineSeconds, double preDeadlineSeconds, List<ClassSetup> classes,
                        String layout, String arrivals, Integer threadsPerNode, Integer pollCount,
                        Double pollDeadlineSeconds, MmppSetup mmpp, Map<String, Map<String, Double>> interArrivalCv) {
        public Setup {
            capacityPerSecond = ordered(capacityPerSecond);
            classes = List.copyOf(classes);
            interArrivalCv = interArrivalCv == null ? null : ordered(interArrivalCv);
        }

        /** The default run's set-up: pooled, Poisson (none of the later fields is written). */
        public Setup(long seed, int servers, double warmupSeconds, double seconds, Map<String, Double> capacityPerSecond,
                     double breakdownDemand, double deadlineSeconds, double preDeadlineSeconds, List<ClassSetup> classes) {
            this(seed, servers, warmupSeconds, seconds, capacityPerSecond, breakdownDemand, deadlineSeconds, preDeadlineSeconds,
                    classes, null, null, null, null, null, null, null);
        }
    }

    /** The two-rate MMPP: rates × (1 ± amplitude), exponential dwell per state with the given mean; CV measured over cvSeconds. */
    public record MmppSetup(double amplitude, double dwellMeanSeconds, double cvSeconds) {
    }

    /** A class: its share of the requests, full yield C (C' = C/2 for hybrid), mean service per workload (s). */
    public record ClassSetup(String name, double share, double fullYield, double searchServiceSeconds,
                             double microServiceSeconds) {
    }

    private static <K, V> Map<K, V> ordered(Map<K, V> m) {
        return Collections.unmodifiableMap(new LinkedHashMap<>(m));
    }
}
