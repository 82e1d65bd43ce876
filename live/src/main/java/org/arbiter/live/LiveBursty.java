package org.arbiter.live;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.loadgen.client.ResultRecorder;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.sim.experiment.BurstyExperiment;
import org.arbiter.sim.experiment.BurstyResult;
import org.arbiter.sim.experiment.Experiments;
import org.arbiter.sim.run.RunOutcome;
import org.arbiter.sim.run.RunSpec;
import org.arbiter.sim.run.SimulatedBackend;

/*
 * Design note — 001 §6's experiment live (experiment bursty --live).
 *
 * 001 §6 runs its controllers inside Apache: every control invocation sets the server's service
 * rate. Arbiter's actuator is the GRM's allocation of server slots among classes, so a single class
 * would simply get the whole cluster (the GRM has nothing to trade it against). The live run
 * therefore has two classes on one simserver behind one Netty gateway:
 *
 *   bursty  001's Pareto on/off source (shape 1.5, Burst_Time 1 s, Idle_Time 10 s, Interval 0.1 s,
 *           the Fig. 1 set-up) from the live load generator, target D_ref = 2 s;
 *   steady  closed-loop clients (50, think Exp(1 s), thinkTime configured), always backlogged, so
 *           every slot the bursty class does not hold is taken and the bursty class gets exactly
 *           the slots its weight gives it (the WRR lends it nothing while steady waits), target 2 s.
 *
 * The server has 10 virtual cores and N_s = 10 slots, demand Exp(0.5 s): one slot serves 2 req/s,
 * an On period brings 10 req/s. The GRM (combine: min) decides every Γ = 0.5 s on the gateway's
 * reports (every 0.5 s, statistics window 30 s) with prediction mm1 (`model`: 003 eq. 9 from the
 * window's λ̃ and t̃, the queueing-model predictor) or liu (001 Step 1-3 on the reported queue
 * length ℓ). Both controllers run on the same seed, so the load generator sends the same
 * arrival times to both (a paired comparison), and the simservers draw the same demands.
 *
 * The set-up is one run spec per controller (`spec`, in 001's seconds), run on the live backend
 * (LiveBackend: the simserver from the server's `sim` section, every duration × the time scale,
 * the delays reported back in 001's seconds) and, beside it, on the simulated backend: the same
 * two classes, server and GRM in virtual time (`simulatedSameSetUp` in result.json). The
 * simulator's Fig. 1 set-up (BurstyExperiment's single queue) is reported too (`simulated`).
 *
 * Measures: the bursty class's delay (the load generator's response time, intended start to
 * answer, which includes the gateway queue and the service) of every request whose intended start
 * is after the warm-up; mean, variance, and the variance of the means of consecutive groups of
 * POINT requests (001's figures plot means of 1 000; a short live run has a few hundred requests).
 * Runs on the caller's thread.
 */

/** 001 §6 live: model against liu on a real gateway, GRM and simserver. See the design note. */
public final class LiveBursty {

    /** The controllers run, in order: the GRM's prediction mode for each. */
    static final Map<String, ControlConfig.Prediction> CONTROLLERS = controllers();
    /** D_ref of the bursty class, s (001 Fig. 1). */
    static final double TARGET = 2;
    /** The steady class's target, s. */
    static final double STEADY_TARGET = 2;
    static final int CORES = 10;
    /** Mean service demand, s (Exp). */
    static final double DEMAND = 0.5;
    static final int STEADY_CLIENTS = 50;
    static final double THINK = 1;
    /** Γ and the report period, s. */
    static final double PERIOD = 0.5;
    static final double STATS_WINDOW = 30;
    /** Requests whose intended start is before this are not counted, s. */
    static final double WARM_UP = 20;
    /** Requests per point for the point variance. */
    static final int POINT = 50;

    private LiveBursty() {
    }

    private static Map<String, ControlConfig.Prediction> controllers() {
        Map<String, ControlConfig.Prediction> m = new LinkedHashMap<>();
        m.put("model", ControlConfig.Prediction.MM1);
        m.put("liu", ControlConfig.Prediction.LIU);
        return java.util.Collections.unmodifiableMap(m);
    }

