package org.arbiter.haproxy;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.time.Clock;
import java.time.Instant;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.bus.Publisher;
import org.arbiter.common.bus.Refusals;
import org.arbiter.common.bus.StatsTopics;
import org.arbiter.common.bus.Topics;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.PoolAllocations;
import org.arbiter.gateway.allocation.AllocationFollower;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.runtime.admin.AdminLimits;
import org.arbiter.runtime.metrics.MetricsServer;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code arbiter agent haproxy}: runs beside one HAProxy process that serves as gateway {@code g}
 * ({@code kind: haproxy}). Every sampling interval it reads {@code show stat} and {@code show servers state}
 * over the Runtime API, books the sample ({@link StatsBook}), turns the allocation in force into per-(class,
 * server) caps ({@link CapSplit}) and sends HAProxy the differences ({@link Reconciler}); every report period
 * it publishes the statistics as gateway g. Allocations are followed exactly as a gateway follows them
 * ({@link AllocationFollower}: epochs, plausibility, staleness), so a stale or refused allocation changes
 * nothing.
 *
 * <p>Failures never stop the loop: an unreachable socket, a malformed answer, a refused command are each
 * logged once when they begin (and once when they end), counted, and tried again next interval. HAProxy
 * keeps serving on whatever was last applied when the agent is gone; a restarted agent or a reloaded HAProxy
 * is brought back to the allocation in force at the next interval, since the agent compares with what
 * HAProxy reports rather than with what it sent.
 *
 * <p>Admin port (the gateway's {@code adminHost:adminPort}): {@code /health}, {@code /metrics},
 * {@code /ready} (200 once HAProxy was reached and matches the allocation in force; 503 with the reason
 * otherwise). Thread-safe; {@link #close()} stops it and leaves HAProxy as it is.
 */
public final class HaproxyAgent implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(HaproxyAgent.class);

    /** The agent's settings beyond the cluster file. */
    public record Options(String bootstrap, Integer adminPort, double sampleSeconds) {
        public Options {
            if (!(sampleSeconds > 0 && sampleSeconds <= 60)) {
                throw new IllegalArgumentException("--sample: " + sampleSeconds + " s (expected: 0 < s <= 60)");
            }
        }
    }

    private final String id;
    private final ClusterConfig cluster;
    private final RuntimeApi api;
    private final ProcessMetrics metrics;
    private final AllocationFollower follower;
    private final StatsBook book;
    private final List<String> classes;
    private final ScheduledExecutorService loop;
    private final MetricsServer admin;
    private final Transitions log = new Transitions();
    private final Counter applied;
    private final Counter refused;
    private final AtomicLong mismatched = new AtomicLong();
    private final AtomicLong reachable = new AtomicLong();
    private volatile KafkaBus bus;
    private volatile boolean closed;
    private volatile String notReady = "HAProxy not reached yet";
    private volatile Reconciler.Plan lastPlan;
    private volatile Allocation verified;
    /** The (epoch, version) of the allocation in force at the last tick, and whether HAProxy was seen to match it. */
    private long stampEpoch = -1;
    private long stampVersion = -1;
    private boolean stampVerified;
    private final AtomicLong allocationsSeen = new AtomicLong();
    private final AtomicLong allocationsVerified = new AtomicLong();
    /** With a bus: until this (nanoTime) the configured allocation is not applied while none came from the GRM. */
    private final long graceUntilNanos;
    private final boolean awaitBus;

    private HaproxyAgent(ClusterConfig cluster, GatewayConfig gc, RuntimeApi api, Options options) {
        this.id = gc.id();
        this.cluster = cluster;
        this.api = api;
        this.metrics = ProcessMetrics.createWithJvm("agent-haproxy", id);
        KafkaConfig kafka = options.bootstrap() != null ? cluster.kafka().withBootstrap(options.bootstrap())
                : cluster.kafka();
        boolean standalone = kafka.bootstrapServers().isEmpty();
        // A restarted agent must not put the file's caps back over what HAProxy holds from the GRM: with a bus it
        // waits for the allocation topic (replayed from its start) for up to the gateway's startupGrace
        this.awaitBus = !standalone;
        this.graceUntilNanos = System.nanoTime() + (long) (gc.startupGraceSeconds() * 1e9);
        // as the file `arbiter haproxy config` wrote: each gateway its share of N_s, with or without a bus
        Allocation initial = ConfiguredAllocation.of(cluster, id, false, Instant.now());
        MeterRegistry registry = metrics.registry();
        Refusals refusals = new Refusals(registry, new Topics(kafka.topicPrefix()).allocation(), LOG, System::nanoTime);
        this.follower = new AllocationFollower(id, PoolAllocations.of(cluster, initial), a -> { }, Clock.systemUTC(),
                cluster.control().maxClockSkewMillis(), AllocationFollower.RefusalListener.reporting(refusals, "agent " + id));
        this.classes = cluster.classes().stream().map(ClassConfig::name).toList();
        Map<String, Integer> limits = new LinkedHashMap<>();
        cluster.classes().forEach(c -> limits.put(c.name(), c.queue().limit()));
        this.book = new StatsBook(id, classes, cluster.servers().stream().map(ServerConfig::id).toList(), limits,
                cluster.control().statsWindowSeconds());
        this.applied = Counter.builder("arbiter.haproxy.commands").tag("result", "applied")
                .description("Runtime API commands HAProxy accepted").register(registry);
        this.refused = Counter.builder("arbiter.haproxy.commands").tag("result", "refused")
                .description("Runtime API commands HAProxy answered with an error").register(registry);
        registry.gauge("arbiter.haproxy.mismatched.cells", mismatched);
        registry.gauge("arbiter.haproxy.reachable", reachable);
        registry.more().counter("arbiter.haproxy.allocations", List.of(io.micrometer.core.instrument.Tag.of("state", "seen")),
                allocationsSeen);
        registry.more().counter("arbiter.haproxy.allocations",
                List.of(io.micrometer.core.instrument.Tag.of("state", "verified")), allocationsVerified);
        registry.more().counter("arbiter.haproxy.book.resets", List.of(), book, StatsBook::resets);
        int adminPort = options.adminPort() != null ? options.adminPort() : gc.adminPort();
        this.admin = MetricsServer.start("agent-haproxy-" + id, gc.adminHost(), adminPort,
                AdminLimits.of(gc.adminMaxConnections(), cluster.dispatch().maxHeaderBytes(),
                        cluster.dispatch().idleTimeoutSeconds()), metrics::scrape, () -> notReady);
        this.loop = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "agent-haproxy-" + id);
            t.setDaemon(true);
            return t;
        });
        long sampleMillis = Math.max(1, (long) (options.sampleSeconds() * 1000));
        loop.scheduleWithFixedDelay(this::tickSafely, 0, sampleMillis, TimeUnit.MILLISECONDS);
        if (!standalone) {
            long periodMillis = (long) (cluster.control().reportPeriodSeconds() * 1000);
            loop.execute(() -> connect(kafka));
            loop.scheduleAtFixedRate(this::publishSafely, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        }
        LOG.info("agent {}: driving HAProxy at {} every {} ms{}", id, api.name(), sampleMillis,
                standalone ? " on the configured allocation (no Kafka bootstrap)" : ", following allocations on "
                        + kafka.bootstrap());
    }

    /**
     * Starts the agent for gateway {@code id} of {@code cluster} (which must be {@code kind: haproxy}).
     *
     * @throws IllegalArgumentException naming the problem (unknown id, wrong kind)
     */
    public static HaproxyAgent start(ClusterConfig cluster, String id, RuntimeApi api, Options options) {
        requireNonNull(cluster, "cluster");
        requireNonNull(api, "api");
        GatewayConfig gc = cluster.gateway(id).orElseThrow(() -> new IllegalArgumentException("--gateway: " + id
                + " (expected: one of the gateways in the file: "
                + cluster.gateways().stream().map(GatewayConfig::id).collect(Collectors.joining(", ")) + ")"));
        if (gc.kind() != GatewayConfig.Kind.HAPROXY) {
            throw new IllegalArgumentException("gateways[" + id + "].kind: " + gc.kind()
                    + " (expected: haproxy — the agent drives an HAProxy gateway; run an arbiter gateway with "
                    + "`arbiter gateway --id " + id + "`)");
        }
        return new HaproxyAgent(cluster, gc, api, options);
    }

    private void connect(KafkaConfig kafka) {
        while (!closed && bus == null) {
            try {
                KafkaBus b = KafkaBus.connectGateway(kafka, id, "agent-haproxy-" + id, metrics.registry());
                b.subscribe(b.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING, follower::accept);
                bus = b;
                LOG.info("agent {}: following allocations on {}", id, kafka.bootstrap());
            } catch (RuntimeException e) {
                LOG.warn("agent {}: Kafka not reachable ({}); keeping the allocation in force, retrying in 5 s", id,
                        e.getMessage());
                try {
                    Thread.sleep(5000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void tickSafely() {
        try {
            tick(System.nanoTime());
        } catch (RuntimeException e) {
            log.begin("tick", "agent " + id + ": unexpected failure in the control loop (kept running): " + e);
        }
    }

    /** One sampling interval: read, book, reconcile, apply. */
    void tick(long nanos) {
        if (closed) {
            return;
        }
        StatCsv.Table table;
        Map<String, Map<String, ServersState.Server>> state;
        try {
            String stat = api.call("show stat");
            String servers = api.call("show servers state");
            log.end("socket", "agent " + id + ": HAProxy reachable again at " + api.name());
            reachable.set(1);
            table = StatCsv.parse(stat);
            state = ServersState.parse(servers);
            log.end("parse", "agent " + id + ": HAProxy's answers parse again");
        } catch (RuntimeApi.Unreachable e) {
            reachable.set(0);
            notReady = "HAProxy unreachable: " + e.getMessage();
            log.begin("socket", "agent " + id + ": HAProxy unreachable (" + e.getMessage()
                    + "); it keeps the settings last applied; retrying every interval");
            return;
        } catch (StatCsv.Malformed e) {
            notReady = "HAProxy's answer malformed: " + e.getMessage();
            log.begin("parse", "agent " + id + ": " + e.getMessage() + " — skipped; retrying every interval");
            return;
        }
        book.add(nanos, table);
        Allocation inForce = follower.latest();
        if (awaitBus && inForce.epoch() == 0 && inForce.version() == 0 && nanos - graceUntilNanos < 0) {
            notReady = "awaiting the first allocation from the bus (HAProxy keeps its settings meanwhile)";
            return;
        }
        Map<String, Map<String, Integer>> caps = CapSplit.of(follower.latestByPool(), cluster);
        Reconciler.Plan plan = Reconciler.plan(classes, caps, inForce.serverCaps(), table, state);
        lastPlan = plan;
        if (inForce.epoch() != stampEpoch || inForce.version() != stampVersion) {
            stampEpoch = inForce.epoch();
            stampVersion = inForce.version();
            stampVerified = false;
            allocationsSeen.incrementAndGet();
        }
        if (plan.inForce() && !stampVerified) {
            stampVerified = true;
            allocationsVerified.incrementAndGet();
        }
        log.set("problems", plan.problems().isEmpty() ? null
                : "agent " + id + ": " + String.join("; ", plan.problems()), "agent " + id + ": HAProxy has every "
                + "backend and server the allocation names again");
        mismatched.set(plan.commands().size());
        if (plan.inForce()) {
            verified = inForce;
            notReady = plan.problems().isEmpty() ? null : "configuration mismatch: " + plan.problems().get(0);
            return;
        }
        notReady = "applying " + plan.commands().size() + " setting(s) of allocation epoch " + inForce.epoch() + " v"
                + inForce.version();
        for (Reconciler.Command c : plan.commands()) {
            try {
                String answer = api.call(c.text()).strip();
                if (answer.isEmpty()) {
                    applied.increment();
                    log.end("cmd:" + c.backend() + "/" + c.server(), null);
                } else {
                    refused.increment();
                    log.begin("cmd:" + c.backend() + "/" + c.server(), "agent " + id + ": HAProxy refused '" + c.text()
                            + "': " + StatCsv.clip(answer) + " — retrying every interval");
                }
            } catch (RuntimeApi.Unreachable e) {
                reachable.set(0);
                log.begin("socket", "agent " + id + ": HAProxy unreachable while applying (" + e.getMessage() + ")");
                return;
            }
        }
    }

    private void publishSafely() {
        KafkaBus b = bus;
        if (b == null || closed) {
            return;
        }
        try {
            GatewayStats s = book.report(Instant.now(), System.nanoTime(), cluster.control().reportPeriodSeconds(),
                    follower.latest());
            if (s == null) {
                return;
            }
            String topic = StatsTopics.topicOf(b.topics(), b.config().security(), id);
            Publisher p = b.publisher(topic);
            if (cluster.pools().isEmpty() || !topic.equals(b.topics().stats())) {
                p.publish(s);
                return;
            }
            for (StatsTopics.PoolReport r : StatsTopics.poolReports(cluster.pools(), s)) {
                p.publish(r.stats(), r.key(), r.partition());
            }
        } catch (RuntimeException e) {
            log.begin("publish", "agent " + id + ": cannot publish statistics: " + e);
        }
    }

    /** The statistics as they would be published now (the admin API and tests). */
    public GatewayStats stats() {
        return book.report(Instant.now(), System.nanoTime(), cluster.control().reportPeriodSeconds(), follower.latest());
    }

    /** The allocation in force (the newest accepted). */
    public Allocation allocation() {
        return follower.latest();
    }

    /** The last allocation HAProxy was seen to match entirely (null before). */
    public Allocation verified() {
        return verified;
    }

    /** The last plan computed (null before HAProxy was first read). */
    public Reconciler.Plan lastPlan() {
        return lastPlan;
    }

    /**
     * Allocations seen in force at a sampling interval, and of those, how many HAProxy was read back to match
     * before the next one replaced them (the live experiment's check that every period's caps were applied).
     */
    public record Applied(long seen, long verified) {
    }

    public Applied applied() {
        return new Applied(allocationsSeen.get(), allocationsVerified.get());
    }

    /** Null when ready, else why not. */
    public String notReady() {
        return notReady;
    }

    /** The admin port bound. */
    public int adminPort() {
        return admin.port();
    }

    /** Offers an allocation as if it came from the bus (tests, and a standalone agent fed by hand). */
    public boolean offer(Allocation a) {
        return follower.accept(a);
    }

    @Override
    public void close() {
        closed = true;
        loop.shutdownNow();
        try {
            loop.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        KafkaBus b = bus;
        if (b != null) {
            b.close();
        }
        admin.close();
        api.close();
        metrics.close();
    }

    /** Logs a condition once when it begins (or changes) and once when it ends. Not thread-safe (the loop's). */
    static final class Transitions {
        private final Map<String, String> open = new HashMap<>();

        void begin(String key, String message) {
            if (!message.equals(open.put(key, message))) {
                LOG.warn(message);
            }
        }

        void end(String key, String message) {
            if (open.remove(key) != null && message != null) {
                LOG.info(message);
            }
        }

        void set(String key, String messageOrNull, String cleared) {
            if (messageOrNull == null) {
                end(key, cleared);
            } else {
                begin(key, messageOrNull);
            }
        }
    }
}
