package org.arbiter.sim.experiment;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Decision;

/*
 * Design note — response time against time, in the paper's seconds (issue 19, "charts in the
 * paper's terms").
 *
 * Source: the GRM's decisions, one per control period. Each carries, per flow (gateway, class), the
 * response time the gateway measured over its statistics window (t̃) and the one the flow model
 * predicts for the weight just chosen. A prediction made at t is about the window that follows, so
 * it is drawn at t + W, where the measurement that checks it is drawn: the two curves are then
 * comparable point by point (the prediction-error figures pair them the same way, with the extra
 * condition that the weight stayed as chosen). A class's value at a decision is the mean over the
 * gateways that report it (a measured 0: no completion in the window, left out; a prediction NaN
 * or 0: none, left out).
 *
 * Units: decisions carry epoch seconds and measured seconds; a live run at time scale s divides
 * both by s (a simulated run has s = 1 and origin 0), so every chart reads in 003's seconds.
 */

/**
 * Per class, the measured and the predicted response time against time, with the phases and the
 * targets, in the paper's seconds. See the design note.
 *
 * @param phases  the phases, in order: name and start
 * @param targets per class, its response-time target
 * @param classes per class, the two curves
 */
public record Timeline(List<PhaseMark> phases, Map<String, Double> targets, Map<String, Curves> classes) {

    public Timeline {
        phases = List.copyOf(phases);
        targets = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(targets));
        classes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(classes));
    }

    /** A phase's name and start, s. */
    public record PhaseMark(String name, double startSeconds) {
    }

    /**
     * One class's curves.
     *
     * @param measuredSeconds   when each measurement was reported, s
     * @param measured          the measured mean response time, s
     * @param predictedSeconds  when each prediction's window ends (made one window earlier), s
     * @param predicted         the predicted mean response time, s
     */
    public record Curves(List<Double> measuredSeconds, List<Double> measured, List<Double> predictedSeconds,
                         List<Double> predicted) {
        public Curves {
            measuredSeconds = List.copyOf(measuredSeconds);
            measured = List.copyOf(measured);
            predictedSeconds = List.copyOf(predictedSeconds);
            predicted = List.copyOf(predicted);
        }
    }

    /**
     * From decisions in time order.
     *
     * @param decisions     the GRM's decisions (others' classes are ignored)
     * @param originEpoch   the epoch second that is time 0 (the load's start)
     * @param scale         the time scale (1 for a simulated run): times and durations are divided by it
     * @param windowSeconds W, the statistics window, in the decisions' own (wall) seconds
     * @param phases        the phases, starts in paper seconds
     * @param targets       the classes to draw and their targets, paper seconds
     */
    public static Timeline of(List<Decision> decisions, double originEpoch, double scale, double windowSeconds,
                              List<PhaseMark> phases, Map<String, Double> targets) {
        requireNonNull(decisions, "decisions");
        if (!(scale > 0) || !(windowSeconds > 0)) {
            throw new IllegalArgumentException("scale " + scale + ", window " + windowSeconds + " (expected: > 0)");
        }
        Map<String, List<List<Double>>> acc = new LinkedHashMap<>();
        targets.keySet().forEach(c -> acc.put(c, List.of(new ArrayList<>(), new ArrayList<>(), new ArrayList<>(),
                new ArrayList<>())));
        for (Decision d : decisions) {
            double t = (d.at().getEpochSecond() + d.at().getNano() / 1e9 - originEpoch) / scale;
            if (t < 0) {
                continue;
            }
            for (String c : targets.keySet()) {
                double measuredSum = 0;
                int measuredN = 0;
                double predictedSum = 0;
                int predictedN = 0;
                for (Decision.Flow f : d.flows()) {
                    if (!f.cls().equals(c)) {
                        continue;
                    }
                    if (f.responseTime() > 0) {
                        measuredSum += f.responseTime();
                        measuredN++;
                    }
                    if (f.predictedResponseTime() > 0 && Double.isFinite(f.predictedResponseTime())) {
                        predictedSum += f.predictedResponseTime();
                        predictedN++;
                    }
                }
                List<List<Double>> a = acc.get(c);
                if (measuredN > 0) {
                    a.get(0).add(Experiments.round(t));
                    a.get(1).add(Experiments.round(measuredSum / measuredN / scale));
                }
                if (predictedN > 0) {
                    a.get(2).add(Experiments.round(t + windowSeconds / scale));
                    a.get(3).add(Experiments.round(predictedSum / predictedN / scale));
                }
            }
        }
        // a prediction whose window ends after the last decision was never checked: not drawn
        double last = acc.values().stream().flatMap(a -> a.get(0).stream()).mapToDouble(Double::doubleValue).max()
                .orElse(Double.NEGATIVE_INFINITY);
        Map<String, Curves> out = new LinkedHashMap<>();
        acc.forEach((c, a) -> {
            List<Double> pt = new ArrayList<>();
            List<Double> pv = new ArrayList<>();
            for (int i = 0; i < a.get(2).size(); i++) {
                if (a.get(2).get(i) <= last + 1e-9) {
                    pt.add(a.get(2).get(i));
                    pv.add(a.get(3).get(i));
                }
            }
            out.put(c, new Curves(a.get(0), a.get(1), pt, pv));
        });
        return new Timeline(phases, targets, out);
    }
}
