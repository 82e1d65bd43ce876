package org.arbiter.grm.service;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.StringJoiner;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.BooleanSupplier;
import java.util.function.LongSupplier;
import org.arbiter.common.bus.Refusals;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.ServerState;
import org.arbiter.grm.sizing.Fleet;

/**
 * The GRM service's meters ({@code arbiter.grm.*}) and its MBean view. Counters are written on
 * the control thread; gauges and the MBean read volatile snapshots taken there. Thread-safe.
 */
final class GrmMetrics {

    /** What the metrics show of the fleet, taken on the control thread after each period. */
    record FleetView(int on, int desired, Map<ServerState, Integer> byState, double joules, double watts, double capacity,
                     double forecast, String states, double savedPercent, double serviceRate, double backlogSeconds) {
        static final FleetView NONE = new FleetView(0, 0, Map.of(), 0, 0, 0, 0, "", 0, 0, 0);

        FleetView {
            byState = Map.copyOf(byState);
        }

        static FleetView of(Fleet f) {
            double watts = 0;
            Map<ServerState, Integer> byState = new EnumMap<>(ServerState.class);
            StringJoiner states = new StringJoiner(",");
            for (Map.Entry<String, Decision.Server> e : f.servers().entrySet()) {
                byState.merge(e.getValue().state(), 1, Integer::sum);
                watts += e.getValue().watts();
                states.add(e.getKey() + "=" + e.getValue().state());
            }
            return new FleetView(byState.getOrDefault(ServerState.ON, 0), f.desiredServers(), byState, f.energyJoules(),
                    watts, f.capacityPerServer(), f.forecastRate(), states.toString(), f.savedPercent(),
                    f.measuredServiceRate(), f.measuredBacklogSeconds());
        }

        int inState(ServerState s) {
            return byState.getOrDefault(s, 0);
        }
    }

    final Counter ignoredStats;
    final Counter periods;
    final Counter leaderChanges;
    /** The pools owned, as the control thread last took them in ({""} while leading without pools). */
    volatile Set<String> ownedPools = Set.of();
    final Timer solveTimer;
    final Counter actuationsOk;
    final Counter actuationsRetried;
    final Counter actuationsFailed;
    volatile String lastActuationFailure = "";
    volatile FleetView fleetView = FleetView.NONE;
    volatile double lastObjective = Double.NaN;
    volatile double lastSolveMillis = Double.NaN;
    volatile List<String> lastLive = List.of();
    volatile long lastVersion;
    volatile long lastEpoch;
    /** Per class, Σ_g U_c(t_{g,c}) predicted by the last decision (NaN: nothing solved); read by the gauges. */
    volatile Map<String, Double> classUtility = Map.of();
    /** Per class, the prediction error the last decision carried (absent: none checked lately); read by the gauges. */
    volatile Map<String, Decision.PredictionError> predictionErrors = Map.of();
    private final MeterRegistry registry;

    /**
     * Registers the meters. Prometheus names (Micrometer's convention: dots become underscores,
     * the base unit is appended, counters end {@code _total}) are listed in docs/operations.md.
     *
     * @param classes the configured class names (one utility gauge each)
     */
    GrmMetrics(MeterRegistry r, BooleanSupplier leader, List<String> classes) {
        this(r, leader, classes, List.of());
    }

