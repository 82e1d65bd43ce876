package org.arbiter.sim.experiment;

import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.sim.SimResult;
import org.arbiter.sim.SimScenario;
import org.arbiter.sim.Simulator;

/*
 * Design note — the scale run (issue #7: "100 gateways, 1 000 servers, 20 classes, one simulated
 * hour").
 *
 * The cluster is generated: classes c01..c20 with targets from 0.5 s to 5 s (the utility of 003 eq. 7
 * with φ = α = β = 1, combine min), servers of 10 virtual cores and N_s = 10 with demand Exp(1 s)
 * (10 req/s each, 10 000 req/s in all), gateways g001..g100. The load is open-loop Poisson, class
 * c_k's rate proportional to k, spread over the gateways as an L4 switch would: 60 % of capacity for
 * the first half, 85 % with the mix reversed for the second, so the GRM has something to move.
 * Everything else is the product's code unchanged: every gateway a GatewayCore, the GRM's GrmStep
 * every 5 s over 100 × 20 = 2 000 flows and 10 000 slots (granularity 1).
 */

/** The simulator's scale run. See the design note. */
public final class ScaleExperiment {

    private ScaleExperiment() {
    }

    /** The generated cluster (class targets rounded to the millisecond). */
    public static ClusterConfig cluster(int gateways, int servers, int classes) {
        ClusterConfig.Builder b = ClusterConfig.builder();
        for (int c = 1; c <= classes; c++) {
            double target = 0.5 + 4.5 * (c - 1) / Math.max(1, classes - 1);
            b.addClass(ClassConfig.builder(name(c), BigDecimal.valueOf(target).setScale(3, RoundingMode.HALF_UP).doubleValue())
                    .queue(100_000, 60).isDefault(c == classes).build());
        }
        ServerConfig.SimSpec sim = ServerConfig.SimSpec.builder().cores(10).meanDemandSeconds(1).build();
        for (int s = 1; s <= servers; s++) {
            b.addServer(ServerConfig.builder(String.format(Locale.ROOT, "s%04d", s), URI.create("http://127.0.0.1:" + (10000 + s)))
                    .concurrency(10).sim(sim).build());
        }
        for (int g = 1; g <= gateways; g++) {
            b.addGateway(GatewayConfig.builder(String.format(Locale.ROOT, "g%03d", g)).port(20000 + g).adminPort(30000 + g)
                    .build());
        }
        return b.control(ControlConfig.builder().periodSeconds(5).reportPeriodSeconds(5).statsWindowSeconds(30)
                .combine(ControlConfig.Combine.MIN).granularity(1).build()).build();
    }

    private static String name(int c) {
        return String.format(Locale.ROOT, "c%02d", c);
    }

    /**
     * Runs it.
     *
     * @param simulatedSeconds one hour in the issue; less for a quick look
     */
    public static ScaleResult run(int gateways, int servers, int classes, double simulatedSeconds, long seed,
                                          Consumer<String> progress) {
        long built = System.nanoTime();
        ClusterConfig config = cluster(gateways, servers, classes);
        double capacity = servers * 10.0;
        double weightSum = classes * (classes + 1) / 2.0;
        Map<String, Double> first = new LinkedHashMap<>();
        Map<String, Double> second = new LinkedHashMap<>();
        for (int c = 1; c <= classes; c++) {
            first.put(name(c), 0.60 * capacity * c / weightSum);
            second.put(name(c), 0.85 * capacity * (classes + 1 - c) / weightSum);
        }
        SimScenario sc = new SimScenario(1, List.of(
                new SimScenario.Phase("first", simulatedSeconds / 2, null, first),
                new SimScenario.Phase("second", simulatedSeconds / 2, null, second)), seed);
        progress.accept(String.format(Locale.ROOT, "scale: %d gateways, %d servers, %d classes, %.0f simulated s "
                + "(configuration built in %.1f s)", gateways, servers, classes, simulatedSeconds,
                (System.nanoTime() - built) / 1e9));
        double window = config.control().statsWindowSeconds();
        org.arbiter.grm.model.PredictionErrors errors = new org.arbiter.grm.model.PredictionErrors(window, true);
        Simulator sim = Simulator.withGrm(config, sc).withoutCapLog().withDecisions(errors::accept)
                .withProgress(progress, Math.max(60, simulatedSeconds / 20));
        SimResult r = sim.run();
        List<ScaleResult.Phase> phases = new ArrayList<>();
        for (SimResult.PhaseResult p : r.phases()) {
            long sent = 0;
            long ok = 0;
            long rejected = 0;
            double worst = 0;
            for (SimResult.ClassResult c : p.classes().values()) {
                sent += c.sent();
                ok += c.ok();
                rejected += c.rejected();
                worst = Math.max(worst, c.meanResponseSeconds());
            }
            PredictionError e = PredictionError.of(errors.samples(), p.startSeconds() + window, p.endSeconds());
            phases.add(new ScaleResult.Phase(p.name(), sent, ok, rejected,
                    Experiments.round(ok / (p.endSeconds() - p.startSeconds())), Experiments.round(worst), e));
            progress.accept(String.format(Locale.ROOT, "scale %s: prediction error mean |e| %s, mean e %s over %d",
                    p.name(), e.meanAbs(), e.meanSigned(), e.samples()));
        }
        return new ScaleResult(gateways, servers, classes, gateways * classes, servers * 10, simulatedSeconds,
                r.simulatedRequests(), Experiments.round(r.wallSeconds()), r.allocations().size(),
                Experiments.round(sim.controlWallSeconds()), r.allocations().isEmpty() ? 0
                : Experiments.round(sim.controlWallSeconds() / r.allocations().size()),
                Math.round(r.requestsPerWallSecond()), phases);
    }
}
