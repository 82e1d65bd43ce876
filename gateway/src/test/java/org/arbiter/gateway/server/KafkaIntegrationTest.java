package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The gateway on a real (embedded KRaft) broker: stats out, allocations in, compacted resume. */
final class KafkaIntegrationTest {

    @TempDir
    Path dir;

    @Test
    void allocationMessage_changesTheSharesTheBackendSees_andARestartedGatewayResumesIt() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0);
             var backend = GatewayTestSupport.backend(0)) {
            ClusterConfig cluster = GatewayTestSupport.twoClasses(200, "30s", backend.url());
            GatewayOptions options = GatewayOptions.defaults().withPorts(0, 0).withBootstrap(kafka.bootstrap());
            KafkaBus bus = KafkaBus.connect(cluster.kafka().withBootstrap(kafka.bootstrap()), "test", null);
            var stats = new CopyOnWriteArrayList<GatewayStats>();
            bus.subscribe(bus.topics().stats(), GatewayStats.class, Subscriber.Start.BEGINNING, (k, v) -> stats.add(v));
            backend.hold();
            try (Gateway g = Gateway.start(cluster, "g1", options);
                 var load = new GatewayTestSupport.Load(g.port(), Map.of("premium", SharesSocketTest.CLIENTS, "basic", SharesSocketTest.CLIENTS))) {
                // With a bus and one gateway in the file, the configured split is all of N_s.
                await().atMost(Duration.ofSeconds(30)).until(g::busConnected);
                // Counted as in SharesSocketTest: the backend holds every answer and lets them go ten at
                // a time; the ten the gateway sends in their place are its scheduler's choices.
                SharesSocketTest.awaitBatch(backend, 0);
                int premium = SharesSocketTest.nextBatch(backend, g, 1);
                assertThat(premium).as("premium's requests of the ten the backend holds, weights 8/2").isBetween(7, 9);

                bus.publisher(bus.topics().allocation()).publish(new Allocation(1, Instant.now(), "g1", 7,
                        Map.of("premium", 2.0, "basic", 8.0), Map.of("s1", 10), "grm")).get();
                long t0 = System.nanoTime();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                        .until(() -> g.allocation().version() == 7);
                System.out.printf("allocation published → in force at the gateway after %.0f ms%n",
                        (System.nanoTime() - t0) / 1e6);
                premium = SharesSocketTest.nextBatch(backend, g, 2);
                assertThat(premium).as("premium's requests of the ten the backend holds, weights 2/8").isBetween(1, 3);
                backend.delayMillis = 200; // the load goes on while the stats are awaited, at 200 ms a request
                backend.release();
                await().atMost(Duration.ofSeconds(10)).until(() -> stats.stream().anyMatch(s -> s.allocationVersion() == 7
                        && s.classes().get("basic").weight() == 8.0 && s.classes().get("basic").throughput() > 0));
            }
            try (Gateway restarted = Gateway.start(cluster, "g1", options)) {
                await().atMost(Duration.ofSeconds(30)).until(() -> restarted.allocation().version() == 7);
                assertThat(restarted.allocation().weights()).containsEntry("premium", 2.0);
            }
            bus.close();
        }
    }
}
