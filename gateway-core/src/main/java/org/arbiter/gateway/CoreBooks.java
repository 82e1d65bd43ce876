package org.arbiter.gateway;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.PoolAllocations;
import org.arbiter.common.utility.YieldFunction;

/*
 * Design note — what a GatewayCore holds (docs/architecture.md, the data loop).
 *
 * Books:    ClassQueues (per class: queue, limit, timeout, requests at servers, weight),
 *           ServerSlots (per server: cap N(g,s), requests in flight, retired, provisional caps),
 *           YieldBook (yields, service EWMA, consumption, recent drops), LoadPolls, ServerHealth,
 *           and the StatsRecorder the measurements go to; the allocation in force and the core's
 *           time (the latest nowNanos it was given; it never goes back).
 * Here:     building the books from the configuration, every read the adapters and the simulator
 *           make (counts, weights, caps, health, yields, the statistics snapshot, readiness), and
 *           the two bulk changes that swap settings rather than move requests: an allocation
 *           (weights and caps at once) and a reload. Moving a request from state to state is
 *           GatewayCore's alone: it extends this class with the events.
 * Time:     passed in; nothing reads a clock. Threads: none, not thread-safe (see GatewayCore);
 *           the int/double getters may be read from other threads for gauges, a moment stale.
 */

/**
 * The books of a {@link GatewayCore} and the reads they answer, with the allocation and reload
 * that swap their settings; the events that move requests are {@link GatewayCore}'s. See the design
 * note. Package-private: use {@link GatewayCore}.
 *
 * @param <R> the adapter's request type
 */
abstract class CoreBooks<R> {

    final String gatewayId;
    final ClassQueues<R> queues;
    final ServerSlots slots;
    final YieldBook yields;
    final LoadPolls polls;
    final ServerHealth health;
    final StatsRecorder stats;
    final AdmissionBook admission;
    final AdaptiveLimits limits;
    /** Each pool's allocation in force ("" without pools); {@link #allocation()} is what they make together. */
    PoolAllocations pools;
    /** The pools' classes and servers by index; null without pools. */
    CorePools poolIndex;
    /** {@code pools[]} as the core was built (a reload cannot change them). */
    private final List<PoolConfig> poolsConfigured;
    /** The latest time the core was given, ns. */
    long now;

    /** See {@link GatewayCore#GatewayCore}. */
    CoreBooks(ClusterConfig cluster, String gatewayId, Allocation initial, long nowNanos) {
        requireNonNull(cluster, "cluster");
        this.gatewayId = requireNonNull(gatewayId, "gatewayId");
        List<ClassConfig> classes = cluster.classes();
        this.queues = new ClassQueues<>(classes);
        this.yields = new YieldBook(classes, cluster.dispatch().adaptive().windowSeconds(), nowNanos);
        this.admission = new AdmissionBook(classes, cluster.dispatch().admission(), nowNanos);
        List<ServerConfig> servers = cluster.servers();
        int ns = servers.size();
        boolean[] probed = new boolean[ns];
        boolean[] pollable = new boolean[ns];
        for (int s = 0; s < ns; s++) {
            probed[s] = servers.get(s).health().enabled();
            pollable[s] = servers.get(s).loadUrl() != null;
        }
        this.slots = new ServerSlots(servers);
        this.limits = new AdaptiveLimits(servers);
        this.polls = new LoadPolls(pollable);
        this.health = new ServerHealth(slots.ids().toArray(String[]::new), cluster.dispatch().ejection(), probed);
        this.now = nowNanos;
        this.stats = new StatsRecorder(queues.names(), slots.ids(), queues.limits(),
                (long) (cluster.control().statsWindowSeconds() * 1e9),
                (long) (cluster.control().reportPeriodSeconds() * 1e9), nowNanos);
        this.pools = PoolAllocations.of(cluster, requireNonNull(initial, "initial"));
        this.poolIndex = cluster.pools().isEmpty() ? null : new CorePools(cluster.pools(), queues, slots);
        this.poolsConfigured = cluster.pools();
        install(initial);
    }

    // ---------------------------------------------------------------- allocation

    /**
     * Swaps w(g,c) and N(g,s) at once. Ignored (returns false) when it is for another gateway, for a
     * pool this gateway does not know, or not newer in (epoch, version) than the allocation in force
     * for its pool (epoch 0 version 0 is the configured allocation, replaced by any GRM allocation; a
     * newer epoch beats any version of an older one). With pools, each pool's allocation is followed
     * on its own and the shares and caps enforced are every pool's together ({@code PoolAllocations}).
     * Classes the allocation does not name keep their weight; servers it does not name
     * get cap 0; names this gateway does not know are ignored. Plausibility against the clock is the
     * caller's ({@code AllocationFollower}).
     */
    public boolean applyAllocation(Allocation a) {
        requireNonNull(a, "a");
        if (!a.gateway().equals(gatewayId) || pools.stale(a) != null) {
            return false;
        }
        pools = pools.with(a);
        if (poolIndex == null) {
            install(a);
        } else {
            // only the pool's own classes and servers move; the merged view is made when asked for
            int p = poolIndex.indexOf(a.pool());
            queues.install(poolIndex.ownWeights(p, a.weights()));
            slots.install(a, poolIndex.serverMask(p));
            limits.applyTo(slots);
        }
        return true;
    }

