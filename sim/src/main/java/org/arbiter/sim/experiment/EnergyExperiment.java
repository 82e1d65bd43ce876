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
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.config.SizingConfig;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.loadgen.workload.ArrivalProcess;
import org.arbiter.sim.SimResult;
import org.arbiter.sim.SimScenario;
import org.arbiter.sim.Simulator;
import org.arbiter.sim.run.RunSpec;
import org.arbiter.sim.run.SimulatedBackend;

/*
 * Design note — the energy experiment (000 §7.5, Fig. 11-12), in the simulator.
 *
 * Cluster: 5 alike servers behind one gateway, each a PsServer with `cores` virtual CPUs and
 * N_s = cores, power 0 W off, 60 W booting, 60 W idle, 65 W busy (000's measurements); start-up
 * and shutdown delays 60 s; one class `web` whose gateway queue (limit K, timeout) is the accept
 * queue of 000. The GRM runs every 5 s on 5 s reports; its Fleet sizes the cluster, and the
 * simulator boots and shuts servers down as it is told (drains first: a server gets no new
 * request once it is ordered off, and is powered down when its last request has finished).
 *
 * Load: one open-loop diurnal source (ArrivalProcess.diurnal) over a compressed day: trough at
 * both ends, peak half-way. Demand per request Exp(D·factor): standard factor 1, lighter 0.5,
 * heavier HEAVIER. The peak and the trough are fixed in req/s from the standard workload (peak
 * PEAK_LOAD of the five servers' nominal capacity, trough TROUGH_RATIO of the peak) and stay
 * the same for lighter and heavier requests: only the demand per request changes, as in 000.
 *
 * Policies (sizing.policy and sizing.estimator):
 *   off           always on: the baseline every saving is measured against;
 *   static        the queue policy with the static estimator: c = the benchmark's capacity of
 *                 the standard workload (000's static controller);
 *   queue         the queue policy with the queue-monitoring estimator (000 eq. 1-5, ε_th = 1 %,
 *                 T_c = start-up delay): 000's dynamic controller, λ̂ the trend T_c ahead;
 *   queue-current the same with λ̂ = the current rate (sizing.forecast: current), as 000's
 *                 controllers compare "the current aggregated arrival rate" with the capacity;
 *   utility       the smallest set of servers whose optimal Ω reaches sizing.utilityFloor;
 *   schedule-30m, schedule-2h
 *                 timetables from the known diurnal curve: per slot, enough servers for the
 *                 slot's peak rate at the benchmark capacity; slots of 30 min and 2 h of the
 *                 uncompressed day.
 *
 * Benchmark (000 §5.1's static estimation): one server of the standard workload under Poisson
 * steps of BENCH_STEPS × nominal capacity; capacity = the highest throughput among the steps whose
 * drop ratio stays within ε_th.
 *
 * Savings: 1 − E / E(off) with E the servers' metered energy over the day (the simulator's
 * PowerModel, exact); dropped = rejected (queue full) + timed out in the queue + lost (sent to a
 * server that was not on), over everything sent.
 *
 * One day is a run spec (`spec`: the cluster below and the day's load as a loadgen scenario), run
 * here on the simulated backend; `experiment energy --live` runs the same spec on the live backend
 * (live/.../LiveEnergy), so the live day cannot drift from the simulated one.
 *
 * Deterministic under the seed; not thread-safe (runs on the caller's thread).
 */

/** 000 §7.5: energy saved by cluster sizing over a compressed diurnal day. See the design note. */
public final class EnergyExperiment {

    /** The scale of a run; {@link #FULL} is the documented one, tests use a shorter day. */
    public record Setup(double daySeconds, int cores, double demandSeconds, int queueLimit, double queueTimeoutSeconds,
                 double benchmarkStepSeconds, double periodSeconds) {

        /** Requests per second one server completes at saturation (standard demand). */
        public double nominalCapacity() {
            return cores / demandSeconds;
        }

        /** How much the day is compressed (a real day is 86 400 s). */
        double compression() {
            return 86_400 / daySeconds;
        }

        /** The day's peak arrival rate, req/s: {@link #PEAK_LOAD} of the servers' nominal capacity. */
        public double peak() {
            return PEAK_LOAD * SERVERS * nominalCapacity();
        }

        /** The day's trough arrival rate, req/s: {@link #TROUGH_RATIO} of the peak. */
        public double trough() {
            return TROUGH_RATIO * peak();
        }
    }

