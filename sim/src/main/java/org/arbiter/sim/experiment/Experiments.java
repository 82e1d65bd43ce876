package org.arbiter.sim.experiment;

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
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.GrmConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.utility.UtilityFunction;
import org.arbiter.grm.model.PredictionErrors;
import org.arbiter.sim.SimResult;
import org.arbiter.sim.SimScenario;
import org.arbiter.sim.Simulator;

/**
 * 003 §V's reference experiments in the simulator: {@code concurrency} (Fig. 7), {@code phases}
 * (Fig. 8-12) and {@code regions} (Fig. 13-15). Each returns its result as a record that
 * {@link ResultJson} writes as result.json. Deterministic under the seed. Not thread-safe (runs on the caller's thread).
 */
public final class Experiments {

    private Experiments() {
    }

    /** 003 §V's clients think Exp(1 s) between an answer and their next request; the GRM's model is told so. */
    static final double THINK_SECONDS = 1;

    /** 003 §V's cluster: premium τ = 2 s, basic τ = 3 s, φ = α = β = 1, combine min, one server N_s = 10, demand Exp(1 s). */
    public static ClusterConfig paperCluster(DispatchConfig.Scheduler scheduler, int granularity, int concurrency,
                                             double overhead) {
        return paperCluster(scheduler, granularity, concurrency, overhead, ControlConfig.Combine.MIN);
    }

    /** As above with the GRM's objective {@code combine} (003 eq. 2a sum, 2b min). */
    public static ClusterConfig paperCluster(DispatchConfig.Scheduler scheduler, int granularity, int concurrency,
                                             double overhead, ControlConfig.Combine combine) {
        return paperCluster(scheduler, granularity, concurrency, overhead, combine, ClassConfig.UtilitySpec.Scale.ABSOLUTE);
    }

    /** As above with both classes' utilities on {@code scale} (φ = 1: absolute, or 1/τ_c relative). */
    public static ClusterConfig paperCluster(DispatchConfig.Scheduler scheduler, int granularity, int concurrency,
                                             double overhead, ControlConfig.Combine combine,
                                             ClassConfig.UtilitySpec.Scale scale) {
        return paperCluster(scheduler, granularity, concurrency, overhead, combine, scale, GrmConfig.Model.FLOW);
    }

    /** As above with the GRM's flow model {@code model} ({@code grm.model}: flow, or 003 eq. 8-9 as printed). */
    public static ClusterConfig paperCluster(DispatchConfig.Scheduler scheduler, int granularity, int concurrency,
                                             double overhead, ControlConfig.Combine combine,
                                             ClassConfig.UtilitySpec.Scale scale, GrmConfig.Model model) {
        ClassConfig.QueueConfig unbounded = new ClassConfig.QueueConfig(100_000, 3600);
        ClassConfig.UtilitySpec utility = new ClassConfig.UtilitySpec(1, 1, 1, scale);
        return ClusterConfig.builder()
                .addClass(ClassConfig.builder("premium", 2).matchHeader("X-Class", "premium").queue(unbounded)
                        .utility(utility).thinkTimeSeconds(THINK_SECONDS).build())
                .addClass(ClassConfig.builder("basic", 3).isDefault(true).queue(unbounded).utility(utility)
                        .thinkTimeSeconds(THINK_SECONDS).build())
                .addServer(ServerConfig.builder("s1", URI.create("http://127.0.0.1:9001")).concurrency(concurrency)
                        .sim(ServerConfig.SimSpec.builder().cores(10).meanDemandSeconds(1).overhead(overhead).knee(10).build())
                        .build())
                .addGateway(GatewayConfig.builder("g1").port(8080).build())
                .dispatch(DispatchConfig.builder().scheduler(scheduler).build())
                .control(ControlConfig.builder().periodSeconds(5).reportPeriodSeconds(5).statsWindowSeconds(30)
                        .combine(combine).granularity(granularity).build())
                .grm(GrmConfig.DEFAULT.withModel(model))
                .build();
    }

