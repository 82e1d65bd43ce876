package org.arbiter.common.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.message.GatewayStats;
import org.junit.jupiter.api.Test;

/** Where statistics are read from and which records are taken: the GRM's and the console's one rule. */
final class StatsTopicsTest {

    static final KafkaConfig OWN = ConfigLoader.parse("""
            classes: [{name: basic, target: 3s, default: true}]
            servers: [{id: s1, url: "http://127.0.0.1:9001"}]
            gateways: [{id: g1, port: 0}, {id: g2, port: 0}, {id: g3, port: 0}]
            kafka:
              topicPrefix: "p."
              security:
                principals:
                  grm:     {username: u-grm, passwordFile: /p}
                  gateway: {username: u-gateway, passwordFile: /p}
                  console: {username: u-console, passwordFile: /p}
                  gateways:
                    g2: {username: u-g2, passwordFile: /p}
                    g1: {username: u-g1, passwordFile: /p}
            """).kafka();

    static GatewayStats from(String gateway) {
        return new GatewayStats(1, Instant.parse("2026-11-27T09:00:00Z"), gateway, 5, 0, Map.of(), Map.of());
    }

    @Test
    void theSharedTopic_thenEachGatewaysOwn() {
        assertThat(StatsTopics.topics(OWN)).containsExactly("p.stats", "p.stats.g1", "p.stats.g2");
        assertThat(StatsTopics.topics(new KafkaConfig("k:9092", "p.", Map.of()))).containsExactly("p.stats");
    }

    @Test
    void aGatewayOfItsOwnWritesItsOwnTopic_theOthersTheSharedOne() {
        Topics t = new Topics("p.");
        assertThat(StatsTopics.topicOf(t, OWN.security(), "g1")).isEqualTo("p.stats.g1");
        assertThat(StatsTopics.topicOf(t, OWN.security(), "g3")).isEqualTo("p.stats");
    }

    @Test
    void aRecordIsTakenOnlyFromWhereItsGatewayMayWrite() {
        assertThat(StatsTopics.refusal(OWN, "p.stats.g1", from("g1"))).isNull();
        assertThat(StatsTopics.refusal(OWN, "p.stats.g1", from("g2"))).isEqualTo(StatsTopics.OTHER_GATEWAY);
        assertThat(StatsTopics.refusal(OWN, "p.stats.g1", from("g3"))).isEqualTo(StatsTopics.OTHER_GATEWAY);
        assertThat(StatsTopics.refusal(OWN, "p.stats", from("g3"))).isNull();
        assertThat(StatsTopics.refusal(OWN, "p.stats", from("g1"))).isEqualTo(StatsTopics.NOT_OWN_TOPIC);
        assertThat(StatsTopics.refusal(OWN, "p.stats", from("g2"))).isEqualTo(StatsTopics.NOT_OWN_TOPIC);
        assertThatThrownBy(() -> StatsTopics.refusal(OWN, "p.stats.g3", from("g3")))
                .isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void unsecured_everyRecordOnTheSharedTopicIsTaken() {
        KafkaConfig plain = new KafkaConfig("k:9092", "p.", Map.of());
        assertThat(StatsTopics.refusal(plain, "p.stats", from("g1"))).isNull();
    }

    @Test
    void withPools_aReportIsOnePerPool_onThePoolsPartition_restrictedToIt_keyedGatewayAtPool() {
        GatewayStats.ServerStats server = new GatewayStats.ServerStats(3, 5, 4, 1, 3, 0, true);
        GatewayStats.ClassStats cls = new GatewayStats.ClassStats(4, 4, 1, 0.1, 0.9, 1.5, 2, 3, 4, 6, Map.of(), null);
        GatewayStats whole = new GatewayStats(1, Instant.parse("2026-11-27T09:00:00Z"), "g1", 5, 3,
                Map.of("premium", cls, "basic", cls), Map.of("s1", server, "s2", server),
                new GatewayStats.Backlog(5, 3.5, 33));
        List<PoolConfig> pools = List.of(new PoolConfig("web", List.of("s2"), List.of("basic")),
                new PoolConfig("api", List.of("s1"), List.of("premium")));
        List<StatsTopics.PoolReport> out = StatsTopics.poolReports(pools, whole);
        assertThat(out).extracting(StatsTopics.PoolReport::partition).containsExactly(0, 1);
        assertThat(out).extracting(StatsTopics.PoolReport::key).containsExactly("g1@web", "g1@api");
        assertThat(out.get(0).stats().classes().keySet()).containsExactly("basic");
        assertThat(out.get(0).stats().servers().keySet()).containsExactly("s2");
        assertThat(out.get(1).stats().classes().keySet()).containsExactly("premium");
        assertThat(out.get(1).stats().servers().keySet()).containsExactly("s1");
        assertThat(out).allSatisfy(r -> {
            assertThat(r.stats().backlog()).isEqualTo(whole.backlog());
            assertThat(r.stats().at()).isEqualTo(whole.at());
        });
        assertThat(StatsTopics.poolReports(List.of(), whole)).containsExactly(new StatsTopics.PoolReport(-1, "g1", whole));
    }
}