    /** Each pool's allocation in force ("" without pools), in configuration order. */
    public Map<String, Allocation> poolAllocations() {
        return pools.byPool();
    }

    final void install(Allocation a) {
        queues.install(a.weights());
        slots.install(a);
        limits.applyTo(slots);
    }

    // ---------------------------------------------------------------- reload

    /**
     * Takes over a reloaded configuration without losing a request (docs/gateway.md, Reload).
     *
     * <p>Servers: one absent from {@code next} is retired — cap 0 from now on, whatever an
     * allocation says, while its in-flight requests finish normally; one new in {@code next} joins at
     * the next index (indices are never reused, so tickets in flight keep theirs), UP, with the cap
     * {@code configured} gives it (until a GRM allocation names it, when a GRM allocation is in
     * force). A retired server that comes back joins again under its old index.
     *
     * <p>Classes: the class list (names and order) and the default class must stay the same;
     * otherwise that change is reported in {@link GatewayCore.Reconfiguration#notApplied} and only the
     * settings of classes whose name matches are taken. Per class, the queue limit (a lowered
     * limit rejects new arrivals only; what is queued stays), the queue timeout (counted from each
     * request's arrival), the yield function and target, and minShare change at once.
     *
     * <p>Allocation: while the configured allocation is in force (no GRM allocation yet),
     * {@code configured} replaces it — new weights and caps at once; a lowered cap drains as in
     * {@link #applyAllocation}. A GRM allocation in force stays.
     *
     * <p>Nothing queued or in flight is dropped here: every ticket keeps its state, class and server.
     *
     * @param next       the reloaded configuration
     * @param configured the configured allocation of {@code next} for this gateway ({@code ConfiguredAllocation})
     */
    public GatewayCore.Reconfiguration reconfigure(ClusterConfig next, Allocation configured, long nowNanos) {
        requireNonNull(next, "next");
        requireNonNull(configured, "configured");
        tick(nowNanos);
        List<String> notApplied = new ArrayList<>();
        List<String> classesChanged = new ArrayList<>();
        List<String> names = next.classes().stream().map(ClassConfig::name).toList();
        if (!names.equals(queues.names())) {
            notApplied.add("classes: " + queues.names() + " -> " + names
                    + " (adding, removing or reordering classes needs a restart; the settings of the classes"
                    + " that kept their name were applied)");
        } else if (!next.classes().get(queues.defaultClass()).isDefault()) {
            notApplied.add("classes: the default class " + queues.name(queues.defaultClass())
                    + " changed (needs a restart)");
        }
        if (!next.pools().equals(poolsConfigured)) {
            notApplied.add("pools: " + poolsConfigured.stream().map(PoolConfig::name).toList() + " -> "
                    + next.pools().stream().map(PoolConfig::name).toList()
                    + " (changing pools needs a restart; servers and classes are dispatched by the pools as started)");
        }
        for (ClassConfig cc : next.classes()) {
            int c = queues.indexOf(cc.name());
            if (c < 0) {
                continue;
            }
            YieldFunction y = YieldFunction.of(cc);
            if (queues.changes(c, cc) || yields.changes(c, cc, y)) {
                classesChanged.add(cc.name());
            }
            queues.reconfigure(c, cc);
            stats.queueLimit(c, queues.limit(c));
            yields.reconfigure(c, cc, y);
        }
        if (names.equals(queues.names())) {
            admission.configure(next.classes()); // targets and values; dispatch.admission itself needs a restart
        }
        Map<String, ServerConfig> nextServers = new LinkedHashMap<>();
        next.servers().forEach(sc -> nextServers.put(sc.id(), sc));
        List<String> removed = slots.retireAbsent(nextServers.keySet());
        List<String> added = new ArrayList<>();
        boolean configuredInForce = PoolAllocations.isConfigured(allocation());
        for (ServerConfig sc : nextServers.values()) {
            int s = slots.indexOf(sc.id());
            if (s < 0) {
                s = slots.add(sc.id());
                limits.add(s, sc);
                health.addServer(sc.id(), sc.health().enabled());
                stats.addServer(sc.id(), nowNanos);
                polls.addServer(sc.loadUrl() != null);
                added.add(sc.id());
            } else {
                health.probeTrial(s, sc.health().enabled());
                polls.pollable(s, sc.loadUrl() != null);
                if (!slots.rejoin(s)) {
                    continue;
                }
                added.add(sc.id());
            }
            if (!configuredInForce && !allocation().serverCaps().containsKey(sc.id())) {
                slots.provisional(sc.id(), configured.serverCaps().getOrDefault(sc.id(), 0));
            }
        }
        if (configuredInForce) {
            pools = PoolAllocations.of(poolsConfigured, configured);
        }
        if (!poolsConfigured.isEmpty()) {
            poolIndex = new CorePools(poolsConfigured, queues, slots);
        }
        install(allocation());
        return new GatewayCore.Reconfiguration(added, removed, classesChanged, notApplied);
    }

