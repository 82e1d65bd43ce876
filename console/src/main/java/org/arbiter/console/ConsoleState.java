package org.arbiter.console;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.config.SizingConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.common.override.EffectiveClass;
import org.arbiter.common.utility.UtilityFunction;

/**
 * What the console knows: the latest statistics of every gateway and a bounded history of them,
 * the allocation of every gateway, the power orders, a bounded history of the GRM's decisions, and
 * the operator's overrides in force. Fed with messages (from the bus adapter) and read as
 * immutable views (by the HTTP adapter).
 *
 * <p>Bounds: at most {@code historyLimit} statistics samples and only those younger than
 * {@code horizon} (relative to the newest sample); at most {@code decisionLimit} decisions. An
 * allocation older (lower version) than the one held is ignored, as the gateways do.
 *
 * <p>Clocks: a report is placed at the time it says it was made, but never later than when it was
 * received ({@link #onStats(GatewayStats, Instant)}): a gateway whose clock runs ahead (a report
 * dated a year ahead) is live for three report periods after its report arrived, not for a year,
 * and cannot stop newer reports from replacing its own or push the history out.
 *
 * <p>Members: gateways and servers that the configuration does not name but that show up in
 * messages are listed with {@code unknown: true} and left out of the counts
 * ({@link ClusterView#liveGateways()}).
 *
 * <p>Core class: no threads, no I/O, time passed in. Thread-safe: every method is synchronized
 * (the bus delivers on its subscriber threads, the HTTP adapter reads on its event loops).
 */
public final class ConsoleState {

    /** Default samples kept: 30 min of 5 s reports from 4 gateways. */
    public static final int HISTORY_LIMIT = 1_440;
    public static final Duration HORIZON = Duration.ofMinutes(30);
    public static final int DECISION_LIMIT = 360;

    private final ClusterConfig config;
    private final int historyLimit;
    private final Duration horizon;
    private final int decisionLimit;

    private final Deque<StatsPoint> history = new ArrayDeque<>();
    private final Map<String, GatewayStats> latestStats = new TreeMap<>();
    private final Map<String, Instant> reportedAt = new TreeMap<>();  // per gateway: min(at, received)
    private final Map<String, Allocation> allocations = new TreeMap<>();
    /** Per gateway, each pool's allocation ("" without pools); {@link #allocations} holds them merged. */
    private final Map<String, Map<String, Allocation>> poolAllocations = new TreeMap<>();
    /** Per pool, its newest decision (of the GRM that owns it). */
    private final Map<String, Decision> poolOwners = new TreeMap<>();
    private final Map<String, PowerOrder> power = new TreeMap<>();
    private final Deque<Decision> decisions = new ArrayDeque<>();
    private final Map<String, OperatorOverride> overrides = new TreeMap<>();
    private long ignored;
    private long futureReports;

    public ConsoleState(ClusterConfig config) {
        this(config, HISTORY_LIMIT, HORIZON, DECISION_LIMIT);
    }

    public ConsoleState(ClusterConfig config, int historyLimit, Duration horizon, int decisionLimit) {
        this.config = requireNonNull(config, "config");
        if (historyLimit < 1) {
            throw new IllegalArgumentException("historyLimit: " + historyLimit + " (expected: >= 1)");
        }
        if (decisionLimit < 1) {
            throw new IllegalArgumentException("decisionLimit: " + decisionLimit + " (expected: >= 1)");
        }
        this.historyLimit = historyLimit;
        this.horizon = requireNonNull(horizon, "horizon");
        this.decisionLimit = decisionLimit;
    }

    public ClusterConfig config() {
        return config;
    }

    // ---- views -------------------------------------------------------------------------------

    /** One statistics report reduced to what the page plots, with the measured utility U_c(t̃). */
    public record StatsPoint(Instant at, String gateway, double windowSeconds, long allocationVersion,
                             Map<String, ClassPoint> classes) {
    }

