package org.arbiter.live;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.service.GrmService;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.loadgen.client.LoadSummary;
import org.arbiter.loadgen.client.ResultRecorder;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.arbiter.sim.Simulator;
import org.arbiter.sim.run.Backend;
import org.arbiter.sim.run.RunOutcome;
import org.arbiter.sim.run.RunSpec;

/*
 * Design note — the live backend.
 *
 * A run spec over real processes' code on loopback, every duration × the time scale: one simserver
 * per configured server, from the server's `sim` section and the sizing's boot and shutdown delays
 * (LiveConfig.simServer; seeds spec seed × 10 + i), the cluster scaled and wired to them
 * (LiveConfig: the one place that says which keys are the model's time), the GRM service (when the
 * spec's control is the GRM's; the gateways wait for its first allocation), one Netty gateway per
 * configured gateway, all on the backend's embedded broker under a topic prefix of the run's own,
 * and the live load generator on the spec's scenario scaled (Scenario.withTimeScale) against
 * every gateway. Meanwhile a PowerSampler meters the simservers over the load's wall time and
 * samples their power states, and the first gateway's weights are sampled every control period.
 *
 * Everything it reports in the shared RunOutcome is in the experiment's seconds: response times,
 * start times and the energy ÷ the scale. What only a live run can measure (the meters' wall
 * span and the bounds on the powered server-seconds) rides beside it in LiveRun.
 *
 * Not thread-safe: one run at a time, on the caller's thread.
 */

/** A {@link RunSpec} on real processes, time-scaled. See the design note. */
public final class LiveBackend implements Backend {

    private final EmbeddedKafka kafka;
    private final double scale;
    private final Path work;
    private final String name;
    private int runs;

