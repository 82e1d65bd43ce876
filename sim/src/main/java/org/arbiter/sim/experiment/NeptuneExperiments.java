package org.arbiter.sim.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.sim.neptune.ClusterSim;

/*
 * Design note — 002 §5.3-5.4 in the simulator (Fig. 11 and 12), on ClusterSim.
 *
 * Classes: Gold, Silver, Bronze, 10 / 30 / 60 % of the requests, full yields 4 : 2 : 1, hybrid yield with
 * D = 2 s (D' = 1 s, C' = C/2). Search: mean service 250 ms for all; Micro-benchmark: 400 / 200 / 100 ms.
 * Each node runs one request at a time and the adaptive scheduler (002 §5.3). 100 % demand is the nominal
 * capacity, servers / E[s] (not the EDF-95 % bisection of the yield experiment: the bisection would be
 * per cluster size and policy; the nominal capacity keeps the demand the same for both policies).
 * Polls: d = 3, deadline 10 ms, round trip Exp(1 ms) (a LAN; 002 gives only the deadline).
 *
 * distribution (Fig. 11): Poisson arrivals at 75 / 125 / 200 % on 2, 4, 8 and 16 servers, Neptune
 * (random polling over all nodes, node-level minShare 0) against server partitioning (10 s interval,
 * no guarantees), aggregate yield per second normalised to Neptune's at 200 % on 16 servers, per
 * workload. Beside it, YID against Greedy on 16 servers behind random polling (per-node queues).
 *
 * spike (Fig. 12): 16 servers, 20 % guarantee per class, fixed-interval arrivals at 100 % (64 req/s,
 * 10/30/60); Silver's rate is tripled between 50 and 150 s (its demand 30 % → 90 %; 002 shows the
 * spike but gives no number); one server fails at 200 s and recovers at 250 s (under partitioning the
 * first server dedicated to Gold, as in 002). Demand and allocation per class every 2 s.
 *
 * Deterministic under the seed; runs on the caller's thread.
 */

/** 002 Fig. 11 ({@link #distribution}) and Fig. 12 ({@link #spike}). See the design note. */
public final class NeptuneExperiments {

    static final double DEADLINE_SECONDS = 2;
    static final int POLL_COUNT = 3;
    static final double POLL_DEADLINE_SECONDS = 0.010;
    static final double POLL_RTT_SECONDS = 0.001;
    static final double INTERVAL_SECONDS = 10;
    static final int[] SIZES = {2, 4, 8, 16};
    static final double[] DEMANDS = {0.75, 1.25, 2.0};
    static final double[] CHECK_DEMANDS = {0.5, 0.75, 1.0, 1.5, 2.0};

    private NeptuneExperiments() {
    }

    static List<ClusterSim.ClassSpec> classes(boolean micro, double minShare) {
        return List.of(
                new ClusterSim.ClassSpec("Gold", 0.1, 4, micro ? 0.4 : 0.25, minShare),
                new ClusterSim.ClassSpec("Silver", 0.3, 2, micro ? 0.2 : 0.25, minShare),
                new ClusterSim.ClassSpec("Bronze", 0.6, 1, micro ? 0.1 : 0.25, minShare));
    }

    static double meanService(List<ClusterSim.ClassSpec> classes) {
        return classes.stream().mapToDouble(c -> c.share() * c.serviceSeconds()).sum();
    }

    static ClusterSim.Settings settings(int servers, List<ClusterSim.ClassSpec> classes, DispatchConfig.Scheduler scheduler,
                                        ClusterSim.Distribution d, double warmup, double end,
                                        List<ClusterSim.Failure> failures, long seed) {
        return new ClusterSim.Settings(servers, classes, scheduler, d, DEADLINE_SECONDS, POLL_COUNT, POLL_DEADLINE_SECONDS,
                POLL_RTT_SECONDS, INTERVAL_SECONDS, 2, warmup, end, failures, seed);
    }

    /** Poisson arrivals, class c at {@code totalPerSecond × share_c}. */
    static ClusterSim.Arrivals poisson(List<ClusterSim.ClassSpec> classes, double totalPerSecond) {
        return (c, now, r) -> now - Math.log(1 - r.nextDouble()) / (classes.get(c).share() * totalPerSecond);
    }

