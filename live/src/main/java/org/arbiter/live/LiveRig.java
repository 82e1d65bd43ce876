package org.arbiter.live;

import org.arbiter.sim.experiment.*;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.message.Decision;
import org.arbiter.grm.model.PredictionErrors;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.arbiter.haproxy.HaproxyAgent;
import org.arbiter.runtime.net.Ports;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.service.GrmService;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.loadgen.client.LoadSummary;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;

/*
 * Design note — 003's experiments live.
 *
 * One run = 003 §V's cluster over real processes' code on loopback: a simserver (10 virtual
 * cores, demand Exp(1 s), optionally the overhead above the knee that Fig. 7 shows), one Netty
 * gateway with the given scheduler and N_s, the GRM service when the policy uses it, and the
 * live load generator with closed-loop premium/basic clients (think Exp(1 s), which the classes'
 * thinkTime tells the GRM, as in the simulated runs), all on one embedded Kafka broker
 * shared by the runs (each run its own topic prefix). Every duration is multiplied by the time
 * scale; results are reported back in 003's seconds (response times ÷ scale, throughput ×
 * scale). The gateway's weights are sampled ten times per phase; a phase's weights are the mean of
 * its second half. With the GRM, the run reads the decisions topic from its beginning and pairs
 * each decision's predicted response times with the measurement one statistics window later
 * (grm's PredictionErrors, the same code the simulated experiments use); the relative errors do
 * not depend on the time scale.
 */

/** Runs one live configuration of 003's cluster. See the design note. */
final class LiveRig {

    /**
     * One phase's outcome in 003's units; {@code predictionError} is the GRM's flow-model error over
     * the phase (predictions made once the phase's first statistics window had passed, checked by the
     * end of the phase, as the simulated phases count it), null when no GRM ran.
     */
    record Phase(String name, int premiumClients, int basicClients, double premiumWeight, double basicWeight,
                 double premiumResponse, double basicResponse, double throughput, long sent, long ok,
                 PredictionError predictionError) {
    }

    /**
     * @param scheduler   wrr, fcfs or priority
     * @param grm         run the GRM (else the configured allocation stays)
     * @param granularity the GRM's q
     * @param concurrency N_s
     * @param overhead    the simserver's efficiency loss per request above the knee of 10
     */
    record Spec(DispatchConfig.Scheduler scheduler, boolean grm, int granularity, int concurrency, double overhead,
                GatewayConfig.Kind kind, int gateways) {

        /** One Arbiter gateway, as every live experiment but the HAProxy comparison runs. */
        Spec(DispatchConfig.Scheduler scheduler, boolean grm, int granularity, int concurrency, double overhead) {
            this(scheduler, grm, granularity, concurrency, overhead, GatewayConfig.Kind.ARBITER, 1);
        }
    }

    private final EmbeddedKafka kafka;
    private final Path work;
    private final double scale;
    private int runs;
    /** The last run's response time against time (null: that run had no GRM). */
    private Timeline lastTimeline;
    /** The last run's HAProxy agents' allocations seen and read back applied, summed (null: Arbiter's gateways). */
    private HaproxyAgent.Applied lastApplied;

    LiveRig(EmbeddedKafka kafka, Path work, double scale) {
        this.kafka = kafka;
        this.work = work;
        this.scale = scale;
    }

    /** Starts a broker in {@code work} for a series of runs. */
    static EmbeddedKafka broker(Path work) throws Exception {
        return EmbeddedKafka.start(Files.createTempDirectory(work, "kafka"));
    }