    /** The documented set-up ({@link #FULL}) over a day of {@code daySeconds}. */
    public static Setup standard(double daySeconds) {
        return new Setup(daySeconds, FULL.cores(), FULL.demandSeconds(), FULL.queueLimit(), FULL.queueTimeoutSeconds(),
                FULL.benchmarkStepSeconds(), FULL.periodSeconds());
    }

    /** A 24 h day compressed 6× as in 000 (4 h), 20 req/s per server, GRM every 5 s. */
    static final Setup FULL = new Setup(14_400, 4, 0.2, 400, 10, 600, 5);

    public static final int SERVERS = 5;
    public static final double PEAK_LOAD = 0.8;
    public static final double TROUGH_RATIO = 0.2;
    static final double LIGHTER = 0.5;
    /**
     * 000 §7.5.2's lighter requests as 000 measured them: halving Surge's object sizes raised a server's capacity
     * from 595 to about 750 req/s, so a request costs 595/750 of a standard one (not half: the connection's
     * own work stays).
     */
    static final double LIGHTER_000 = 595.0 / 750.0;
    static final double HEAVIER = 1.2;
    public static final double STARTUP_SECONDS = 60;
    public static final double SHUTDOWN_SECONDS = 60;
    public static final double DROP_RATIO = 0.01;
    static final double UTILITY_FLOOR = 0.5;
    static final double[] BENCH_STEPS = {0.8, 0.85, 0.9, 0.95, 1.0, 1.05, 1.1};
    static final List<EnergyPolicy> POLICIES = List.of(EnergyPolicy.values());
    static final double[] STARTUP_SWEEP = {15, 30, 60, 90, 120, 180};
    /** 000 §7.5.4's other half: the shutdown delay, start-up held at 60 s. */
    static final double[] SHUTDOWN_SWEEP = {15, 30, 60, 90, 120, 180};
    /**
     * The noisy days: the rate times a log-normal factor (mean 1, σ = 0.1) held for 60 s of the compressed day
     * (6 minutes of the real one), the factors fixed by the seed, so every policy of one seed sees one day.
     */
    public static final double NOISE = 0.1;
    public static final double NOISE_SECONDS = 60;

    private EnergyExperiment() {
    }

    /** The full experiment: three demands × six policies, the start-up sweep, the benchmark. */
    public static EnergyResult run(long seed, Consumer<String> progress) {
        return run(FULL, seed, POLICIES, STARTUP_SWEEP, progress);
    }

