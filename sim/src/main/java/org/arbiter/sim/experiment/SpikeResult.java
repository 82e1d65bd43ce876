package org.arbiter.sim.experiment;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code spike} experiment's result (002 Fig. 12): each class's demand and allocation (share of the
 * cluster's server time) every two seconds, under Neptune and under server partitioning, and the
 * figures the targets read.
 *
 * @param runs  neptune and partitioning → the run
 * @param setup the constants
 */
public record SpikeResult(Map<String, Run> runs, Setup setup) {

    public SpikeResult {
        runs = Collections.unmodifiableMap(new LinkedHashMap<>(runs));
    }

    /**
     * @param time       end of each 2 s sample (s)
     * @param demand     class → demand share per sample
     * @param allocation class → allocation share per sample
     * @param summary    the figures the targets read
     */
    public record Run(List<Double> time, Map<String, List<Double>> demand, Map<String, List<Double>> allocation,
                      Summary summary) {
        public Run {
            time = List.copyOf(time);
            demand = Collections.unmodifiableMap(new LinkedHashMap<>(demand));
            allocation = Collections.unmodifiableMap(new LinkedHashMap<>(allocation));
        }
    }

    /**
     * Shares in percent of the cluster.
     *
     * @param goldBefore        Gold's mean allocation over 20-50 s
     * @param goldMinSpike      Gold's lowest 10 s rolling-mean allocation during the spike (50-150 s)
     * @param bronzeMinSpike    Bronze's lowest 10 s rolling-mean allocation during the spike (50-150 s)
     * @param bronzeMinSettled  the same from 80 s on (after 30 s, when β = 0.95's memory of the consumption before has faded)
     * @param bronzeMeanSpike   Bronze's mean allocation in 60-150 s
     * @param goldBeforeFailure Gold's mean allocation over 170-200 s
     * @param goldMinFailure    Gold's lowest 10 s rolling-mean allocation over 200-220 s
     * @param lostToFailure     requests lost when the server failed
     * @param lossPercent       LossPercent over the run
     */
    public record Summary(double goldBefore, double goldMinSpike, double bronzeMinSpike, double bronzeMinSettled,
                          double bronzeMeanSpike,
                          double goldBeforeFailure, double goldMinFailure, long lostToFailure, double lossPercent) {
        public double goldSpikeDip() {
            return goldBefore - goldMinSpike;
        }

        public double goldFailureDip() {
            return goldBeforeFailure - goldMinFailure;
        }
    }

    /** @param spikeFactor Silver's arrival rate during the spike over its rate before */
    public record Setup(long seed, int servers, double minShare, double spikeFactor, double spikeFrom, double spikeTo,
                        double failAt, double recoverAt, double sampleSeconds, double seconds) {
    }
}