    /**
     * One flow (g, c) of a report.
     *
     * @param utility       U_c of the measured mean response time (003 eq. 7 with the target in force),
     *                      or null for a class the configuration does not know
     * @param offeredYield  002's OfferedYield per second over the window (full yield × arrivals)
     * @param realisedYield 002's RealizedYield per second over the window
     * @param lossPercent   002's LossPercent over the window, or null when nothing was offered
     */
    public record ClassPoint(double arrivalRate, double throughput, double responseTime, double p95ResponseTime,
                             double queueTime, double serviceTime, double meanQueueLength, int queueLength,
                             int inFlight, double weight, long dropped, Map<String, Long> drops, Double utility,
                             double offeredYield, double realisedYield, Double lossPercent) {
    }

    /**
     * The page's cluster overview.
     *
     * @param liveGateways      configured gateways that are live (unknown ones are not counted)
     * @param configuredServers servers the configuration names
     * @param unknownGateways   gateways listed that the configuration does not name
     * @param unknownServers    servers listed that the configuration does not name
     */
    public record ClusterView(Instant at, List<ClassView> classes, List<GatewayView> gateways,
                              List<ServerView> servers, int liveGateways, int configuredServers, int unknownGateways,
                              int unknownServers, List<PoolView> pools) {
    }

    /**
     * A pool of {@code pools[]} and the GRM that owns it, as its newest decision names it.
     *
     * @param owner the GRM of the pool's newest decision ("" before any)
     * @param epoch that decision's epoch (0 before any)
     * @param at    that decision's time (null before any)
     */
    public record PoolView(String name, List<String> servers, List<String> classes, String owner, long epoch, Instant at) {
    }

    /**
     * A class as configured and as in force.
     *
     * @param targetSeconds           τ_c in force (a target override applied)
     * @param configuredTargetSeconds τ_c from the file
     * @param utilityScale            how φ scales the utility: absolute, or relative (φ/τ_c)
     */
    public record ClassView(String name, double targetSeconds, double configuredTargetSeconds, double phi,
                            double alpha, double beta, String utilityScale, String yieldShape, double weight,
                            double minShare, @JsonProperty("default") boolean isDefault) {
    }

    /**
     * A gateway.
     *
     * @param kind       what runs as it ({@code gateways[].kind}: {@code arbiter} or {@code haproxy}), or null when
     *                   unknown
     * @param live       reported within the last three report periods
     * @param lastReport when it last reported (never later than when the report arrived), or null
     * @param stats      its last report, or null
     * @param allocation the allocation it was last told, or null
     * @param unknown    not in the configuration (seen in messages only; not counted)
     */
    public record GatewayView(String id, GatewayConfig.Kind kind, String host, int port, boolean live,
                              Instant lastReport, GatewayStats stats, Allocation allocation, boolean unknown) {
    }

    /**
     * A server.
     *
     * @param state       observed power state (from the power topic; ON until the GRM says otherwise)
     * @param target      ordered state, or null when no order was seen
     * @param concurrency N_s in force (the latest decision's, else the configuration's)
     * @param capacity    the GRM's capacity estimate per server, req/s (0: none)
     * @param capacitySource where that estimate comes from ({@code configured}, {@code queue estimate},
     *                    {@code utilisation estimate}), or null when there is none to show: no decision
     *                    yet, sizing off (the GRM then sizes nothing and its estimate means nothing), or 0
     * @param caps        N(g,s) per gateway from the allocations in force
     * @param unknown     not in the configuration (seen in messages only; not counted); its url is null
     */
    public record ServerView(String id, String url, ServerState state, ServerState target, String reason,
                             int concurrency, boolean autoConcurrency, double capacity, String capacitySource,
                             double watts, Map<String, Integer> caps, boolean unknown) {
    }

    /** The allocation of a gateway, as {@code GET /api/allocation} shows it. */
    public record AllocationView(long version, Map<String, Double> weights, Map<String, Integer> serverCaps,
                                 String source, Instant at) {
    }

    // ---- feeding -----------------------------------------------------------------------------

    /**
     * Takes a statistics report, trusting its time ({@link #onStats(GatewayStats, Instant)} with
     * the report's own time as the time of receipt).
     *
     * @return the point added to the history, or null when the report was ignored (a tombstone)
     */
    public synchronized StatsPoint onStats(GatewayStats stats) {
        return onStats(stats, stats == null ? Instant.EPOCH : stats.at());
    }

