package org.arbiter.common.message;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.PoolConfig;

/**
 * The allocations in force at one gateway, one per pool, and the shares and caps they make together.
 *
 * <p>Each pool of {@code pools[]} is decided by its own GRM owner with its own epochs, so a gateway
 * follows each pool on its own: an allocation for pool p replaces the one in force for p only when it
 * is newer in (epoch, version) than that one ({@link #stale}), and the shares and caps enforced are
 * the union of every pool's ({@link #merged}: each pool's weights of its own classes, caps of its own
 * servers). Every pool starts from the configured allocation (epoch 0, version 0), which any plausible
 * allocation replaces. Without pools there is one pool, "", and the merged allocation is the one in
 * force itself: exactly the single-allocation rule.
 *
 * <p>Immutable and thread-safe: {@link #with} returns a new value.
 */
public final class PoolAllocations {

    private final Map<String, String> classPool;
    private final Map<String, String> serverPool;
    private final Map<String, Allocation> byPool;
    /** The last allocation applied (the merged one's stamp). */
    private final Allocation last;
    /** Made on first use (deterministic: a race makes the same value twice). */
    private Allocation merged;

    private PoolAllocations(Map<String, String> classPool, Map<String, String> serverPool,
                            Map<String, Allocation> byPool, Allocation last, Allocation merged) {
        this.classPool = classPool;
        this.serverPool = serverPool;
        this.byPool = byPool;
        this.last = last;
        this.merged = merged;
    }

    /** Every pool of {@code cluster} (one, "", without pools) on {@code initial}. */
    public static PoolAllocations of(ClusterConfig cluster, Allocation initial) {
        return of(cluster.pools(), initial);
    }

    /** Every pool of {@code pools} (one, "", when empty) on {@code initial}. */
    public static PoolAllocations of(List<PoolConfig> pools, Allocation initial) {
        requireNonNull(initial, "initial");
        Map<String, String> classPool = new LinkedHashMap<>();
        Map<String, String> serverPool = new LinkedHashMap<>();
        Map<String, Allocation> byPool = new LinkedHashMap<>();
        for (PoolConfig p : pools) {
            p.classes().forEach(c -> classPool.put(c, p.name()));
            p.servers().forEach(s -> serverPool.put(s, p.name()));
            byPool.put(p.name(), initial);
        }
        if (byPool.isEmpty()) {
            byPool.put("", initial);
        }
        return new PoolAllocations(Map.copyOf(classPool), Map.copyOf(serverPool), byPool, initial, initial);
    }

    /** Without pools: {@code initial} alone. */
    public static PoolAllocations single(Allocation initial) {
        return new PoolAllocations(Map.of(), Map.of(), Map.of("", requireNonNull(initial, "initial")), initial, initial);
    }

    /** Whether the cluster has pools. */
    public boolean pooled() {
        return !serverPool.isEmpty();
    }

    /** The allocation in force for {@code pool}, or null when this gateway knows no such pool. */
    public Allocation inForce(String pool) {
        return byPool.get(pool);
    }

    /** Every pool's allocation in force, in configuration order. */
    public Map<String, Allocation> byPool() {
        return Collections.unmodifiableMap(byPool);
    }

    /**
     * Why {@code a} cannot replace the allocation in force for its pool, or null when it can: its pool is
     * unknown here, or it is not newer in (epoch, version) than that pool's (the configured allocation is
     * replaced by any).
     */
    public String stale(Allocation a) {
        Allocation cur = byPool.get(a.pool());
        if (cur == null) {
            return "pool '" + a.pool() + "' (expected: one of " + byPool.keySet() + ")";
        }
        if (isConfigured(cur) || a.isNewerThan(cur)) {
            return null;
        }
        return "epoch " + a.epoch() + " v" + a.version() + " is not newer than epoch " + cur.epoch() + " v"
                + cur.version() + " in force" + (a.pool().isEmpty() ? "" : " for pool " + a.pool());
    }

    /** With {@code a} in force for its pool (the caller checked {@link #stale}). */
    public PoolAllocations with(Allocation a) {
        if (!byPool.containsKey(a.pool())) {
            throw new IllegalArgumentException("pool " + a.pool() + " (expected: one of " + byPool.keySet() + ")");
        }
        Map<String, Allocation> next = new LinkedHashMap<>(byPool);
        next.put(a.pool(), a);
        return new PoolAllocations(classPool, serverPool, next, a, pooled() ? null : a);
    }

    /**
     * What is enforced: without pools the allocation in force; with pools each pool's weights of its own
     * classes and caps of its own servers, stamped as {@code last} (the allocation applied last).
     */
    public Allocation merged() {
        Allocation m = merged;
        if (m == null) {
            m = merged = merge(byPool, last);
        }
        return m;
    }

    /** The allocation applied last (of any pool): the one in force without pools. */
    public Allocation lastApplied() {
        return last;
    }

    /** The pool of class {@code name}, or null (also without pools). */
    public String poolOfClass(String name) {
        return classPool.get(name);
    }

    /** The pool of server {@code id}, or null (also without pools). */
    public String poolOfServer(String id) {
        return serverPool.get(id);
    }

    private Allocation merge(Map<String, Allocation> pools, Allocation last) {
        Map<String, Double> weights = new LinkedHashMap<>();
        Map<String, Integer> caps = new LinkedHashMap<>();
        pools.forEach((pool, a) -> {
            a.weights().forEach((c, w) -> {
                if (pool.equals(classPool.get(c))) {
                    weights.put(c, w);
                }
            });
            a.serverCaps().forEach((s, n) -> {
                if (pool.equals(serverPool.get(s))) {
                    caps.put(s, n);
                }
            });
        });
        return new Allocation(last.v(), last.at(), last.gateway(), last.version(), weights, caps, last.source(),
                last.epoch(), "");
    }

    /** Whether {@code a} is a configured allocation (epoch 0, version 0): replaced by any plausible one. */
    public static boolean isConfigured(Allocation a) {
        return a.epoch() == 0 && a.version() == 0;
    }
}