    /**
     * @param kafka the broker every run uses (each under its own topic prefix)
     * @param scale every duration of the spec × this (0 < scale ≤ 1)
     * @param work  where the load generator's outputs go, one directory per run
     * @param name  names the runs: {@code name1}, {@code name2}, … (process ids, topic prefixes, directories)
     */
    public LiveBackend(EmbeddedKafka kafka, double scale, Path work, String name) {
        if (!(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("scale: " + scale + " (expected: 0 < scale <= 1)");
        }
        this.kafka = requireNonNull(kafka, "kafka");
        this.scale = scale;
        this.work = requireNonNull(work, "work");
        this.name = requireNonNull(name, "name");
    }

    /** A live run: the outcome every backend gives, and the meters' live detail. */
    public record LiveRun(RunOutcome outcome, Metered metered) {
    }

    /**
     * The simservers' meters over the run, in wall seconds (see {@link PowerSampler}).
     *
     * @param joules                  metered from the start of the load until its wall time was over
     * @param seconds                 the wall time the meters were read over
     * @param poweredServerSecondsMin server-seconds surely powered (not OFF)
     * @param poweredServerSecondsMax server-seconds possibly powered
     */
    public record Metered(double joules, double seconds, double poweredServerSecondsMin,
                          double poweredServerSecondsMax) {
    }

    @Override
    public RunOutcome run(RunSpec spec, Set<String> answersOf) throws Exception {
        return runLive(spec, answersOf).outcome();
    }

    /** Runs {@code spec} live to its end; see the design note. */
    public LiveRun runLive(RunSpec spec, Set<String> answersOf) throws Exception {
        requireNonNull(answersOf, "answersOf");
        if (spec.cluster().gateways().isEmpty()) {
            throw new IllegalArgumentException("gateways: none (expected: at least one, for the load generator)");
        }
        String id = name + ++runs;
        ClusterConfig scaled = LiveConfig.scaled(spec.cluster(), scale);
        List<SimServer> sims = new ArrayList<>();
        try {
            List<LiveConfig.Ports> ports = new ArrayList<>();
            for (int i = 0; i < scaled.servers().size(); i++) {
                SimServer s = SimServer.start(LiveConfig.simServer(scaled.servers().get(i), scaled.sizing(),
                        spec.seed() * 10 + i));
                sims.add(s);
                ports.add(new LiveConfig.Ports(s.port(), s.adminPort()));
            }
            ClusterConfig cluster = LiveConfig.wired(scaled, ports, kafka.bootstrap(), id + ".");
            boolean grm = spec.control() == Simulator.Control.GRM;
            try (ProcessMetrics m = grm ? ProcessMetrics.create("grm", id) : null;
                 KafkaBus bus = grm ? KafkaBus.connect(cluster.kafka(), id, m.registry()) : null;
                 GrmService service = grm ? GrmService.start(id, cluster, bus, Clock.systemUTC(),
                         new GrmStep(cluster, id, System::nanoTime), m) : null;
                 LiveGateways gateways = LiveGateways.start(cluster, work.resolve("gateways-" + id))) {
                if (grm) {
                    for (LiveGateways.LiveGateway g : gateways.list()) {
                        LiveRig.awaitAllocation(g.id(), g::allocation);
                    }
                }
                return measure(spec, cluster, sims, gateways.list(), answersOf, id);
            }
        } finally {
            for (SimServer s : sims) {
                s.close();
            }
        }
    }

    private LiveRun measure(RunSpec spec, ClusterConfig cluster, List<SimServer> sims,
                            List<LiveGateways.LiveGateway> gateways, Set<String> answersOf, String id) throws Exception {
        LiveGateways.LiveGateway first = gateways.get(0);
        long firstVersion = first.allocation().version();
        List<URI> targets = gateways.stream().map(g -> URI.create("http://127.0.0.1:" + g.port())).toList();
        LoadGenerator load = new LoadGenerator(spec.load().withTimeScale(scale), targets, null);
        answersOf.forEach(load.recorder()::keepRequests);
        List<String> classes = cluster.classes().stream().map(ClassConfig::name).toList();
        WeightSampler weights = new WeightSampler(first, classes);
        weights.start(cluster.control().periodSeconds());
        PowerSampler power = new PowerSampler(sims, cluster.sizing().startupDelaySeconds());
        power.start(spec.seconds() * scale);
        LoadSummary summary;
        try {
            summary = load.run(Files.createDirectories(work.resolve("load-" + id)));
        } finally {
            power.stop();
            weights.stop();
        }
        long allocations = first.allocation().version() - firstVersion;
        Map<String, RunOutcome.ClassOutcome> outcomes = new LinkedHashMap<>();
        for (String c : classes) {
            LoadSummary.ClassSummary k = summary.cls(c);
            outcomes.put(c, new RunOutcome.ClassOutcome(k.sent(), k.ok(), k.rejected(), k.timedOut(), k.lost(),
                    k.errors(), k.meanResponseSeconds() / scale));
        }
        Map<String, List<ResultRecorder.Request>> answers = new LinkedHashMap<>();
        for (String c : answersOf) {
            answers.put(c, load.recorder().requests(c).stream().map(r -> new ResultRecorder.Request(
                    r.intendedStartSeconds() / scale, r.responseSeconds() / scale, r.outcome())).toList());
        }
        RunOutcome outcome = new RunOutcome(spec.seconds(), outcomes, answers, power.joules() / scale,
                power.meanServersUp(), power.offs(), power.ons(), allocations, weights.result());
        return new LiveRun(outcome, new Metered(power.joules(), power.seconds(), power.poweredSeconds(false),
                power.poweredSeconds(true)));
    }

    /** Samples a gateway's weight of every class every control period, on its own thread. */
    private static final class WeightSampler {
        private final LiveGateways.LiveGateway gateway;
        private final List<String> classes;
        private final double[] sum;
        private final double[] max;
        private long samples;
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();

        WeightSampler(LiveGateways.LiveGateway gateway, List<String> classes) {
            this.gateway = gateway;
            this.classes = classes;
            this.sum = new double[classes.size()];
            this.max = new double[classes.size()];
        }

        void start(double periodSeconds) {
            timer.scheduleAtFixedRate(this::sample, 0, Math.max(5, Math.round(periodSeconds * 1000)),
                    TimeUnit.MILLISECONDS);
        }

        private synchronized void sample() {
            Map<String, Double> w = gateway.allocation().weights();
            for (int i = 0; i < classes.size(); i++) {
                double x = w.getOrDefault(classes.get(i), 0.0);
                sum[i] += x;
                max[i] = Math.max(max[i], x);
            }
            samples++;
        }

        void stop() throws InterruptedException {
            timer.shutdownNow();
            timer.awaitTermination(30, TimeUnit.SECONDS);
        }

        synchronized Map<String, RunOutcome.Weight> result() {
            Map<String, RunOutcome.Weight> out = new LinkedHashMap<>();
            for (int i = 0; i < classes.size(); i++) {
                out.put(classes.get(i), samples == 0 ? RunOutcome.Weight.NONE
                        : new RunOutcome.Weight(sum[i] / samples, max[i]));
            }
            return out;
        }
    }
}