    /**
     * Takes a statistics report received at {@code receivedAt}. A report dated later than that (a
     * gateway clock ahead) counts as made when it was received, and is counted in
     * {@link #futureReports()}.
     *
     * @return the point added to the history (at the time counted), or null when the report was
     *         ignored (a tombstone)
     */
    public synchronized StatsPoint onStats(GatewayStats stats, Instant receivedAt) {
        requireNonNull(receivedAt, "receivedAt");
        if (stats == null) {
            ignored++;
            return null;
        }
        Instant at = stats.at();
        if (at.isAfter(receivedAt)) {
            futureReports++;
            at = receivedAt;
        }
        Instant previous = reportedAt.get(stats.gateway());
        if (previous == null || !at.isBefore(previous)) {
            latestStats.put(stats.gateway(), stats);
            reportedAt.put(stats.gateway(), at);
        }
        StatsPoint point = toPoint(stats, at);
        history.addLast(point);
        trimHistory();
        return point;
    }

    /** Takes an allocation; a tombstone forgets the gateway's. @return true when it changed the state */
    public synchronized boolean onAllocation(String gateway, Allocation allocation) {
        if (allocation == null) {
            if (gateway == null) {
                return false;
            }
            int at = gateway.indexOf('@'); // gateway@pool: that pool's allocation only
            String g = at < 0 ? gateway : gateway.substring(0, at);
            Map<String, Allocation> byPool = poolAllocations.get(g);
            if (at < 0 || byPool == null) {
                poolAllocations.remove(g);
                return allocations.remove(g) != null;
            }
            if (byPool.remove(gateway.substring(at + 1)) == null) {
                return false;
            }
            if (byPool.isEmpty()) {
                poolAllocations.remove(g);
                allocations.remove(g);
            } else {
                Allocation last = byPool.values().iterator().next();
                allocations.put(g, merged(byPool, last));
            }
            return true;
        }
        // each pool is followed on its own, as a gateway does ("" without pools): its (epoch, version) orders it
        Map<String, Allocation> byPool = poolAllocations.computeIfAbsent(allocation.gateway(), g -> new TreeMap<>());
        Allocation held = byPool.get(allocation.pool());
        if (held != null && held.isNewerThan(allocation)) { // (epoch, version): a new leader's epoch wins
            ignored++;
            return false;
        }
        byPool.put(allocation.pool(), allocation);
        allocations.put(allocation.gateway(), byPool.size() == 1 ? allocation : merged(byPool, allocation));
        return true;
    }

    /** Takes a power order / state report; a tombstone forgets the server's. */
    public synchronized void onPower(String server, PowerOrder order) {
        if (order == null) {
            if (server != null) {
                power.remove(server);
            }
            return;
        }
        power.put(order.server(), order);
    }

    /** Every pool's weights and caps together, stamped as {@code last}. */
    private static Allocation merged(Map<String, Allocation> byPool, Allocation last) {
        Map<String, Double> weights = new TreeMap<>();
        Map<String, Integer> caps = new TreeMap<>();
        byPool.values().forEach(a -> {
            weights.putAll(a.weights());
            caps.putAll(a.serverCaps());
        });
        return new Allocation(last.v(), last.at(), last.gateway(), last.version(), weights, caps, last.source(),
                last.epoch());
    }

    /** Takes a decision. */
    public synchronized void onDecision(Decision decision) {
        if (decision == null) {
            ignored++;
            return;
        }
        if (!decision.pool().isEmpty()) {
            Decision held = poolOwners.get(decision.pool());
            if (held == null || decision.epoch() >= held.epoch()) {
                poolOwners.put(decision.pool(), decision);
            }
        }
        decisions.addLast(decision);
        while (decisions.size() > decisionLimit) {
            decisions.removeFirst();
        }
    }

    /** Takes a record of the overrides topic: active ones are in force, inactive ones and tombstones are not. */
    public synchronized void onOverride(String id, OperatorOverride override) {
        if (id == null) {
            return;
        }
        if (override == null || !override.active()) {
            overrides.remove(id);
        } else {
            overrides.put(id, override);
        }
    }

    /** Reports dated after they were received, each counted as received. */
    public synchronized long futureReports() {
        return futureReports;
    }

    /** Messages that were ignored (stale allocations, tombstones on streams). */
    public synchronized long ignored() {
        return ignored;
    }

    // ---- reading -----------------------------------------------------------------------------