    static EnergyResult run(Setup setup, long seed, List<EnergyPolicy> policies, double[] sweep, Consumer<String> progress) {
        long wallStart = System.nanoTime();
        double capacity = benchmark(setup, seed, progress);
        double peak = setup.peak();
        double trough = setup.trough();
        Map<String, Map<String, EnergyResult.Day>> scenarios = new LinkedHashMap<>();
        Map<String, Map<String, EnergyResult.Series>> series = new LinkedHashMap<>();
        Map<String, DayKind> days = new LinkedHashMap<>();
        demands().forEach((name, factor) -> days.put(name, new DayKind(factor, 0)));
        demands().forEach((name, factor) -> {
            if (!name.equals("lighter")) { // the noisy days are 000's three: standard, lighter as 000 measured it, heavier
                days.put(name + "-noisy", new DayKind(factor, NOISE));
            }
        });
        for (Map.Entry<String, DayKind> demand : days.entrySet()) {
            Map<String, EnergyResult.Day> byPolicy = new LinkedHashMap<>();
            Map<String, EnergyResult.Series> seriesByPolicy = new LinkedHashMap<>();
            double offJoules = Double.NaN;
            for (EnergyPolicy policy : policies) {
                DayRun run = measuredDay(setup, demand.getValue().demand(), policy, STARTUP_SECONDS, SHUTDOWN_SECONDS,
                        demand.getValue().noise(), capacity, peak, trough, seed);
                SimResult r = run.result();
                double joules = r.totalEnergyJoules();
                if (policy == EnergyPolicy.OFF) {
                    offJoules = joules;
                }
                EnergyResult.Day m = summary(run, offJoules);
                byPolicy.put(policy.label(), m);
                seriesByPolicy.put(policy.label(), series(r, setup));
                progress.accept(String.format(Locale.ROOT, "energy %s %s: %.2f MJ, saved %s %%, dropped %s %% (%d lost), "
                                + "mean servers on %.2f, %.1f s wall", demand.getKey(), policy, joules / 1e6,
                        m.savingsPercent(), m.droppedPercent(), r.lost(), meanOn(r), r.wallSeconds()));
            }
            scenarios.put(demand.getKey(), byPolicy);
            series.put(demand.getKey(), seriesByPolicy);
        }
        List<EnergyResult.SweepPoint> sweepOut = new ArrayList<>();
        if (sweep.length > 0) {
            SimResult off = day(setup, 1.0, EnergyPolicy.OFF, STARTUP_SECONDS, capacity, peak, trough, seed);
            for (double startup : sweep) {
                EnergyResult.Day m = summary(measuredDay(setup, 1.0, EnergyPolicy.QUEUE, startup, capacity, peak, trough, seed),
                        off.totalEnergyJoules());
                sweepOut.add(new EnergyResult.SweepPoint(startup, m));
                progress.accept(String.format(Locale.ROOT, "energy sweep start-up %.0f s: saved %s %%, dropped %s %%",
                        startup, m.savingsPercent(), m.droppedPercent()));
            }
        }
        List<EnergyResult.ShutdownPoint> shutdownOut = new ArrayList<>();
        if (sweep.length > 0) {
            SimResult off = day(setup, 1.0, EnergyPolicy.OFF, STARTUP_SECONDS, capacity, peak, trough, seed);
            for (double shutdown : SHUTDOWN_SWEEP) {
                EnergyResult.Day m = summary(measuredDay(setup, 1.0, EnergyPolicy.QUEUE, STARTUP_SECONDS, shutdown, 0,
                        capacity, peak, trough, seed), off.totalEnergyJoules());
                shutdownOut.add(new EnergyResult.ShutdownPoint(shutdown, m));
                progress.accept(String.format(Locale.ROOT, "energy sweep shutdown %.0f s: saved %s %%, dropped %s %%",
                        shutdown, m.savingsPercent(), m.droppedPercent()));
            }
        }
        EnergyResult.Setup s = new EnergyResult.Setup(SERVERS, setup.daySeconds(), setup.compression(), setup.cores(),
                setup.demandSeconds(), demands(), setup.nominalCapacity(), Experiments.round(capacity), peak, trough,
                setup.queueLimit(), setup.queueTimeoutSeconds(), STARTUP_SECONDS, SHUTDOWN_SECONDS, DROP_RATIO,
                UTILITY_FLOOR, new EnergyResult.Schedules(schedule(setup, 1800, capacity, peak, trough),
                        schedule(setup, 7200, capacity, peak, trough)), NOISE, NOISE_SECONDS,
                Experiments.round((System.nanoTime() - wallStart) / 1e9));
        return new EnergyResult(scenarios, sweepOut, shutdownOut, s, series, null);
    }

    /** The done-when's bar: saved at least this much... */
    static final double TARGET_SAVINGS_PERCENT = 38;
    /** ...with at most this share of requests dropped. */
    static final double TARGET_DROPPED_PERCENT = 0.002;
    /** The policies the seed sweep compares. */
    static final List<EnergyPolicy> SEED_POLICIES = List.of(EnergyPolicy.QUEUE, EnergyPolicy.STATIC);

