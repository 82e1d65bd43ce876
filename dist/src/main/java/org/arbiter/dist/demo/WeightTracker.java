package org.arbiter.dist.demo;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Time-averaged weights each gateway enforced: fed with every allocation a gateway took and
 * when, it integrates w(g,c) as a step function and answers the average over any interval.
 *
 * <p>Thread-safe (synchronized): fed from a Kafka thread, read by the demo's main thread.
 */
public final class WeightTracker {

    private record Step(double atSeconds, Map<String, Double> weights) {
    }

    private final Map<String, List<Step>> steps = new TreeMap<>();

    /** Gateway {@code gateway} enforces {@code weights} from {@code atSeconds} on. */
    public synchronized void record(String gateway, double atSeconds, Map<String, Double> weights) {
        requireNonNull(gateway, "gateway");
        List<Step> list = steps.computeIfAbsent(gateway, g -> new ArrayList<>());
        if (!list.isEmpty() && atSeconds < list.get(list.size() - 1).atSeconds()) {
            atSeconds = list.get(list.size() - 1).atSeconds();
        }
        list.add(new Step(atSeconds, Map.copyOf(weights)));
    }

    /** Per gateway, per class: the time average of w(g,c) over [from, to]; gateways with no data are absent. */
    public synchronized Map<String, Map<String, Double>> average(double fromSeconds, double toSeconds) {
        Map<String, Map<String, Double>> out = new TreeMap<>();
        if (!(toSeconds > fromSeconds)) {
            return out;
        }
        steps.forEach((g, list) -> {
            Map<String, Double> integral = new TreeMap<>();
            double covered = 0;
            for (int i = 0; i < list.size(); i++) {
                double start = Math.max(fromSeconds, list.get(i).atSeconds());
                double end = Math.min(toSeconds, i + 1 < list.size() ? list.get(i + 1).atSeconds() : Double.POSITIVE_INFINITY);
                if (end <= start) {
                    continue;
                }
                double span = end - start;
                covered += span;
                list.get(i).weights().forEach((c, w) -> integral.merge(c, w * span, Double::sum));
            }
            if (covered > 0) {
                double total = covered;
                Map<String, Double> avg = new TreeMap<>();
                integral.forEach((c, v) -> avg.put(c, v / total));
                out.put(g, avg);
            }
        });
        return out;
    }
}