    /** Statistics samples newer than {@code since} (all when null), oldest first. */
    public synchronized List<StatsPoint> stats(Instant since) {
        List<StatsPoint> out = new ArrayList<>();
        for (StatsPoint p : history) {
            if (since == null || p.at().isAfter(since)) {
                out.add(p);
            }
        }
        return out;
    }

    /** The newest {@code limit} decisions, newest first. */
    public synchronized List<Decision> decisions(int limit) {
        List<Decision> out = new ArrayList<>(Math.min(limit, decisions.size()));
        var it = decisions.descendingIterator();
        while (it.hasNext() && out.size() < limit) {
            out.add(it.next());
        }
        return out;
    }

    /** The overrides in force, by id. */
    public synchronized Map<String, OperatorOverride> overrides() {
        return Map.copyOf(overrides);
    }

    /**
     * What the GRM made of each override in force, by id, from the newest decision that says
     * (an override the GRM left out has {@code applied: false} and the reason).
     */
    public synchronized Map<String, Decision.PinStatus> pinStatuses() {
        Map<String, Decision.PinStatus> out = new TreeMap<>();
        Decision last = decisions.peekLast();
        if (last != null) {
            last.pins().forEach(p -> {
                if (overrides.containsKey(p.id())) {
                    out.put(p.id(), p);
                }
            });
        }
        return out;
    }

    /** The override in force under {@code id}, or null. */
    public synchronized OperatorOverride override(String id) {
        return overrides.get(id);
    }

    /** The allocation {@code gateway} holds (with pools every pool's together), or null. */
    public synchronized Allocation allocationOf(String gateway) {
        return allocations.get(gateway);
    }

    /** Allocation per gateway. */
    public synchronized Map<String, AllocationView> allocations() {
        Map<String, AllocationView> out = new TreeMap<>();
        allocations.forEach((g, a) -> out.put(g, new AllocationView(a.version(), new TreeMap<>(a.weights()),
                new TreeMap<>(a.serverCaps()), a.source(), a.at())));
        return out;
    }

    /** The cluster as of {@code now}. */
    public synchronized ClusterView cluster(Instant now) {
        requireNonNull(now, "now");
        List<ClassView> classes = new ArrayList<>();
        for (ClassConfig c : config.classes()) {
            ClassConfig e = effective(c);
            classes.add(new ClassView(c.name(), e.targetSeconds(), c.targetSeconds(), e.utility().phi(),
                    e.utility().alpha(), e.utility().beta(), e.utility().scale().wireName(), c.yieldShape().map(y -> y.shape().wireName()).orElse(null),
                    c.weight(), c.minShare(), c.isDefault()));
        }
        Duration liveFor = Duration.ofMillis((long) (3_000 * config.control().reportPeriodSeconds()));
        Map<String, GatewayView> gateways = new LinkedHashMap<>();
        for (GatewayConfig g : config.gateways()) {
            gateways.put(g.id(), gatewayView(g.id(), g.kind(), g.host(), g.port(), now, liveFor, false));
        }
        int configuredGateways = gateways.size();
        int liveGateways = (int) gateways.values().stream().filter(GatewayView::live).count();
        SortedSet<String> seenGateways = new TreeSet<>(latestStats.keySet());
        seenGateways.addAll(allocations.keySet());
        for (String g : seenGateways) {  // gateways the file does not name still show up, as unknown
            gateways.computeIfAbsent(g, id -> gatewayView(id, null, null, 0, now, liveFor, true));
        }
        Decision last = decisions.peekLast();
        List<ServerView> servers = new ArrayList<>();
        Set<String> configured = new HashSet<>();
        for (ServerConfig s : config.servers()) {
            configured.add(s.id());
            servers.add(serverView(s.id(), s.url().toString(), s.concurrency(), s.autoConcurrency(), last, false));
        }
        SortedSet<String> seenServers = new TreeSet<>(power.keySet());
        allocations.values().forEach(a -> seenServers.addAll(a.serverCaps().keySet()));
        latestStats.values().forEach(st -> seenServers.addAll(st.servers().keySet()));
        if (last != null) {
            seenServers.addAll(last.servers().keySet());
        }
        seenServers.removeAll(configured);
        for (String id : seenServers) {
            servers.add(serverView(id, null, 0, false, last, true));
        }
        List<PoolView> pools = new ArrayList<>();
        for (PoolConfig p : config.pools()) {
            Decision d = poolOwners.get(p.name());
            pools.add(new PoolView(p.name(), p.servers(), p.classes(), d == null ? "" : d.grm(), d == null ? 0 : d.epoch(),
                    d == null ? null : d.at()));
        }
        return new ClusterView(now, classes, List.copyOf(gateways.values()), servers, liveGateways, configured.size(),
                gateways.size() - configuredGateways, seenServers.size(), pools);
    }

