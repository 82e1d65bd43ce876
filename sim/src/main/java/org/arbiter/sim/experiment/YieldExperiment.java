package org.arbiter.sim.experiment;

import java.net.URI;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.arbiter.common.config.Choice;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.utility.YieldFunction;
import org.arbiter.loadgen.client.ResultRecorder;
import org.arbiter.sim.SimScenario;
import org.arbiter.sim.Simulator;

/*
 * Design note — the yield experiment (002 §5.1-5.2, Fig. 8-10).
 *
 * Model: one gateway in front of 16 servers that run one request at a time each (N(g,s) = 1,
 * one core, no overhead), so the gateway's class queues and its scheduler are 002's per-node
 * queues and scheduler (002 Fig. 4-5) with the cluster's 16 threads behind them; the balancer
 * (least-outstanding) hands a request to a free server. The simulator drives the product's
 * GatewayCore, so the schedulers, the zeroYield drops (002 Fig. 5 step 1), the service-time EWMA
 * and the adaptive window are the gateway's own. No GRM (002 §5.2 uses no resource guarantees).
 *
 * Workloads (002 §5.1): Gold, Silver, Bronze with 10 / 30 / 60 % of the requests, yield
 * magnitudes 4 : 2 : 1, the same shape for the three classes, D = 2 s; hybrid: D' = D/2,
 * C' = C/2. Differentiated Search: mean service 250 ms for every class; Micro-benchmark:
 * 400 / 200 / 100 ms. Service times are exponential and arrivals Poisson for both (002 drove
 * Search with a one-week Ask Jeeves trace, which is not public; 002 reports the trace's
 * inter-arrival std-dev ≈ its mean, as for a Poisson process, Table 2).
 *
 * Demand: 100 % is the highest total arrival rate at which EDF (hybrid yield) completes 95 % of
 * the requests within D (002 §5.2), found per workload by bisection between 50 % and 120 % of the
 * nominal 16 / E[s]; the demand points run from 50 % to 200 % of it. Each run warms up for
 * warmupSeconds and measures `seconds`; LossPercent = (offered − realised) / offered over the
 * requests sent while measuring (002 §5.2), a dropped request realising 0.
 *
 * Layout (--layout): pooled (the default, above) or per-node, 002's own set-up (002 §3, §5.1: dual-CPU
 * nodes, random polling with a poll size of 3 and a 10 ms poll deadline): 16 nodes on ClusterSim
 * (the distribution experiment's Neptune simulator), each a GatewayCore with its own class queues
 * and the same scheduler, yield functions, deadlines and queue settings as the pooled gateway, in
 * front of 2 threads; a request polls 3 distinct nodes at random (round trips Exp(1 ms)) and goes
 * to the one with the fewest queued + running requests. 100 % demand is calibrated on the layout
 * and arrivals actually run (the same bisection, between 50 % and 120 % of nodes × threads / E[s]).
 * Arrivals (--arrivals): Poisson (the default) or Mmpp (two rates, mean × (1 ± 0.15), Exp(30 s)
 * dwell; its inter-arrival CV is measured over 10 h of arrivals and written to the set-up). Under
 * the pooled layout the MMPP path becomes a sequence of constant-rate simulator phases.
 *
 * Deterministic under the seed; not thread-safe (runs on the caller's thread).
 */

/** 002 Fig. 8-10: edf, yid, greedy and adaptive over demand, workloads and yield shapes. See the design note. */
public final class YieldExperiment {

    static final int SERVERS = 16;
    /** Per-node layout: threads per node (002's dual-CPU nodes) and nodes polled per request (002 §3). */
    static final int THREADS_PER_NODE = 2;
    static final int POLL_COUNT = 3;
    /** Arrivals simulated to measure the MMPP's inter-arrival CV. */
    static final double CV_SECONDS = 36_000;
    static final double DEADLINE_SECONDS = 2;
    static final double PRE_DEADLINE_SECONDS = 1;
    static final double TARGET_COMPLETED = 0.95;
    static final List<DispatchConfig.Scheduler> POLICIES = List.of(DispatchConfig.Scheduler.EDF,
            DispatchConfig.Scheduler.YID, DispatchConfig.Scheduler.GREEDY, DispatchConfig.Scheduler.ADAPTIVE);
    static final List<ClassConfig.YieldSpec.Shape> SHAPES = List.of(ClassConfig.YieldSpec.Shape.HYBRID,
            ClassConfig.YieldSpec.Shape.THROUGHPUT, ClassConfig.YieldSpec.Shape.RESPONSE_TIME);

