package org.arbiter.sim.experiment;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.arbiter.common.message.Decision;

/**
 * 003 Fig. 10: the queue length of each class at each gateway against time, and its mean per phase. Source:
 * the GRM's decisions, one per control period, each carrying per flow (gateway, class) the length of the
 * gateway's class queue when the gateway took its report (requests waiting, not those at a server). Times
 * are in the paper's seconds as in {@link Timeline}: a live run at time scale s divides them by s.
 *
 * @param phases     the phases, in order: name and start
 * @param series     per flow, keyed {@code gateway/class}: report times and queue lengths
 * @param phaseMeans per phase, per flow ({@code gateway/class}): the mean of its queue lengths in the phase
 */
public record QueueLengths(List<Timeline.PhaseMark> phases, Map<String, Series> series,
                           Map<String, Map<String, Double>> phaseMeans) {

    public QueueLengths {
        phases = List.copyOf(phases);
        series = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(series));
        phaseMeans = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(phaseMeans));
    }

    /** One flow's queue lengths: report times (s) and lengths. */
    public record Series(List<Double> seconds, List<Double> lengths) {
        public Series {
            seconds = List.copyOf(seconds);
            lengths = List.copyOf(lengths);
        }
    }

    /**
     * From decisions in time order.
     *
     * @param decisions   the GRM's decisions
     * @param originEpoch the epoch second that is time 0 (the load's start)
     * @param scale       the time scale (1 for a simulated run)
     * @param phases      the phases, starts in paper seconds; the last runs to the last decision
     */
    public static QueueLengths of(List<Decision> decisions, double originEpoch, double scale,
                                  List<Timeline.PhaseMark> phases) {
        requireNonNull(decisions, "decisions");
        requireNonNull(phases, "phases");
        if (!(scale > 0)) {
            throw new IllegalArgumentException("scale: " + scale + " (expected: > 0)");
        }
        Map<String, List<List<Double>>> acc = new TreeMap<>();
        Map<String, Map<String, double[]>> sums = new LinkedHashMap<>();
        phases.forEach(p -> sums.put(p.name(), new TreeMap<>()));
        for (Decision d : decisions) {
            double t = (d.at().getEpochSecond() + d.at().getNano() / 1e9 - originEpoch) / scale;
            if (t < 0) {
                continue;
            }
            String phase = phaseAt(phases, t);
            for (Decision.Flow f : d.flows()) {
                String key = f.gateway() + "/" + f.cls();
                List<List<Double>> a = acc.computeIfAbsent(key, k -> List.of(new ArrayList<>(), new ArrayList<>()));
                a.get(0).add(Experiments.round(t));
                a.get(1).add(f.queueLength());
                if (phase != null) {
                    double[] s = sums.get(phase).computeIfAbsent(key, k -> new double[2]);
                    s[0] += f.queueLength();
                    s[1]++;
                }
            }
        }
        Map<String, Series> series = new LinkedHashMap<>();
        acc.forEach((k, a) -> series.put(k, new Series(a.get(0), a.get(1))));
        Map<String, Map<String, Double>> means = new LinkedHashMap<>();
        sums.forEach((p, byFlow) -> {
            Map<String, Double> m = new TreeMap<>();
            byFlow.forEach((k, s) -> m.put(k, Experiments.round(s[0] / s[1])));
            means.put(p, m);
        });
        return new QueueLengths(phases, series, means);
    }

    /** The phase running at {@code t}, or null before the first. */
    private static String phaseAt(List<Timeline.PhaseMark> phases, double t) {
        String at = null;
        for (Timeline.PhaseMark p : phases) {
            if (t >= p.startSeconds()) {
                at = p.name();
            }
        }
        return at;
    }

    /** The mean queue length of {@code cls} over the gateways in phase {@code phase} (their sum: the class's backlog). */
    public double classTotal(String phase, String cls) {
        double sum = 0;
        for (var e : phaseMeans.getOrDefault(phase, Map.of()).entrySet()) {
            if (e.getKey().endsWith("/" + cls)) {
                sum += e.getValue();
            }
        }
        return sum;
    }
}
