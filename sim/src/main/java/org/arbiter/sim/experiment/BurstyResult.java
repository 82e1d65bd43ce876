package org.arbiter.sim.experiment;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code bursty} experiment's result (001 Fig. 1, Fig. 3, Table 1; see {@link BurstyExperiment}).
 *
 * @param fig1        001 Fig. 1: Queueing Model Based Feedback Control (the queueing-model predictor with its
 *                    feedback loop, no queue term: {@code model-pi}), with its points
 * @param fig3        001 Fig. 3: 001's controller without PI ({@code liu}), with its points
 * @param controllers on the Fig. 1 set-up: model, model-pi, liu, liu-pi, queue-length
 * @param sweep       Table 1's shape: load × burstiness at D_ref = 0.1 s, model against liu
 * @param setup       the constants of the run
 */
public record BurstyResult(Run fig1, Run fig3, Map<String, Summary> controllers, List<SweepPoint> sweep, Setup setup) {

    public BurstyResult {
        controllers = Collections.unmodifiableMap(new LinkedHashMap<>(controllers));
        sweep = List.copyOf(sweep);
    }

    /**
     * Response-time statistics of one run.
     *
     * @param mean            mean of the per-request delays, s
     * @param variance        001's variance: that of the points (each the mean delay of 1 000 consecutive
     *                        requests, what 001's figures plot and its 1.2034 / 0.0051 measure), s²
     * @param requestVariance variance of the per-request delays, s²
     */
    public record Summary(double mean, double variance, double requestVariance) {
    }

    /**
     * One run with its points, for the delay-against-time charts; {@code variance} and
     * {@code requestVariance} as in {@link Summary}.
     *
     * @param pointSeconds when each point's last request completed, s
     * @param pointMeans   each point: the mean delay of 1 000 consecutive requests, s
     */
    public record Run(double mean, double variance, double requestVariance, List<Double> pointSeconds,
                      List<Double> pointMeans) {
        public Run {
            pointSeconds = List.copyOf(pointSeconds);
            pointMeans = List.copyOf(pointMeans);
        }

        /** From the delays in completion order and their completion times, {@code perPoint} per point. */
        static Run of(double[] delays, double[] completedAt, int perPoint) {
            int n = delays.length;
            double sum = 0;
            for (double d : delays) {
                sum += d;
            }
            double mean = sum / n;
            double sq = 0;
            for (double d : delays) {
                sq += (d - mean) * (d - mean);
            }
            int points = n / perPoint;
            Double[] times = new Double[points];
            Double[] means = new Double[points];
            double psq = 0;
            double pmean = 0;
            for (int p = 0; p < points; p++) {
                double s = 0;
                for (int i = p * perPoint; i < (p + 1) * perPoint; i++) {
                    s += delays[i];
                }
                means[p] = s / perPoint;
                times[p] = completedAt[(p + 1) * perPoint - 1];
                pmean += means[p] / points;
            }
            for (Double m : means) {
                psq += (m - pmean) * (m - pmean);
            }
            return new Run(mean, points > 1 ? psq / points : 0, sq / n, List.of(times), List.of(means));
        }

        public Summary summary() {
            return new Summary(mean, variance, requestVariance);
        }
    }

    /**
     * One Table 1 cell.
     *
     * @param load  mean arrival rate over capacity
     * @param burst On-period rate over the mean rate
     */
    public record SweepPoint(double load, double burst, Summary model, Summary liu) {
    }

    /** The constants: 001's source and target for Fig. 1/3, the gains, and the sweep's set-up. */
    public record Setup(long seed, int points, int requestsPerPoint, double paretoShape, double burstTimeSeconds,
                        double idleTimeSeconds, double intervalSeconds, double targetSeconds, double controlSeconds,
                        int rateWindowRequests, double liuK, double piKp, double piKi, double sweepTargetSeconds,
                        double sweepCapacityPerSecond, double sweepBurstTimeSeconds, double sweepControlSeconds,
                        int sweepPoints) {
    }
}
