package org.arbiter.sim.experiment;

import java.lang.management.ManagementFactory;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.function.Consumer;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.PoolConfig;
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

    /**
     * The generated cluster split into {@code pools} pools p01..pP: servers in contiguous blocks of (nearly)
     * equal size, classes dealt in snake order (c01 to p01, …, then back from pP), so that every pool holds a mix
     * of targets and about the same load in both phases (the first phase's load grows with the class number, the
     * second's falls: with P = 10 each pool gets classes c and 21 − c, exactly a tenth of each phase's load).
     * 0 pools: {@link #cluster} unchanged.
     */
    public static ClusterConfig cluster(int gateways, int servers, int classes, int pools) {
        ClusterConfig one = cluster(gateways, servers, classes);
        if (pools == 0) {
            return one;
        }
        if (pools < 1 || pools > classes || pools > servers) {
            throw new IllegalArgumentException("--pools: " + pools + " (expected: 0, or 1 to min(classes, servers) = "
                    + Math.min(classes, servers) + ")");
        }
        List<PoolConfig> split = new ArrayList<>();
        List<List<String>> dealt = new ArrayList<>();
        for (int p = 0; p < pools; p++) {
            dealt.add(new ArrayList<>());
        }
        for (int c = 1; c <= classes; c++) { // snake order: c1 → p01 … pP, then back pP … p01
            int round = (c - 1) / pools;
            int i = (c - 1) % pools;
            dealt.get(round % 2 == 0 ? i : pools - 1 - i).add(name(c));
        }
        for (int p = 0; p < pools; p++) {
            List<String> cs = dealt.get(p);
            List<String> ss = new ArrayList<>();
            for (int s = servers * p / pools; s < servers * (p + 1) / pools; s++) {
                ss.add(one.servers().get(s).id());
            }
            split.add(new PoolConfig(String.format(Locale.ROOT, "p%02d", p + 1), ss, cs));
        }
        return one.toBuilder().pools(split).build();
    }

    /**
     * The owner of each pool when {@code owners} GRMs share {@code pools} pools as Kafka's range assignor
     * deals one topic's partitions: contiguous blocks, the first {@code pools mod owners} owners one more.
     */
    static int[] owners(int pools, int owners) {
        int[] out = new int[pools];
        int per = pools / owners;
        int extra = pools % owners;
        int p = 0;
        for (int k = 0; k < owners && p < pools; k++) {
            int n = per + (k < extra ? 1 : 0);
            for (int i = 0; i < n; i++) {
                out[p++] = k;
            }
        }
        return out;
    }

    private static String name(int c) {
        return String.format(Locale.ROOT, "c%02d", c);
    }

    /**
     * Checks {@code --pools} and {@code --owners} against the size, before anything is built.
     *
     * @throws IllegalArgumentException naming the option and what it may be
     */
    public static void checkOptions(int servers, int classes, int pools, int owners) {
        if (owners < 1 || pools > 0 && owners > pools) {
            throw new IllegalArgumentException("--owners: " + owners + " (expected: 1 to the number of pools, "
                    + Math.max(1, pools) + ")");
        }
        if (pools != 0 && (pools < 1 || pools > classes || pools > servers)) {
            throw new IllegalArgumentException("--pools: " + pools + " (expected: 0, or 1 to min(classes, servers) = "
                    + Math.min(classes, servers) + ")");
        }
    }

    /**
     * Runs it.
     *
     * @param simulatedSeconds one hour in the issue; less for a quick look
     */
    public static ScaleResult run(int gateways, int servers, int classes, double simulatedSeconds, long seed,
                                          Consumer<String> progress) {
        return run(gateways, servers, classes, 0, 1, simulatedSeconds, seed, progress);
    }

    /**
     * Runs it with the cluster split into {@code pools} pools ({@link #cluster(int, int, int, int)}; 0: none),
     * owned by {@code owners} simulated GRMs: each pool's period is timed on its own, an owner's step is the sum
     * of its pools' (they run one after the other on its control thread), and the owners run side by side.
     */
    public static ScaleResult run(int gateways, int servers, int classes, int pools, int owners,
                                  double simulatedSeconds, long seed, Consumer<String> progress) {
        checkOptions(servers, classes, pools, owners);
        long built = System.nanoTime();
        ClusterConfig config = cluster(gateways, servers, classes, pools);
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
        if ((long) gateways * servers >= LARGE_CELLS) {
            jvmHint().ifPresent(progress);
        }
        double window = config.control().statsWindowSeconds();
        // each phase's prediction errors summed as they resolve: at 1 000 × 10 000 the samples of an
        // hour (20 000 flows every 5 s) would not fit in the default heap
        org.arbiter.grm.model.PredictionErrors errors = new org.arbiter.grm.model.PredictionErrors(window, false);
        List<PredictionError.Running> phaseErrors = new ArrayList<>();
        double phaseStart = 0;
        for (SimScenario.Phase p : sc.phases()) {
            phaseErrors.add(new PredictionError.Running(phaseStart + window, phaseStart + p.durationSeconds()));
            phaseStart += p.durationSeconds();
        }
        Simulator sim = Simulator.withGrm(config, sc).withoutCapLog()
                .withDecisions(d -> errors.accept(d).forEach(s -> phaseErrors.forEach(e -> e.add(s))))
                .withProgress(progress, Math.max(60, simulatedSeconds / 20));
        SimResult r = sim.run();
        List<ScaleResult.Phase> phases = new ArrayList<>();
        for (int i = 0; i < r.phases().size(); i++) {
            SimResult.PhaseResult p = r.phases().get(i);
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
            PredictionError e = phaseErrors.get(i).result();
            phases.add(new ScaleResult.Phase(p.name(), sent, ok, rejected,
                    Experiments.round(ok / (p.endSeconds() - p.startSeconds())), Experiments.round(worst), e));
            progress.accept(String.format(Locale.ROOT, "scale %s: prediction error mean |e| %s, mean e %s over %d",
                    p.name(), e.meanAbs(), e.meanSigned(), e.samples()));
        }
        int periods = r.allocations().size();
        return new ScaleResult(gateways, servers, classes, gateways * classes, servers * 10, simulatedSeconds,
                r.simulatedRequests(), Experiments.round(r.wallSeconds()), periods,
                Experiments.round(sim.controlWallSeconds()), periods == 0 ? 0
                : Experiments.round(sim.controlWallSeconds() / periods),
                Math.round(r.requestsPerWallSecond()), phases,
                pools == 0 ? null : poolSplit(config, sim, owners, periods, progress), memory(progress));
    }

    private static ScaleResult.Memory memory(Consumer<String> progress) {
        ScaleResult.Memory m = ScaleResult.Memory.now();
        progress.accept(String.format(Locale.ROOT, "scale: heap at most %d MiB, peak %d MiB in use (garbage included),"
                + " peak resident %d MiB", m.maxHeapMiB(), m.peakHeapUsedMiB(), m.peakRssMiB()));
        return m;
    }

    private static ScaleResult.PoolSplit poolSplit(ClusterConfig config, Simulator sim, int owners, int periods,
                                                   Consumer<String> progress) {
        double[] wall = sim.poolWallSeconds();
        int[] owner = owners(wall.length, owners);
        double[] ownerWall = new double[owners];
        List<ScaleResult.PoolStep> steps = new ArrayList<>();
        for (int p = 0; p < wall.length; p++) {
            PoolConfig pc = config.pools().get(p);
            ownerWall[owner[p]] += wall[p];
            steps.add(new ScaleResult.PoolStep(pc.name(), pc.servers().size(), pc.classes().size(), owner[p] + 1,
                    Experiments.round(wall[p]), periods == 0 ? 0 : Experiments.round(wall[p] / periods)));
        }
        double total = 0;
        double slowest = 0;
        for (double w : ownerWall) {
            total += w;
            slowest = Math.max(slowest, w);
        }
        ScaleResult.PoolSplit split = new ScaleResult.PoolSplit(wall.length, owners,
                periods == 0 ? 0 : Experiments.round(total / periods),
                periods == 0 ? 0 : Experiments.round(slowest / periods), steps);
        progress.accept(String.format(Locale.ROOT, "scale: %d pools over %d owners: %.4f s per step in all, %.4f s "
                + "for the slowest owner", split.pools(), owners, split.secondsPerStepInAll(),
                split.secondsPerStepSlowestOwner()));
        return split;
    }

    /** Gateways × servers from which the two JVM options of {@link #missingJvmOptions} pay off (1 000 × 1 000). */
    public static final long LARGE_CELLS = 1_000_000;

    /**
     * The options the docs give for the large sizes (docs/simulation.md: 2 MB heap pages and the throughput
     * collector; the same results, about 30 % less wall time) that this JVM was started without; a collector
     * chosen by the user counts as given.
     */
    public static List<String> missingJvmOptions() {
        List<String> args = ManagementFactory.getRuntimeMXBean().getInputArguments();
        List<String> missing = new ArrayList<>();
        if (!args.contains("-XX:+UseTransparentHugePages")) {
            missing.add("-XX:+UseTransparentHugePages");
        }
        if (args.stream().noneMatch(a -> a.startsWith("-XX:+Use") && a.endsWith("GC"))) {
            missing.add("-XX:+UseParallelGC");
        }
        return List.copyOf(missing);
    }

    /** At the large sizes, how to run faster when the JVM was started without {@link #missingJvmOptions}. */
    static Optional<String> jvmHint() {
        List<String> missing = missingJvmOptions();
        return missing.isEmpty() ? Optional.empty() : Optional.of("scale: at this size `java "
                + String.join(" ", missing) + " -jar ...` runs faster with the same results (docs/simulation.md)");
    }
}
