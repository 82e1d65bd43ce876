package org.arbiter.common.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.Map;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.KafkaConfig;
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
}
