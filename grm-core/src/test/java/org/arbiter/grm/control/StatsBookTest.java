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
        StatsBook book = new StatsBook(CONFIG, 5, 30_000);
        assertThat(book.accept(stats("g1", T0, "premium"), T0)).isEqualTo(StatsBook.Outcome.ACCEPTED);
        assertThat(book.accept(stats("g2", T0.plusSeconds(10), "basic"), T0.plusSeconds(10))).isEqualTo(StatsBook.Outcome.ACCEPTED);
        assertThat(book.live(T0.plusSeconds(15)).keySet()).containsExactly("g1", "g2");
        assertThat(book.live(T0.plusSeconds(15).plusMillis(1)).keySet()).containsExactly("g2");
        assertThat(book.silent(T0.plusSeconds(16))).containsExactly("g1");
    }

    @Test
    void gatewaySilentForTwelvePeriods_isGone_countingFromWhenTheGrmBeganToLead() {
        StatsBook book = new StatsBook(CONFIG, 5, 30_000);
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
        StatsBook empty = new StatsBook(CONFIG, 5, 30_000);
        assertThat(empty.gone(leading.plusSeconds(59), leading)).isEmpty();
        assertThat(empty.gone(leading.plusSeconds(60), leading)).containsExactly("g1", "g2");
    }

    @Test
    void staleUnknownGatewayAndUnknownClass_areIgnoredAndCounted() {
        StatsBook book = new StatsBook(CONFIG, 5, 30_000);
        book.accept(stats("g1", T0.plusSeconds(5), "premium"), T0.plusSeconds(5));
        assertThat(book.accept(stats("g1", T0.plusSeconds(5), "premium"), T0.plusSeconds(6))).isEqualTo(StatsBook.Outcome.STALE);
        assertThat(book.accept(stats("g1", T0.plusSeconds(1), "premium"), T0.plusSeconds(6))).isEqualTo(StatsBook.Outcome.STALE);
        assertThat(book.accept(stats("g2", T0, "basic"), T0.plusSeconds(16))).isEqualTo(StatsBook.Outcome.TOO_OLD);
        assertThat(book.accept(stats("g9", T0.plusSeconds(7), "basic"), T0.plusSeconds(7))).isEqualTo(StatsBook.Outcome.UNKNOWN_GATEWAY);
        assertThat(book.accept(stats("g1", T0.plusSeconds(8), "gold"), T0.plusSeconds(8))).isEqualTo(StatsBook.Outcome.UNKNOWN_CLASS);
        assertThat(book.counts()).containsEntry(StatsBook.Outcome.ACCEPTED, 1L).containsEntry(StatsBook.Outcome.STALE, 2L)
                .containsEntry(StatsBook.Outcome.TOO_OLD, 1L)
                .containsEntry(StatsBook.Outcome.UNKNOWN_GATEWAY, 1L).containsEntry(StatsBook.Outcome.UNKNOWN_CLASS, 1L);
        assertThat(book.live(T0.plusSeconds(8)).get("g1").at()).isEqualTo(T0.plusSeconds(5));
    }

    @Test
    void aRecordFromTheFuture_isRefused_andNeverHoldsBackTheGatewaysLaterReports() {
        StatsBook book = new StatsBook(CONFIG, 5, 30_000);
        assertThat(book.accept(stats("g1", T0, "premium"), T0)).isEqualTo(StatsBook.Outcome.ACCEPTED);
        // beyond the skew: refused, the mark does not move
        assertThat(book.accept(stats("g1", T0.plusSeconds(30).plusMillis(1), "premium"), T0))
                .isEqualTo(StatsBook.Outcome.FUTURE);
        assertThat(book.accept(stats("g1", Instant.parse("2099-01-01T00:00:00Z"), "premium"), T0))
                .isEqualTo(StatsBook.Outcome.FUTURE);
        // inside the skew: taken, but it sets the mark to when it arrived, not to its own at
        assertThat(book.accept(stats("g1", T0.plusSeconds(30), "premium"), T0.plusSeconds(1)))
                .isEqualTo(StatsBook.Outcome.ACCEPTED);
        assertThat(book.accept(stats("g1", T0.plusSeconds(1), "premium"), T0.plusSeconds(2)))
                .as("not newer than the mark (the forward record's arrival)").isEqualTo(StatsBook.Outcome.STALE);
        assertThat(book.accept(stats("g1", T0.plusSeconds(6), "premium"), T0.plusSeconds(6)))
                .as("the next ordinary report").isEqualTo(StatsBook.Outcome.ACCEPTED);
        // a gateway whose clock runs 20 s ahead: every report is taken
        for (int i = 7; i < 40; i++) {
            assertThat(book.accept(stats("g2", T0.plusSeconds(i + 20), "basic"), T0.plusSeconds(i)))
                    .isEqualTo(StatsBook.Outcome.ACCEPTED);
        }
        assertThat(book.counts()).containsEntry(StatsBook.Outcome.FUTURE, 2L);
        assertThat(book.live(T0.plusSeconds(40)).keySet()).containsExactly("g2");
        assertThat(book.live(T0.plusSeconds(11)).keySet()).containsExactly("g1", "g2");
    }
}
