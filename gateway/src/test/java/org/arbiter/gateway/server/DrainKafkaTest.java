package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.GatewayTestSupport;
import org.arbiter.gateway.GatewayTestSupport.Http;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A drain on a real (embedded KRaft) broker publishes a last statistics report before it ends. */
final class DrainKafkaTest {

    @TempDir
    Path dir;

    @Test
    void drain_flushesALastStatisticsReport() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
             var backend = GatewayTestSupport.backend(0)) {
            // A report period of one minute: any report seen within seconds is the drain's.
            ClusterConfig cluster = ConfigLoader.parse("""
                    classes:
                      - {name: basic, target: 2s, default: true}
                    servers:
                      - {id: s1, url: "%s", concurrency: 10}
                    gateways:
                      - {id: g1, port: 0, adminPort: 0}
                    control: {reportPeriod: 60s, statsWindow: 60s}
                    """.formatted(backend.url()));
            KafkaBus bus = KafkaBus.connect(cluster.kafka().withBootstrap(kafka.bootstrap()), "test", null);
            var stats = new CopyOnWriteArrayList<GatewayStats>();
            bus.subscribe(bus.topics().stats(), GatewayStats.class, Subscriber.Start.BEGINNING, (k, v) -> stats.add(v));
            try (Gateway g = Gateway.start(cluster, "g1", GatewayOptions.defaults().withPorts(0, 0)
                    .withBootstrap(kafka.bootstrap()))) {
                await().atMost(Duration.ofSeconds(30)).until(g::busConnected);
                try (Http h = GatewayTestSupport.http(g.port())) {
                    for (int i = 0; i < 5; i++) {
                        assertThat(h.get("/").status()).isEqualTo(200);
                    }
                }
                assertThat(stats).isEmpty();
                assertThat(g.drain()).isTrue();
                g.drained().get(20, TimeUnit.SECONDS);
                // Published and flushed before drained() completed; the consumer may take a moment.
                await().atMost(Duration.ofSeconds(10)).until(() -> !stats.isEmpty());
                GatewayStats last = stats.get(stats.size() - 1);
                assertThat(last.gateway()).isEqualTo("g1");
                assertThat(last.classes().get("basic").period().arrivals()).isEqualTo(5);
                assertThat(last.classes().get("basic").throughput()).isPositive();
            }
            bus.close();
        }
    }
}
