package org.arbiter.grm.service;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.Timer;
import java.time.Clock;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.LeaderElection;
import org.arbiter.common.bus.Publisher;
import org.arbiter.common.bus.Refusals;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Epochs;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.common.metrics.ProcessMetrics;
import org.arbiter.grm.control.ControlStep;
import org.arbiter.grm.control.EpochClock;
import org.arbiter.grm.control.OverrideBook;
import org.arbiter.grm.control.StatsBook;
import org.arbiter.grm.power.PowerActuator;
import org.arbiter.grm.power.PowerDriver;
import org.arbiter.grm.sizing.Fleet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GRM process around the pure {@link ControlStep}: consumes statistics, overrides and the
 * compacted allocation and power topics; takes part in leader election; every control period, if
 * it leads, runs the step and publishes one {@link Allocation} per gateway, a {@link Decision} and
 * a {@link PowerOrder} (key: server) for every server state change, and hands the step's
 * actuations to the {@link PowerDriver} ({@code power.actuator}). Followers keep consuming so they
 * are warm when they take over, and never actuate.
 *
 * <p>Power: the driver acts off the control thread; its reports come back to the control thread.
 * A report of what the server was seen doing (up or down) moves the fleet's model, unless a newer
 * actuation for that server has been submitted since, or this GRM no longer leads: the state
 * follows what the server does. A failed attempt is logged and retried; a final failure is logged,
 * counted ({@code arbiter.grm.power.actuations{result=failed}}) and shown in the MBean's
 * {@code LastActuationFailure}. On becoming leader, a GRM takes the servers' last published states
 * from the power topic (OFF or BOOTING: off; ON: on), so a takeover does not forget which are off.
 *
 * <p>Epochs: every allocation, decision and power order is stamped (epoch, counter) by an
 * {@link EpochClock}; a GRM that gains leadership starts a new epoch above every plausible one it
 * has read. Records on the allocation and power topics whose stamp is implausible
 * ({@link Epochs#check}: from the future beyond {@code control.maxClockSkew}, or a counter out of
 * range) are skipped and counted ({@code arbiter.bus.refused{topic, reason}}); reading a record
 * never fails a period.
 *
 * <p>Threading: every piece of state is touched only on the service's single control thread;
 * Kafka callbacks and power reports hand their records over to it; gauges and the MBean read
 * volatile snapshots. {@link #close()} is thread-safe.
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
    private final EpochClock epochs;
    private final Refusals allocationRefusals;
    private final Refusals powerRefusals;
    private final Map<String, Allocation> lastAllocations = new TreeMap<>();
    private final Publisher allocationOut;
    private final Publisher decisionOut;
    private final Publisher powerOut;
    private final PowerDriver power;
    private final Map<String, PowerOrder> lastPower = new LinkedHashMap<>();
    private boolean wasLeader;
    private final Counter actuationsOk;
    private final Counter actuationsRetried;
    private final Counter actuationsFailed;
    private volatile String lastActuationFailure = "";
    private volatile FleetView fleetView = FleetView.NONE;
    private final Counter ignoredStats;
    private final Counter periods;
    private final Counter leaderChanges;
    private final Timer solveTimer;
    private final AtomicBoolean closed = new AtomicBoolean();
    private volatile double lastObjective = Double.NaN;
    private volatile double lastSolveMillis = Double.NaN;
    private volatile List<String> lastLive = List.of();
    private volatile long lastVersion;
    private volatile long lastEpoch;
    private volatile boolean started;
    private LeaderElection election;
    private Subscriber<?>[] subscribers;

    /** What the metrics show of the fleet, taken on the control thread after each period. */
    private record FleetView(int on, double joules, double watts, double capacity, double forecast, String states,
                             double savedPercent, double serviceRate, double backlogSeconds) {
        static final FleetView NONE = new FleetView(0, 0, 0, 0, 0, "", 0, 0, 0);

        static FleetView of(Fleet f) {
            int on = 0;
            double watts = 0;
            StringJoiner states = new StringJoiner(",");
            for (Map.Entry<String, Decision.Server> e : f.servers().entrySet()) {
                on += e.getValue().state() == ServerState.ON ? 1 : 0;
                watts += e.getValue().watts();
                states.add(e.getKey() + "=" + e.getValue().state());
            }
            return new FleetView(on, f.energyJoules(), watts, f.capacityPerServer(), f.forecastRate(), states.toString(),
                    f.savedPercent(), f.measuredServiceRate(), f.measuredBacklogSeconds());
        }
    }

    private GrmService(String id, ClusterConfig config, KafkaBus bus, Clock clock, ControlStep step,
                       ProcessMetrics metrics, PowerActuator actuator) {
        this.id = requireNonNull(id, "id");
        this.config = requireNonNull(config, "config");
        this.bus = requireNonNull(bus, "bus");
        this.clock = requireNonNull(clock, "clock");
        this.step = requireNonNull(step, "step");
        this.metrics = requireNonNull(metrics, "metrics");
        this.stats = new StatsBook(config, config.control().periodSeconds());
        this.overrides = new OverrideBook(config);
        this.epochs = new EpochClock(config.control().maxClockSkewMillis());
        this.control = Executors.newSingleThreadScheduledExecutor(r -> {
            Thread t = new Thread(r, "grm-" + id);
            t.setDaemon(true);
            return t;
        });
        this.allocationOut = bus.publisher(bus.topics().allocation());
        this.decisionOut = bus.publisher(bus.topics().decisions());
        this.powerOut = bus.publisher(bus.topics().power());
        this.power = new PowerDriver(requireNonNull(actuator, "actuator"), config.servers(), config.power().attempts(),
                config.power().retryDelaySeconds(), r -> onControlThread(() -> onPowerReport(r)));
        var r = metrics.registry();
        this.allocationRefusals = new Refusals(r, bus.topics().allocation(), LOG, System::nanoTime);
        this.powerRefusals = new Refusals(r, bus.topics().power(), LOG, System::nanoTime);
        this.ignoredStats = Counter.builder("arbiter.grm.stats.ignored").description("stale or unknown statistics").register(r);
        this.periods = Counter.builder("arbiter.grm.periods").description("control periods run as leader").register(r);
        this.leaderChanges = Counter.builder("arbiter.grm.leader.changes").description("leadership gained or lost").register(r);
        this.solveTimer = Timer.builder("arbiter.grm.solve").description("time of one control step").register(r);
        Gauge.builder("arbiter.grm.leader", () -> isLeader() ? 1 : 0).description("1 while this GRM leads").register(r);
        Gauge.builder("arbiter.grm.objective", () -> lastObjective).description("Ω of the last decision").register(r);
        Gauge.builder("arbiter.grm.gateways.live", () -> lastLive.size()).description("live gateways").register(r);
        Gauge.builder("arbiter.grm.servers.on", () -> fleetView.on()).description("servers ON (getting caps)").register(r);
        Gauge.builder("arbiter.grm.energy", () -> fleetView.joules()).baseUnit("joules")
                .description("energy the servers used since this GRM's fleet model started (the model's estimate)").register(r);
        Gauge.builder("arbiter.grm.energy.saved", () -> fleetView.savedPercent()).baseUnit("percent")
                .description("energy saved against every server always on doing the same work (the model's estimate)")
                .register(r);
        Gauge.builder("arbiter.grm.power.watts", () -> fleetView.watts()).baseUnit("watts")
                .description("power the servers draw now (the model's estimate)").register(r);
        Gauge.builder("arbiter.grm.capacity", () -> fleetView.capacity()).baseUnit("requests/s")
                .description("estimated capacity of one server (0 = unknown)").register(r);
        Gauge.builder("arbiter.grm.capacity.service.rate", () -> fleetView.serviceRate()).baseUnit("requests/s")
                .description("service rate of one server measured in the gateways' backlog (0 = not measured)").register(r);
        Gauge.builder("arbiter.grm.capacity.backlog", () -> fleetView.backlogSeconds()).baseUnit("seconds")
                .description("seconds of gateway backlog the service rate is measured over").register(r);
        Gauge.builder("arbiter.grm.forecast", () -> fleetView.forecast()).baseUnit("requests/s")
                .description("forecast arrival rate one start-up delay ahead").register(r);
        this.actuationsOk = Counter.builder("arbiter.grm.power.actuations").tag("result", "ok")
                .description("power actuations carried out").register(r);
        this.actuationsRetried = Counter.builder("arbiter.grm.power.actuations").tag("result", "retried")
                .description("power actuation attempts that failed and will be retried").register(r);
        this.actuationsFailed = Counter.builder("arbiter.grm.power.actuations").tag("result", "failed")
                .description("power actuations that failed after every attempt").register(r);
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
        return start(id, config, bus, clock, step, metrics, PowerActuator.of(config));
    }

    /** As above with the given power actuator instead of the configured one. */
    public static GrmService start(String id, ClusterConfig config, KafkaBus bus, Clock clock, ControlStep step,
                                   ProcessMetrics metrics, PowerActuator actuator) {
        GrmService s = new GrmService(id, config, bus, clock, step, metrics, actuator);
        s.begin();
        return s;
    }

    private void begin() {
        metrics.registerMBean("type=Grm,id=" + id, GrmMBean.class, new View());
        subscribers = new Subscriber<?>[] {
            bus.subscribe(bus.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING,
                    (k, a) -> onControlThread(() -> {
                        if (a == null) {
                            return;
                        }
                        var why = epochs.offer(a.epoch(), a.version(), a.at(), clock.instant());
                        if (why.isPresent()) {
                            allocationRefusals.refuse(why.get().tag(), "allocation for " + a.gateway() + " epoch "
                                    + a.epoch() + " version " + a.version() + " at " + a.at() + " skipped");
                            return;
                        }
                        lastAllocations.put(a.gateway(), a);
                    })),
            bus.subscribe(bus.topics().overrides(), OperatorOverride.class, Subscriber.Start.BEGINNING,
                    (k, o) -> onControlThread(() -> {
                        overrides.apply(k, o).ifPresent(why -> LOG.warn("override {} refused: {}", k, why));
                        // An operator's pin takes effect now, not at the next period.
                        if (started && election != null && election.isLeader()) {
                            tick();
                        }
                    })),
            bus.subscribe(bus.topics().power(), PowerOrder.class, Subscriber.Start.BEGINNING,
                    (k, o) -> onControlThread(() -> {
                        if (o == null) {
                            return;
                        }
                        // its epoch only: sequences count per server (the constructor bounds them)
                        var why = epochs.offer(o.epoch(), 0, o.at(), clock.instant());
                        if (why.isPresent()) {
                            powerRefusals.refuse(why.get().tag(), "power order for " + o.server() + " epoch "
                                    + o.epoch() + " sequence " + o.sequence() + " at " + o.at() + " skipped");
                            return;
                        }
                        lastPower.put(o.server(), o);
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
        LOG.info("GRM {} started: period {} ms, {} gateways, {} servers, sizing {}, power actuator {}", id, periodMillis,
                config.gateways().size(), config.servers().size(), config.sizing().policy(), power.actuatorName());
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
                wasLeader = false;
                return;
            }
            Instant now = clock.instant();
            if (!wasLeader) {
                wasLeader = true;
                epochs.lead();
                restorePower(now);
            }
            Map<String, GatewayStats> live = stats.live(now);
            lastLive = List.copyOf(live.keySet());
            long started = System.nanoTime();
            ControlStep.Result result = step.step(now, live, overrides, Map.copyOf(lastAllocations), epochs);
            long took = System.nanoTime() - started;
            solveTimer.record(took, TimeUnit.NANOSECONDS);
            periods.increment();
            for (Allocation a : result.allocations()) {
                lastAllocations.put(a.gateway(), a);
                allocationOut.publish(a);
                lastVersion = a.version();
                lastEpoch = a.epoch();
            }
            if (result.decision() != null) {
                lastObjective = result.decision().objective();
                lastSolveMillis = result.decision().solveSeconds() * 1000;
                decisionOut.publish(result.decision());
            }
            publishPower(result.powerOrders(), "");
            for (Fleet.Actuation a : result.actuations()) {
                LOG.info("GRM {}: power {} {} ({})", id, a.action() == ServerState.ON ? "on" : "off", a.server(), a.reason());
                power.submit(a);
            }
            step.fleet().ifPresent(f -> fleetView = FleetView.of(f));
        } catch (RuntimeException e) {
            // A failing period must never stop the loop: keep the last allocation in force.
            LOG.warn("GRM {} control period failed: {}", id, e.toString(), e);
        }
    }

    /** Publishes the orders stamped with this leader's (epoch, counter); {@code why} is appended to the reason. */
    private void publishPower(List<PowerOrder> orders, String why) {
        for (PowerOrder o : orders) {
            EpochClock.Stamp stamp = epochs.begin(o.at());
            PowerOrder out = new PowerOrder(o.v(), o.at(), o.server(), o.target(), o.state(),
                    why.isEmpty() ? o.reason() : o.reason() + " (" + why + ")", stamp.counter(), stamp.epoch());
            LOG.info("GRM {}: {} {} (ordered {}): {}", id, out.server(), out.state(), out.target(), out.reason());
            lastPower.put(out.server(), out);
            powerOut.publish(out);
        }
    }

    /** On becoming leader: the servers' last published states, so a takeover does not forget which are off. */
    private void restorePower(Instant now) {
        for (PowerOrder o : List.copyOf(lastPower.values())) {
            if (config.servers().stream().noneMatch(s -> s.id().equals(o.server())) || o.state() == ServerState.DRAINING) {
                continue;
            }
            boolean up = o.state() == ServerState.ON;
            publishPower(step.observed(o.server(), up, now), "taken over: last published " + o.state());
        }
    }

    /** On the control thread: count and log the attempt; what the server was seen doing moves the model. */
    private void onPowerReport(PowerDriver.Report r) {
        Fleet.Actuation a = r.actuation();
        String what = "power " + (a.action() == ServerState.ON ? "on " : "off ") + a.server();
        if (r.ok()) {
            actuationsOk.increment();
            LOG.info("GRM {}: {}: {}", id, what, r.detail());
        } else if (!r.last()) {
            actuationsRetried.increment();
            LOG.warn("GRM {}: {} failed (attempt {} of {}), retrying: {}", id, what, r.attempt(),
                    config.power().attempts(), r.detail());
        } else {
            actuationsFailed.increment();
            lastActuationFailure = clock.instant() + " " + what + " failed after " + r.attempt() + " attempts: " + r.detail();
            LOG.error("GRM {}: {} failed after {} attempts, giving up: {}", id, what, r.attempt(), r.detail());
        }
        if (r.seen() == PowerActuator.Seen.UNKNOWN || !power.isLatest(r) || !isLeader()) {
            return;
        }
        String why = power.actuatorName() + (r.ok() ? " saw it " : " failed, saw it ")
                + (r.seen() == PowerActuator.Seen.UP ? "up" : "down") + (r.ok() ? "" : ": " + r.detail());
        publishPower(step.observed(a.server(), r.seen() == PowerActuator.Seen.UP, clock.instant()), why);
        step.fleet().ifPresent(f -> fleetView = FleetView.of(f));
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
        power.close();
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
        public long getLastAllocationEpoch() {
            return lastEpoch;
        }

        @Override
        public long getRefusedRecords() {
            return allocationRefusals.counts().values().stream().mapToLong(Long::longValue).sum()
                    + powerRefusals.counts().values().stream().mapToLong(Long::longValue).sum();
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

        @Override
        public int getServersOn() {
            return fleetView.on();
        }

        @Override
        public String getPowerStates() {
            return fleetView.states();
        }

        @Override
        public double getEnergyJoules() {
            return fleetView.joules();
        }

        @Override
        public double getEnergySavedPercent() {
            return fleetView.savedPercent();
        }

        @Override
        public double getPowerWatts() {
            return fleetView.watts();
        }

        @Override
        public double getCapacityEstimate() {
            return fleetView.capacity();
        }

        @Override
        public double getCapacityServiceRate() {
            return fleetView.serviceRate();
        }

        @Override
        public double getCapacityBacklogSeconds() {
            return fleetView.backlogSeconds();
        }

        @Override
        public double getForecastRate() {
            return fleetView.forecast();
        }

        @Override
        public String getPowerActuator() {
            return power.actuatorName();
        }

        @Override
        public long getActuationFailures() {
            return (long) actuationsFailed.count();
        }

        @Override
        public long getActuationRetries() {
            return (long) actuationsRetried.count();
        }

        @Override
        public String getLastActuationFailure() {
            return lastActuationFailure;
        }
    }
}
