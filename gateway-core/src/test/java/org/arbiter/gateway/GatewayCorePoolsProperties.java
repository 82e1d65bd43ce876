package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;

/**
 * Dispatch with {@code pools[]} (docs/gateway.md, "Pools"): on random clusters and random event sequences in
 * virtual time, a class's requests go only to its pool's servers, no pool leaves a slot idle while one of its
 * queues waits, a pool's allocation moves only its own servers and classes, and one pool of everything
 * dispatches exactly as no pools.
 */
final class GatewayCorePoolsProperties {

    /** P pools; pool p has classes p.0.., servers p.0..; caps 1..4. */
    static ClusterConfig cluster(int pools, int classesPerPool, int serversPerPool, boolean pooled, long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        StringBuilder y = new StringBuilder("classes:\n");
        List<PoolConfig> list = new ArrayList<>();
        StringBuilder servers = new StringBuilder("servers:\n");
        for (int p = 0; p < pools; p++) {
            List<String> cs = new ArrayList<>();
            List<String> ss = new ArrayList<>();
            for (int c = 0; c < classesPerPool; c++) {
                String name = "c" + p + "_" + c;
                cs.add(name);
                y.append("  - {name: ").append(name).append(", target: 1s, weight: ").append(1 + r.nextInt(5))
                        .append(", queue: {limit: 100000, timeout: 1h}").append(p == 0 && c == 0 ? ", default: true" : "")
                        .append("}\n");
            }
            for (int s = 0; s < serversPerPool; s++) {
                String id = "s" + p + "_" + s;
                ss.add(id);
                servers.append("  - {id: ").append(id).append(", url: 'http://127.0.0.1:9', concurrency: ")
                        .append(1 + r.nextInt(4)).append("}\n");
            }
            list.add(new PoolConfig("p" + p, ss, cs));
        }
        ClusterConfig c = Fixtures.parse(y.append(servers).toString());
        return pooled ? c.toBuilder().pools(list).build() : c;
    }

    static GatewayCore<Integer> core(ClusterConfig c) {
        return core(c, Balancers.leastOutstanding());
    }

    static GatewayCore<Integer> core(ClusterConfig c, Balancer balancer) {
        return new GatewayCore<>(c, "g1", ConfiguredAllocation.of(c, "g1", true, Instant.EPOCH),
                Schedulers.of(c.dispatch()), balancer, 0);
    }

    /** Random arrivals and completions; every dispatch as "class@server", in order. */
    static List<String> run(GatewayCore<Integer> core, ClusterConfig c, long seed, int events,
                            Map<String, String> poolOfServer, Map<String, String> poolOfClass) {
        SplittableRandom r = new SplittableRandom(seed);
        List<String> log = new ArrayList<>();
        List<Ticket<Integer>> running = new ArrayList<>();
        long t = 0;
        for (int i = 0; i < events; i++) {
            t += 1_000_000;
            if (running.isEmpty() || r.nextInt(3) > 0) {
                core.offer(i, c.classes().get(r.nextInt(c.classes().size())).name(), t);
            } else {
                core.complete(running.remove(r.nextInt(running.size())), Outcome.OK, t);
            }
            for (Ticket<Integer> k = core.next(t); k != null; k = core.next(t)) {
                running.add(k);
                log.add(k.className() + "@" + k.serverId());
                if (poolOfServer != null) {
                    assertThat(poolOfServer.get(k.serverId())).as(k.className() + " sent to " + k.serverId())
                            .isEqualTo(poolOfClass.get(k.className()));
                }
            }
            if (poolOfServer != null) {
                // work conservation per pool: a pool with requests waiting has every server at its cap
                for (PoolConfig p : c.pools()) {
                    boolean waiting = p.classes().stream().anyMatch(name -> core.queueLength(core.classIndex(name)) > 0);
                    if (waiting) {
                        for (String s : p.servers()) {
                            int si = core.serverIndex(s);
                            assertThat(core.serverInFlight(si)).as("pool " + p.name() + " waits while " + s + " has a free slot")
                                    .isGreaterThanOrEqualTo(core.cap(si));
                        }
                    }
                }
            }
        }
        return log;
    }

