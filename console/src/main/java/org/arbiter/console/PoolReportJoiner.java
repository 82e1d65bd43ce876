package org.arbiter.console;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.arbiter.common.message.GatewayStats;

/**
 * Puts a gateway's per-pool statistics back together. With {@code pools} a gateway writes one report per pool
 * for each snapshot (each on its pool's partition, restricted to the pool's classes and servers); the console
 * shows a gateway whole, so it joins the reports of one gateway stamped with the same {@code at}: once all
 * {@code pools} of them are in, the joined report is handed on. A gateway's snapshots still waiting for a part
 * are at most {@code maxPending}; beyond that the oldest is handed on with the parts it has (a part lost or
 * behind), so memory stays bounded whatever arrives.
 *
 * <p>Core class: no I/O, no clock. Not thread-safe; the feed calls it under its own lock.
 */
final class PoolReportJoiner {

    private record Pending(GatewayStats joined, int parts) {
    }

    private final int pools;
    private final int maxPending;
    private final Map<String, TreeMap<Instant, Pending>> pending = new HashMap<>();

    /**
     * @param pools      the pools each snapshot is split into (at least 1)
     * @param maxPending snapshots of one gateway kept waiting for their parts (at least 1)
     */
    PoolReportJoiner(int pools, int maxPending) {
        if (pools < 1) {
            throw new IllegalArgumentException("pools: " + pools + " (expected: >= 1)");
        }
        if (maxPending < 1) {
            throw new IllegalArgumentException("maxPending: " + maxPending + " (expected: >= 1)");
        }
        this.pools = pools;
        this.maxPending = maxPending;
    }

    /**
     * Takes one pool's report.
     *
     * @return the reports this completes, then any older one pushed out incomplete: oldest first; empty while
     *         the snapshot waits for its other parts
     */
    List<GatewayStats> offer(GatewayStats part) {
        requireNonNull(part, "part");
        TreeMap<Instant, Pending> mine = pending.computeIfAbsent(part.gateway(), g -> new TreeMap<>());
        Pending held = mine.get(part.at());
        Pending now = held == null ? new Pending(part, 1) : new Pending(join(held.joined(), part), held.parts() + 1);
        List<GatewayStats> out = new ArrayList<>(1);
        while (mine.size() >= maxPending && !mine.containsKey(part.at()) && now.parts() < pools) {
            out.add(mine.pollFirstEntry().getValue().joined());
        }
        if (now.parts() >= pools) {
            mine.remove(part.at());
            out.add(now.joined());
        } else {
            mine.put(part.at(), now);
        }
        if (mine.isEmpty()) {
            pending.remove(part.gateway());
        }
        return out;
    }

    /** Snapshots waiting for parts, over every gateway. */
    int pending() {
        return pending.values().stream().mapToInt(Map::size).sum();
    }

    /** Two parts of one snapshot: their classes and servers together (the first's on a clash), the rest the first's. */
    static GatewayStats join(GatewayStats a, GatewayStats b) {
        Map<String, GatewayStats.ClassStats> classes = new HashMap<>(b.classes());
        classes.putAll(a.classes());
        Map<String, GatewayStats.ServerStats> servers = new HashMap<>(b.servers());
        servers.putAll(a.servers());
        return new GatewayStats(a.v(), a.at(), a.gateway(), a.windowSeconds(),
                Math.max(a.allocationVersion(), b.allocationVersion()), classes, servers, a.backlog());
    }
}