    /**
     * The standard day over {@code count} seeds from {@code first}: per policy, the savings and drops
     * of every seed and how many reach the target (≥ 38 % saved, ≤ 0.002 % dropped). Static uses
     * each seed's own benchmark, as the main run does.
     */
    public static EnergyResult.Seeds seeds(long first, int count, Consumer<String> progress) {
        return seeds(FULL, first, count, progress);
    }

    static EnergyResult.Seeds seeds(Setup setup, long first, int count, Consumer<String> progress) {
        if (count < 1) {
            throw new IllegalArgumentException("seeds: " + count + " (expected: >= 1)");
        }
        double peak = setup.peak();
        double trough = setup.trough();
        Map<EnergyPolicy, List<EnergyResult.SeedDay>> perSeed = new LinkedHashMap<>();
        SEED_POLICIES.forEach(p -> perSeed.put(p, new ArrayList<>()));
        for (long seed = first; seed < first + count; seed++) {
            double capacity = benchmark(setup, seed, x -> { });
            double off = day(setup, 1.0, EnergyPolicy.OFF, STARTUP_SECONDS, capacity, peak, trough, seed).totalEnergyJoules();
            StringBuilder line = new StringBuilder(String.format(Locale.ROOT, "energy seeds: seed %d (%d of %d)",
                    seed, seed - first + 1, count));
            for (EnergyPolicy policy : SEED_POLICIES) {
                DayRun run = measuredDay(setup, 1.0, policy, STARTUP_SECONDS, capacity, peak, trough, seed);
                SimResult r = run.result();
                EnergyResult.Day m = summary(run, off);
                List<SimResult.PowerPoint> pts = r.power();
                perSeed.get(policy).add(new EnergyResult.SeedDay(seed, m,
                        pts.isEmpty() ? 0.0 : Experiments.round(pts.get(pts.size() - 1).capacityPerServer())));
                line.append(String.format(Locale.ROOT, ", %s saved %s %% dropped %s %%", policy, m.savingsPercent(),
                        m.droppedPercent()));
            }
            progress.accept(line.toString());
        }
        Map<EnergyPolicy, EnergyResult.SeedPolicy> out = new LinkedHashMap<>();
        for (EnergyPolicy policy : SEED_POLICIES) {
            List<EnergyResult.SeedDay> rows = perSeed.get(policy);
            double[] saved = rows.stream().mapToDouble(m -> m.day().savingsPercent()).toArray();
            double[] dropped = rows.stream().mapToDouble(m -> m.day().droppedPercent()).toArray();
            int atTarget = 0;
            int withinDrops = 0;
            for (int i = 0; i < saved.length; i++) {
                withinDrops += dropped[i] <= TARGET_DROPPED_PERCENT ? 1 : 0;
                atTarget += saved[i] >= TARGET_SAVINGS_PERCENT && dropped[i] <= TARGET_DROPPED_PERCENT ? 1 : 0;
            }
            EnergyResult.SeedPolicy m = new EnergyResult.SeedPolicy(
                    Experiments.round(java.util.Arrays.stream(saved).average().orElse(0)),
                    java.util.Arrays.stream(saved).min().orElse(0), java.util.Arrays.stream(saved).max().orElse(0),
                    java.util.Arrays.stream(dropped).max().orElse(0), withinDrops, atTarget, rows);
            out.put(policy, m);
            progress.accept(String.format(Locale.ROOT, "energy seeds: %s mean %s %% saved (%s-%s), %d of %d seeds within "
                            + "%s %% dropped, %d of %d at the target", policy, m.meanSavingsPercent(),
                    m.minSavingsPercent(), m.maxSavingsPercent(), withinDrops, count, fmt(TARGET_DROPPED_PERCENT),
                    atTarget, count));
        }
        return new EnergyResult.Seeds(first, count, TARGET_SAVINGS_PERCENT, TARGET_DROPPED_PERCENT, out.get(EnergyPolicy.QUEUE),
                out.get(EnergyPolicy.STATIC));
    }

    static Map<String, Double> demands() {
        Map<String, Double> d = new LinkedHashMap<>();
        d.put("standard", 1.0);
        d.put("lighter", LIGHTER);
        d.put("lighter-000", LIGHTER_000);
        d.put("heavier", HEAVIER);
        return d;
    }