    /** Fig. 7: throughput against N_s = 1..30 under heavy closed-loop load (60 clients, think 1 s). */
    public static ConcurrencyResult concurrency(long seed, double secondsPerPoint, Consumer<String> progress) {
        int[] ns = new int[30];
        double[] x = new double[30];
        for (int n = 1; n <= 30; n++) {
            SimScenario sc = new SimScenario(1, List.of(new SimScenario.Phase("load", secondsPerPoint,
                    Map.of("basic", 60), null)), seed + n);
            SimResult r = Simulator.withConfiguredAllocation(paperCluster(DispatchConfig.Scheduler.FCFS, 1, n, 0.03), sc).run();
            ns[n - 1] = n;
            x[n - 1] = r.phases().get(0).classes().get("basic").throughputPerSecond();
            progress.accept(String.format(Locale.ROOT, "concurrency N_s=%d: %.2f req/s", n, x[n - 1]));
        }
        return concurrencyResult(ns, x);
    }

    /** Fig. 7's result: the points and the knee, the smallest N_s reaching 95 % of the peak throughput. */
    public static ConcurrencyResult concurrencyResult(int[] ns, double[] throughput) {
        List<ConcurrencyResult.Point> points = new ArrayList<>();
        double best = 0;
        for (int i = 0; i < ns.length; i++) {
            points.add(new ConcurrencyResult.Point(ns[i], round(throughput[i])));
            best = Math.max(best, throughput[i]);
        }
        int knee = ns[ns.length - 1];
        for (int i = 0; i < ns.length; i++) {
            if (throughput[i] >= 0.95 * best) {
                knee = ns[i];
                break;
            }
        }
        return new ConcurrencyResult(points, knee);
    }

    /** Fig. 8-12: the four phases; weights averaged over each phase's second half. */
    public static PhasesResult phases(long seed, double secondsPerPhase, Consumer<String> progress) {
        return phases(seed, secondsPerPhase, ControlConfig.Combine.MIN, progress);
    }

    /**
     * Fig. 8-12 with the GRM combining class utilities by {@code combine}; each phase also reports the
     * flow model's prediction error over the predictions made once the phase's first statistics
     * window has passed (a model fed the previous phase's load cannot foresee the change).
     */
    public static PhasesResult phases(long seed, double secondsPerPhase, ControlConfig.Combine combine,
                                      Consumer<String> progress) {
        return phases(seed, secondsPerPhase, combine, ClassConfig.UtilitySpec.Scale.ABSOLUTE, progress);
    }

    /** As above with both classes' utilities on {@code scale} (003 eq. 7 with φ = 1 or φ_c = 1/τ_c). */
    public static PhasesResult phases(long seed, double secondsPerPhase, ControlConfig.Combine combine,
                                      ClassConfig.UtilitySpec.Scale scale, Consumer<String> progress) {
        return phases(seed, secondsPerPhase, combine, scale, GrmConfig.Model.FLOW, progress);
    }

