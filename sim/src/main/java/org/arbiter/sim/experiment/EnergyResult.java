package org.arbiter.sim.experiment;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code energy} experiment's result (000 §7.5, Fig. 11-12).
 *
 * @param scenarios    by day (standard, lighter, heavier, and each again with noise: {@code standard-noisy} …),
 *                     then by policy, in run order
 * @param startupSweep the queue policy on the standard day for each start-up delay
 * @param shutdownSweep the queue policy on the standard day for each shutdown delay (start-up 60 s)
 * @param series       by demand, then by policy: the day per minute, for the charts
 * @param seeds        the seed sweep ({@code --seeds}); absent (not written) without it
 */
public record EnergyResult(Map<String, Map<String, Day>> scenarios, List<SweepPoint> startupSweep,
                           List<ShutdownPoint> shutdownSweep, Setup setup,
                           Map<String, Map<String, Series>> series,
                           @JsonInclude(JsonInclude.Include.NON_NULL) Seeds seeds) {

    public EnergyResult {
        scenarios = copy(scenarios);
        startupSweep = List.copyOf(startupSweep);
        shutdownSweep = List.copyOf(shutdownSweep);
        series = copy(series);
    }

    /** This result with the seed sweep. */
    public EnergyResult withSeeds(Seeds seeds) {
        return new EnergyResult(scenarios, startupSweep, shutdownSweep, setup, series, seeds);
    }

    /**
     * One compressed day of one policy.
     *
     * @param energyJoules        the servers' metered energy
     * @param savingsPercent      1 − E / E(off), % (0 for off itself)
     * @param droppedPercent      dropped / sent, %
     * @param dropped             rejected + timed out in the queue + lost
     * @param lost                sent to a server that was not on
     * @param meanServersOn       servers on, averaged over the GRM's periods
     * @param meanResponseSeconds over the day
     * @param predictionError     the GRM's flow-model error over the day (predictions made after its first
     *                            statistics window, checked while the weight stayed as chosen)
     */
    public record Day(long energyJoules, double savingsPercent, double droppedPercent, long dropped, long lost, long sent,
                      double meanServersOn, double meanResponseSeconds, PredictionError predictionError) {
    }

    /** The queue policy's day at one start-up delay (s). */
    public record SweepPoint(double startupSeconds, @JsonUnwrapped Day day) {
    }

    /** The queue policy's day at one shutdown delay (s). */
    public record ShutdownPoint(double shutdownSeconds, @JsonUnwrapped Day day) {
    }

    /** Columns over the day: time (s), servers on or booting, arrival rate (req/s), capacity estimate per server. */
    public record Series(List<Double> timeSeconds, List<Double> serversUp, List<Double> arrivalRate,
                         List<Double> capacityEstimate) {

        public Series {
            timeSeconds = List.copyOf(timeSeconds);
            serversUp = List.copyOf(serversUp);
            arrivalRate = List.copyOf(arrivalRate);
            capacityEstimate = List.copyOf(capacityEstimate);
        }
    }

    /**
     * The run's constants (see {@code EnergyExperiment}'s design note).
     *
     * @param demandFactors the demand per request of each day against the standard one
     * @param schedules     the timetables of the schedule policies, servers per slot
     * @param noise         σ of the noisy days' log-normal factor on the rate
     * @param noiseSeconds  how long one factor holds (simulated s)
     * @param wallSeconds   how long the experiment took (wall clock, so it varies between runs)
     */
    public record Setup(int servers, double daySeconds, double compression, int coresPerServer, double meanDemandSeconds,
                        Map<String, Double> demandFactors, double nominalCapacityPerServer,
                        double benchmarkCapacityPerServer, double peakRate, double troughRate, int queueLimit,
                        double queueTimeoutSeconds, double startupSeconds, double shutdownSeconds, double dropRatioBound,
                        double utilityFloor, Schedules schedules, double noise, double noiseSeconds, double wallSeconds) {

        public Setup {
            demandFactors = Collections.unmodifiableMap(new LinkedHashMap<>(demandFactors));
        }
    }

    /** The two timetables. The key order is the documented run's. */
    @JsonPropertyOrder({"schedule-2h", "schedule-30m"})
    public record Schedules(@JsonProperty("schedule-30m") List<Integer> thirtyMinutes,
                            @JsonProperty("schedule-2h") List<Integer> twoHours) {

        public Schedules {
            thirtyMinutes = List.copyOf(thirtyMinutes);
            twoHours = List.copyOf(twoHours);
        }
    }

    /**
     * The standard day over several seeds ({@code --seeds}).
     *
     * @param first the first seed
     * @param count how many seeds
     * @param queue the queue policy
     * @param fixed the static policy
     */
    public record Seeds(long first, int count, double targetSavingsPercent, double targetDroppedPercent, SeedPolicy queue,
                        @JsonProperty("static") SeedPolicy fixed) {

        /** One of {@code EnergyExperiment.SEED_POLICIES}: queue or static. */
        public SeedPolicy policy(EnergyPolicy policy) {
            return switch (policy) {
                case QUEUE -> queue;
                case STATIC -> fixed;
                default -> throw new IllegalArgumentException("policy: " + policy + " (expected: queue or static)");
            };
        }
    }

    /**
     * One policy over the seeds.
     *
     * @param seedsWithinDropBound the seeds that dropped at most the target
     * @param seedsAtTarget        the seeds that saved at least the target and dropped at most the target
     */
    public record SeedPolicy(double meanSavingsPercent, double minSavingsPercent, double maxSavingsPercent,
                             double maxDroppedPercent, int seedsWithinDropBound, int seedsAtTarget, List<SeedDay> perSeed) {

        public SeedPolicy {
            perSeed = List.copyOf(perSeed);
        }
    }

    /** One seed's standard day, with the policy's last capacity estimate per server (req/s). */
    public record SeedDay(long seed, @JsonUnwrapped Day day, double capacityEstimate) {
    }

    private static <V> Map<String, Map<String, V>> copy(Map<String, Map<String, V>> m) {
        Map<String, Map<String, V>> out = new LinkedHashMap<>();
        m.forEach((k, v) -> out.put(k, Collections.unmodifiableMap(new LinkedHashMap<>(v))));
        return Collections.unmodifiableMap(out);
    }
}