    /**
     * One run.
     *
     * @param phases the load, one step per phase
     */
    List<Phase> run(Spec spec, List<Step> phases, double secondsPerPhase, long seed, Consumer<String> progress)
            throws Exception {
        int run = ++runs;
        try (SimServer server = SimServer.start(SimServerOptions.defaults().withDemand(10, scale, spec.overhead())
                .withKnee(10).withSeed(seed))) {
            ClassConfig.QueueConfig unbounded = new ClassConfig.QueueConfig(100_000, 3600);
            ClusterConfig cluster = ClusterConfig.builder()
                    .addClass(ClassConfig.builder("premium", 2 * scale).matchHeader("X-Class", "premium").queue(unbounded)
                            .thinkTimeSeconds(scale).build())
                    .addClass(ClassConfig.builder("basic", 3 * scale).isDefault(true).queue(unbounded)
                            .thinkTimeSeconds(scale).build())
                    .addServer(ServerConfig.builder("s1", URI.create("http://127.0.0.1:" + server.port()))
                            .concurrency(spec.concurrency()).build())
                    .gateways(gateways(spec))
                    .dispatch(DispatchConfig.builder().scheduler(spec.scheduler()).backendTimeoutSeconds(3600).build())
                    .control(ControlConfig.builder().periodSeconds(5 * scale).reportPeriodSeconds(5 * scale)
                            .statsWindowSeconds(30 * scale).combine(ControlConfig.Combine.MIN)
                            .granularity(spec.granularity()).build())
                    .kafka(KafkaConfig.builder().bootstrap(kafka.bootstrap()).topicPrefix("live" + run + ".").build())
                    .build();
            Scenario sc = scenario(phases, secondsPerPhase * scale, scale, seed);
            try (ProcessMetrics m = ProcessMetrics.create("grm", "live" + run);
                 KafkaBus bus = KafkaBus.connect(cluster.kafka(), "live" + run, m.registry());
                 GrmService grm = spec.grm() ? GrmService.start("live" + run, cluster, bus, Clock.systemUTC(),
                         new GrmStep(cluster, "live" + run, System::nanoTime), m) : null;
                 LiveGateways gws = LiveGateways.start(cluster, work.resolve("gateways" + run))) {
                DecisionLog decisions = null;
                lastTimeline = null;
                lastApplied = null;
                List<LiveGateways.LiveGateway> gateways = gws.list();
                if (spec.grm()) {
                    DecisionLog log = new DecisionLog(cluster.control().statsWindowSeconds());
                    bus.subscribe(bus.topics().decisions(), Decision.class, Subscriber.Start.BEGINNING,
                            (k, d) -> log.accept(d));
                    decisions = log;
                    for (LiveGateways.LiveGateway g : gateways) {
                        awaitAllocation(g.id(), g::allocation);
                    }
                }
                List<HaproxyAgent.Applied> appliedAtStart = gateways.stream().map(LiveGateways.LiveGateway::applied).toList();
                double phaseWall = secondsPerPhase * scale;
                List<double[]> samples = new ArrayList<>();
                long start = System.nanoTime();
                ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
                sampler.scheduleAtFixedRate(() -> {
                    double t = (System.nanoTime() - start) / 1e9;
                    double wp = 0;
                    double wb = 0;
                    for (LiveGateways.LiveGateway g : gateways) { // pooled over the gateways
                        Map<String, Double> w = g.allocation().weights();
                        wp += w.getOrDefault("premium", 0.0);
                        wb += w.getOrDefault("basic", 0.0);
                    }
                    synchronized (samples) {
                        samples.add(new double[] {t, wp, wb});
                    }
                }, 0, Math.max(10, (long) (phaseWall * 100)), TimeUnit.MILLISECONDS);
                LoadSummary summary;
                double loadStart;
                try {
                    LoadGenerator load = new LoadGenerator(sc, gateways.stream()
                            .map(g -> URI.create("http://127.0.0.1:" + g.port())).toList(), null);
                    Instant at = Instant.now();
                    loadStart = at.getEpochSecond() + at.getNano() / 1e9;
                    summary = load.run(Files.createDirectories(work.resolve("load" + run)));
                } finally {
                    sampler.shutdownNow();
                }
                if (spec.kind() == GatewayConfig.Kind.HAPROXY) {
                    long seen = 0;
                    long verified = 0;
                    for (int i = 0; i < gateways.size(); i++) {
                        HaproxyAgent.Applied a = gateways.get(i).applied();
                        seen += a.seen() - appliedAtStart.get(i).seen();
                        verified += a.verified() - appliedAtStart.get(i).verified();
                    }
                    lastApplied = new HaproxyAgent.Applied(seen, verified);
                }
                List<PredictionErrors.Sample> checkedSamples = List.of();
                double window = cluster.control().statsWindowSeconds();
                if (decisions != null) {
                    List<Timeline.PhaseMark> marks = new ArrayList<>();
                    for (int i = 0; i < phases.size(); i++) {
                        marks.add(new Timeline.PhaseMark(phases.get(i).name(), i * secondsPerPhase));
                    }
                    checkedSamples = decisions.samples();
                    lastTimeline = decisions.timeline(loadStart, scale, marks, Experiments.TARGETS);
                }
                List<Phase> out = new ArrayList<>();
                for (int i = 0; i < phases.size(); i++) {
                    double from = (i + 0.5) * phaseWall;
                    double to = (i + 1) * phaseWall;
                    double wp = 0;
                    double wb = 0;
                    int n = 0;
                    synchronized (samples) {
                        for (double[] s : samples) {
                            if (s[0] >= from && s[0] < to) {
                                wp += s[1];
                                wb += s[2];
                                n++;
                            }
                        }
                    }
                    LoadSummary.ClassSummary pc = summary.phases().get(i).cls("premium");
                    LoadSummary.ClassSummary bc = summary.phases().get(i).cls("basic");
                    Step step = phases.get(i);
                    out.add(new Phase(step.name(), step.premiumClients(), step.basicClients(),
                            n == 0 ? 0 : wp / n, n == 0 ? 0 : wb / n,
                            pc.meanResponseSeconds() / scale, bc.meanResponseSeconds() / scale,
                            (pc.throughputPerSecond() + bc.throughputPerSecond()) * scale,
                            pc.sent() + bc.sent(), pc.ok() + bc.ok(),
                            decisions == null ? null : PredictionError.of(checkedSamples, loadStart + i * phaseWall + window,
                                    loadStart + (i + 1) * phaseWall)));
                }
                return out;
            }
        }
    }

