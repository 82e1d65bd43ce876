package org.arbiter.sim.experiment;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.arbiter.common.kafka.EmbeddedKafka;
import org.arbiter.common.utility.UtilityFunction;

/**
 * 003's {@code concurrency}, {@code phases} and {@code regions} experiments live (see
 * {@link LiveRig}): the same result shapes as {@link Experiments}, in the paper's units.
 */
public final class LiveExperiments {

    private static final UtilityFunction PREMIUM = UtilityFunction.pacifici(2, 1, 1, 1);
    private static final UtilityFunction BASIC = UtilityFunction.pacifici(3, 1, 1, 1);

    /** N_s points of the live Fig. 7 (the simulator sweeps 1..30; a live point costs wall time). */
    static final int[] CONCURRENCY_POINTS = {1, 2, 4, 6, 8, 9, 10, 11, 12, 15, 20, 25, 30};

    private LiveExperiments() {
    }

    /** Fig. 8-12 live: the four phases under the GRM. */
    public static Map<String, Object> phases(long seed, double secondsPerPhase, double scale, Path work,
                                             Consumer<String> progress) throws Exception {
        Files.createDirectories(work);
        String[][] phases = {{"A", "5", "5"}, {"B", "20", "20"}, {"C", "5", "20"}, {"D", "20", "5"}};
        progress.accept(String.format(Locale.ROOT, "live phases: 4 × %.1f s of wall time (scale %s)",
                secondsPerPhase * scale, scale));
        try (EmbeddedKafka kafka = LiveRig.broker(work)) {
            List<LiveRig.Phase> r = new LiveRig(kafka, work, scale).run(new LiveRig.Spec("wrr", true, 1, 10, 0),
                    phases, secondsPerPhase, seed, progress);
            List<Map<String, Object>> out = new ArrayList<>();
            for (LiveRig.Phase p : r) {
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("name", p.name());
                m.put("clients", Map.of("premium", p.premiumClients(), "basic", p.basicClients()));
                m.put("weights", Map.of("premium", Experiments.round(p.premiumWeight()),
                        "basic", Experiments.round(p.basicWeight())));
                m.put("meanResponseSeconds", Map.of("premium", Experiments.round(p.premiumResponse()),
                        "basic", Experiments.round(p.basicResponse())));
                m.put("throughputPerSecond", Experiments.round(p.throughput()));
                m.put("utility", Map.of("premium", Experiments.round(PREMIUM.utility(p.premiumResponse())),
                        "basic", Experiments.round(BASIC.utility(p.basicResponse()))));
                out.add(m);
                progress.accept(String.format(Locale.ROOT, "live phase %s: weights (%.2f, %.2f), R (%.2f s, %.2f s), X %.2f/s",
                        p.name(), p.premiumWeight(), p.basicWeight(), p.premiumResponse(), p.basicResponse(),
                        p.throughput()));
            }
            Map<String, Object> result = new LinkedHashMap<>();
            result.put("phases", out);
            result.put("timeScale", scale);
            return result;
        }
    }

    /** Fig. 7 live: throughput against N_s under 60 closed-loop clients, FCFS, no GRM. */
    public static Map<String, Object> concurrency(long seed, double secondsPerPoint, double scale, Path work,
                                                  Consumer<String> progress) throws Exception {
        return concurrency(seed, secondsPerPoint, scale, work, progress, CONCURRENCY_POINTS);
    }

    static Map<String, Object> concurrency(long seed, double secondsPerPoint, double scale, Path work,
                                           Consumer<String> progress, int[] concurrencyPoints) throws Exception {
        final int[] CONCURRENCY_POINTS = concurrencyPoints.clone();
        Files.createDirectories(work);
        progress.accept(String.format(Locale.ROOT, "live concurrency: %d points × %.1f s of wall time (scale %s)",
                CONCURRENCY_POINTS.length, secondsPerPoint * scale, scale));
        List<Map<String, Object>> points = new ArrayList<>();
        double[] x = new double[CONCURRENCY_POINTS.length];
        double best = 0;
        try (EmbeddedKafka kafka = LiveRig.broker(work)) {
            LiveRig rig = new LiveRig(kafka, work, scale);
            for (int i = 0; i < CONCURRENCY_POINTS.length; i++) {
                int n = CONCURRENCY_POINTS[i];
                LiveRig.Phase p = rig.run(new LiveRig.Spec("fcfs", false, 1, n, 0.03),
                        new String[][] {{"load", "0", "60"}}, secondsPerPoint, seed + n, progress).get(0);
                x[i] = p.throughput();
                best = Math.max(best, x[i]);
                points.add(Map.of("concurrency", n, "throughput", Experiments.round(x[i])));
                progress.accept(String.format(Locale.ROOT, "live concurrency N_s=%d: %.2f req/s", n, x[i]));
            }
        }
        int knee = CONCURRENCY_POINTS[CONCURRENCY_POINTS.length - 1];
        for (int i = 0; i < x.length; i++) {
            if (x[i] >= 0.95 * best) {
                knee = CONCURRENCY_POINTS[i];
                break;
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("points", points);
        out.put("knee", knee);
        out.put("timeScale", scale);
        return out;
    }

    /** Fig. 13-15 live: the 16 points for FCFS, priority, GRM and GRM with q = 10; one run per point. */
    public static Map<String, Object> regions(long seed, double secondsPerPoint, double scale, Path work,
                                              Consumer<String> progress) throws Exception {
        Files.createDirectories(work);
        progress.accept(String.format(Locale.ROOT, "live regions: 4 policies × 16 points × %.1f s of wall time (scale %s)",
                secondsPerPoint * scale, scale));
        Map<String, Object> policies = new LinkedHashMap<>();
        try (EmbeddedKafka kafka = LiveRig.broker(work)) {
            LiveRig rig = new LiveRig(kafka, work, scale);
            for (String[] v : Experiments.REGION_POLICIES) {
                List<Map<String, Object>> points = new ArrayList<>();
                int nonNegative = 0;
                double sum = 0;
                for (int p = 5; p <= 20; p += 5) {
                    for (int b = 5; b <= 20; b += 5) {
                        LiveRig.Phase r = rig.run(new LiveRig.Spec(v[1], Boolean.parseBoolean(v[3]),
                                Integer.parseInt(v[2]), 10, 0), new String[][] {{"x", Integer.toString(p), Integer.toString(b)}},
                                secondsPerPoint, seed + p * 100L + b, s -> { }).get(0);
                        double u = Math.min(PREMIUM.utility(r.premiumResponse()), BASIC.utility(r.basicResponse()));
                        points.add(Map.of("premium", p, "basic", b, "clusterUtility", Experiments.round(u)));
                        nonNegative += u >= 0 ? 1 : 0;
                        sum += u;
                        progress.accept(String.format(Locale.ROOT, "live regions %s (%d, %d): utility %.3f", v[0], p, b, u));
                    }
                }
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("points", points);
                m.put("nonNegative", nonNegative);
                m.put("meanUtility", Experiments.round(sum / 16));
                policies.put(v[0], m);
                progress.accept(String.format(Locale.ROOT, "live regions %s: %d non-negative points, mean utility %.3f",
                        v[0], nonNegative, sum / 16));
            }
        }
        Map<String, Object> out = new LinkedHashMap<>();
        out.put("policies", policies);
        out.put("timeScale", scale);
        return out;
    }
}