    private static EnergyResult.Day summary(DayRun run, double offJoules) {
        SimResult r = run.result();
        double joules = r.totalEnergyJoules();
        var c = r.phases().get(0).classes().get("web");
        return new EnergyResult.Day(Math.round(joules),
                Double.isNaN(offJoules) ? 0.0 : Experiments.round(100 * (1 - joules / offJoules)),
                r.sent() == 0 ? 0.0 : Math.round(100.0 * r.dropped() / r.sent() * 1e5) / 1e5,
                r.dropped(), r.lost(), r.sent(), Experiments.round(meanOn(r)), Experiments.round(c.meanResponseSeconds()),
                run.predictionError());
    }

    private static double meanOn(SimResult r) {
        return r.power().stream().mapToInt(SimResult.PowerPoint::serversOn).average().orElse(0);
    }

    /** Servers on and load over the day, one point per minute of simulated time (for the charts). */
    private static EnergyResult.Series series(SimResult r, Setup setup) {
        int every = (int) Math.max(1, Math.round(setup.daySeconds() / 240 / 5));
        List<Double> t = new ArrayList<>();
        List<Double> on = new ArrayList<>();
        List<Double> rate = new ArrayList<>();
        List<Double> capacity = new ArrayList<>();
        List<SimResult.PowerPoint> pts = r.power();
        for (int i = 0; i + every <= pts.size(); i += every) {
            double sumOn = 0;
            double sumRate = 0;
            for (int k = i; k < i + every; k++) {
                sumOn += pts.get(k).serversOn() + pts.get(k).serversBooting();
                sumRate += pts.get(k).arrivalRatePerSecond();
            }
            t.add(pts.get(i + every - 1).timeSeconds());
            on.add(Experiments.round(sumOn / every));
            rate.add(Experiments.round(sumRate / every));
            capacity.add(Experiments.round(pts.get(i + every - 1).capacityPerServer()));
        }
        return new EnergyResult.Series(t, on, rate, capacity);
    }

    /** One compressed day of {@code policy} at demand factor {@code demand}. */
    static SimResult day(Setup setup, double demand, EnergyPolicy policy, double startupSeconds, double benchmarkCapacity,
                         double peak, double trough, long seed) {
        return measuredDay(setup, demand, policy, startupSeconds, benchmarkCapacity, peak, trough, seed).result();
    }

    /** One of the days: the demand per request against a standard one, and the noise σ on the rate (0: smooth). */
    private record DayKind(double demand, double noise) {
    }

    /** A day and the GRM's flow-model error over it (predictions made after the first statistics window). */
    record DayRun(SimResult result, PredictionError predictionError) {
    }

    static DayRun measuredDay(Setup setup, double demand, EnergyPolicy policy, double startupSeconds, double benchmarkCapacity,
                              double peak, double trough, long seed) {
        return measuredDay(setup, demand, policy, startupSeconds, SHUTDOWN_SECONDS, 0, benchmarkCapacity, peak, trough,
                seed);
    }

    /** As above with the shutdown delay and the day's noise (σ; 0: the smooth day). */
    static DayRun measuredDay(Setup setup, double demand, EnergyPolicy policy, double startupSeconds,
                              double shutdownSeconds, double noise, double benchmarkCapacity, double peak, double trough,
                              long seed) {
        RunSpec spec = RunSpec.withGrm(cluster(setup, demand, policy, startupSeconds, shutdownSeconds, benchmarkCapacity,
                peak, trough), load(setup, peak, trough, seed, noise));
        double window = spec.cluster().control().statsWindowSeconds();
        org.arbiter.grm.model.PredictionErrors errors = new org.arbiter.grm.model.PredictionErrors(window, true);
        SimResult r = new SimulatedBackend().simulator(spec).withDecisions(errors::accept).run();
        return new DayRun(r, PredictionError.of(errors.samples(), window, setup.daySeconds()));
    }

