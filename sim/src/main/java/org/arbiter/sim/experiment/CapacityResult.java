package org.arbiter.sim.experiment;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code capacity} experiment's result (000 §7.4, Fig. 9-10).
 *
 * @param workloads      by name: cpu, then io
 * @param dropRatioBound ε_th
 * @param sampleSeconds  the estimators' sampling period T
 * @param periodSeconds  the sinusoid's period
 * @param seconds        the run's length: two periods
 */
public record CapacityResult(Map<String, Workload> workloads, double dropRatioBound, double sampleSeconds,
                             double periodSeconds, double seconds) {

    public CapacityResult {
        workloads = Collections.unmodifiableMap(new LinkedHashMap<>(workloads));
    }

    /**
     * One workload; figures in req/s unless named otherwise.
     *
     * @param reference      the mean of the ramps' capacities
     * @param estimates      each estimator's estimate at the end of the run
     * @param errorPercent   each estimate's error against the reference, %
     * @param referenceRamps the capacity each ramp found
     * @param dropRatio      dropped / arrived over the whole run
     * @param series         the run, sampled (at most 400 points)
     */
    public record Workload(double reference, Estimates estimates, Estimates errorPercent, List<Double> referenceRamps,
                           Server workload, Sinusoid sinusoid, double dropRatio, Series series) {

        public Workload {
            referenceRamps = List.copyOf(referenceRamps);
        }
    }

    /** One figure per estimator: queue monitoring, CPU utilisation, static. */
    public record Estimates(double queue, double utilization, @JsonProperty("static") double fixed) {
    }

    /** The server and its queue (see {@code CapacityExperiment}'s design note). */
    public record Server(int cores, double meanDemandSeconds, double ioFraction, int processes, int queueLimit,
                         double queueTimeoutSeconds, double nominalPerSecond) {
    }

    /** The load: its trough and peak rates and its period. The key order is the documented run's. */
    @JsonPropertyOrder({"peakPerSecond", "troughPerSecond", "periodSeconds"})
    public record Sinusoid(double troughPerSecond, double peakPerSecond, double periodSeconds) {
    }

    /** Columns of the sampled run, one entry per sample. */
    public record Series(List<Double> timeSeconds, List<Double> arrivalRate, List<Double> throughput,
                         List<Double> dropRatio, List<Double> queue, List<Double> utilization,
                         @JsonProperty("static") List<Double> fixed) {

        public Series {
            timeSeconds = List.copyOf(timeSeconds);
            arrivalRate = List.copyOf(arrivalRate);
            throughput = List.copyOf(throughput);
            dropRatio = List.copyOf(dropRatio);
            queue = List.copyOf(queue);
            utilization = List.copyOf(utilization);
            fixed = List.copyOf(fixed);
        }
    }
}