    private ServerView serverView(String id, String url, int concurrency, boolean auto, Decision last, boolean unknown) {
        PowerOrder order = power.get(id);
        Decision.Server ds = last == null ? null : last.servers().get(id);
        Map<String, Integer> caps = new TreeMap<>();
        allocations.forEach((g, a) -> caps.put(g, a.serverCaps().getOrDefault(id, 0)));
        ServerState state = order != null ? order.state() : ds != null && ds.state() != null ? ds.state()
                : unknown ? null : ServerState.ON;
        double capacity = ds != null ? ds.capacity() : 0;
        String source = capacitySource(capacity);
        return new ServerView(id, url, state, order == null ? null : order.target(), order == null ? null : order.reason(),
                ds != null ? ds.concurrency() : concurrency, auto, source == null ? 0 : capacity, source,
                ds != null ? ds.watts() : 0, caps, unknown);
    }

    /** Where the GRM's capacity estimate comes from, or null when there is none worth showing. */
    private String capacitySource(double capacity) {
        SizingConfig sizing = config.sizing();
        if (!(capacity > 0) || sizing.policy() instanceof SizingConfig.Off) {
            return null;
        }
        if (sizing.estimator() == SizingConfig.Estimator.STATIC) {
            return "configured";
        }
        return sizing.estimator() == SizingConfig.Estimator.QUEUE ? "queue estimate" : "utilisation estimate";
    }

    private GatewayView gatewayView(String id, GatewayConfig.Kind kind, String host, int port, Instant now,
                                    Duration liveFor, boolean unknown) {
        GatewayStats s = latestStats.get(id);
        Instant at = reportedAt.get(id);
        boolean live = at != null && !at.plus(liveFor).isBefore(now);
        return new GatewayView(id, kind, host, port, live, at, s, allocations.get(id), unknown);
    }

    // ---- internals ---------------------------------------------------------------------------

    private StatsPoint toPoint(GatewayStats s, Instant at) {
        Map<String, ClassPoint> classes = new TreeMap<>();
        s.classes().forEach((name, c) -> classes.put(name, new ClassPoint(c.arrivalRate(), c.throughput(),
                c.meanResponseTime(), c.p95ResponseTime(), c.meanQueueTime(), c.meanServiceTime(), c.meanQueueLength(),
                c.queueLength(), c.inFlight(), c.weight(), c.dropped(), new TreeMap<>(c.drops()), utility(name, c),
                c.yield().offered(), c.yield().realised(), c.yield().offered() > 0 ? c.yield().lossPercent() : null)));
        return new StatsPoint(at, s.gateway(), s.windowSeconds(), s.allocationVersion(), classes);
    }

    private Double utility(String cls, GatewayStats.ClassStats c) {
        var conf = config.classNamed(cls);
        if (conf.isEmpty() || c.throughput() == 0 && c.meanResponseTime() == 0) {
            return null;  // unknown class, or nothing measured: no utility to show
        }
        try {
            double u = UtilityFunction.of(effective(conf.get())).utility(c.meanResponseTime());
            return Double.isFinite(u) ? u : null;
        } catch (RuntimeException e) {
            return null;
        }
    }

    /** The class with the target and utility overrides in force applied: the GRM's rule ({@link EffectiveClass}). */
    private ClassConfig effective(ClassConfig c) {
        return EffectiveClass.of(c, overrides.values());
    }

    private void trimHistory() {
        while (history.size() > historyLimit) {
            history.removeFirst();
        }
        Instant newest = history.stream().map(StatsPoint::at).max(Instant::compareTo).orElse(Instant.MIN);
        Instant oldestKept = newest.minus(horizon);
        history.removeIf(p -> p.at().isBefore(oldestKept));
    }
}