    /** As above with the GRM's flow model {@code model} ({@code grm.model}). */
    public static PhasesResult phases(long seed, double secondsPerPhase, ControlConfig.Combine combine,
                                      ClassConfig.UtilitySpec.Scale scale, GrmConfig.Model model,
                                      Consumer<String> progress) {
        SimScenario sc = new SimScenario(1, PaperPhase.simPhases(secondsPerPhase), seed);
        ClusterConfig cluster = paperCluster(DispatchConfig.Scheduler.WRR, 1, 10, 0, combine, scale, model);
        double window = cluster.control().statsWindowSeconds();
        DecisionLog log = new DecisionLog(window);
        SimResult r = Simulator.withGrm(cluster, sc).withDecisions(log).run();
        List<PhasesResult.Phase> phases = new ArrayList<>();
        List<Timeline.PhaseMark> marks = new ArrayList<>();
        String label = (model == GrmConfig.Model.PAPER ? "paper-model " : "")
                + (scale == ClassConfig.UtilitySpec.Scale.RELATIVE ? "relative phase" : "phase");
        for (int i = 0; i < r.phases().size(); i++) {
            SimResult.PhaseResult p = r.phases().get(i);
            PaperPhase phase = PaperPhase.values()[i];
            var pr = p.classes().get("premium");
            var br = p.classes().get("basic");
            Map<String, Double> w = p.weightsSecondHalf().get("g1");
            PredictionError e = PredictionError.of(log.samples(), p.startSeconds() + window, p.endSeconds());
            marks.add(new Timeline.PhaseMark(p.name(), p.startSeconds()));
            phases.add(phaseRow(p.name(), phase.premiumClients(), phase.basicClients(), w.get("premium"), w.get("basic"),
                    pr.meanResponseSeconds(), br.meanResponseSeconds(),
                    pr.throughputPerSecond() + br.throughputPerSecond(), scale, label, progress).withPredictionError(e));
            progress.accept(String.format(Locale.ROOT, "%s %s: prediction error mean |e| %s, mean e %s over %d",
                    label, p.name(), e.meanAbs(), e.meanSigned(), e.samples()));
        }
        Timeline timeline = log.timeline(0, 1, marks, TARGETS);
        QueueLengths queues = log.queueLengths(0, 1, marks);
        for (PhasesResult.Phase p : phases) {
            progress.accept(String.format(Locale.ROOT, "%s %s: mean queue premium %.2f, basic %.2f (003 Fig. 10)",
                    label, p.name(),
                    queues.classTotal(p.name(), "premium"), queues.classTotal(p.name(), "basic")));
        }
        return new PhasesResult(combine.wireName(), phases, Math.round(r.requestsPerWallSecond()), timeline)
                .withQueues(queues);
    }

    static final UtilityFunction PREMIUM = UtilityFunction.pacifici(2, 1, 1, 1);
    static final UtilityFunction BASIC = UtilityFunction.pacifici(3, 1, 1, 1);
    /** 003 §V's targets, s, for the charts. */
    public static final Map<String, Double> TARGETS = orderedTargets();

