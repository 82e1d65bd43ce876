package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.grm.control.GrmCore.Command;

/*
 * Design note — pools, each its own problem (issue 32; docs/grm.md, "Pools and a group of GRMs").
 *
 * A pool of pools[] is a set of servers and the classes they serve. Each is solved as a cluster of its
 * own — ClusterConfig.poolCluster: its classes, its servers, every gateway — by its own GrmCore: its
 * own statistics book (each report cut to the pool's classes and servers), its own epoch clock (it sees
 * only its pool's allocations and its servers' power orders on the bus), its own step, fleet, sizing and
 * power. So a pool's owner outranks the pool's previous owner exactly as a new leader outranks the old
 * one without pools, and pools never compare stamps with each other.
 *
 * This class is what one GRM process holds: every pool's core, all kept warm (every record goes to the
 * core of its pool), and the set of pools this process owns (Kafka's group assignment in the service,
 * the simulated owners in the scale experiment). Ownership of a pool is that core's leadership. A tick
 * runs the owned pools' periods one after the other; their commands carry the pool's name (allocations
 * and decisions are stamped with it, so a gateway follows each pool on its own).
 *
 * Without pools there is one pool, "", whose core is exactly the single GRM core of before: every event
 * goes to it unchanged and its commands are passed on untouched, so results are byte-identical.
 *
 * Not thread-safe: one thread (the service's control thread, or the simulator) calls it.
 */

/** Every pool's {@link GrmCore} in one GRM process, and which of them it owns; see the design note in the source. */
public final class PoolGroup {

    /** One pool: its name, its configuration as a cluster of its own, its core. */
    public record Pool(String name, ClusterConfig cluster, GrmCore core, Set<String> classes, Set<String> servers) {
    }

    private final List<Pool> pools = new ArrayList<>();
    private final Map<String, Pool> byName = new LinkedHashMap<>();
    private final Map<String, Pool> byServer = new HashMap<>();
    private final Map<String, Pool> byClass = new HashMap<>();
    private final boolean pooled;
    private Set<String> owned = Set.of();

    /**
     * @param config       the cluster
     * @param steps        the control step of one pool, from the pool's cluster ({@link GrmStep} in production)
     * @param actuatorName named in the reasons of power orders that follow the actuator's reports
     */
    public PoolGroup(ClusterConfig config, Function<ClusterConfig, ControlStep> steps, String actuatorName) {
        requireNonNull(config, "config");
        this.pooled = !config.pools().isEmpty();
        for (PoolConfig pc : config.effectivePools()) {
            ClusterConfig cluster = config.poolCluster(pc);
            Pool p = new Pool(pc.name(), cluster, new GrmCore(cluster, steps.apply(cluster), actuatorName),
                    Set.copyOf(pc.classes()), Set.copyOf(pc.servers()));
            pools.add(p);
            byName.put(p.name(), p);
            pc.servers().forEach(s -> byServer.put(s, p));
            pc.classes().forEach(c -> byClass.put(c, p));
        }
    }

    // ---------------------------------------------------------------- views

    /** Whether the cluster has pools (else one pool, ""). */
    public boolean pooled() {
        return pooled;
    }

    /** The pools in configuration order (partition i of the ownership topic is pool i). */
    public List<Pool> pools() {
        return List.copyOf(pools);
    }

    /** The names of the pools in configuration order. */
    public List<String> names() {
        return pools.stream().map(Pool::name).toList();
    }

    /** The pool named {@code name}, or null. */
    public Pool pool(String name) {
        return byName.get(name);
    }

    /** The pools this process owns now. */
    public Set<String> owned() {
        return owned;
    }

    /** The core of the only pool (without pools), for views that have no pool. */
    public GrmCore single() {
        return pools.get(0).core();
    }

    // ---------------------------------------------------------------- events

    /**
     * Ownership changed to {@code nowOwned} (pool names): each pool gained is led from its next tick
     * (new epoch, power restored), each lost stops at once.
     */
    public List<Command> own(Set<String> nowOwned, Instant now) {
        List<Command> out = new ArrayList<>();
        Set<String> next = new LinkedHashSet<>();
        for (Pool p : pools) {
            boolean want = nowOwned.contains(p.name());
            if (want) {
                next.add(p.name());
            }
            if (want != p.core().leading()) {
                out.addAll(want ? p.core().leadershipGained(now) : p.core().leadershipLost(now));
            }
        }
        owned = Set.copyOf(next);
        return out;
    }

    /** Every pool gained (a GRM that owns all pools: today's leader) or lost. */
    public List<Command> ownAll(boolean all, Instant now) {
        return own(all ? Set.copyOf(names()) : Set.of(), now);
    }

