package org.arbiter.grm.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.GatewayStats;
import org.junit.jupiter.api.Test;

final class StatsBookTest {

    static final ClusterConfig CONFIG = ConfigLoader.parse("""
            classes:
              - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
              - {name: basic, target: 3s, default: true}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001"}
            gateways:
              - {id: g1, port: 8080}
              - {id: g2, port: 8081}
            """);

    static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    static GatewayStats stats(String gateway, Instant at, String... classes) {
        Map<String, GatewayStats.ClassStats> m = new java.util.HashMap<>();
        for (String c : classes) {
            m.put(c, new GatewayStats.ClassStats(1, 1, 1, 0, 1, 1, 0, 0, 0, 1, Map.of(), null));
        }
        return new GatewayStats(1, at, gateway, 30, 1, m, Map.of());
    }

    @Test
    void gatewaySilentForThreePeriods_leavesTheProblem() {
        StatsBook book = new StatsBook(CONFIG, 5);
        assertThat(book.accept(stats("g1", T0, "premium"), T0)).isEqualTo(StatsBook.Outcome.ACCEPTED);
        assertThat(book.accept(stats("g2", T0.plusSeconds(10), "basic"), T0.plusSeconds(10))).isEqualTo(StatsBook.Outcome.ACCEPTED);
        assertThat(book.live(T0.plusSeconds(15)).keySet()).containsExactly("g1", "g2");
        assertThat(book.live(T0.plusSeconds(15).plusMillis(1)).keySet()).containsExactly("g2");
        assertThat(book.silent(T0.plusSeconds(16))).containsExactly("g1");
    }

    @Test
    void gatewaySilentForTwelvePeriods_isGone_countingFromWhenTheGrmBeganToLead() {
        StatsBook book = new StatsBook(CONFIG, 5);
        Instant leading = T0.plusSeconds(20);
        book.accept(stats("g1", T0, "premium"), T0);
        book.accept(stats("g2", T0.plusSeconds(30), "basic"), T0.plusSeconds(30));
        // g1 was last heard before this GRM led: its 60 s count from the takeover
        assertThat(book.gone(leading.plusSeconds(60).minusMillis(1), leading)).isEmpty();
        assertThat(book.gone(leading.plusSeconds(60), leading)).containsExactly("g1");
        assertThat(book.gone(T0.plusSeconds(90), leading)).containsExactly("g1", "g2");
        // left out (not live) long before it is gone
        assertThat(book.live(T0.plusSeconds(46)).keySet()).isEmpty();
        assertThat(book.gone(T0.plusSeconds(46), leading)).isEmpty();
        // never heard: gone 12Γ after the takeover
        StatsBook empty = new StatsBook(CONFIG, 5);
        assertThat(empty.gone(leading.plusSeconds(59), leading)).isEmpty();
        assertThat(empty.gone(leading.plusSeconds(60), leading)).containsExactly("g1", "g2");
    }

    @Test
    void staleUnknownGatewayAndUnknownClass_areIgnoredAndCounted() {
        StatsBook book = new StatsBook(CONFIG, 5);
        book.accept(stats("g1", T0.plusSeconds(5), "premium"), T0.plusSeconds(5));
        assertThat(book.accept(stats("g1", T0.plusSeconds(5), "premium"), T0.plusSeconds(6))).isEqualTo(StatsBook.Outcome.STALE);
        assertThat(book.accept(stats("g1", T0.plusSeconds(1), "premium"), T0.plusSeconds(6))).isEqualTo(StatsBook.Outcome.STALE);
        assertThat(book.accept(stats("g2", T0, "basic"), T0.plusSeconds(16))).isEqualTo(StatsBook.Outcome.STALE);
        assertThat(book.accept(stats("g9", T0.plusSeconds(7), "basic"), T0.plusSeconds(7))).isEqualTo(StatsBook.Outcome.UNKNOWN_GATEWAY);
        assertThat(book.accept(stats("g1", T0.plusSeconds(8), "gold"), T0.plusSeconds(8))).isEqualTo(StatsBook.Outcome.UNKNOWN_CLASS);
        assertThat(book.counts()).containsEntry(StatsBook.Outcome.ACCEPTED, 1L).containsEntry(StatsBook.Outcome.STALE, 3L)
                .containsEntry(StatsBook.Outcome.UNKNOWN_GATEWAY, 1L).containsEntry(StatsBook.Outcome.UNKNOWN_CLASS, 1L);
        assertThat(book.live(T0.plusSeconds(8)).get("g1").at()).isEqualTo(T0.plusSeconds(5));
    }
}