    GrmMetrics(MeterRegistry r, BooleanSupplier leader, List<String> classes, List<String> pools) {
        this.registry = r;
        for (String p : pools) {
            Gauge.builder("arbiter.grm.pool.owned", () -> ownedPools.contains(p) ? 1 : 0).tag("pool", p)
                    .description("1 while this GRM owns the pool (Kafka's group assignment)").register(r);
        }
        Gauge.builder("arbiter.grm.pools.owned", () -> ownedPools.size())
                .description("pools this GRM owns (1 while leading, without pools)").register(r);
        this.ignoredStats = Counter.builder("arbiter.grm.stats.ignored").description("stale or unknown statistics").register(r);
        this.periods = Counter.builder("arbiter.grm.periods").description("control periods run as leader").register(r);
        this.leaderChanges = Counter.builder("arbiter.grm.leader.changes").description("leadership gained or lost").register(r);
        this.solveTimer = Timer.builder("arbiter.grm.solve").description("time of one control step").register(r);
        Gauge.builder("arbiter.grm.leader", () -> leader.getAsBoolean() ? 1 : 0).description("1 while this GRM leads").register(r);
        Gauge.builder("arbiter.grm.epoch", () -> lastEpoch)
                .description("epoch of the last allocation this GRM published (0 before its first)").register(r);
        Gauge.builder("arbiter.grm.allocation.version", () -> lastVersion)
                .description("version of the last allocation this GRM published (0 before its first)").register(r);
        Gauge.builder("arbiter.grm.objective", () -> lastObjective).description("Ω of the last decision").register(r);
        Gauge.builder("arbiter.grm.solve.last", () -> lastSolveMillis / 1000).baseUnit("seconds")
                .description("time the optimiser took in the last decision").register(r);
        for (String c : classes) {
            Gauge.builder("arbiter.grm.class.utility", () -> classUtility.getOrDefault(c, Double.NaN)).tag("class", c)
                    .description("Σ_g U_c(t) the last decision predicts for the class (NaN: no flow)").register(r);
            Gauge.builder("arbiter.grm.prediction.error", () -> {
                        Decision.PredictionError e = predictionErrors.get(c);
                        return e == null ? Double.NaN : e.meanAbs();
                    }).tag("class", c)
                    .description("mean |t_pred − t_measured| / t_measured of the flow model over the class's predictions"
                            + " checked in the last 4 statistics windows (NaN: none)").register(r);
        }
        Gauge.builder("arbiter.grm.gateways.live", () -> lastLive.size()).description("live gateways").register(r);
        Gauge.builder("arbiter.grm.servers.on", () -> fleetView.on()).description("servers ON (getting caps)").register(r);
        Gauge.builder("arbiter.fleet.desired.servers", () -> fleetView.desired())
                .description("servers the sizing wants on: ON + BOOTING (what the fleet steers to)").register(r);
        Gauge.builder("arbiter.fleet.powered.servers", () -> fleetView.byState().values().stream().mapToInt(Integer::intValue)
                        .sum() - fleetView.inState(ServerState.OFF))
                .description("servers drawing power: every state but OFF (ON, BOOTING, DRAINING)").register(r);
        for (ServerState s : ServerState.values()) {
            Gauge.builder("arbiter.fleet.servers", () -> fleetView.inState(s)).tag("state", s.name().toLowerCase(Locale.ROOT))
                    .description("servers in each power state, the model's").register(r);
        }
        FunctionCounter.builder("arbiter.grm.energy", this, m -> m.fleetView.joules()).baseUnit("joules")
                .description("energy the servers used since this GRM's fleet model started (the model's estimate)").register(r);
        Gauge.builder("arbiter.grm.energy.saved", () -> fleetView.savedPercent() / 100).baseUnit("ratio")
                .description("energy saved against every server always on doing the same work, 0..1 (the model's estimate)")
                .register(r);
        Gauge.builder("arbiter.grm.power.watts", () -> fleetView.watts()).baseUnit("watts")
                .description("power the servers draw now (the model's estimate)").register(r);
        Gauge.builder("arbiter.grm.capacity", () -> fleetView.capacity()).baseUnit("requests.per.second")
                .description("estimated capacity of one server (0 = unknown)").register(r);
        Gauge.builder("arbiter.grm.capacity.service.rate", () -> fleetView.serviceRate()).baseUnit("requests.per.second")
                .description("service rate of one server measured in the gateways' backlog (0 = not measured)").register(r);
        Gauge.builder("arbiter.grm.capacity.backlog", () -> fleetView.backlogSeconds()).baseUnit("seconds")
                .description("seconds of gateway backlog the service rate is measured over").register(r);
        Gauge.builder("arbiter.grm.forecast", () -> fleetView.forecast()).baseUnit("requests.per.second")
                .description("forecast arrival rate one start-up delay ahead").register(r);
        this.actuationsOk = Counter.builder("arbiter.grm.power.actuations").tag("result", "ok")
                .description("power actuations carried out").register(r);
        this.actuationsRetried = Counter.builder("arbiter.grm.power.actuations").tag("result", "retried")
                .description("power actuation attempts that failed and will be retried").register(r);
        this.actuationsFailed = Counter.builder("arbiter.grm.power.actuations").tag("result", "failed")
                .description("power actuations that failed after every attempt").register(r);
        for (String path : SOLVE_PATHS) {
            Counter.builder("arbiter.grm.solve.paths").tag("path", path)
                    .description("decisions whose optimum this algorithm found (marginal, level, thresholds: the"
                            + " fast exact paths; dp: the dynamic programme)").register(r);
        }
    }

    /** The optimiser's paths (docs/grm.md, "The fast exact paths"). */
    static final List<String> SOLVE_PATHS = List.of("marginal", "level", "thresholds", "dp");

    /** Counts one decision under the path that found its optimum (nothing when nothing was solved). */
    void solvedBy(String path) {
        if (SOLVE_PATHS.contains(path)) {
            registry.counter("arbiter.grm.solve.paths", "path", path).increment();
        }
    }

    /** Per class, Σ_g of the predicted utility of the decision's flows (NaN when none was predicted). */
    static Map<String, Double> classUtility(Decision d) {
        Map<String, Double> out = new HashMap<>();
        for (Decision.Flow f : d.flows()) {
            if (!Double.isNaN(f.predictedUtility())) {
                out.merge(f.cls(), f.predictedUtility(), Double::sum);
            }
        }
        return Map.copyOf(out);
    }

    /** The MBean over these meters and the service's own facts. */
    GrmMBean view(String id, BooleanSupplier leader, LongSupplier leaderChanges, String actuator,
                  Refusals allocationRefusals, Refusals powerRefusals) {
        return new GrmMBean() {
            @Override
            public String getId() {
                return id;
            }

            @Override
            public boolean isLeader() {
                return leader.getAsBoolean();
            }

            @Override
            public String getOwnedPools() {
                return String.join(",", new TreeSet<>(ownedPools));
            }

            @Override
            public long getLeaderChanges() {
                return leaderChanges.getAsLong();
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
            public String getPredictionErrors() {
                StringJoiner out = new StringJoiner(",");
                new TreeMap<>(predictionErrors).forEach((c, e) -> out.add(String.format(Locale.ROOT,
                        "%s=%.3f (%d)", c, e.meanAbs(), e.samples())));
                return out.toString();
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
                return actuator;
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
        };
    }
}
