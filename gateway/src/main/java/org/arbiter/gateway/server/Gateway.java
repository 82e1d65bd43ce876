package org.arbiter.gateway.server;

import static java.util.Objects.requireNonNull;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
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
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.GatewayHttpConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.PoolAllocations;
import org.arbiter.gateway.DrainReport;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.Lifecycle;
import org.arbiter.gateway.allocation.AllocationFollower;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.netty.AdminHandler;
import org.arbiter.gateway.netty.Attempt;
import org.arbiter.gateway.netty.DataPlane;
import org.arbiter.gateway.netty.NetTransport;
import org.arbiter.gateway.netty.ProxyInitializer;
import org.arbiter.gateway.netty.ReloadReport;
import org.arbiter.gateway.netty.ServerTls;
import org.arbiter.gateway.scheduler.Schedulers;
import org.arbiter.runtime.admin.AdminGuard;
import org.arbiter.runtime.admin.AdminLimits;
import org.arbiter.runtime.admin.AdminServer;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running gateway: the proxy port, the admin port, meters and MBean, and (with a Kafka
 * bootstrap) the stats publisher and the allocation follower. Several may run in one JVM (the
 * demo). Start with {@link #start}; {@link #drain()} stops it gracefully (what it holds is
 * answered, then {@link #drained()} completes); {@link #close()} stops everything it started at once.
 * Readiness ({@code /ready}) comes from a {@link Lifecycle}.
 *
 * <p>Thread-safe.
 */
public final class Gateway implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(Gateway.class);

    private final String id;
    private final EventLoopGroup dataGroup;
    private final DataPlane plane;
    private final ChannelGroup clients =
            new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final AllocationFollower follower;
    private final ProcessMetrics metrics;
    private final boolean ownsMetrics;
    private final Channel proxyChannel;
    private final ScheduledExecutorService busExecutor;
    private final String host;
    private final Lifecycle lifecycle;
    private final AdminServer admin;
    private final double drainTimeoutSeconds;
    private final double drainDelaySeconds;
    private final CompletableFuture<DrainReport> drained = new CompletableFuture<>();
    private volatile StopCause stop; // why the drain under way began; null before one
    private volatile KafkaBus bus;
    /** When a pool's report last failed to publish (nanoTime; 0: never), for {@link #warnPoolPublish}. */
    private final AtomicLong lastPoolWarning = new AtomicLong();
    /** {@code pools[]} as the gateway started: a reload cannot change them (the core keeps its own). */
    private final List<PoolConfig> pools;
    private volatile boolean closed;
    private final ProxyInitializer initializer;
    private final boolean standalone;
    private final ConfigReloader reloader;

    /** The exit status after a drain asked for over the admin port without {@code final=true} (sysexits' EX_TEMPFAIL). */
    public static final int EXIT_RESTART = 75;

    /** The configuration key of the admin token file, as refusals name it. */
    public static final String ADMIN_TOKEN_KEY = "gateway.adminTokenFile";

    private Gateway(String id, ClusterConfig cluster, GatewayConfig gc, GatewayOptions options, AdminGuard guard)
            throws InterruptedException {
        this.id = id;
        KafkaConfig kafka = options.bootstrap() != null ? cluster.kafka().withBootstrap(options.bootstrap()) : cluster.kafka();
        boolean standalone = !options.useBus() || kafka.bootstrapServers().isEmpty();
        this.standalone = standalone;
        Allocation initial = ConfiguredAllocation.of(cluster, id, standalone, Instant.now());
        this.ownsMetrics = options.metrics() == null;
        this.metrics = ownsMetrics ? ProcessMetrics.createWithJvm("gateway", id) : options.metrics();
        NetTransport transport = NetTransport.resolve(
                cluster.gatewayHttp().transport());
        int loops = cluster.gatewayHttp().eventLoops();
        this.dataGroup = new MultiThreadIoEventLoopGroup(loops, new DefaultThreadFactory("gateway-" + id),
                transport.ioHandler().get());
        long startNanos = System.nanoTime();
        this.drainTimeoutSeconds = gc.drainTimeoutSeconds();
        this.drainDelaySeconds = gc.drainDelaySeconds();
        this.lifecycle = new Lifecycle(!standalone, (long) (gc.startupGraceSeconds() * 1e9),
                (long) (gc.drainTimeoutSeconds() * 1e9));
        GatewayCore<Attempt> core = new GatewayCore<>(cluster, id, initial, Schedulers.of(cluster.dispatch()),
                Balancers.of(cluster.dispatch(), new SplittableRandom()), startNanos);
        Map<String, Double> targets = new LinkedHashMap<>();
        cluster.classes().forEach(c -> targets.put(c.name(), c.targetSeconds()));
        GatewayMeters meters = new GatewayMeters(metrics.registry(), core, targets);
        // The first allocation from a GRM (the configured one has epoch 0 and version 0) ends the start-up wait.
        List<EventLoop> loopList = new ArrayList<>();
        dataGroup.forEach(e -> loopList.add((EventLoop) e));
        this.plane = new DataPlane(loopList, transport.socketChannel(), cluster, core, meters, a -> {
            if (a.epoch() > 0 || a.version() > 0) {
                lifecycle.allocationKnown();
            }
        });
        meters.lockMeters(plane);
        String why = cluster.gatewayHttp().transport() == GatewayHttpConfig.Transport.AUTO
                ? NetTransport.whyNotNative() : "";
        LOG.info("gateway {}: data plane on {} event loop{} ({}), transport {}{}", id, loops, loops == 1 ? "" : "s",
                cluster.gatewayHttp().threads() == 0 ? "one per core" : "gateway.threads", transport.name(),
                why.isEmpty() ? "" : " (auto fell back: " + why + ")");
        Refusals refusals = new Refusals(metrics.registry(), new Topics(kafka.topicPrefix()).allocation(), LOG,
                System::nanoTime);
        this.follower = new AllocationFollower(id, PoolAllocations.of(cluster, initial), plane::applyAllocation,
                Clock.systemUTC(),
                cluster.control().maxClockSkewMillis(),
                AllocationFollower.RefusalListener.reporting(refusals, "gateway " + id));
        this.host = gc.host();
        int port = options.port() != null ? options.port() : gc.port();
        int adminPort = options.adminPort() != null ? options.adminPort() : gc.adminPort();
        plane.configVersion(new DataPlane.ConfigVersion(0, ConfigReloader.hash(cluster), Instant.now()));
        ServerTls tls = null;
        if (gc.tls().enabled()) {
            try {
                tls = ServerTls.load(gc.tls(), gc.http2());
                LOG.info("gateway {}: TLS on the request port ({}, protocols {}, {} SNI names, ALPN {})", id,
                        tls.provider(), gc.tls().protocols().isEmpty() ? "default" : gc.tls().protocols(),
                        gc.tls().sni().size(), gc.http2() ? "h2, http/1.1" : "http/1.1");
            } catch (IOException e) {
                plane.close();
                shutdownGroups();
                if (ownsMetrics) {
                    metrics.close();
                }
                throw new IllegalArgumentException("gateways[" + id + "]." + e.getMessage(), e);
            }
        }
        this.initializer = new ProxyInitializer(plane, clients, gc.proxyProtocol(), tls, gc.http2());
        this.reloader = new ConfigReloader(id, cluster, standalone, plane, initializer, () -> closed);
        this.pools = cluster.pools();
        try {
            this.proxyChannel = new ServerBootstrap().group(dataGroup).channel(transport.serverChannel())
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childOption(ChannelOption.TCP_NODELAY, true)
                    .childHandler(initializer)
                    .bind(gc.host(), port).sync().channel();
            AdminHandler.Api api = new AdminHandler.Api() {
                @Override
                public Lifecycle.Readiness readiness() {
                    return lifecycle.readiness(System.nanoTime(), plane.canServe());
                }

                @Override
                public boolean drain(boolean finalStop) {
                    return Gateway.this.drain(finalStop ? StopCause.FINAL : StopCause.RESTART);
                }

                @Override
                public void refusedMutation(String reason) {
                    metrics.registry().counter("arbiter.gateway.admin.refused", "reason", reason).increment();
                }

                @Override
                public int drainExitStatus() {
                    StopCause s = stop;
                    return s == null ? 0 : s.exitStatus();
                }

                @Override
                public Allocation allocation() {
                    return plane.allocation();
                }

                @Override
                public Map<String, Allocation> poolAllocations() {
                    return follower.latestByPool();
                }

                @Override
                public Future<GatewayStats> stats() {
                    return plane.snapshot();
                }

                @Override
                public String prometheus() {
                    return metrics.scrape();
                }

                @Override
                public Map<String, Long> refused() {
                    return follower.refused();
                }

                @Override
                public DataPlane.ConfigVersion configVersion() {
                    return plane.configVersion();
                }

                @Override
                public CompletableFuture<ReloadReport> reload() {
                    return reloader.reloadFile();
                }
            };
            AdminLimits limits = adminLimits(cluster, gc);
            this.admin = AdminServer.start("gateway-" + id, gc.adminHost(), adminPort, limits,
                    () -> new AdminHandler(api, guard));
        } catch (Throwable e) {
            reloader.close();
            plane.close();
            shutdownGroups();
            if (ownsMetrics) {
                metrics.close();
            }
            throw e;
        }
        lifecycle.started(System.nanoTime()); // both ports listen: the start-up grace runs from here
        // new certificates in the PEM files are taken for new connections within 5 s
        reloader.watchCertificates(5);
        metrics.registerMBean("type=Gateway,id=" + id, GatewayMBean.class, new GatewayMBeanView(id, plane, follower));
        this.busExecutor = standalone ? null : Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "gateway-" + id + "-bus");
            t.setDaemon(true);
            return t;
        });
        if (!standalone) {
            long periodMillis = (long) (cluster.control().reportPeriodSeconds() * 1000);
            busExecutor.execute(() -> connect(kafka));
            busExecutor.scheduleAtFixedRate(this::publishStats, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        }
    }

    /**
     * Starts gateway {@code id} of {@code cluster} and returns once both ports listen. Without a
     * Kafka bootstrap (none in options nor in the file, or {@code useBus} false) it runs
     * standalone on the configured weights and {@code servers[].concurrency}; with one it
     * connects in the background (serving meanwhile on an equal split of N_s among the file's
     * gateways), publishes {@code GatewayStats} every report period and follows its allocations.
     *
     * @throws IllegalArgumentException when the file has no gateway {@code id}, or the scheduler is unknown
     */
    public static Gateway start(ClusterConfig cluster, String id, GatewayOptions options) throws InterruptedException {
        requireNonNull(cluster, "cluster");
        requireNonNull(id, "id");
        requireNonNull(options, "options");
        GatewayConfig gc = cluster.gateway(id).orElseThrow(() -> new IllegalArgumentException("--id: " + id
                + " (expected: one of the gateways in the file: "
                + cluster.gateways().stream().map(GatewayConfig::id).collect(Collectors.joining(", ")) + ")"));
        if (gc.kind() != GatewayConfig.Kind.ARBITER) {
            throw new IllegalArgumentException("--id: " + id + " is kind: " + gc.kind()
                    + " (expected: a gateway of kind arbiter; an haproxy gateway is HAProxy itself, driven by "
                    + "`arbiter agent haproxy --gateway " + id + "`)");
        }
        String tokenFile = cluster.gatewayHttp().adminTokenFile();
        AdminGuard guard = tokenFile == null ? AdminGuard.disabled(ADMIN_TOKEN_KEY)
                : AdminGuard.fromFile(ADMIN_TOKEN_KEY, Path.of(tokenFile));
        if (!guard.enabled()) {
            LOG.warn("gateway {}: {} is not set: POST /drain and POST /reload on the admin port are refused (403)", id,
                    ADMIN_TOKEN_KEY);
        }
        return new Gateway(id, cluster, gc, options, guard);
    }

    /**
     * The admin port's limits: {@code gateways[].adminMaxConnections}, {@code dispatch.maxHeaderBytes},
     * {@code dispatch.idleTimeout} (the GRM's admin endpoint takes the same keys, with the default cap).
     */
    static AdminLimits adminLimits(ClusterConfig cluster, GatewayConfig gc) {
        return AdminLimits.of(gc.adminMaxConnections(), cluster.dispatch().maxHeaderBytes(),
                cluster.dispatch().idleTimeoutSeconds());
    }

    private void connect(KafkaConfig kafka) {
        while (!closed && bus == null) {
            try {
                KafkaBus b = KafkaBus.connectGateway(kafka, id, "gateway-" + id, metrics.registry());
                int pools = this.pools.size();
                if (pools > 0) {
                    try {
                        b.ensureStatsPartitions(pools); // the GRMs do it too; whoever starts first
                    } catch (RuntimeException e) {
                        LOG.warn("gateway {}: cannot give {} {} partitions, one per pool ({}); the GRMs will", id,
                                b.topics().stats(), pools, e.getMessage());
                    }
                }
                b.subscribe(b.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING,
                        follower::accept);
                bus = b;
                LOG.info("gateway {}: following allocations on {}", id, kafka.bootstrap());
            } catch (RuntimeException e) {
                LOG.warn("gateway {}: Kafka not reachable ({}); keeping allocation epoch {} v{}, retrying in 5 s", id,
                        e.getMessage(), plane.allocation().epoch(), plane.allocation().version());
                try {
                    Thread.sleep(5000);
                } catch (InterruptedException ie) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

    private void publishStats() {
        KafkaBus b = bus;
        if (b == null || closed) {
            return;
        }
        try {
            GatewayStats s = plane.snapshot().get(5, TimeUnit.SECONDS);
            String topic = StatsTopics.topicOf(b.topics(), b.config().security(), id);
            Publisher p = b.publisher(topic);
            if (pools.isEmpty() || !topic.equals(b.topics().stats())) {
                p.publish(s);
                return;
            }
            // one report per pool, on the pool's partition: the GRM that owns the pool reads it
            for (StatsTopics.PoolReport r : StatsTopics.poolReports(pools, s)) {
                p.publish(r.stats(), r.key(), r.partition()).whenComplete((ok, e) -> {
                    if (e != null) {
                        warnPoolPublish(r.key(), e);
                    }
                });
            }
        } catch (Exception e) {
            LOG.warn("gateway {}: cannot publish stats: {}", id, e.toString());
        }
    }

    /** A pool's report not sent (its partition missing until a GRM creates it): logged at most every 30 s. */
    private void warnPoolPublish(String key, Throwable e) {
        long now = System.nanoTime();
        long last = lastPoolWarning.get();
        if ((last == 0 || now - last >= 30_000_000_000L) && lastPoolWarning.compareAndSet(last, now)) {
            LOG.warn("gateway {}: statistics {} not published: {}", id, key, e.getMessage());
        }
    }

    public String id() {
        return id;
    }

    // ---------------------------------------------------------------- reload

    /** The file {@link #reloadFile()} reads (the CLI sets it to {@code --config}). */
    public void reloadFrom(Path file) {
        reloader.reloadFrom(file);
    }

    /**
     * Reads the file set with {@link #reloadFrom} and applies it ({@link #reload(ClusterConfig)}).
     * Fails with {@link org.arbiter.common.config.ConfigException} when the file is invalid (nothing
     * is applied then). Thread-safe.
     */
    public CompletableFuture<ReloadReport> reloadFile() {
        return reloader.reloadFile();
    }

    /** Applies {@code next} without a restart and without losing a request ({@link ConfigReloader#reload}). Thread-safe. */
    public CompletableFuture<ReloadReport> reload(ClusterConfig next) {
        return reloader.reload(next);
    }

    /** The configuration version in force. */
    public DataPlane.ConfigVersion configVersion() {
        return plane.configVersion();
    }

    /**
     * Starts a graceful drain (SIGTERM, {@code POST /drain}); returns at once, true if this call
     * started it. From now on {@code /ready} is 503 {@code draining}; after {@code gateways[].drainDelay}
     * (default 0: at once; behind an L4 switch, long enough for its health check to take the
     * gateway out) the proxy port accepts no new connection, and every response closes its connection. Queued and in-flight requests are
     * answered normally until {@code gateways[].drainTimeout}; what is left then gets 503
     * {@code draining} with Retry-After. Then the client connections are closed, a last
     * statistics report is published (with Kafka), and {@link #drained()} completes. Thread-safe.
     */
    public boolean drain() {
        return drain(StopCause.SIGNAL);
    }

    /**
     * {@link #drain()}, recording why ({@link #stopCause()}, and so the process's exit status). A
     * stop asked for while a restart drain runs (SIGTERM, {@code final=true}) makes it a stop: the
     * process then exits 0. Thread-safe.
     */
    public boolean drain(StopCause why) {
        requireNonNull(why, "why");
        synchronized (drained) {
            if (closed) {
                return false;
            }
            if (!lifecycle.beginDrain(System.nanoTime())) {
                if (why != StopCause.RESTART && stop == StopCause.RESTART) {
                    stop = why;
                }
                return false;
            }
            stop = why;
        }
        if (drainDelaySeconds > 0) {
            LOG.info("gateway {}: draining: not ready; still accepting connections for {} s (drainDelay) so that an L4"
                    + " switch takes the gateway out first", id, drainDelaySeconds);
            dataGroup.schedule(this::closeListenerAndDrain, (long) (drainDelaySeconds * 1e9), TimeUnit.NANOSECONDS);
        } else {
            closeListenerAndDrain();
        }
        return true;
    }

    private void closeListenerAndDrain() {
        if (closed) {
            return;
        }
        LOG.info("gateway {}: draining: not ready, no new connections, answering what is held for up to {} s", id,
                drainTimeoutSeconds);
        proxyChannel.close();
        long deadline = lifecycle.drainDeadlineNanos() + (long) (drainDelaySeconds * 1e9);
        plane.drain(deadline, clients)
                .orTimeout((long) (drainTimeoutSeconds * 1000) + 5000, TimeUnit.MILLISECONDS)
                .whenComplete((report, e) -> {
                    Thread t = new Thread(() -> finishDrain(report), "gateway-" + id + "-drain");
                    t.setDaemon(true);
                    t.start();
                });
    }

    private void finishDrain(DrainReport report) {
        try {
            // Flush what is written (the last responses), then close every client connection.
            clients.writeAndFlush(Unpooled.EMPTY_BUFFER).awaitUninterruptibly(5, TimeUnit.SECONDS);
            clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
            if (busExecutor != null && bus != null) {
                try {
                    busExecutor.submit(() -> {
                        publishStats();
                        KafkaBus b = bus;
                        if (b != null) {
                            b.flush();
                        }
                    }).get(10, TimeUnit.SECONDS);
                    LOG.info("gateway {}: published a last statistics report", id);
                } catch (Exception e) {
                    LOG.warn("gateway {}: last statistics report failed: {}", id, e.toString());
                }
            }
            if (report == null) {
                LOG.warn("gateway {}: drain did not finish within drainTimeout + 5 s; closing", id);
            } else {
                LOG.info("gateway {}: {}", id, describe(report));
            }
        } finally {
            drained.complete(report);
        }
    }

    /** One line for the log: what the drain did. */
    public static String describe(DrainReport r) {
        return String.format(Locale.ROOT,
                "drained %d requests in %.2f s: %d held at the start, %d arrived on open connections, %d answered by"
                        + " servers, %d answered 503 at the deadline, %d cut mid-response",
                r.held() + r.arrived(), r.nanos() / 1e9, r.held(), r.arrived(), r.served(), r.refused(), r.cut());
    }

    /**
     * Completes once a drain has finished (its report; null if it overran drainTimeout + 5 s). Never
     * completes without a drain.
     */
    public CompletableFuture<DrainReport> drained() {
        return drained;
    }

    /** Admin connections open now (at most {@code gateways[].adminMaxConnections} are served). */
    public int adminConnections() {
        return admin.openConnections();
    }

    /** Why the drain under way began (its exit status: {@link StopCause#exitStatus()}); {@link StopCause#SIGNAL} before one. */
    public StopCause stopCause() {
        StopCause s = stop;
        return s == null ? StopCause.SIGNAL : s;
    }

    /** The address the admin port is bound to ({@code gateways[].adminHost}). */
    public String adminHost() {
        return admin.host();
    }

    /** File reloads run so far ({@code POST /reload} and SIGHUP requests made during one share the next). */
    public long fileReloadRuns() {
        return reloader.fileReloadRuns();
    }

    /** Whether a drain has begun. */
    public boolean draining() {
        return lifecycle.draining();
    }

    /** {@code /ready}'s answer now. */
    public Lifecycle.Readiness readiness() {
        return lifecycle.readiness(System.nanoTime(), plane.canServe());
    }

    public String host() {
        return host;
    }

    /** The proxy port actually bound. */
    public int port() {
        return ((InetSocketAddress) proxyChannel.localAddress()).getPort();
    }

    /** The admin port actually bound. */
    public int adminPort() {
        return admin.port();
    }

    /** The allocation in force. */
    public Allocation allocation() {
        return plane.allocation();
    }

    /** Feeds an allocation directly (tests, demo without a bus); applied if newer. */
    public boolean accept(Allocation a) {
        return follower.accept(a);
    }

    /** The data plane (its loops, its core lock's counters, a locked view of the core). */
    public DataPlane dataPlane() {
        return plane;
    }

    public AllocationFollower follower() {
        return follower;
    }

    /** The current statistics snapshot. */
    public GatewayStats stats() throws Exception {
        return plane.snapshot().get(5, TimeUnit.SECONDS);
    }

    public ProcessMetrics metrics() {
        return metrics;
    }

    /** True once connected to Kafka (always false standalone). */
    public boolean busConnected() {
        return bus != null;
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        lifecycle.beginDrain(System.nanoTime()); // not ready from here on
        closed = true;
        if (busExecutor != null) {
            busExecutor.shutdownNow();
        }
        KafkaBus b = bus;
        if (b != null) {
            b.close();
        }
        reloader.close();
        proxyChannel.close().syncUninterruptibly();
        admin.close();
        // Close client connections while the loop still runs, so every queued or in-flight
        // request is abandoned through the normal path (slots freed, buffers released).
        clients.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        plane.close();
        dataGroup.next().submit(() -> { }).awaitUninterruptibly(5, TimeUnit.SECONDS);
        shutdownGroups();
        if (ownsMetrics) {
            metrics.close();
        }
    }

    private void shutdownGroups() {
        dataGroup.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