    /** One Poisson run. */
    static ClusterSim.Result poissonRun(boolean micro, int servers, double demand, DispatchConfig.Scheduler scheduler,
                                        ClusterSim.Distribution d, long seed, double warmup, double seconds) {
        List<ClusterSim.ClassSpec> classes = classes(micro, 0);
        double rate = demand * servers / meanService(classes);
        return new ClusterSim(settings(servers, classes, scheduler, d, warmup, warmup + seconds, List.of(), seed),
                poisson(classes, rate)).run();
    }

    /**
     * Fig. 11.
     *
     * @param seconds measured simulated seconds per run (30 s warm up first)
     */
    public static DistributionResult distribution(long seed, double seconds, Consumer<String> progress) {
        if (!(seconds > 0)) {
            throw new IllegalArgumentException("--seconds: " + seconds + " (expected: > 0)");
        }
        double warmup = 30;
        Map<String, List<DistributionResult.Point>> workloads = new LinkedHashMap<>();
        for (boolean micro : new boolean[] {false, true}) {
            String key = micro ? "micro" : "search";
            record Raw(ClusterSim.Distribution policy, int servers, double demand, double yps, double loss, long lost) {
            }
            List<Raw> raw = new ArrayList<>();
            for (ClusterSim.Distribution d : ClusterSim.Distribution.values()) {
                for (int n : SIZES) {
                    for (double demand : DEMANDS) {
                        ClusterSim.Result r = poissonRun(micro, n, demand, DispatchConfig.Scheduler.ADAPTIVE, d, seed, warmup,
                                seconds);
                        long lost = java.util.Arrays.stream(r.lost()).sum();
                        raw.add(new Raw(d, n, demand, r.realisedTotal() / seconds,
                                r.lossPercent(), lost));
                    }
                }
            }
            double ref = raw.stream().filter(x -> x.policy() == ClusterSim.Distribution.NEPTUNE && x.servers() == 16 && x.demand() == 2.0)
                    .findFirst().orElseThrow().yps();
            List<DistributionResult.Point> points = new ArrayList<>();
            for (Raw x : raw) {
                points.add(new DistributionResult.Point(x.policy().name().toLowerCase(Locale.ROOT), x.servers(), x.demand(), Experiments.round(x.yps()),
                        Experiments.round(x.yps() / ref), Experiments.round(x.loss()), x.lost()));
                progress.accept(String.format(Locale.ROOT, "distribution %s %s %d servers %.0f %%: yield %.2f/s (%.3f), LossPercent %.1f",
                        key, x.policy().name().toLowerCase(Locale.ROOT), x.servers(), x.demand() * 100, x.yps(), x.yps() / ref, x.loss()));
            }
            workloads.put(key, points);
        }
        List<Double> demand = new ArrayList<>();
        Map<String, List<Double>> loss = new LinkedHashMap<>();
        for (double dm : CHECK_DEMANDS) {
            demand.add(dm);
        }
        for (DispatchConfig.Scheduler sch : List.of(DispatchConfig.Scheduler.YID, DispatchConfig.Scheduler.GREEDY)) {
            List<Double> l = new ArrayList<>();
            for (double dm : CHECK_DEMANDS) {
                l.add(Experiments.round(poissonRun(false, 16, dm, sch, ClusterSim.Distribution.NEPTUNE, seed, warmup, seconds)
                        .lossPercent()));
            }
            loss.put(sch.wireName(), l);
            progress.accept("distribution scheduler check " + sch + ": LossPercent " + l);
        }
        return new DistributionResult(workloads, new DistributionResult.SchedulerCheck(16, demand, loss),
                new DistributionResult.Setup(seed, warmup, seconds, POLL_COUNT, POLL_DEADLINE_SECONDS, POLL_RTT_SECONDS,
                        INTERVAL_SECONDS, DEADLINE_SECONDS, DispatchConfig.Scheduler.ADAPTIVE.wireName()));
    }

    static final int SPIKE_SERVERS = 16;
    static final double SPIKE_MIN_SHARE = 0.2;
    static final double SPIKE_FACTOR = 3;
    static final double SPIKE_FROM = 50;
    static final double SPIKE_TO = 150;
    static final double FAIL_AT = 200;
    static final double RECOVER_AT = 250;
    static final double SPIKE_SECONDS = 300;

