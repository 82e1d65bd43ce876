package org.arbiter.grm.service;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.arbiter.common.bus.KafkaBus;
import org.arbiter.common.bus.LeaderElection;
import org.arbiter.common.bus.Publisher;
import org.arbiter.common.bus.Subscriber;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.metrics.ProcessMetrics;
import org.arbiter.grm.control.ControlStep;
import org.arbiter.grm.control.OverrideBook;
import org.arbiter.grm.control.StatsBook;
import org.arbiter.grm.control.VersionClock;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GRM process around the pure {@link ControlStep}: consumes statistics, overrides and the
 * compacted allocation topic; takes part in leader election; every control period, if it leads,
 * runs the step and publishes one {@link Allocation} per gateway and a {@link Decision}.
 * Followers keep consuming so they are warm when they take over.
 *
 * <p>Threading: every piece of state is touched only on the service's single control thread;
 * Kafka callbacks hand their records over to it. {@link #close()} is thread-safe.
 */
public final class GrmService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GrmService.class);

    private final String id;
    private final ClusterConfig config;
    private final KafkaBus bus;
    private final Clock clock;
    private final ControlStep step;
    private final ProcessMetrics metrics;
    private final ScheduledExecutorService control;
    private final StatsBook stats;
    private final OverrideBook overrides;
    private final VersionClock versions = new VersionClock();
    private final Map<String, Allocation> lastAllocations = new TreeMap<>();
    private final Publisher allocationOut;
    private final Publisher decisionOut;
    private final Counter ignoredStats;
    private final Counter periods;
    private final Counter leaderChanges;
    private final Timer solveTimer;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile double lastObjective = Double.NaN;
    private volatile double lastSolveMillis = Double.NaN;
    private volatile List<String> lastLive = List.of();
    private volatile long lastVersion;
    private volatile boolean started;
    private LeaderElection election;
    private Subscriber<?>[] subscribers;

    private GrmService(String id, ClusterConfig config, KafkaBus bus, Clock clock, ControlStep step,
                       ProcessMetrics metrics) {
        this.id = requireNonNull(id, "id");
        this.config = requireNonNull(config, "config");
        this.bus = requireNonNull(bus, "bus");
        this.clock = requireNonNull(clock, "clock");
        this.step = requireNonNull(step, "step");
        this.metrics = requireNonNull(metrics, "metrics");
        this.stats = new StatsBook(config, config.control().periodSeconds());
        this.overrides = new OverrideBook(config);
        this.control = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "grm-" + id);
            t.setDaemon(true);
            return t;
        });
        this.allocationOut = bus.publisher(bus.topics().allocation());
        this.decisionOut = bus.publisher(bus.topics().decisions());
        var r = metrics.registry();
        this.ignoredStats = Counter.builder("arbiter.grm.stats.ignored").description("stale or unknown statistics").register(r);
        this.periods = Counter.builder("arbiter.grm.periods").description("control periods run as leader").register(r);
        this.leaderChanges = Counter.builder("arbiter.grm.leader.changes").description("leadership gained or lost").register(r);
        this.solveTimer = Timer.builder("arbiter.grm.solve").description("time of one control step").register(r);
        Gauge.builder("arbiter.grm.leader", () -> isLeader() ? 1 : 0).description("1 while this GRM leads").register(r);
        Gauge.builder("arbiter.grm.objective", () -> lastObjective).description("Ω of the last decision").register(r);
        Gauge.builder("arbiter.grm.gateways.live", () -> lastLive.size()).description("live gateways").register(r);
    }

    /**
     * Starts consuming, joins the election and starts the control loop.
     *
     * @param id      this GRM's id (logs, decisions, JMX)
     * @param config  the cluster
     * @param bus     a connected bus
     * @param clock   wall clock (tests may pass another)
     * @param step    the control step (the GRM core)
     * @param metrics where meters and the MBean go
     */
    public static GrmService start(String id, ClusterConfig config, KafkaBus bus, Clock clock, ControlStep step,
                                   ProcessMetrics metrics) {
        GrmService s = new GrmService(id, config, bus, clock, step, metrics);
        s.begin();
        return s;
    }

    private void begin() {
        metrics.registerMBean("type=Grm,id=" + id, GrmMBean.class, new View());
        subscribers = new Subscriber<?>[] {
            bus.subscribe(bus.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING,
                    (k, a) -> onControlThread(() -> {
                        if (a != null) {
                            versions.observe(a.version());
                            lastAllocations.put(a.gateway(), a);
                        }
                    })),
            bus.subscribe(bus.topics().overrides(), OperatorOverride.class, Subscriber.Start.BEGINNING,
                    (k, o) -> onControlThread(() -> {
                        overrides.apply(k, o).ifPresent(why -> LOG.warn("override {} refused: {}", k, why));
                        // An operator's pin takes effect now, not at the next period.
                        if (started && election != null && election.isLeader()) {
                            tick();
                        }
                    })),
            bus.subscribe(bus.topics().stats(), GatewayStats.class, Subscriber.Start.END,
                    (k, s) -> onControlThread(() -> {
                        if (s == null) {
                            return;
                        }
                        StatsBook.Outcome o = stats.accept(s, clock.instant());
                        if (o != StatsBook.Outcome.ACCEPTED) {
                            ignoredStats.increment();
                            LOG.debug("ignored stats from {}: {}", s.gateway(), o);
                        }
                    }))
        };
        election = LeaderElection.join(bus, bus.topics().prefix() + "grm", id, leading -> {
            leaderChanges.increment();
            LOG.info("GRM {} is {}", id, leading ? "now the leader" : "no longer the leader");
        });
        long periodMillis = Math.max(1, Math.round(config.control().periodSeconds() * 1000));
        control.scheduleAtFixedRate(this::tick, periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        // Overrides already on the topic at start are applied by the first period, not one by one.
        control.schedule(() -> started = true, periodMillis, TimeUnit.MILLISECONDS);
        LOG.info("GRM {} started: period {} ms, {} gateways, {} servers", id, periodMillis,
                config.gateways().size(), config.servers().size());
    }

    private void onControlThread(Runnable r) {
        if (closed.get()) {
            return;
        }
        try {
            control.execute(() -> {
                try {
                    r.run();
                } catch (RuntimeException e) {
                    LOG.warn("GRM {} failed to apply a record: {}", id, e.toString(), e);
                }
            });
        } catch (java.util.concurrent.RejectedExecutionException e) {
            // closing
        }
    }

    private void tick() {
        try {
            if (!election.isLeader()) {
                return;
            }
            Instant now = clock.instant();
            Map<String, GatewayStats> live = stats.live(now);
            lastLive = List.copyOf(live.keySet());
            long started = System.nanoTime();
            ControlStep.Result result = step.step(now, live, overrides, Map.copyOf(lastAllocations), versions);
            long took = System.nanoTime() - started;
            solveTimer.record(took, TimeUnit.NANOSECONDS);
            periods.increment();
            for (Allocation a : result.allocations()) {
                lastAllocations.put(a.gateway(), a);
                allocationOut.publish(a);
                lastVersion = Math.max(lastVersion, a.version());
            }
            if (result.decision() != null) {
                lastObjective = result.decision().objective();
                lastSolveMillis = result.decision().solveSeconds() * 1000;
                decisionOut.publish(result.decision());
            }
        } catch (RuntimeException e) {
            // A failing period must never stop the loop: keep the last allocation in force.
            LOG.warn("GRM {} control period failed: {}", id, e.toString(), e);
        }
    }

    public boolean isLeader() {
        return election != null && election.isLeader();
    }

    public String id() {
        return id;
    }

    @Override
    public void close() {
        if (!closed.compareAndSet(false, true)) {
            return;
        }
        if (election != null) {
            election.close();
        }
        if (subscribers != null) {
            for (Subscriber<?> s : subscribers) {
                s.close();
            }
        }
        control.shutdownNow();
        try {
            control.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("GRM {} stopped", id);
    }

    private final class View implements GrmMBean {
        @Override
        public String getId() {
            return id;
        }

        @Override
        public boolean isLeader() {
            return GrmService.this.isLeader();
        }

        @Override
        public long getLeaderChanges() {
            return election == null ? 0 : election.changes();
        }

        @Override
        public double getLastObjective() {
            return lastObjective;
        }

        @Override
        public double getLastSolveMillis() {
            return lastSolveMillis;
        }

        @Override
        public long getLastAllocationVersion() {
            return lastVersion;
        }

        @Override
        public long getPeriods() {
            return (long) periods.count();
        }

        @Override
        public String getLiveGateways() {
            return String.join(",", lastLive);
        }

        @Override
        public long getIgnoredStats() {
            return (long) ignoredStats.count();
        }
    }
}