    /** 002 §5.1's classes. */
    static final List<YieldResult.ClassSetup> CLASSES = List.of(
            new YieldResult.ClassSetup("Gold", 0.1, 4, 0.25, 0.4),
            new YieldResult.ClassSetup("Silver", 0.3, 2, 0.25, 0.2),
            new YieldResult.ClassSetup("Bronze", 0.6, 1, 0.25, 0.1));

    /** The two workloads of 002 §5.1. */
    enum Workload {
        SEARCH("search"), MICRO("micro");

        final String key;

        Workload(String key) {
            this.key = key;
        }

        double serviceSeconds(YieldResult.ClassSetup c) {
            return this == SEARCH ? c.searchServiceSeconds() : c.microServiceSeconds();
        }

        /** 16 / E[s], requests per second. */
        double nominalPerSecond() {
            return nominalPerSecond(Layout.POOLED);
        }

        /** Threads / E[s]: 16 / E[s] pooled, 16 × 2 / E[s] per node. */
        double nominalPerSecond(Layout layout) {
            double mean = 0;
            for (YieldResult.ClassSetup c : CLASSES) {
                mean += c.share() * serviceSeconds(c);
            }
            return SERVERS * (layout == Layout.PER_NODE ? THREADS_PER_NODE : 1) / mean;
        }
    }

    /** --layout: one gateway queue per class in front of 16 one-request servers, or 002's per-node queues. */
    public enum Layout implements Choice {
        POOLED("pooled"), PER_NODE("per-node");

        private final String wireName;

        Layout(String wireName) {
            this.wireName = wireName;
        }

        @Override
        public String wireName() {
            return wireName;
        }

        @Override
        public String toString() {
            return wireName;
        }

        /** @throws IllegalArgumentException naming the option */
        public static Layout parse(String s) {
            return option("--layout", Layout.class, s);
        }
    }

    /** --arrivals: Poisson, or the two-rate MMPP ({@link Mmpp}). */
    public enum ArrivalProcess implements Choice {
        POISSON("poisson"), MMPP("mmpp");

        private final String wireName;

        ArrivalProcess(String wireName) {
            this.wireName = wireName;
        }

        @Override
        public String wireName() {
            return wireName;
        }

        @Override
        public String toString() {
            return wireName;
        }

        /** @throws IllegalArgumentException naming the option */
        public static ArrivalProcess parse(String s) {
            return option("--arrivals", ArrivalProcess.class, s);
        }
    }

    /** The constant of {@code type} written {@code s}, or an error naming {@code option} and the words it takes. */
    private static <E extends Enum<E> & Choice> E option(String option, Class<E> type, String s) {
        return Choice.find(type, s).orElseThrow(() -> new IllegalArgumentException(option + ": " + s + " (expected: "
                + String.join(" or ", Choice.names(type)) + ")"));
    }

    /** What a run is: layout and arrivals. */
    record Mode(Layout layout, ArrivalProcess arrivals) {
        static final Mode DEFAULT = new Mode(Layout.POOLED, ArrivalProcess.POISSON);
    }

    private YieldExperiment() {
    }

    /**
     * Runs both workloads.
     *
     * @param points  demand points from 50 % to 200 % (≥ 2)
     * @param seconds measured simulated seconds per run (a tenth of it, at least 20 s, warms up first)
     */
    public static YieldResult run(long seed, int points, double seconds, Consumer<String> progress) {
        return run(seed, points, seconds, List.of(Workload.values()), SHAPES, progress);
    }

    /** Runs both workloads on the given layout with the given arrivals (pooled + poisson: {@link #run(long, int, double, Consumer)}). */
    public static YieldResult run(long seed, int points, double seconds, Layout layout, ArrivalProcess arrivals,
                                  Consumer<String> progress) {
        return run(seed, points, seconds, new Mode(layout, arrivals), List.of(Workload.values()), SHAPES, progress);
    }

