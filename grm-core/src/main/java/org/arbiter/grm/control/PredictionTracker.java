package org.arbiter.grm.control;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.message.Decision;
import org.arbiter.grm.model.PredictionErrors;

/*
 * Design note — the GRM step's feedback: how well its own predictions did.
 *
 * What it computes, from each published decision (PredictionErrors pairs its predicted response
 * times, 003 eq. 8-9, with the measurement one statistics window W later, for flows whose weight
 * stayed as chosen):
 *
 * - ē_c, per class, a moving mean of the absolute relative error |e| = |t_pred − t_m| / t_m: each new
 *   sample moves it by ERROR_SMOOTHING of the difference, ē ← ē + 0.1·(|e| − ē), starting from
 *   ERROR_PRIOR (0.1) — also what is assumed before the class's first check. It sizes the damping of
 *   the next periods (DampedSolver).
 * - The samples of the last RECENT_ERROR_WINDOWS statistics windows (by the time they were measured),
 *   summarised per class as mean |e| and a count: what the decisions carry, and so the GRM's meter
 *   and the console.
 *
 * Not thread-safe: one control thread (or the simulator) calls it, after stamping.
 */

/** The step's record of its own prediction errors: ē_c for the damping, recent summaries for the decisions. */
final class PredictionTracker {

    /** How much of the difference a new error sample moves ē_c. */
    static final double ERROR_SMOOTHING = 0.1;
    /** ē_c assumed until the class's first prediction has been checked (one statistics window after the first decision). */
    static final double ERROR_PRIOR = 0.1;
    /** How many statistics windows back the reported prediction error looks. */
    static final int RECENT_ERROR_WINDOWS = 4;

    private final double windowSeconds;
    private final PredictionErrors ownErrors;
    private final Deque<PredictionErrors.Sample> recentErrors = new ArrayDeque<>();
    private final Map<String, Double> meanError = new TreeMap<>();

    /** @param windowSeconds W, the gateways' statistics window */
    PredictionTracker(double windowSeconds) {
        this.windowSeconds = windowSeconds;
        this.ownErrors = new PredictionErrors(windowSeconds, false);
    }

    /** Checks the predictions {@code d} resolves and forgets the samples measured before the recent windows. */
    void track(Decision d, double nowSeconds) {
        for (PredictionErrors.Sample s : ownErrors.accept(d)) {
            double e = Math.abs(s.relative());
            if (Double.isFinite(e)) {
                recentErrors.addLast(s);
                meanError.merge(s.cls(), ERROR_PRIOR + ERROR_SMOOTHING * (e - ERROR_PRIOR),
                        (old, x) -> old + ERROR_SMOOTHING * (e - old));
            }
        }
        double from = nowSeconds - RECENT_ERROR_WINDOWS * windowSeconds;
        while (!recentErrors.isEmpty() && recentErrors.peekFirst().measuredSeconds() < from) {
            recentErrors.pollFirst();
        }
    }

    /** ē_c for each of {@code classes}, in their order ({@value #ERROR_PRIOR} before the first check). */
    Map<String, Double> meanErrors(List<ClassConfig> classes) {
        Map<String, Double> errors = new LinkedHashMap<>();
        classes.forEach(c -> errors.put(c.name(), meanError.getOrDefault(c.name(), ERROR_PRIOR)));
        return errors;
    }

    /** Per class with any checked, ē_c. */
    Map<String, Double> meanErrors() {
        return Map.copyOf(meanError);
    }

    /**
     * Per class, the mean absolute relative prediction error over the predictions checked in the last
     * {@value #RECENT_ERROR_WINDOWS} statistics windows (measured then), every gateway's flows together;
     * a class with none checked there is absent.
     */
    Map<String, PredictionErrors.Summary> recent() {
        Map<String, List<PredictionErrors.Sample>> byClass = new TreeMap<>();
        recentErrors.forEach(s -> byClass.computeIfAbsent(s.cls(), c -> new ArrayList<>()).add(s));
        Map<String, PredictionErrors.Summary> out = new TreeMap<>();
        byClass.forEach((c, list) -> out.put(c, PredictionErrors.Summary.of(list)));
        return out;
    }

    /** {@link #recent()} as the decision carries it. */
    Map<String, Decision.PredictionError> recentForDecision() {
        Map<String, Decision.PredictionError> out = new LinkedHashMap<>();
        recent().forEach((c, s) -> out.put(c, new Decision.PredictionError(s.meanAbs(), s.samples())));
        return out;
    }

    /** Per flow, the latest checked prediction, by gateway then class. */
    Map<String, Map<String, PredictionErrors.Sample>> latest() {
        return ownErrors.latest();
    }
}
