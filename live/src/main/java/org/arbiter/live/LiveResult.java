package org.arbiter.live;

import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.sim.experiment.BurstyResult;
import org.arbiter.sim.experiment.ConcurrencyResult;
import org.arbiter.sim.experiment.PhasesResult;
import org.arbiter.sim.experiment.RegionsResult;
import org.arbiter.sim.experiment.Timeline;

/**
 * The result of a live experiment ({@code experiment NAME --live}), as result.json holds it: the
 * live run in the paper's units, the time scale it ran at, and the simulator's run of the same
 * seed under {@code simulated}. The live run's keys come first, as the simulated result's do.
 */
public sealed interface LiveResult {

    /** Every duration of the live run was multiplied by this. */
    double timeScale();

    /** 003 Fig. 7 live: the live points and knee, then the time scale, then the simulated run. */
    record Concurrency(@JsonUnwrapped ConcurrencyResult live, double timeScale, ConcurrencyResult simulated)
            implements LiveResult {
    }

    /** 003 Fig. 8-12 live: the live phases, then the time scale, then the simulated run. */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    record Phases(List<PhasesResult.Phase> phases, Timeline timeline, double timeScale, PhasesResult simulated,
                  LiveExperiments.GatewaysComparison haproxy) implements LiveResult {

        public Phases {
            phases = List.copyOf(phases);
        }

        /** Without the HAProxy comparison. */
        public Phases(List<PhasesResult.Phase> phases, Timeline timeline, double timeScale, PhasesResult simulated) {
            this(phases, timeline, timeScale, simulated, null);
        }

        /** Without a timeline. */
        public Phases(List<PhasesResult.Phase> phases, double timeScale, PhasesResult simulated) {
            this(phases, null, timeScale, simulated);
        }
    }

    /** 003 Fig. 13-15 live: the live policies, then the time scale, then the simulated run. */
    record Regions(@JsonUnwrapped RegionsResult live, double timeScale, RegionsResult simulated) implements LiveResult {
    }

    /**
     * 000 §7.5 live ({@link LiveEnergy}).
     *
     * @param live                    by policy, in run order (off first)
     * @param simulated               the same day (the same run spec) on the simulated backend, by policy
     * @param daySeconds              the day's length in the experiment's seconds
     * @param staticCapacityPerServer the benchmark's capacity the static policy was given (req/s)
     */
    record Energy(Map<String, LiveDay> live, Map<String, SimulatedDay> simulated, double daySeconds, double timeScale,
                  double staticCapacityPerServer) implements LiveResult {

        public Energy {
            live = Collections.unmodifiableMap(new LinkedHashMap<>(live));
            simulated = Collections.unmodifiableMap(new LinkedHashMap<>(simulated));
        }
    }

    /**
     * One live day, as the simservers metered it and the load generator counted it.
     *
     * @param energyJoules        metered by the simservers over the day's wall time from the start of the load
     * @param droppedPercent      dropped / sent, %
     * @param dropped             rejected + errors + timed out + lost
     * @param meanServersUp       servers on or booting, sampled every 50 ms of wall time
     * @param powerOffs           servers seen going off by the sampler
     * @param powerOns            servers seen coming back on by the sampler
     * @param meteredSeconds      the wall time the meters were read over
     * @param poweredServerSecondsMin server-seconds surely powered (samples on both sides agree)
     * @param poweredServerSecondsMax server-seconds possibly powered
     * @param meanResponseSeconds in the paper's seconds
     * @param savingsPercent      1 − P / P(off), % (0 for off itself), P the mean metered power (energy over the
     *                            metered seconds: a timer late on a busy machine lengthens one run's span)
     */
    record LiveDay(long energyJoules, double droppedPercent, long dropped, long rejected, long errors, long timedOut,
                   long lost, long sent, double meanServersUp, long powerOffs, long powerOns, double meteredSeconds,
                   double poweredServerSecondsMin, double poweredServerSecondsMax, double meanResponseSeconds,
                   double savingsPercent) {
    }

    /** The simulated day of one policy beside the live one. */
    record SimulatedDay(double savingsPercent, double droppedPercent, double meanServersOn) {
    }

    /**
     * 001 §6 live ({@link LiveBursty}): the bursty class's delays under each controller.
     *
     * @param live               by controller (model, liu), in run order
     * @param seconds            each run's length in 001's seconds
     * @param simulated          the simulator's Fig. 1 set-up on the same seed (single-server mode)
     * @param simulatedSameSetUp the live run's own set-up (the same run spec) on the simulated backend, by controller
     */
    record Bursty(Map<String, BurstyRun> live, double seconds, double timeScale, BurstySetup setup,
                  Map<String, BurstyResult.Summary> simulated, Map<String, BurstyRun> simulatedSameSetUp)
            implements LiveResult {

        public Bursty {
            live = Collections.unmodifiableMap(new LinkedHashMap<>(live));
            simulated = Collections.unmodifiableMap(new LinkedHashMap<>(simulated));
            simulatedSameSetUp = Collections.unmodifiableMap(new LinkedHashMap<>(simulatedSameSetUp));
        }
    }

    /**
     * One controller's live run, delays in 001's seconds, after the warm-up.
     *
     * @param requests          bursty requests answered
     * @param failed            bursty requests not answered (rejected, errors, timed out, lost)
     * @param variance          as in the simulator's result, 001's: the variance of the points, the means of
     *                          consecutive groups of {@code setup.pointRequests} requests (NaN with fewer than 2)
     * @param requestVariance   the variance of the per-request delays
     * @param points            how many such groups
     * @param steadyMeanSeconds the steady class's mean response time over the whole run
     * @param meanWeight        the bursty class's weight at the gateway, sampled every Γ
     * @param allocations       allocations the gateway received during the run
     */
    record BurstyRun(long requests, long failed, double mean, double variance, double requestVariance, int points,
                     double maxSeconds, double steadyMeanSeconds, double meanWeight, double maxWeight,
                     long allocations) {
    }

    /** The live bursty set-up, in 001's seconds (see {@link LiveBursty}). */
    record BurstySetup(double targetSeconds, double steadyTargetSeconds, int slots, double demandSeconds,
                       int steadyClients, double thinkSeconds, double periodSeconds, double statsWindowSeconds,
                       double warmUpSeconds, int pointRequests) {
    }
}