    /** Whether a reload removed server s (it takes no new request). */
    public boolean retired(int s) {
        return slots.retired(s);
    }

    /** The allocation in force. */
    public Allocation allocation() {
        return pools.merged();
    }

    // ---------------------------------------------------------------- yields (YieldBook)

    /** Class c's expected service time, s: the EWMA of its measured service times, 0 before the first. */
    public double expectedServiceSeconds(int c) {
        return yields.expectedServiceSeconds(c);
    }

    /** u_c of 002 eq. 2 as of the latest completion (decayed by eq. 3 at each completion). */
    public double consumption(int c) {
        return yields.consumption(c);
    }

    /** The full yield offered by class c's arrivals since the core started (may be read from other threads, a moment stale). */
    public double offeredYield(int c) {
        return yields.offered(c);
    }

    /** The yield class c's completions realised since the core started (may be read from other threads, a moment stale). */
    public double realisedYield(int c) {
        return yields.realised(c);
    }

    /** Gateway drops over arrivals in the adaptive window ending at the latest time the core was given. */
    public double recentDropRatio() {
        return yields.dropRatio(now);
    }

    // ---------------------------------------------------------------- servers and polls

    /** The poll book (misses, skips), for the adapter's log and tests. */
    public PollBook polls() {
        return polls.book();
    }

    /** Server s is UP (not ejected, not on trial) as of the latest time the core was given. */
    public boolean isUp(int s) {
        return health.state(s, now) == ServerHealth.State.UP;
    }

    /** The servers' health (ejections, transitions), for the adapter's log and for tests. */
    public ServerHealth health() {
        return health;
    }

    /**
     * Whether some server can take a request now: one with N(g,s) > 0 that is UP, or whose backoff
     * is over and whose trial a client request may be (without an active check a half-open server
     * needs traffic to come back, so readiness must not keep traffic away from it). False when
     * every server is ejected or capped at 0 ("no server can take a request", for readiness).
     */
    public boolean canServe(long nowNanos) {
        tick(nowNanos);
        for (int s = 0; s < slots.count(); s++) {
            if (slots.cap(s) > 0) {
                ServerHealth.State st = health.state(s, nowNanos);
                if (st == ServerHealth.State.UP || st == ServerHealth.State.HALF_OPEN && !health.probeTrial(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- measurement

    /** The sliding-window statistics as of {@code nowNanos}, stamped {@code at}. */
    public GatewayStats snapshot(Instant at, long nowNanos) {
        tick(nowNanos);
        // the servers that may be listed besides those the recorder has a history of: a cap, or not up
        long[] candidates = new long[(slots.count() + 63) >>> 6];
        for (int s : slots.capped()) {
            candidates[s >>> 6] |= 1L << s;
        }
        health.orNotUp(candidates);
        return stats.snapshot(gatewayId, at, nowNanos, pools.lastApplied().version(),
                new StatsRecorder.Live(queues.weights(), queues.sizes(), queues.inFlights(), serverLive(nowNanos),
                        candidates));
    }

    /** What the snapshot at {@code nowNanos} reads of a server. */
    private StatsRecorder.ServerLive serverLive(long nowNanos) {
        return new StatsRecorder.ServerLive() {
            @Override
            public int inFlight(int s) {
                return slots.inFlight(s);
            }

            @Override
            public int cap(int s) {
                return health.ejected(s, nowNanos) ? 0 : slots.cap(s); // an ejected server's slots are capacity lost
            }

            @Override
            public boolean up(int s) {
                return isUp(s);
            }
        };
    }

    /** The core's time moves to {@code nowNanos}, never back. */
    final void tick(long nowNanos) {
        if (nowNanos > now) {
            now = nowNanos;
        }
    }

    // ---------------------------------------------------------------- views

    public String gatewayId() {
        return gatewayId;
    }

    public int classCount() {
        return queues.count();
    }

    public String className(int c) {
        return queues.name(c);
    }

    /** The index of class {@code name}, or -1. */
    public int classIndex(String name) {
        return queues.indexOf(name);
    }

    public int queueLength(int c) {
        return queues.size(c);
    }

    public int queueLimit(int c) {
        return queues.limit(c);
    }

    /** Requests of class c at servers. */
    public int inFlight(int c) {
        return queues.inFlight(c);
    }

    public double weight(int c) {
        return queues.weight(c);
    }

    public int serverCount() {
        return slots.count();
    }

    public String serverId(int s) {
        return slots.id(s);
    }

    /** The index of server {@code id}, or -1. */
    public int serverIndex(String id) {
        return slots.indexOf(id);
    }

    public int serverInFlight(int s) {
        return slots.inFlight(s);
    }

    /** N(g,s) in force. */
    public int cap(int s) {
        return slots.cap(s);
    }

    /** Requests waiting in all queues. */
    public int queued() {
        return queues.queued();
    }

    /** Requests at servers, all classes. */
    public int inFlightTotal() {
        return queues.inFlightTotal();
    }
}
