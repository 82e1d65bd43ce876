package org.arbiter.sim.experiment;

import java.util.List;
import org.arbiter.grm.model.PredictionErrors;

/**
 * How far the GRM's flow model (003 eq. 8-9) was from what the gateways then measured, relative:
 * (predicted − measured) / measured, pairing each decision's prediction with the measurement one
 * statistics window later while the weight stayed as chosen (see {@link PredictionErrors}).
 *
 * @param meanAbs    mean |error| (null: no sample)
 * @param meanSigned mean error, > 0 when the model was pessimistic (null: no sample)
 * @param samples    the predictions checked
 */
public record PredictionError(Double meanAbs, Double meanSigned, int samples) {

    /**
     * Summed as the samples come, for runs too long to keep every sample (the scale experiment: 20 000
     * flows every 5 s); {@link #of(List, double, double)} sums a list through it.
     */
    public static final class Running {
        private final double from;
        private final double to;
        private double abs;
        private double signed;
        private int samples;

        /** The samples whose prediction was made at or after {@code from} and measured by {@code to}, s. */
        public Running(double from, double to) {
            this.from = from;
            this.to = to;
        }

        public void add(PredictionErrors.Sample s) {
            if (s.madeSeconds() >= from - 1e-9 && s.measuredSeconds() <= to + 1e-9) {
                abs += Math.abs(s.relative());
                signed += s.relative();
                samples++;
            }
        }

        public PredictionError result() {
            return samples == 0 ? new PredictionError(null, null, 0)
                    : new PredictionError(Experiments.round(abs / samples), Experiments.round(signed / samples), samples);
        }
    }

    /** Over the samples whose prediction was made at or after {@code from} and measured by {@code to}, s. */
    public static PredictionError of(List<PredictionErrors.Sample> all, double from, double to) {
        Running r = new Running(from, to);
        all.forEach(r::add);
        return r.result();
    }
}
