package org.arbiter.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.arbiter.common.message.Decision;
import org.arbiter.grm.model.PredictionErrors;

/**
 * The GRM's decisions as an experiment reads them back (the simulator's sink, a live run's
 * subscription to the decisions topic): each prediction checked one statistics window later
 * ({@link PredictionErrors}), and the decisions kept for the {@link Timeline}. Thread-safe: a live
 * subscription feeds it on its own thread while the run reads it.
 */
public final class DecisionLog implements Consumer<Decision> {

    private final double windowSeconds;
    private final PredictionErrors errors;
    private final List<Decision> decisions = new ArrayList<>();

    /** @param windowSeconds W, the gateways' statistics window, in the decisions' own seconds */
    public DecisionLog(double windowSeconds) {
        this.windowSeconds = windowSeconds;
        this.errors = new PredictionErrors(windowSeconds, true);
    }

    /** Takes the next decision (in time order); null is ignored (a deleted record). */
    @Override
    public synchronized void accept(Decision d) {
        if (d != null) {
            errors.accept(d);
            decisions.add(d);
        }
    }

    /** Every checked prediction so far. */
    public synchronized List<PredictionErrors.Sample> samples() {
        return errors.samples();
    }

    /** 003 Fig. 10's queue lengths of the decisions so far (see {@link QueueLengths#of}). */
    public synchronized QueueLengths queueLengths(double originEpoch, double scale, List<Timeline.PhaseMark> phases) {
        return QueueLengths.of(List.copyOf(decisions), originEpoch, scale, phases);
    }

    /** The response-time timeline of the decisions so far (see {@link Timeline#of}). */
    public synchronized Timeline timeline(double originEpoch, double scale, List<Timeline.PhaseMark> phases,
                                          Map<String, Double> targets) {
        return Timeline.of(List.copyOf(decisions), originEpoch, scale, windowSeconds, phases, targets);
    }
}
