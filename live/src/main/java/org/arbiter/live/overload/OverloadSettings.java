package org.arbiter.live.overload;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * How an overload benchmark runs (docs/performance.md, "Overload").
 *
 * @param launcher          the command that runs {@code arbiter} (the gateway, the GRM, the simserver)
 * @param contenders        in the order each spike runs them
 * @param spikes            multiples of the capacity offered during the spike, one load run each
 * @param runs              passes over spikes × contenders (the table gives medians over them)
 * @param phaseSeconds      each of the three phases: 0.7 × capacity, the spike, 0.7 × capacity
 * @param baseLoad          the load before and after the spike, a multiple of the capacity
 * @param premiumShare      premium's share of the arrivals
 * @param premiumTarget     premium's target, seconds
 * @param basicTarget       basic's target, seconds
 * @param calibrateSeconds  how long the capacity is measured for
 * @param cores             the simserver's virtual CPUs
 * @param meanDemandSeconds its mean exponential demand
 * @param knee              its knee: the concurrency above which each request costs every other one {@code overhead}
 * @param overhead          its efficiency loss per request above the knee (003 Fig. 7)
 * @param timeoutSeconds    a request unanswered this long after it was due is counted timed out
 * @param binSeconds        the series' and the recovery times' resolution
 * @param haproxyQueueSeconds HAProxy's {@code timeout queue}
 * @param controlPeriodSeconds the GRM's period (the gateways report twice per period)
 * @param seed              the arrivals' and the demands' seed (run r uses seed + r − 1)
 */
public record OverloadSettings(List<String> launcher, List<Contender> contenders, List<Double> spikes, int runs,
                               double phaseSeconds, double baseLoad, double premiumShare, double premiumTarget,
                               double basicTarget, double calibrateSeconds, int cores, double meanDemandSeconds, int knee,
                               double overhead, double timeoutSeconds, double binSeconds, double haproxyQueueSeconds,
                               double controlPeriodSeconds, long seed) {

    public OverloadSettings {
        launcher = List.copyOf(requireNonNull(launcher, "launcher"));
        contenders = List.copyOf(contenders);
        spikes = List.copyOf(spikes);
        if (contenders.isEmpty()) {
            throw new IllegalArgumentException("--contenders: none (expected: at least one)");
        }
        if (spikes.isEmpty() || spikes.stream().anyMatch(s -> !(s > 0))) {
            throw new IllegalArgumentException("--spikes: " + spikes + " (expected: one or more multiples > 0)");
        }
        if (runs < 1) {
            throw new IllegalArgumentException("--runs: " + runs + " (expected: >= 1)");
        }
        if (!(phaseSeconds >= 2)) {
            throw new IllegalArgumentException("--seconds: " + phaseSeconds + " (expected: >= 2 seconds per phase)");
        }
    }

    /**
     * The set-up: 30 s phases, spikes 1.4, 3 and 10, three runs, every contender; a server of 8
     * cores, Exp(40 ms) demands, knee 8 (capacity about 200 requests/s; a demand above premium's
     * 500 ms target is a 1-in-270 000 event, so a premium request served without waiting makes its
     * target), overhead 0.02 per request above the knee.
     */
    public static OverloadSettings full(List<String> launcher, long seed) {
        return new OverloadSettings(launcher, List.of(Contender.values()), List.of(1.4, 3.0, 10.0), 3, 30, 0.7, 0.2, 0.5,
                2.0, 20, 8, 0.04, 8, 0.02, 10, 0.5, 1.0, 1.0, seed);
    }

    /** The same with shorter phases and one run (smoke runs, the suite). */
    public static OverloadSettings quick(List<String> launcher, long seed) {
        return full(launcher, seed).with(1, 8);
    }

    /** The same with {@code newRuns} runs of {@code newPhaseSeconds}-second phases. */
    public OverloadSettings with(int newRuns, double newPhaseSeconds) {
        return new OverloadSettings(launcher, contenders, spikes, newRuns, newPhaseSeconds, baseLoad, premiumShare,
                premiumTarget, basicTarget, Math.min(calibrateSeconds, Math.max(3, newPhaseSeconds)), cores,
                meanDemandSeconds, knee, overhead, timeoutSeconds, binSeconds, haproxyQueueSeconds, controlPeriodSeconds,
                seed);
    }

    /** The same against {@code newContenders} and {@code newSpikes}. */
    public OverloadSettings with(List<Contender> newContenders, List<Double> newSpikes) {
        return new OverloadSettings(launcher, newContenders, newSpikes, runs, phaseSeconds, baseLoad, premiumShare,
                premiumTarget, basicTarget, calibrateSeconds, cores, meanDemandSeconds, knee, overhead, timeoutSeconds,
                binSeconds, haproxyQueueSeconds, controlPeriodSeconds, seed);
    }
}
