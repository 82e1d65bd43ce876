package org.arbiter.grm.service;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Function;
import org.arbiter.common.bus.Bus;
import org.arbiter.common.bus.Publisher;
import org.arbiter.common.bus.Refusals;
import org.arbiter.common.bus.StatsTopics;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.grm.control.ControlStep;
import org.arbiter.grm.control.GrmCore;
import org.arbiter.grm.control.GrmCore.Command;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.control.PoolGroup;
import org.arbiter.grm.power.PowerActuator;
import org.arbiter.grm.power.PowerDriver;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GRM process: a thin adapter that feeds the pure {@link GrmCore} (all control logic: stats
 * book, epochs, takeover, power-report policy) from a {@link Bus} — statistics, overrides, the
 * compacted allocation and power topics —, the leader election, a control timer every period and
 * the {@link PowerDriver}'s reports, and carries out the core's commands: publish, actuate (off
 * this thread, {@code power.actuator}), count and log. Meters and the MBean: {@link GrmMetrics}.
 *
 * <p>Threading: the core is touched only on the service's single control thread; bus handlers,
 * the election and power reports hand their events over to it, with the time read there. Before
 * each event the core is told of any change of leadership since the last one, so it always sees
 * the election as it is. {@link #close()} is thread-safe.
 */
public final class GrmService implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(GrmService.class);

    private final String id;
    private final ClusterConfig config;
    private final Bus bus;
    private final Clock clock;
    private final PoolGroup core;
    private final ProcessMetrics metrics;
    private final GrmMetrics meters;
    private final ScheduledExecutorService control;
    private final Refusals allocationRefusals;
    private final Refusals powerRefusals;
    private final Refusals statsRefusals;
    private final Publisher allocationOut;
    private final Publisher decisionOut;
    private final Publisher powerOut;
    private final PowerDriver power;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile Bus.Election election;
    /** A control period has run (on the control thread only). */
    private boolean ticked;
    private List<Bus.Subscription> subscriptions = List.of();

    private GrmService(String id, ClusterConfig config, Bus bus, Clock clock, ControlStep step, ProcessMetrics metrics,
                       PowerActuator actuator) {
        this.id = requireNonNull(id, "id");
        this.config = requireNonNull(config, "config");
        this.bus = requireNonNull(bus, "bus");
        this.clock = requireNonNull(clock, "clock");
        this.metrics = requireNonNull(metrics, "metrics");
        this.core = config.pools().isEmpty() ? new PoolGroup(config, c -> step, actuator.name())
                : new PoolGroup(config, c -> liveStep(c, id), actuator.name());
        this.control = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "grm-" + id);
            t.setDaemon(true);
            return t;
        });
        this.allocationOut = bus.publisher(bus.topics().allocation());
        this.decisionOut = bus.publisher(bus.topics().decisions());
        this.powerOut = bus.publisher(bus.topics().power());
        this.power = new PowerDriver(actuator, config.servers(), config.power().attempts(),
                config.power().retryDelaySeconds(), r -> onControlThread(now -> onPowerReport(r, now)));
        var registry = metrics.registry();
        this.allocationRefusals = new Refusals(registry, bus.topics().allocation(), LOG, System::nanoTime);
        this.powerRefusals = new Refusals(registry, bus.topics().power(), LOG, System::nanoTime);
        this.statsRefusals = new Refusals(registry, bus.topics().stats(), LOG, System::nanoTime);
        this.meters = new GrmMetrics(registry, this::isLeader,
                config.classes().stream().map(ClassConfig::name).toList(),
                config.pools().stream().map(PoolConfig::name).toList());
    }

    /**
     * The production control step: {@link GrmStep} with its solve time measured on {@code System::nanoTime}
     * (the core takes its ticker as an argument; the wall clock is read only here, on the service side).
     */
    public static ControlStep liveStep(ClusterConfig config, String grmId) {
        return new GrmStep(config, grmId, System::nanoTime);
    }

    /**
     * Starts consuming, joins the election and starts the control loop, with the configured power actuator.
     * With {@code pools} the GRM joins the pool group instead of the election, and each pool gets its own
     * {@link #liveStep} ({@code step} is for a cluster without pools).
     */
    public static GrmService start(String id, ClusterConfig config, Bus bus, Clock clock, ControlStep step,
                                   ProcessMetrics metrics) {
        return start(id, config, bus, clock, step, metrics, PowerActuator.of(config));
    }

    /** As above with the given power actuator instead of the configured one. */
    public static GrmService start(String id, ClusterConfig config, Bus bus, Clock clock, ControlStep step,
                                   ProcessMetrics metrics, PowerActuator actuator) {
        GrmService s = new GrmService(id, config, bus, clock, step, metrics, requireNonNull(actuator, "actuator"));
        s.begin();
        return s;
    }

    private void begin() {
        metrics.registerMBean("type=Grm,id=" + id, GrmMBean.class, meters.view(id, this::isLeader,
                () -> election == null ? 0 : election.changes(), power.actuatorName(), allocationRefusals, powerRefusals));
        var t = bus.topics();
        List<Bus.Subscription> subs = new ArrayList<>(List.of(
                bus.subscribe(t.allocation(), Allocation.class, Bus.Start.BEGINNING,
                        (k, a) -> onControlThread(now -> core.allocationSeen(a, now))),
                bus.subscribe(t.overrides(), OperatorOverride.class, Bus.Start.BEGINNING,
                        (k, o) -> onControlThread(now -> core.override(k, o, now))),
                bus.subscribe(t.power(), PowerOrder.class, Bus.Start.BEGINNING,
                        (k, o) -> onControlThread(now -> core.powerOrderSeen(o, now)))));
        // the shared statistics topic, and the own topic of each gateway with a principal of its own; with pools
        // the shared topic is read through the pool group (each member its pools' partitions)
        KafkaSecurity security = config.kafka().security();
        boolean pooled = !config.pools().isEmpty();
        for (String topic : StatsTopics.topics(t, security)) {
            if (pooled && topic.equals(t.stats())) {
                continue;
            }
            subs.add(bus.subscribe(topic, GatewayStats.class, Bus.Start.END,
                    (k, s) -> onControlThread(now -> takeStats(topic, Bus.NO_PARTITION, s, now))));
        }
        subscriptions = List.copyOf(subs);
        if (!pooled) {
            election = bus.joinElection(t.grmGroup(), id, leading -> {
                meters.leaderChanges.increment();
                LOG.info("GRM {} is {}", id, leading ? "now the leader" : "no longer the leader");
            });
        } else {
            // a pool handed over reads its partition's last two periods again: its new owner's books are warm
            Duration rewind = Duration.ofMillis(Math.round(2000 * config.control().periodSeconds()));
            election = bus.joinPools(t.grmGroup(), id, config.pools().size(), rewind, owned -> {
                meters.leaderChanges.increment();
                LOG.info("GRM {} owns pools {}", id, poolNames(owned));
                onControlThread(now -> List.of()); // takes the new ownership in at once
            }, (partition, k, s) -> onControlThread(now -> takeStats(t.stats(), partition, s, now)));
        }
        long periodMillis = Math.max(1, Math.round(config.control().periodSeconds() * 1000));
        control.scheduleAtFixedRate(() -> onControlThreadNow(this::tick), periodMillis, periodMillis, TimeUnit.MILLISECONDS);
        LOG.info("GRM {} started: period {} ms, {} gateways, {} servers, sizing {}, power actuator {}{}", id, periodMillis,
                config.gateways().size(), config.servers().size(), config.sizing().policy(), power.actuatorName(),
                config.pools().isEmpty() ? "" : ", " + config.pools().size() + " pools shared by the group on the partitions of "
                        + bus.topics().stats());
    }

    /** Hands an event to the control thread; what the core returns is carried out there. */
    private void onControlThread(Function<Instant, List<Command>> event) {
        if (closed.get()) {
            return;
        }
        try {
            control.execute(() -> onControlThreadNow(event));
        } catch (RejectedExecutionException e) {
            // closing
        }
    }

    private void onControlThreadNow(Function<Instant, List<Command>> event) {
        try {
            Instant now = clock.instant();
            Bus.Election e = election;
            Set<String> owned = e == null ? Set.of() : config.pools().isEmpty() ? (e.isLeader() ? Set.of("") : Set.of())
                    : poolNames(e.owned());
            if (!owned.equals(core.owned())) {
                Set<String> before = core.owned();
                execute(core.own(owned, now));
                meters.ownedPools = core.owned();
                if (ticked && !config.pools().isEmpty()) {
                    // a pool handed over by the group runs its first period shortly, not up to a period later:
                    // by then the reports of its partition's last two periods, read again, have warmed its books
                    for (PoolGroup.Pool p : core.pools()) {
                        if (owned.contains(p.name()) && !before.contains(p.name())) {
                            control.schedule(() -> onControlThreadNow(n -> core.owned().contains(p.name())
                                    ? tick(p, n) : List.of()), takeoverDelayMillis(), TimeUnit.MILLISECONDS);
                        }
                    }
                }
            }
            execute(event.apply(now));
        } catch (RuntimeException e) {
            LOG.warn("GRM {} failed to apply an event: {}", id, e.toString(), e);
        }
    }

    /**
     * A statistics record read on {@code topic} (with pools, from the pool's {@code partition} of the shared
     * topic: its pool's report only; {@link Bus#NO_PARTITION}: every pool's).
     */
    private List<Command> takeStats(String topic, int partition, GatewayStats s, Instant now) {
        if (s == null) {
            return List.of();
        }
        var t = bus.topics();
        KafkaSecurity security = config.kafka().security();
        String refusal = StatsTopics.refusal(t, security, topic, s);
        if (refusal != null) {
            meters.ignoredStats.increment();
            statsRefusals.refuse(refusal, "statistics from " + s.gateway() + " on " + topic + " skipped");
            return List.of();
        }
        return partition == Bus.NO_PARTITION ? core.stats(s, now) : core.stats(partition, s, now);
    }

    /**
     * How long after a pool is handed over its first period runs: a fifth of a period, at most 200 ms — time
     * for the partition's rewound reports, fetched at the consumer's next poll, to reach the books.
     */
    private long takeoverDelayMillis() {
        return Math.min(200, Math.round(200 * config.control().periodSeconds()));
    }

    /** The names of the pools at these partitions (partition i is pool i; extra partitions own nothing). */
    private Set<String> poolNames(Set<Integer> partitions) {
        Set<String> out = new TreeSet<>();
        List<PoolConfig> pools = config.pools();
        for (int p : partitions) {
            if (p >= 0 && p < pools.size()) {
                out.add(pools.get(p).name());
            }
        }
        return out;
    }

    /** One period of every owned pool, each timed as one control step. */
    private List<Command> tick(Instant now) {
        List<Command> out = new ArrayList<>();
        for (PoolGroup.Pool p : core.pools()) {
            out.addAll(tick(p, now));
        }
        ticked = true;
        return out;
    }

    private List<Command> tick(PoolGroup.Pool p, Instant now) {
        GrmCore pc = p.core();
        long periods = pc.periods();
        long started = System.nanoTime();
        List<Command> out = core.tick(p, now);
        if (pc.periods() > periods) {
            meters.solveTimer.record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
            meters.periods.increment();
            meters.lastLive = pc.liveGateways();
        }
        return out;
    }

    private List<Command> onPowerReport(PowerDriver.Report r, Instant now) {
        String what = "power " + (r.actuation().action() == ServerState.ON ? "on " : "off ") + r.actuation().server();
        if (r.ok()) {
            meters.actuationsOk.increment();
            LOG.info("GRM {}: {}: {}", id, what, r.detail());
        } else if (!r.last()) {
            meters.actuationsRetried.increment();
            LOG.warn("GRM {}: {} failed (attempt {} of {}), retrying: {}", id, what, r.attempt(),
                    config.power().attempts(), r.detail());
        } else {
            // the message first: a reader (JMX, the console) that sees the count also sees why
            meters.lastActuationFailure = now + " " + what + " failed after " + r.attempt() + " attempts: " + r.detail();
            meters.actuationsFailed.increment();
            LOG.error("GRM {}: {} failed after {} attempts, giving up: {}", id, what, r.attempt(), r.detail());
        }
        return core.powerReport(new GrmCore.PowerReport(r.actuation(), r.ticket(), r.ok(),
                r.seen(), r.detail()), now);
    }

    /** Carries out the core's commands, in order. */
    private void execute(List<Command> commands) {
        for (Command c : commands) {
            if (c instanceof Command.PublishAllocation p) {
                allocationOut.publish(p.allocation());
                meters.lastVersion = p.allocation().version();
                meters.lastEpoch = p.allocation().epoch();
            } else if (c instanceof Command.PublishDecision d) {
                meters.lastObjective = d.decision().objective();
                meters.lastSolveMillis = d.decision().solveSeconds() * 1000;
                meters.classUtility = GrmMetrics.classUtility(d.decision());
                meters.predictionErrors = d.decision().predictionErrors();
                meters.solvedBy(d.decision().solvePath());
                decisionOut.publish(d.decision());
            } else if (c instanceof Command.PublishPower p) {
                PowerOrder o = p.order();
                LOG.info("GRM {}: {} {} (ordered {}): {}", id, o.server(), o.state(), o.target(), o.reason());
                powerOut.publish(o);
            } else if (c instanceof Command.Actuate a) {
                LOG.info("GRM {}: power {} {} ({})", id, a.actuation().action() == ServerState.ON ? "on" : "off",
                        a.actuation().server(), a.actuation().reason());
                power.submit(a.actuation());
            } else if (c instanceof Command.Refused r) {
                (r.topic().equals("power") ? powerRefusals : allocationRefusals).refuse(r.reason().tag(), r.detail());
            } else if (c instanceof Command.StatsIgnored i) {
                meters.ignoredStats.increment();
                statsRefusals.refuse(i.outcome().tag(), "statistics from " + i.stats().gateway() + " at "
                        + i.stats().at() + " skipped");
            } else if (c instanceof Command.OverrideRefused o) {
                LOG.warn("override {} refused: {}", o.id(), o.reason());
            }
        }
        if (!core.pooled()) {
            core.single().fleet().ifPresent(f -> meters.fleetView = GrmMetrics.FleetView.of(f));
        }
    }

    public boolean isLeader() {
        Bus.Election e = election;
        return e != null && e.isLeader();
    }

    /** The pools this GRM owns (with pools; without, {""} while it leads), as its control thread last took them in. */
    public Set<String> ownedPools() {
        return meters.ownedPools;
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
        subscriptions.forEach(Bus.Subscription::close);
        power.close();
        control.shutdownNow();
        try {
            control.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
        LOG.info("GRM {} stopped", id);
    }
}
