package org.arbiter.grm.control;

import static org.arbiter.grm.control.GrmCoreTest.allocations;
import static org.arbiter.grm.control.GrmCoreTest.only;
import static org.arbiter.grm.control.GrmCoreTest.pinStats;
import static org.arbiter.grm.control.GrmCoreTest.weightPin;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.grm.control.GrmCore.Command;
import org.junit.jupiter.api.Test;

/** Pools in the GRM core: without pools exactly one GrmCore; with pools one problem, one order and one owner each. */
final class PoolGroupTest {

    /** Two pools over two gateways: web (premium on s1), batch (basic on s2). */
    static final ClusterConfig POOLED = ConfigLoader.parse("""
            classes:
              - {name: premium, target: 1s, weight: 1, minShare: 0.1}
              - {name: basic, target: 2s, weight: 1, default: true, minShare: 0.1}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: 6}
            gateways:
              - {id: g1, port: 0}
              - {id: g2, port: 0}
            control: {period: 1s, reportPeriod: 1s, statsWindow: 2s}
            pools:
              - {name: web, servers: [s1], classes: [premium]}
              - {name: batch, servers: [s2], classes: [basic]}
            """);

    static final Instant T0 = GrmCoreTest.T0;

    static PoolGroup group(ClusterConfig c, String id) {
        return new PoolGroup(c, pool -> new GrmStep(pool, id, () -> 0L), "exec");
    }

    @Test
    void withoutPools_theGroupIsOneGrmCore_commandForCommand() {
        ClusterConfig c = GrmCoreTest.PINS;
        PoolGroup g = group(c, "grm-a");
        GrmCore plain = GrmCoreTest.core(c, "grm-a");
        assertThat(g.pooled()).isFalse();
        assertThat(g.names()).containsExactly("");
        g.ownAll(true, T0);
        plain.leadershipGained(T0);
        Allocation last1 = null;
        Allocation last2 = null;
        for (int i = 1; i <= 8; i++) {
            Instant now = T0.plusSeconds(i);
            for (String gw : List.of("g1", "g2")) {
                GatewayStats s = pinStats(gw, now, 1 + i % 3, gw.equals("g1") ? last1 : last2);
                g.stats(s, now);
                plain.stats(s, now);
            }
            if (i == 4) {
                assertThat(g.override("pin", weightPin("pin", "g1", "premium", 3, now), now))
                        .isEqualTo(plain.override("pin", weightPin("pin", "g1", "premium", 3, now), now));
            }
            List<Command> a = g.tick(now);
            List<Command> b = plain.tick(now);
            assertThat(a).isEqualTo(b);
            for (Allocation x : allocations(a)) {
                assertThat(x.pool()).isEmpty();
                g.allocationSeen(x, now);
                plain.allocationSeen(x, now);
                if (x.gateway().equals("g1")) {
                    last1 = x;
                } else {
                    last2 = x;
                }
            }
        }
    }

    @Test
    void eachOwnedPool_decidesItsOwnClassesAndServers_stampedWithItsName() {
        PoolGroup g = group(POOLED, "grm-a");
        g.own(Set.of("batch"), T0);
        List<Command> out = new ArrayList<>();
        for (int i = 1; i <= 3; i++) {
            Instant now = T0.plusSeconds(i);
            for (String gw : List.of("g1", "g2")) {
                g.stats(pinStats(gw, now, 2, null), now);
            }
            out = g.tick(now);
        }
        List<Allocation> as = allocations(out);
        assertThat(as).extracting(Allocation::gateway).containsExactly("g1", "g2");
        assertThat(as).allSatisfy(a -> {
            assertThat(a.pool()).isEqualTo("batch");
            assertThat(a.key()).isEqualTo(a.gateway() + "@batch");
            assertThat(a.weights()).containsOnlyKeys("basic");
            assertThat(a.serverCaps()).containsOnlyKeys("s2");
            assertThat(a.totalCap()).isBetween(3, 3);
        });
        Decision d = only(out, Command.PublishDecision.class).get(0).decision();
        assertThat(d.pool()).isEqualTo("batch");
        assertThat(d.flows()).extracting(Decision.Flow::cls).containsOnly("basic");
        assertThat(g.pool("web").core().periods()).as("web is not owned: no period").isZero();
    }

    @Test
    void epochsArePerPool_aNewOwnerOutranksThePoolsOldOwner_andOtherPoolsStampsDoNotPushIt() {
        PoolGroup a = group(POOLED, "grm-a");
        PoolGroup b = group(POOLED, "grm-b");
        a.ownAll(true, T0);
        b.own(Set.of(), T0);
        List<Allocation> seen = new ArrayList<>();
        Instant now = T0;
        for (int i = 1; i <= 3; i++) {
            now = T0.plusSeconds(i);
            for (String gw : List.of("g1", "g2")) {
                GatewayStats s = pinStats(gw, now, 2, null);
                a.stats(s, now);
                b.stats(s, now);
            }
            for (Allocation x : allocations(a.tick(now))) {
                a.allocationSeen(x, now);
                b.allocationSeen(x, now);
                seen.add(x);
            }
        }
        long webEpochA = seen.stream().filter(x -> x.pool().equals("web")).mapToLong(Allocation::epoch).max().orElseThrow();
        // a batch record stamped 20 s ahead (within maxClockSkew) is seen: only batch's clock moves past it
        Instant ahead = now.plusSeconds(20);
        Allocation future = new Allocation(1, ahead, "g1", 1, Map.of("basic", 1.0), Map.of("s2", 3), "grm",
                ahead.toEpochMilli(), "batch");
        b.allocationSeen(future, now);
        // web moves to b: b's epoch for web is above a's, and not pushed to batch's future stamp
        a.own(Set.of("batch"), now);
        b.own(Set.of("web"), now);
        Instant later = now.plusSeconds(1);
        for (String gw : List.of("g1", "g2")) {
            b.stats(pinStats(gw, later, 2, null), later);
        }
        List<Allocation> web = allocations(b.tick(later));
        assertThat(web).isNotEmpty().allSatisfy(x -> {
            assertThat(x.pool()).isEqualTo("web");
            assertThat(x.epoch()).isGreaterThan(webEpochA).isLessThan(future.epoch());
        });
        assertThat(allocations(b.tick(later)).stream().map(Allocation::pool).distinct()).containsExactly("web");
    }

    @Test
    void anOverride_goesToItsClassesPool_andAStatisticsRefusalIsReportedOnce() {
        PoolGroup g = group(POOLED, "grm-a");
        g.ownAll(true, T0);
        Instant now = T0.plusSeconds(1);
        for (String gw : List.of("g1", "g2")) {
            g.stats(pinStats(gw, now, 2, null), now);
        }
        g.tick(now);
        List<Command> pinned = g.override("pin", weightPin("pin", "g1", "premium", 3, now), now);
        List<Decision> ds = only(pinned, Command.PublishDecision.class).stream().map(Command.PublishDecision::decision).toList();
        assertThat(ds).extracting(Decision::pool).containsExactly("web");
        assertThat(ds.get(0).overrides()).containsExactly("pin");
        assertThat(only(g.override("bad", weightPin("bad", "g1", "nope", 3, now), now), Command.OverrideRefused.class))
                .hasSize(1);
        GatewayStats unknown = new GatewayStats(1, now, "g9", 1, 0, Map.of(), Map.of());
        assertThat(only(g.stats(unknown, now), Command.StatsIgnored.class)).hasSize(1);
    }
}