    /**
     * One compressed day of {@code policy} at demand factor {@code demand} as a run spec, for either
     * backend: {@link #cluster} under the GRM and {@link #load}.
     */
    public static RunSpec spec(Setup setup, double demand, EnergyPolicy policy, double startupSeconds,
                               double benchmarkCapacity, double peak, double trough, long seed) {
        return RunSpec.withGrm(cluster(setup, demand, policy, startupSeconds, benchmarkCapacity, peak, trough),
                load(setup, peak, trough, seed));
    }

    /**
     * The day's load: one open-loop diurnal source of class web from {@code trough} up to {@code peak}
     * req/s half-way and back, over the day (think time 1 s and timeout 60 s: the load generator's,
     * unused by an open-loop source in the simulator).
     */
    static Scenario load(Setup setup, double peak, double trough, long seed) {
        return load(setup, peak, trough, seed, 0);
    }

    /** As above with noise σ ({@link #NOISE}, held {@link #NOISE_SECONDS}; its factors from the seed alone). */
    static Scenario load(Setup setup, double peak, double trough, long seed, double noise) {
        Scenario.Diurnal day = noise == 0 ? new Scenario.Diurnal(peak, trough)
                : new Scenario.Diurnal(peak, trough, noise, NOISE_SECONDS, seed * 0x9E3779B97F4A7C15L + 17);
        return new Scenario(Map.of("web", Scenario.RequestShape.get(Map.of(), 0)), 1, 60, seed,
                List.of(new Scenario.Phase("day", setup.daySeconds(), Map.of(), Map.of(), Map.of(),
                        Map.of("web", day))), List.of());
    }

    /**
     * The cluster for one run. Durations, rates and demands are rounded to six significant digits
     * ({@link #sig6}), as in the configurations the documented results were made from.
     */
    static ClusterConfig cluster(Setup setup, double demand, EnergyPolicy policy, double startupSeconds,
                                 double benchmarkCapacity, double peak, double trough) {
        return cluster(setup, demand, policy, startupSeconds, SHUTDOWN_SECONDS, benchmarkCapacity, peak, trough);
    }

    /** As above with the shutdown delay. */
    static ClusterConfig cluster(Setup setup, double demand, EnergyPolicy policy, double startupSeconds,
                                 double shutdownSeconds, double benchmarkCapacity, double peak, double trough) {
        ClusterConfig.Builder b = ClusterConfig.builder().addClass(web(setup.queueLimit(), setup));
        ServerConfig.SimSpec sim = ServerConfig.SimSpec.builder().cores(setup.cores())
                .meanDemandSeconds(sig6(setup.demandSeconds() * demand * 1000) / 1e3).build();
        for (int i = 1; i <= SERVERS; i++) {
            b.addServer(ServerConfig.builder("s" + i, URI.create("http://127.0.0.1:" + (9000 + i)))
                    .concurrency(setup.cores()).power(new ServerConfig.PowerDraw(0, 60, 60, 65)).sim(sim).build());
        }
        SizingConfig.Builder sizing = SizingConfig.builder();
        switch (policy) {
            case OFF -> sizing.policy(SizingConfig.Policy.OFF);
            case STATIC -> sizing.policy(SizingConfig.Policy.BY_CAPACITY).estimator(SizingConfig.Estimator.STATIC)
                    .staticCapacity(sig6(benchmarkCapacity));
            case QUEUE -> sizing.policy(SizingConfig.Policy.BY_CAPACITY).estimator(SizingConfig.Estimator.QUEUE);
            case QUEUE_CURRENT -> sizing.policy(SizingConfig.Policy.BY_CAPACITY).estimator(SizingConfig.Estimator.QUEUE)
                    .forecast(SizingConfig.Forecast.CURRENT);
            case UTILITY -> sizing.policy(new SizingConfig.Utility(sig6(UTILITY_FLOOR)));
            case SCHEDULE_30M, SCHEDULE_2H -> {
                double slotDay = policy == EnergyPolicy.SCHEDULE_30M ? 1800 : 7200;
                sizing.policy(new SizingConfig.Schedule(sig6(slotDay / setup.compression()),
                                schedule(setup, slotDay, benchmarkCapacity, peak, trough)))
                        .estimator(SizingConfig.Estimator.STATIC).staticCapacity(sig6(benchmarkCapacity));
            }
        }
        return b.addGateway(GatewayConfig.builder("g1").port(8080).build())
                .control(ControlConfig.builder().periodSeconds(sig6(setup.periodSeconds()))
                        .reportPeriodSeconds(sig6(setup.periodSeconds())).statsWindowSeconds(30).build())
                .sizing(sizing.minServers(1).startupDelaySeconds(sig6(startupSeconds))
                        .shutdownDelaySeconds(sig6(shutdownSeconds)).dropRatio(sig6(DROP_RATIO)).warmUpSeconds(10).build())
                .build();
    }

