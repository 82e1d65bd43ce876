package org.arbiter.sim.experiment;

import java.util.List;

/**
 * The {@code phases} experiment's result (003 Fig. 8-12).
 *
 * @param combine                        the GRM's objective, min (003 eq. 2b) or sum (eq. 2a)
 * @param phases                         one row per phase, A to D
 * @param simulatedRequestsPerWallSecond the simulator's speed (wall clock, so it varies between runs)
 * @param timeline                       measured and predicted response time against time, per class
 *                                       (null: not recorded)
 * @param relative                       the same run with both utilities on the relative scale (null: not run)
 * @param paperModel                     the same runs with the GRM on 003's own model ({@code grm.model: paper},
 *                                       eq. 8-9 as printed), its own {@code relative} beside it (null: not run)
 * @param queues                         003 Fig. 10: each class's queue length at each gateway against time,
 *                                       and its mean per phase (null: not recorded)
 */
@com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
public record PhasesResult(String combine, List<Phase> phases, long simulatedRequestsPerWallSecond, Timeline timeline,
                           PhasesResult relative, PhasesResult paperModel, QueueLengths queues) {

    public PhasesResult {
        phases = List.copyOf(phases);
    }

    /** On the absolute scale only (utilities with φ = 1 in both classes). */
    public PhasesResult(String combine, List<Phase> phases, long simulatedRequestsPerWallSecond, Timeline timeline) {
        this(combine, phases, simulatedRequestsPerWallSecond, timeline, null, null, null);
    }

    /**
     * This result with {@code relative}, the same experiment with both classes' utilities on the relative
     * scale (φ_c = 1/τ_c, {@code utility.scale: relative}), beside it.
     */
    public PhasesResult withRelative(PhasesResult relative) {
        return new PhasesResult(combine, phases, simulatedRequestsPerWallSecond, timeline, relative, paperModel, queues);
    }

    /** This result with 003 Fig. 10's queue lengths. */
    public PhasesResult withQueues(QueueLengths q) {
        return new PhasesResult(combine, phases, simulatedRequestsPerWallSecond, timeline, relative, paperModel, q);
    }

    /** This result with {@code paper}, the same experiment on 003's own model ({@code grm.model: paper}), beside it. */
    public PhasesResult withPaperModel(PhasesResult paper) {
        return new PhasesResult(combine, phases, simulatedRequestsPerWallSecond, timeline, relative, paper, queues);
    }

    /** Without a timeline. */
    public PhasesResult(String combine, List<Phase> phases, long simulatedRequestsPerWallSecond) {
        this(combine, phases, simulatedRequestsPerWallSecond, null);
    }

    /** Combined with min (003 eq. 2b, the paper's choice for Fig. 8-12). */
    public PhasesResult(List<Phase> phases, long simulatedRequestsPerWallSecond) {
        this("min", phases, simulatedRequestsPerWallSecond);
    }

    /**
     * One phase; every figure rounded by {@link Experiments#round}.
     *
     * @param weights             w(g1, c) averaged over the phase's second half
     * @param meanResponseSeconds per class, s
     * @param throughputPerSecond both classes, req/s
     * @param utility             each class's utility (eq. 7, on the run's scale) at its mean response time
     * @param predictionError     the flow model's relative error over the phase, both classes (null
     *                            where no model ran, e.g. a live run's row)
     */
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Phase(String name, PerClass<Integer> clients, PerClass<Double> weights,
                        PerClass<Double> meanResponseSeconds, double throughputPerSecond, PerClass<Double> utility,
                        PredictionError predictionError) {
        public Phase(String name, PerClass<Integer> clients, PerClass<Double> weights,
                     PerClass<Double> meanResponseSeconds, double throughputPerSecond, PerClass<Double> utility) {
            this(name, clients, weights, meanResponseSeconds, throughputPerSecond, utility, null);
        }

        /** This row with the model's error. */
        public Phase withPredictionError(PredictionError e) {
            return new Phase(name, clients, weights, meanResponseSeconds, throughputPerSecond, utility, e);
        }
    }
}