    /** A gateway's statistics: each pool takes its own classes and servers (one notice if refused). */
    public List<Command> stats(GatewayStats s, Instant now) {
        if (!pooled) {
            return single().stats(s, now);
        }
        List<Command> out = new ArrayList<>();
        for (Pool p : pools) {
            List<Command> c = p.core().stats(s.restrictTo(p.classes(), p.servers()), now);
            if (out.isEmpty()) {
                out.addAll(c); // the same report refused by every pool is one notice
            }
        }
        return out;
    }

    /**
     * A gateway's report read from pool {@code pool}'s partition of the statistics topic (the pool's index in
     * the configuration): that pool alone takes it, its own classes and servers of it; an index the
     * configuration has no pool for (a partition beyond them) is dropped. Without pools: as {@link #stats}.
     */
    public List<Command> stats(int pool, GatewayStats s, Instant now) {
        if (!pooled) {
            return single().stats(s, now);
        }
        if (pool < 0 || pool >= pools.size()) {
            return List.of();
        }
        Pool p = pools.get(pool);
        return p.core().stats(s.restrictTo(p.classes(), p.servers()), now);
    }

    /** An override: to the pool of its class, else of its server, else (a tombstone, a gateway-wide one) every pool. */
    public List<Command> override(String id, OperatorOverride o, Instant now) {
        if (!pooled) {
            return single().override(id, o, now);
        }
        Pool p = o == null ? null : o.cls() != null ? byClass.get(o.cls()) : o.server() != null ? byServer.get(o.server()) : null;
        if (p != null) {
            return tag(p, p.core().override(id, o, now));
        }
        if (o != null && (o.cls() != null || o.server() != null)) {
            return pools.get(0).core().override(id, o, now); // refused there, naming what is unknown
        }
        List<Command> out = new ArrayList<>();
        for (Pool q : pools) {
            out.addAll(tag(q, q.core().override(id, o, now)));
        }
        return out;
    }

    /** An allocation read from the bus: to its pool's core (one for a pool this configuration lacks is dropped). */
    public List<Command> allocationSeen(Allocation a, Instant now) {
        if (a == null) {
            return List.of();
        }
        if (!pooled) {
            return single().allocationSeen(a, now);
        }
        Pool p = byName.get(a.pool());
        return p == null ? List.of() : p.core().allocationSeen(a, now);
    }

    /** A power order read from the bus: to its server's pool. */
    public List<Command> powerOrderSeen(PowerOrder o, Instant now) {
        if (o == null) {
            return List.of();
        }
        Pool p = pooled ? byServer.get(o.server()) : pools.get(0);
        return p == null ? List.of() : p.core().powerOrderSeen(o, now);
    }

    /** One control period of every owned pool, in configuration order. */
    public List<Command> tick(Instant now) {
        if (!pooled) {
            return single().tick(now);
        }
        List<Command> out = new ArrayList<>();
        for (Pool p : pools) {
            if (p.core().leading()) {
                out.addAll(tick(p, now));
            }
        }
        return out;
    }

    /** One control period of pool {@code p} (nothing if this process does not own it), its commands tagged. */
    public List<Command> tick(Pool p, Instant now) {
        return tag(p, p.core().tick(now));
    }

    /** The power actuator's report: to its server's pool. */
    public List<Command> powerReport(GrmCore.PowerReport r, Instant now) {
        Pool p = pooled ? byServer.get(r.actuation().server()) : pools.get(0);
        return p == null ? List.of() : tag(p, p.core().powerReport(r, now));
    }

    /** A server seen up or down: to its pool. */
    public List<Command> serverSeen(String server, boolean up, String why, Instant now) {
        Pool p = pooled ? byServer.get(server) : pools.get(0);
        return p == null ? List.of() : tag(p, p.core().serverSeen(server, up, why, now));
    }

    /** The configured allocation of {@code gateway} before any period: every pool's together. */
    public Allocation initialAllocation(String gateway) {
        if (!pooled) {
            return single().initialAllocation(gateway);
        }
        Map<String, Double> weights = new LinkedHashMap<>();
        Map<String, Integer> caps = new LinkedHashMap<>();
        Allocation first = null;
        for (Pool p : pools) {
            Allocation a = p.core().initialAllocation(gateway);
            first = first == null ? a : first;
            weights.putAll(a.weights());
            caps.putAll(a.serverCaps());
        }
        return new Allocation(first.v(), first.at(), gateway, first.version(), weights, caps, first.source(),
                first.epoch());
    }

    /** The commands of pool {@code p}'s core with its allocations and decisions stamped with the pool. */
    private List<Command> tag(Pool p, List<Command> commands) {
        if (!pooled || commands.isEmpty()) {
            return commands;
        }
        List<Command> out = new ArrayList<>(commands.size());
        for (Command c : commands) {
            if (c instanceof Command.PublishAllocation a) {
                out.add(new Command.PublishAllocation(a.allocation().withPool(p.name())));
            } else if (c instanceof Command.PublishDecision d) {
                out.add(new Command.PublishDecision(d.decision().withPool(p.name())));
            } else {
                out.add(c);
            }
        }
        return out;
    }
}