    @Property(tries = 200)
    void aClassGoesOnlyToItsPoolsServers_andNoPoolIdlesWhileItsQueuesWait(@ForAll @IntRange(min = 1, max = 4) int pools,
            @ForAll @IntRange(min = 1, max = 3) int classes, @ForAll @IntRange(min = 1, max = 3) int servers,
            @ForAll long seed) {
        ClusterConfig c = cluster(pools, classes, servers, true, seed);
        Map<String, String> poolOfServer = new HashMap<>();
        Map<String, String> poolOfClass = new HashMap<>();
        c.pools().forEach(p -> {
            p.servers().forEach(s -> poolOfServer.put(s, p.name()));
            p.classes().forEach(k -> poolOfClass.put(k, p.name()));
        });
        run(core(c), c, seed, 300, poolOfServer, poolOfClass);
        // random polling of d = 2 (002 §3) reads no list of capped servers: the pool's view alone keeps it in
        run(core(c, Balancers.randomPoll(2, new SplittableRandom(seed))), c, seed, 300, poolOfServer, poolOfClass);
    }

    @Property(tries = 200)
    void onePoolOfEverything_dispatchesExactlyAsNoPools(@ForAll @IntRange(min = 1, max = 4) int classes,
            @ForAll @IntRange(min = 1, max = 4) int servers, @ForAll long seed) {
        ClusterConfig plain = cluster(1, classes, servers, false, seed);
        ClusterConfig one = cluster(1, classes, servers, true, seed);
        assertThat(run(core(one), one, seed, 300, null, null)).isEqualTo(run(core(plain), plain, seed, 300, null, null));
    }

    @Property(tries = 100)
    void aPoolsAllocation_movesOnlyItsOwnServersAndClasses_andIsOrderedWithinThePool(@ForAll long seed) {
        ClusterConfig c = cluster(2, 2, 2, true, seed);
        GatewayCore<Integer> core = core(c);
        long epoch = Instant.parse("2026-11-27T10:00:00Z").toEpochMilli();
        Allocation p0 = new Allocation(1, Instant.ofEpochMilli(epoch + 5000), "g1", 5, Map.of("c0_0", 9.0, "c1_0", 9.0),
                Map.of("s0_0", 7, "s0_1", 6, "s1_0", 99), "grm", epoch, "p0");
        Map<String, Integer> before = caps(core, c);
        double w10 = core.weight(core.classIndex("c1_0"));
        assertThat(core.applyAllocation(p0)).isTrue();
        Map<String, Integer> after = caps(core, c);
        assertThat(after.get("s0_0")).isEqualTo(7);
        assertThat(after.get("s0_1")).isEqualTo(6);
        assertThat(after.get("s1_0")).as("another pool's server").isEqualTo(before.get("s1_0"));
        assertThat(after.get("s1_1")).isEqualTo(before.get("s1_1"));
        assertThat(core.weight(core.classIndex("c0_0"))).isEqualTo(9.0);
        assertThat(core.weight(core.classIndex("c1_0"))).as("another pool's class").isEqualTo(w10);
        // pool p1 has its own order: an epoch older than p0's is still newer than p1's configured allocation
        Allocation p1 = new Allocation(1, Instant.ofEpochMilli(epoch + 1000), "g1", 1, Map.of("c1_0", 2.0),
                Map.of("s1_0", 3, "s1_1", 0), "grm", epoch - 60_000, "p1");
        assertThat(core.applyAllocation(p1)).isTrue();
        assertThat(core.applyAllocation(new Allocation(1, Instant.ofEpochMilli(epoch + 1000), "g1", 1, Map.of(), Map.of(),
                "grm", epoch - 120_000, "p1"))).as("older within p1").isFalse();
        assertThat(core.applyAllocation(new Allocation(1, Instant.ofEpochMilli(epoch + 1000), "g1", 1, Map.of(), Map.of(),
                "grm", epoch, ""))).as("no pool '' in a pooled cluster").isFalse();
        assertThat(caps(core, c)).containsEntry("s1_0", 3).containsEntry("s1_1", 0).containsEntry("s0_0", 7);
        assertThat(core.allocation().serverCaps()).isEqualTo(Map.of("s0_0", 7, "s0_1", 6, "s1_0", 3, "s1_1", 0));
        assertThat(core.poolAllocations()).containsOnlyKeys("p0", "p1");
    }

    private static Map<String, Integer> caps(GatewayCore<Integer> core, ClusterConfig c) {
        Map<String, Integer> out = new HashMap<>();
        c.servers().forEach(s -> out.put(s.id(), core.cap(core.serverIndex(s.id()))));
        return out;
    }
}