    /** The one class, web (τ = 1 s, the default), with a queue of {@code queueLimit}. */
    private static ClassConfig web(int queueLimit, Setup setup) {
        return ClassConfig.builder("web", 1).isDefault(true).queue(queueLimit, sig6(setup.queueTimeoutSeconds())).build();
    }

    /**
     * A timetable from the known curve: per slot of {@code slotDaySeconds} of the uncompressed day,
     * ⌈slot's peak rate / capacity⌉ servers (at least one).
     */
    static List<Integer> schedule(Setup setup, double slotDaySeconds, double capacity, double peak, double trough) {
        double slot = slotDaySeconds / setup.compression();
        int slots = (int) Math.ceil(setup.daySeconds() / slot - 1e-9);
        List<Integer> counts = new ArrayList<>();
        for (int i = 0; i < slots; i++) {
            double max = 0;
            for (int k = 0; k <= 100; k++) {
                double t = Math.min(setup.daySeconds(), (i + k / 100.0) * slot);
                max = Math.max(max, ArrivalProcess.diurnalRate(peak, trough, 0, setup.daySeconds(), t));
            }
            counts.add(Math.max(1, Math.min(SERVERS, (int) Math.ceil(max / capacity - 1e-9))));
        }
        return counts;
    }

    /**
     * 000 §5.1's static estimation on one server of the standard workload: Poisson steps around the
     * nominal capacity; the highest throughput of a step whose drop ratio stays within ε_th.
     */
    public static double benchmark(Setup setup, long seed, Consumer<String> progress) {
        double best = 0;
        for (double step : BENCH_STEPS) {
            double rate = step * setup.nominalCapacity();
            ClusterConfig c = ClusterConfig.builder().addClass(web(setup.queueLimit() / SERVERS, setup))
                    .addServer(ServerConfig.builder("s1", URI.create("http://127.0.0.1:9001")).concurrency(setup.cores())
                            .sim(ServerConfig.SimSpec.builder().cores(setup.cores())
                                    .meanDemandSeconds(sig6(setup.demandSeconds() * 1000) / 1e3).build())
                            .build())
                    .addGateway(GatewayConfig.builder("g1").port(8080).build())
                    .build();
            SimResult r = Simulator.withConfiguredAllocation(c, new SimScenario(1, List.of(new SimScenario.Phase("bench",
                    setup.benchmarkStepSeconds(), null, Map.of("web", rate))), seed)).run();
            var w = r.phases().get(0).classes().get("web");
            double dropRatio = w.sent() == 0 ? 0 : (double) w.dropped() / w.sent();
            progress.accept(String.format(Locale.ROOT, "energy benchmark %.1f req/s: throughput %.2f req/s, drop ratio %.4f",
                    rate, w.throughputPerSecond(), dropRatio));
            if (dropRatio <= DROP_RATIO) {
                best = Math.max(best, w.throughputPerSecond());
            }
        }
        return best;
    }

    /** {@code d} rounded to six significant digits (half up). */
    static double sig6(double d) {
        return new java.math.BigDecimal(d).round(new java.math.MathContext(6)).doubleValue();
    }

    public static String fmt(double d) {
        return new java.math.BigDecimal(d).round(new java.math.MathContext(6)).stripTrailingZeros().toPlainString();
    }
}
