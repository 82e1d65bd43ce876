package org.arbiter.console;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.arbiter.common.bus.StatsTopics;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.message.GatewayStats;
import org.junit.jupiter.api.Test;

/** A gateway's per-pool reports put back together (what the console shows of a gateway with pools). */
final class PoolReportJoinerTest {

    static final Instant T0 = Instant.parse("2026-11-28T10:00:00Z");
    static final List<PoolConfig> POOLS = List.of(new PoolConfig("pa", List.of("s1"), List.of("premium")),
            new PoolConfig("pb", List.of("s2"), List.of("basic")), new PoolConfig("pc", List.of("s3"), List.of()));

    /** A whole report: premium and basic, servers s1-s3. */
    static GatewayStats whole(String gateway, Instant at) {
        GatewayStats s = Fixtures.stats(gateway, at, 1.5, 8);
        return new GatewayStats(s.v(), at, gateway, s.windowSeconds(), s.allocationVersion(), s.classes(),
                Map.of("s1", s.servers().get("s1"), "s2", s.servers().get("s1"), "s3", s.servers().get("s1")),
                new GatewayStats.Backlog(5, 3.5, 33));
    }

    @Test
    void theParts_inAnyOrder_giveBackTheWholeReport_once() {
        for (long seed = 1; seed <= 20; seed++) {
            Random random = new Random(seed);
            PoolReportJoiner j = new PoolReportJoiner(POOLS.size(), 8);
            List<GatewayStats> parts = new ArrayList<>();
            List<GatewayStats> wholes = new ArrayList<>();
            for (String g : List.of("g1", "g2")) {
                for (int i = 0; i < 5; i++) {
                    GatewayStats w = whole(g, T0.plusSeconds(5L * i));
                    wholes.add(w);
                    StatsTopics.poolReports(POOLS, w).forEach(r -> parts.add(r.stats()));
                }
            }
            java.util.Collections.shuffle(parts, random);
            List<GatewayStats> out = new ArrayList<>();
            parts.forEach(p -> out.addAll(j.offer(p)));
            assertThat(out).as("seed " + seed).containsExactlyInAnyOrderElementsOf(wholes);
            assertThat(j.pending()).isZero();
        }
    }

    @Test
    void aSnapshotMissingAPart_isHandedOnIncomplete_whenTooManyWait_oldestFirst() {
        PoolReportJoiner j = new PoolReportJoiner(POOLS.size(), 2);
        GatewayStats a = whole("g1", T0);
        GatewayStats b = whole("g1", T0.plusSeconds(5));
        GatewayStats c = whole("g1", T0.plusSeconds(10));
        var pa = StatsTopics.poolReports(POOLS, a);
        var pb = StatsTopics.poolReports(POOLS, b);
        var pc = StatsTopics.poolReports(POOLS, c);
        assertThat(j.offer(pa.get(0).stats())).isEmpty();
        assertThat(j.offer(pb.get(1).stats())).isEmpty();
        // a third snapshot waiting: the oldest (a, premium and s1 only) goes on as it is
        List<GatewayStats> out = j.offer(pc.get(0).stats());
        assertThat(out).hasSize(1);
        assertThat(out.get(0).at()).isEqualTo(T0);
        assertThat(out.get(0).classes().keySet()).containsExactly("premium");
        assertThat(out.get(0).servers().keySet()).containsExactly("s1");
        assertThat(j.pending()).isEqualTo(2);
        // c's last parts complete it, whole
        assertThat(j.offer(pc.get(1).stats())).isEmpty();
        assertThat(j.offer(pc.get(2).stats())).containsExactly(c);
        assertThat(j.pending()).isEqualTo(1);
    }

    @Test
    void joiningKeepsTheFirstPartsGatewayWideFields() {
        GatewayStats w = whole("g1", T0);
        var parts = StatsTopics.poolReports(POOLS, w);
        GatewayStats joined = PoolReportJoiner.join(parts.get(0).stats(), parts.get(1).stats());
        assertThat(joined.classes().keySet()).isEqualTo(Set.of("premium", "basic"));
        assertThat(joined.servers().keySet()).isEqualTo(Set.of("s1", "s2"));
        assertThat(joined.backlog()).isEqualTo(w.backlog());
        assertThatThrownBy(() -> new PoolReportJoiner(0, 1)).hasMessageContaining("pools: 0");
        assertThatThrownBy(() -> new PoolReportJoiner(1, 0)).hasMessageContaining("maxPending: 0");
    }
}