    /** One phase of load: its name and the closed-loop clients of each class. */
    record Step(String name, int premiumClients, int basicClients) {
    }

    /** The load: premium (X-Class: premium) and basic clients thinking {@code thinkSeconds}, one phase per step. */
    static Scenario scenario(List<Step> steps, double phaseSeconds, double thinkSeconds, long seed) {
        Map<String, Scenario.RequestShape> classes = new LinkedHashMap<>();
        classes.put("premium", Scenario.RequestShape.get(Map.of("X-Class", "premium"), 0));
        classes.put("basic", Scenario.RequestShape.get(Map.of("X-Class", "basic"), 0));
        List<Scenario.Phase> phases = new ArrayList<>();
        for (Step s : steps) {
            Map<String, Integer> clients = new LinkedHashMap<>();
            clients.put("premium", s.premiumClients());
            clients.put("basic", s.basicClients());
            phases.add(new Scenario.Phase(s.name(), phaseSeconds, clients, Map.of(), Map.of(), Map.of()));
        }
        return new Scenario(classes, thinkSeconds, 3600, seed, phases, List.of());
    }

    /** The last run's measured and predicted response time against time, paper seconds (null without a GRM). */
    Timeline lastTimeline() {
        return lastTimeline;
    }

    /**
     * Waits (up to 30 s) until an allocation of the GRM's that gives the gateway slots reached it. Not
     * just the first: a GRM that has not yet taken in the gateway's statistics (a record that came too
     * late on a loaded machine is refused as too old) first decides "gateway gone", every N(g,s) 0. A
     * load started on that queues everything until the next decision; with the experiments' time
     * scale the client's time-out equals the queue's, so every such request times out at the client
     * and its connection is closed, and an open-loop source then opens a new connection for every
     * arrival: a clean-clone run beside other tests saw the energy day's first policy never recover
     * from that (100 % timed out, the servers idle).
     */
    static void awaitAllocation(String id, java.util.function.Supplier<org.arbiter.common.message.Allocation> inForce)
            throws InterruptedException {
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (!hasSlots(inForce.get())) {
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("gateway " + id + ": no allocation with slots from the GRM within 30 s "
                        + "(in force: " + inForce.get() + ")");
            }
            Thread.sleep(20);
        }
    }

    /** The last run's HAProxy agents: allocations seen in force and read back applied (null: Arbiter's gateways). */
    HaproxyAgent.Applied lastApplied() {
        return lastApplied;
    }

    /** g1..gN of the spec's kind; HAProxy's need their ports before they start. */
    private static List<GatewayConfig> gateways(Spec spec) {
        List<GatewayConfig> out = new ArrayList<>();
        int[] ports = spec.kind() == GatewayConfig.Kind.HAPROXY ? Ports.free(2 * spec.gateways()) : null;
        for (int i = 0; i < spec.gateways(); i++) {
            GatewayConfig.Builder b = GatewayConfig.builder("g" + (i + 1)).kind(spec.kind());
            out.add((ports == null ? b.port(0).adminPort(0) : b.port(ports[2 * i]).adminPort(ports[2 * i + 1])).build());
        }
        return out;
    }

    private static boolean hasSlots(org.arbiter.common.message.Allocation a) {
        return a.version() > 0 && a.serverCaps().values().stream().mapToInt(Integer::intValue).sum() > 0;
    }
}