    /**
     * Both controllers live, then the same set-up on the simulated backend, then the simulator's Fig. 1
     * set-up (single-queue mode) on the same seed.
     *
     * @param seconds the length of each controller's run in 001's seconds (wall time: × scale)
     * @param scale   time scale (0 < scale ≤ 1)
     */
    public static LiveResult.Bursty run(long seed, double seconds, double scale, Path work, Consumer<String> progress)
            throws Exception {
        if (!(seconds > WARM_UP + 10) || !(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("bursty --live: " + seconds + " s at scale " + scale
                    + " (expected: more than " + (WARM_UP + 10) + " s, 0 < scale <= 1)");
        }
        Files.createDirectories(work);
        progress.accept(String.format(Locale.ROOT, "live bursty: %s × %.0f s of wall time (%.0f s at scale %s)",
                CONTROLLERS.keySet(), seconds * scale, seconds, scale));
        Map<String, LiveResult.BurstyRun> live = new LinkedHashMap<>();
        try (EmbeddedKafka kafka = LiveRig.broker(work)) {
            LiveBackend backend = new LiveBackend(kafka, scale, work, "bursty");
            for (Map.Entry<String, ControlConfig.Prediction> c : CONTROLLERS.entrySet()) {
                LiveResult.BurstyRun r = summarise(backend.run(spec(c.getValue(), seconds, seed), Set.of("bursty")));
                live.put(c.getKey(), r);
                progress.accept(String.format(Locale.ROOT, "live bursty %-5s: %d requests, mean %.3f s (D_ref %.1f), "
                                + "variance of the points %.5f, per request %.4f; steady %.3f s; bursty weight %.2f (max %.0f), "
                                + "%d allocations", c.getKey(), r.requests(), r.mean(), TARGET, r.variance(),
                        r.requestVariance(), r.steadyMeanSeconds(), r.meanWeight(), r.maxWeight(), r.allocations()));
            }
        }
        Map<String, LiveResult.BurstyRun> sameSetUp = new LinkedHashMap<>();
        SimulatedBackend simulator = new SimulatedBackend();
        for (Map.Entry<String, ControlConfig.Prediction> c : CONTROLLERS.entrySet()) {
            sameSetUp.put(c.getKey(), summarise(simulator.run(spec(c.getValue(), seconds, seed), Set.of("bursty"))));
        }
        Map<String, BurstyResult.Summary> simulated = new LinkedHashMap<>();
        BurstyExperiment.Setup fig = BurstyExperiment.figureSetup(100);
        simulated.put("model", BurstyExperiment.simulate(fig, BurstyExperiment.Controller.MODEL, seed).summary());
        simulated.put("model-pi", BurstyExperiment.simulate(fig, BurstyExperiment.Controller.MODEL_PI, seed).summary());
        simulated.put("liu", BurstyExperiment.simulate(fig, BurstyExperiment.Controller.LIU, seed).summary());
        return new LiveResult.Bursty(live, seconds, scale, new LiveResult.BurstySetup(TARGET, STEADY_TARGET, CORES,
                DEMAND, STEADY_CLIENTS, THINK, PERIOD, STATS_WINDOW, WARM_UP, POINT), simulated, sameSetUp);
    }

    /**
     * The two-class set-up of one controller as a run spec, in 001's seconds: the one place it is
     * built, for the live and the simulated backend alike (see the design note).
     */
    static RunSpec spec(ControlConfig.Prediction prediction, double seconds, long seed) {
        ClassConfig.QueueConfig unbounded = new ClassConfig.QueueConfig(100_000, 3600);
        ClusterConfig cluster = ClusterConfig.builder()
                .addClass(ClassConfig.builder("bursty", TARGET).matchHeader("X-Class", "bursty").queue(unbounded).build())
                .addClass(ClassConfig.builder("steady", STEADY_TARGET).isDefault(true).queue(unbounded)
                        .thinkTimeSeconds(THINK).build())
                .addServer(ServerConfig.builder("s1", URI.create("http://127.0.0.1:9001")).concurrency(CORES)
                        .sim(ServerConfig.SimSpec.builder().cores(CORES).meanDemandSeconds(DEMAND).knee(CORES).build())
                        .build())
                .addGateway(GatewayConfig.builder("g1").build())
                .control(ControlConfig.builder().periodSeconds(PERIOD).reportPeriodSeconds(PERIOD)
                        .statsWindowSeconds(STATS_WINDOW).combine(ControlConfig.Combine.MIN).prediction(prediction).build())
                .build();
        Map<String, Scenario.RequestShape> classes = new LinkedHashMap<>();
        classes.put("bursty", Scenario.RequestShape.get(Map.of("X-Class", "bursty"), TARGET));
        classes.put("steady", Scenario.RequestShape.get(Map.of("X-Class", "steady"), 0));
        Scenario load = new Scenario(classes, THINK, 3600, seed, List.of(new Scenario.Phase("run", seconds,
                Map.of("steady", STEADY_CLIENTS), Map.of(), Map.of("bursty", new Scenario.Pareto(BurstyExperiment.SHAPE,
                        1, 10, 0.1)), Map.of())), List.of());
        return RunSpec.withGrm(cluster, load);
    }

    /** The bursty class's delays after the warm-up, from a run of {@link #spec} on either backend. */
    static LiveResult.BurstyRun summarise(RunOutcome o) {
        RunOutcome.Weight w = o.weights().getOrDefault("bursty", RunOutcome.Weight.NONE);
        return summarise(o.answersOf("bursty"), o.cls("steady").meanResponseSeconds(), w.mean(), w.max(),
                o.allocations());
    }

    /** The bursty class's delays after the warm-up; {@code requests} in 001's seconds. */
    static LiveResult.BurstyRun summarise(List<ResultRecorder.Request> requests, double steadyMean,
                                          double meanWeight, double maxWeight, long allocations) {
        List<ResultRecorder.Request> sorted = new ArrayList<>(requests);
        sorted.sort(java.util.Comparator.comparingDouble(ResultRecorder.Request::intendedStartSeconds));
        List<Double> delays = new ArrayList<>();
        long failed = 0;
        for (ResultRecorder.Request r : sorted) {
            if (r.intendedStartSeconds() < WARM_UP) {
                continue;
            }
            if (r.outcome() == ResultRecorder.Outcome.OK) {
                delays.add(r.responseSeconds());
            } else {
                failed++;
            }
        }
        double[] d = delays.stream().mapToDouble(Double::doubleValue).toArray();
        double mean = mean(d);
        double variance = variance(d, mean);
        int points = d.length / POINT;
        double[] pm = new double[points];
        for (int p = 0; p < points; p++) {
            double s = 0;
            for (int i = p * POINT; i < (p + 1) * POINT; i++) {
                s += d[i];
            }
            pm[p] = s / POINT;
        }
        double pointVariance = points < 2 ? Double.NaN : variance(pm, mean(pm));
        double max = 0;
        for (double x : d) {
            max = Math.max(max, x);
        }
        return new LiveResult.BurstyRun(d.length, failed, Experiments.round(mean), round6(pointVariance),
                round6(variance), points, Experiments.round(max), Experiments.round(steadyMean),
                Experiments.round(meanWeight), maxWeight, allocations);
    }

    private static double round6(double x) {
        return Double.isNaN(x) ? x : Math.round(x * 1e6) / 1e6;
    }

    private static double mean(double[] x) {
        double s = 0;
        for (double v : x) {
            s += v;
        }
        return x.length == 0 ? Double.NaN : s / x.length;
    }

    private static double variance(double[] x, double mean) {
        double s = 0;
        for (double v : x) {
            s += (v - mean) * (v - mean);
        }
        return x.length < 2 ? Double.NaN : s / x.length;
    }
}