    static YieldResult run(long seed, int points, double seconds, List<Workload> only,
                           List<ClassConfig.YieldSpec.Shape> onlyShapes, Consumer<String> progress) {
        return run(seed, points, seconds, Mode.DEFAULT, only, onlyShapes, progress);
    }

    /**
     * Runs the given workloads and yield shapes only: their curves, capacities and (with Search
     * and hybrid) the class breakdown are those of the full run with the same seed, as every run
     * is a function of its own arguments and the seed alone. Lets a test that checks one curve
     * skip the other five.
     */
    static YieldResult run(long seed, int points, double seconds, Mode mode, List<Workload> only,
                           List<ClassConfig.YieldSpec.Shape> onlyShapes, Consumer<String> progress) {
        if (points < 2 || points > 100) {
            throw new IllegalArgumentException("--points: " + points + " (expected: 2 to 100)");
        }
        if (!(seconds > 0)) {
            throw new IllegalArgumentException("--seconds: " + seconds + " (expected: > 0)");
        }
        double warmup = Math.max(20, seconds / 10);
        List<Double> demand = new ArrayList<>();
        for (int i = 0; i < points; i++) {
            demand.add(Experiments.round(0.5 + 1.5 * i / (points - 1)));
        }
        Map<String, Map<String, YieldResult.Curve>> workloads = new LinkedHashMap<>();
        Map<String, Double> capacity = new LinkedHashMap<>();
        Map<String, Map<String, YieldResult.ClassBreakdown>> breakdown = new LinkedHashMap<>();
        Map<String, Map<String, Double>> cv = mode.arrivals() == ArrivalProcess.MMPP ? new LinkedHashMap<>() : null;
        for (Workload w : only) {
            double full = capacity(w, mode, seed, warmup, seconds);
            capacity.put(w.key, Experiments.round(full));
            if (mode.equals(Mode.DEFAULT)) {
                progress.accept(String.format(Locale.ROOT, "yield %s: 100 %% demand = %.2f req/s (nominal 16/E[s] = %.2f)",
                        w.key, full, w.nominalPerSecond()));
            } else {
                progress.accept(String.format(Locale.ROOT, "yield %s (%s, %s): 100 %% demand = %.2f req/s (nominal threads/E[s] = %.2f)",
                        w.key, mode.layout().wireName(), mode.arrivals().wireName(), full, w.nominalPerSecond(mode.layout())));
            }
            if (cv != null) {
                double[] rates = new double[CLASSES.size()];
                for (int c = 0; c < rates.length; c++) {
                    rates[c] = CLASSES.get(c).share() * full;
                }
                double[] measured = Mmpp.interArrivalCv(seed, rates, CV_SECONDS);
                Map<String, Double> perClass = new LinkedHashMap<>();
                for (int c = 0; c < rates.length; c++) {
                    perClass.put(CLASSES.get(c).name(), Experiments.round(measured[c]));
                }
                perClass.put("all", Experiments.round(measured[rates.length]));
                cv.put(w.key, perClass);
                progress.accept(String.format(Locale.ROOT, "yield %s: MMPP inter-arrival CV %s", w.key, perClass));
            }
            Map<String, YieldResult.Curve> shapes = new LinkedHashMap<>();
            for (ClassConfig.YieldSpec.Shape shape : onlyShapes) {
                Map<String, List<Double>> loss = new LinkedHashMap<>();
                for (DispatchConfig.Scheduler policy : POLICIES) {
                    List<Double> l = new ArrayList<>();
                    for (double d : demand) {
                        Measured m = simulate(w, mode, shape, policy, d * full, seed, warmup, seconds);
                        l.add(Experiments.round(m.lossPercent()));
                        if (w == Workload.SEARCH && shape == ClassConfig.YieldSpec.Shape.HYBRID && d == demand.get(demand.size() - 1)) {
                            breakdown.put(policy.wireName(), m.breakdown(seconds));
                        }
                    }
                    loss.put(policy.wireName(), l);
                }
                shapes.put(shape.wireName(), new YieldResult.Curve(demand, loss));
                progress.accept(String.format(Locale.ROOT, "yield %s %s: LossPercent %s", w.key, shape, loss));
            }
            workloads.put(w.key, shapes);
        }
        if (mode.equals(Mode.DEFAULT)) {
            return new YieldResult(workloads, breakdown, new YieldResult.Setup(seed, SERVERS, warmup, seconds, capacity,
                    demand.get(demand.size() - 1), DEADLINE_SECONDS, PRE_DEADLINE_SECONDS, CLASSES));
        }
        boolean perNode = mode.layout() == Layout.PER_NODE;
        boolean mmpp = mode.arrivals() == ArrivalProcess.MMPP;
        return new YieldResult(workloads, breakdown, new YieldResult.Setup(seed, SERVERS, warmup, seconds, capacity,
                demand.get(demand.size() - 1), DEADLINE_SECONDS, PRE_DEADLINE_SECONDS, CLASSES, mode.layout().wireName(),
                mode.arrivals().wireName(), perNode ? THREADS_PER_NODE : null, perNode ? POLL_COUNT : null,
                perNode ? NeptuneExperiments.POLL_DEADLINE_SECONDS : null,
                mmpp ? new YieldResult.MmppSetup(Mmpp.AMPLITUDE, Mmpp.DWELL_SECONDS, CV_SECONDS) : null, cv));
    }