    /** Fig. 12. */
    public static SpikeResult spike(long seed, Consumer<String> progress) {
        List<ClusterSim.ClassSpec> classes = classes(false, SPIKE_MIN_SHARE);
        double total = SPIKE_SERVERS / meanService(classes);
        java.util.SplittableRandom phases = new java.util.SplittableRandom(seed);
        double[] offset = new double[classes.size()];
        for (int c = 0; c < offset.length; c++) {
            offset[c] = phases.nextDouble() / (classes.get(c).share() * total);
        }
        ClusterSim.Arrivals fixed = (c, now, r) -> {
            double rate = classes.get(c).share() * total;
            if (classes.get(c).name().equals("Silver") && now >= SPIKE_FROM && now < SPIKE_TO) {
                rate *= SPIKE_FACTOR;
            }
            return now == 0 ? offset[c] : now + 1 / rate;
        };
        Map<String, SpikeResult.Run> runs = new LinkedHashMap<>();
        for (ClusterSim.Distribution d : ClusterSim.Distribution.values()) {
            int failNode = d == ClusterSim.Distribution.NEPTUNE ? 0 : -1;
            ClusterSim.Result r = new ClusterSim(settings(SPIKE_SERVERS, classes, DispatchConfig.Scheduler.ADAPTIVE, d, 0,
                    SPIKE_SECONDS, List.of(new ClusterSim.Failure(failNode, FAIL_AT, RECOVER_AT)), seed), fixed).run();
            Map<String, List<Double>> demand = new LinkedHashMap<>();
            Map<String, List<Double>> alloc = new LinkedHashMap<>();
            for (int c = 0; c < classes.size(); c++) {
                List<Double> dm = new ArrayList<>();
                List<Double> al = new ArrayList<>();
                for (int i = 0; i < r.sampleTimes().size(); i++) {
                    dm.add(Experiments.round(r.demand().get(i)[c] * 100));
                    al.add(Experiments.round(r.allocation().get(i)[c] * 100));
                }
                demand.put(classes.get(c).name(), dm);
                alloc.put(classes.get(c).name(), al);
            }
            List<Double> time = r.sampleTimes();
            SpikeResult.Summary s = new SpikeResult.Summary(
                    Experiments.round(mean(time, alloc.get("Gold"), 20, 50)),
                    Experiments.round(min(time, alloc.get("Gold"), SPIKE_FROM, SPIKE_TO)),
                    Experiments.round(min(time, alloc.get("Bronze"), SPIKE_FROM, SPIKE_TO)),
                    Experiments.round(min(time, alloc.get("Bronze"), SPIKE_FROM + 30, SPIKE_TO)),
                    Experiments.round(mean(time, alloc.get("Bronze"), SPIKE_FROM + 10, SPIKE_TO)),
                    Experiments.round(mean(time, alloc.get("Gold"), 170, FAIL_AT)),
                    Experiments.round(min(time, alloc.get("Gold"), FAIL_AT, FAIL_AT + 20)),
                    r.lostToFailure(), Experiments.round(r.lossPercent()));
            String key = d.name().toLowerCase(Locale.ROOT);
            runs.put(key, new SpikeResult.Run(time.stream().map(Experiments::round).toList(), demand, alloc, s));
            progress.accept("spike " + key + ": " + s);
        }
        return new SpikeResult(runs, new SpikeResult.Setup(seed, SPIKE_SERVERS, SPIKE_MIN_SHARE, SPIKE_FACTOR, SPIKE_FROM,
                SPIKE_TO, FAIL_AT, RECOVER_AT, 2, SPIKE_SECONDS));
    }

    /** Mean of the samples ending in (from, to]. */
    static double mean(List<Double> time, List<Double> v, double from, double to) {
        double sum = 0;
        int n = 0;
        for (int i = 0; i < time.size(); i++) {
            if (time.get(i) > from && time.get(i) <= to) {
                sum += v.get(i);
                n++;
            }
        }
        return n == 0 ? 0 : sum / n;
    }

    /** Samples per rolling window of the summary's minima: 10 s. */
    static final int ROLLING = 5;

    /**
     * Lowest 10 s rolling mean (five 2 s samples) within (from, to]. A single 2 s sample of a class with 6 requests
     * a second and exponential service swings by ±3 points of the cluster by chance alone; the targets are about
     * the allocation, not that noise.
     */
    static double min(List<Double> time, List<Double> v, double from, double to) {
        double m = Double.POSITIVE_INFINITY;
        for (int i = ROLLING - 1; i < time.size(); i++) {
            if (time.get(i - ROLLING + 1) > from && time.get(i) <= to) {
                double sum = 0;
                for (int k = i - ROLLING + 1; k <= i; k++) {
                    sum += v.get(k);
                }
                m = Math.min(m, sum / ROLLING);
            }
        }
        return m;
    }
}