    private static Map<String, Double> orderedTargets() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("premium", 2.0);
        m.put("basic", 3.0);
        return java.util.Collections.unmodifiableMap(m);
    }

    /** One row of the phases result (weights, mean responses in s, throughput in req/s), reported to {@code progress}. */
    public static PhasesResult.Phase phaseRow(String name, int premiumClients, int basicClients, double premiumWeight,
                                             double basicWeight, double premiumResponse, double basicResponse,
                                             double throughput, String label, Consumer<String> progress) {
        return phaseRow(name, premiumClients, basicClients, premiumWeight, basicWeight, premiumResponse, basicResponse,
                throughput, ClassConfig.UtilitySpec.Scale.ABSOLUTE, label, progress);
    }

    /** As above, the utilities on {@code scale} (relative: divided by the class's target). */
    public static PhasesResult.Phase phaseRow(String name, int premiumClients, int basicClients, double premiumWeight,
                                             double basicWeight, double premiumResponse, double basicResponse,
                                             double throughput, ClassConfig.UtilitySpec.Scale scale, String label,
                                             Consumer<String> progress) {
        ClassConfig.UtilitySpec spec = new ClassConfig.UtilitySpec(1, 1, 1, scale);
        double tp = TARGETS.get("premium");
        double tb = TARGETS.get("basic");
        double up = UtilityFunction.pacifici(tp, spec.phiAt(tp), 1, 1).utility(premiumResponse);
        double ub = UtilityFunction.pacifici(tb, spec.phiAt(tb), 1, 1).utility(basicResponse);
        PhasesResult.Phase row = new PhasesResult.Phase(name, new PerClass<>(premiumClients, basicClients),
                new PerClass<>(round(premiumWeight), round(basicWeight)),
                new PerClass<>(round(premiumResponse), round(basicResponse)), round(throughput),
                new PerClass<>(round(up), round(ub)));
        progress.accept(String.format(Locale.ROOT, "%s %s: weights (%.2f, %.2f), R (%.2f s, %.2f s), X %.2f/s",
                label, name, premiumWeight, basicWeight, premiumResponse, basicResponse, throughput));
        return row;
    }

    /** The regions experiment's policies: name, scheduler, granularity q, GRM on. */
    /** Fig. 13-15: cluster utility over {5,10,15,20}² clients for FCFS, priority, GRM and GRM with q = 10. */
    public static RegionsResult regions(long seed, double secondsPerPoint, Consumer<String> progress) {
        return regions(seed, secondsPerPoint, ControlConfig.Combine.MIN, progress);
    }

    /**
     * Fig. 13-15 with the GRM combining by {@code combine}; every point's cluster utility is
     * combined the same way (min: eq. 2b, sum: eq. 2a), so the baselines are judged by the same
     * objective, and every GRM point reports the flow model's prediction error.
     */
    public static RegionsResult regions(long seed, double secondsPerPoint, ControlConfig.Combine combine,
                                        Consumer<String> progress) {
        try {
            return regions(progress, "regions", combine, (v, p, b) -> {
                SimScenario sc = new SimScenario(1, List.of(new SimScenario.Phase("x", secondsPerPoint,
                        Map.of("premium", p, "basic", b), null)), seed + p * 100L + b);
                ClusterConfig cluster = paperCluster(v.scheduler(), v.granularity(), 10, 0, combine);
                double window = cluster.control().statsWindowSeconds();
                PredictionErrors errors = new PredictionErrors(window, true);
                SimResult r = Simulator.of(cluster, sc, v.control()).withDecisions(errors::accept).run();
                PredictionError e = v.withGrm()
                        ? PredictionError.of(errors.samples(), window, secondsPerPoint) : null;
                return new PointResult(r.phases().get(0).classes().get("premium").meanResponseSeconds(),
                        r.phases().get(0).classes().get("basic").meanResponseSeconds(), e);
            });
        } catch (Exception e) {
            throw new IllegalStateException(e); // the simulator throws nothing checked
        }
    }

    /** One point's outcome: mean responses (s) and, where a GRM ran, its model's error (else null). */
    public record PointResult(double premiumSeconds, double basicSeconds, PredictionError predictionError) {
    }

    /** One point of the regions experiment. */
    @FunctionalInterface
    public interface RegionPoint {
        double[] responses(RegionPolicy policy, int premiumClients, int basicClients) throws Exception;
    }

    /** One point of the regions experiment, with the model's error. */
    @FunctionalInterface
    public interface RegionPointResult {
        PointResult run(RegionPolicy policy, int premiumClients, int basicClients) throws Exception;
    }

    /** The regions experiment over any way of running a point (simulated or live), combined by min. */
    public static RegionsResult regions(Consumer<String> progress, String label, RegionPoint point) throws Exception {
        return regions(progress, label, ControlConfig.Combine.MIN, (v, p, b) -> {
            double[] r = point.responses(v, p, b);
            return new PointResult(r[0], r[1], null);
        });
    }

    /** The regions experiment over any way of running a point, the cluster utility combined by {@code combine}. */
    public static RegionsResult regions(Consumer<String> progress, String label, ControlConfig.Combine combine,
                                        RegionPointResult point) throws Exception {
        Map<String, RegionsResult.Policy> policies = new LinkedHashMap<>();
        for (RegionPolicy v : RegionPolicy.values()) {
            List<RegionsResult.Point> points = new ArrayList<>();
            int nonNegative = 0;
            double sum = 0;
            for (int p = 5; p <= 20; p += 5) {
                for (int b = 5; b <= 20; b += 5) {
                    PointResult r = point.run(v, p, b);
                    double up = PREMIUM.utility(r.premiumSeconds());
                    double ub = BASIC.utility(r.basicSeconds());
                    double u = combine == ControlConfig.Combine.SUM ? up + ub : Math.min(up, ub);
                    points.add(new RegionsResult.Point(p, b, round(u), r.predictionError()));
                    nonNegative += u >= 0 ? 1 : 0;
                    sum += u;
                }
            }
            policies.put(v.label(), new RegionsResult.Policy(points, nonNegative, round(sum / 16)));
            progress.accept(String.format(Locale.ROOT, "%s %s: %d non-negative points, mean utility %.3f",
                    label, v.label(), nonNegative, sum / 16));
        }
        return new RegionsResult(combine.wireName(), policies);
    }

    public static double round(double d) {
        return Math.round(d * 1000) / 1000.0;
    }
}