    /** The highest total rate at which EDF, hybrid yield, completes 95 % within D: bisection. */
    static double capacity(Workload w, long seed, double warmup, double seconds) {
        return capacity(w, Mode.DEFAULT, seed, warmup, seconds);
    }

    /** The same, on the given layout with the given arrivals; between 50 % and 120 % of its threads / E[s]. */
    static double capacity(Workload w, Mode mode, long seed, double warmup, double seconds) {
        double lo = 0.5 * w.nominalPerSecond(mode.layout());
        double hi = 1.2 * w.nominalPerSecond(mode.layout());
        for (int i = 0; i < 10; i++) {
            double mid = (lo + hi) / 2;
            Measured m = simulate(w, mode, ClassConfig.YieldSpec.Shape.HYBRID, DispatchConfig.Scheduler.EDF, mid, seed, warmup,
                    seconds);
            if (m.completedWithinDeadline() >= TARGET_COMPLETED) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        return lo;
    }

    /** The cluster for one run. */
    static ClusterConfig cluster(Workload w, ClassConfig.YieldSpec.Shape shape, DispatchConfig.Scheduler policy) {
        ClassConfig.QueueConfig unbounded = new ClassConfig.QueueConfig(100_000, 3600);
        ClusterConfig.Builder b = ClusterConfig.builder();
        Map<String, Double> demand = new LinkedHashMap<>();
        for (int i = 0; i < CLASSES.size(); i++) {
            YieldResult.ClassSetup c = CLASSES.get(i);
            demand.put(c.name(), w.serviceSeconds(c));
            b.addClass(ClassConfig.builder(c.name(), DEADLINE_SECONDS).queue(unbounded).isDefault(i == CLASSES.size() - 1)
                    .yield(new ClassConfig.YieldSpec(shape, c.fullYield(), c.fullYield() / 2, DEADLINE_SECONDS,
                            PRE_DEADLINE_SECONDS))
                    .build());
        }
        ServerConfig.SimSpec sim = ServerConfig.SimSpec.builder().cores(1).meanDemandSeconds(0.25).demandSeconds(demand)
                .overhead(0).knee(1).build();
        for (int s = 0; s < SERVERS; s++) {
            b.addServer(ServerConfig.builder("s" + (s + 1), URI.create("http://127.0.0.1:" + (9001 + s))).concurrency(1)
                    .sim(sim).build());
        }
        return b.addGateway(GatewayConfig.builder("g1").port(8080).build())
                .dispatch(DispatchConfig.builder().scheduler(policy)
                        .build())
                .control(ControlConfig.builder().periodSeconds(5).reportPeriodSeconds(5).statsWindowSeconds(30).build())
                .build();
    }

    /** One run: Poisson arrivals at {@code totalPerSecond} split 10/30/60, measured after the warm-up. */
    static Measured simulate(Workload w, ClassConfig.YieldSpec.Shape shape, DispatchConfig.Scheduler policy, double totalPerSecond, long seed,
                             double warmup, double seconds) {
        ClusterConfig config = cluster(w, shape, policy);
        Map<String, Double> rates = new LinkedHashMap<>();
        for (YieldResult.ClassSetup c : CLASSES) {
            rates.put(c.name(), c.share() * totalPerSecond);
        }
        SimScenario scenario = new SimScenario(0, List.of(
                new SimScenario.Phase("warm-up", warmup, Map.of(), rates),
                new SimScenario.Phase("measured", seconds, Map.of(), rates)), seed);
        Measured m = new Measured(config, 1);
        Simulator.withConfiguredAllocation(config, scenario).withRequests(m).run();
        return m;
    }

    /** One run on the given layout with the given arrivals (the default: {@link #simulate(Workload, ClassConfig.YieldSpec.Shape, DispatchConfig.Scheduler, double, long, double, double)}). */
    static Measured simulate(Workload w, Mode mode, ClassConfig.YieldSpec.Shape shape, DispatchConfig.Scheduler policy,
                             double totalPerSecond, long seed, double warmup, double seconds) {
        if (mode.layout() == Layout.PER_NODE) {
            return simulatePerNode(w, mode.arrivals(), shape, policy, totalPerSecond, seed, warmup, seconds);
        }
        if (mode.arrivals() == ArrivalProcess.POISSON) {
            return simulate(w, shape, policy, totalPerSecond, seed, warmup, seconds);
        }
        // pooled, MMPP: the path as constant-rate phases (Poisson within each, so the same process)
        ClusterConfig config = cluster(w, shape, policy);
        List<SimScenario.Phase> phases = new ArrayList<>();
        int firstMeasured = -1;
        for (double[] seg : new Mmpp(seed).segments(warmup + seconds, warmup)) {
            Map<String, Double> rates = new LinkedHashMap<>();
            for (YieldResult.ClassSetup c : CLASSES) {
                rates.put(c.name(), c.share() * totalPerSecond * seg[2]);
            }
            boolean measuring = seg[0] >= warmup;
            if (measuring && firstMeasured < 0) {
                firstMeasured = phases.size();
            }
            phases.add(new SimScenario.Phase((measuring ? "measured-" : "warm-up-") + phases.size(), seg[1] - seg[0], Map.of(),
                    rates));
        }
        Measured m = new Measured(config, firstMeasured);
        Simulator.withConfiguredAllocation(config, new SimScenario(0, phases, seed)).withRequests(m).run();
        return m;
    }

    /** Per-node layout: ClusterSim, 16 nodes × 2 threads, random polling d = 3, each node the pooled gateway's scheduler. */
    static Measured simulatePerNode(Workload w, ArrivalProcess arrivals, ClassConfig.YieldSpec.Shape shape,
                                    DispatchConfig.Scheduler policy, double totalPerSecond, long seed, double warmup,
                                    double seconds) {
        List<org.arbiter.sim.neptune.ClusterSim.ClassSpec> classes = new ArrayList<>();
        double[] rates = new double[CLASSES.size()];
        for (int i = 0; i < CLASSES.size(); i++) {
            YieldResult.ClassSetup c = CLASSES.get(i);
            classes.add(new org.arbiter.sim.neptune.ClusterSim.ClassSpec(c.name(), c.share(), c.fullYield(), w.serviceSeconds(c), 0));
            rates[i] = c.share() * totalPerSecond;
        }
        org.arbiter.sim.neptune.ClusterSim.Settings settings = new org.arbiter.sim.neptune.ClusterSim.Settings(SERVERS, classes,
                policy, org.arbiter.sim.neptune.ClusterSim.Distribution.NEPTUNE, DEADLINE_SECONDS, POLL_COUNT,
                NeptuneExperiments.POLL_DEADLINE_SECONDS, NeptuneExperiments.POLL_RTT_SECONDS, 10, 10, warmup,
                warmup + seconds, List.of(), seed, THREADS_PER_NODE, shape);
        org.arbiter.sim.neptune.ClusterSim.Arrivals next;
        if (arrivals == ArrivalProcess.MMPP) {
            Mmpp mmpp = new Mmpp(seed);
            next = (c, now, random) -> mmpp.next(now, rates[c], -Math.log(1 - random.nextDouble()));
        } else {
            next = (c, now, random) -> now - Math.log(1 - random.nextDouble()) / rates[c];
        }
        Measured m = new Measured(cluster(w, shape, policy), 1);
        String[] names = CLASSES.stream().map(YieldResult.ClassSetup::name).toArray(String[]::new);
        new org.arbiter.sim.neptune.ClusterSim(settings, next, (c, arrival, end, ok) -> m.answered(names[c],
                arrival >= warmup ? 1 : 0, arrival, end, ok ? ResultRecorder.Outcome.OK : ResultRecorder.Outcome.REJECTED)).run();
        return m;
    }

    /** Per class, what the requests sent in the measured phase came to. */
    static final class Measured implements Simulator.RequestSink {
        private final Map<String, Integer> index = new LinkedHashMap<>();
        private final YieldFunction[] yields;
        private final long[] answered;
        private final long[] completed;
        private final long[] withinDeadline;
        private final double[] offered;
        private final double[] realised;
        private final double[][] responses;
        private final int[] responseCount;
        private final int firstMeasuredPhase;

        /** Counts the requests sent in phase {@code firstMeasuredPhase} or later. */
        Measured(ClusterConfig config, int firstMeasuredPhase) {
            this.firstMeasuredPhase = firstMeasuredPhase;
            int n = config.classes().size();
            yields = new YieldFunction[n];
            for (int c = 0; c < n; c++) {
                index.put(config.classes().get(c).name(), c);
                yields[c] = YieldFunction.of(config.classes().get(c));
            }
            answered = new long[n];
            completed = new long[n];
            withinDeadline = new long[n];
            offered = new double[n];
            realised = new double[n];
            responses = new double[n][1024];
            responseCount = new int[n];
        }

        @Override
        public void answered(String cls, int phase, double sentSeconds, double answeredSeconds,
                             ResultRecorder.Outcome outcome) {
            if (phase < firstMeasuredPhase) {
                return;
            }
            int c = index.get(cls);
            answered[c]++;
            offered[c] += yields[c].full();
            if (outcome == ResultRecorder.Outcome.OK) {
                double r = answeredSeconds - sentSeconds;
                completed[c]++;
                if (r <= yields[c].deadlineSeconds()) {
                    withinDeadline[c]++;
                }
                realised[c] += yields[c].yield(r);
                if (responseCount[c] == responses[c].length) {
                    responses[c] = Arrays.copyOf(responses[c], responses[c].length * 2);
                }
                responses[c][responseCount[c]++] = r;
            }
        }

        /** 002 §5.2's LossPercent over every class. */
        double lossPercent() {
            double o = Arrays.stream(offered).sum();
            double r = Arrays.stream(realised).sum();
            return o > 0 ? (o - r) / o * 100 : 0;
        }

        /** Requests completed within D over requests answered. */
        double completedWithinDeadline() {
            long a = Arrays.stream(answered).sum();
            return a == 0 ? 1 : (double) Arrays.stream(withinDeadline).sum() / a;
        }

        /** Per class: completions per second, mean and p95 response time (s). */
        Map<String, YieldResult.ClassBreakdown> breakdown(double seconds) {
            Map<String, YieldResult.ClassBreakdown> out = new LinkedHashMap<>();
            index.forEach((name, c) -> {
                double[] r = Arrays.copyOf(responses[c], responseCount[c]);
                Arrays.sort(r);
                double mean = r.length == 0 ? 0 : Arrays.stream(r).sum() / r.length;
                double p95 = r.length == 0 ? 0 : r[Math.min(r.length - 1, (int) Math.ceil(0.95 * r.length) - 1)];
                out.put(name, new YieldResult.ClassBreakdown(Experiments.round(completed[c] / seconds),
                        Experiments.round(mean), Experiments.round(p95)));
            });
            return out;
        }
    }
}
