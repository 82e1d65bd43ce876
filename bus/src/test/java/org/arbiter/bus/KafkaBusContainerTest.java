package org.arbiter.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.message.Allocation;
import org.junit.jupiter.api.Test;
import org.testcontainers.junit.jupiter.Container;
import org.testcontainers.junit.jupiter.Testcontainers;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The bus against Apache Kafka in a container, where a Docker engine exists; skipped cleanly
 * elsewhere (these machines have none: {@link KafkaBusIntegrationTest} covers the same ground on
 * the embedded broker).
 */
@Testcontainers(disabledWithoutDocker = true)
final class KafkaBusContainerTest {

    @Container
    static final KafkaContainer KAFKA = new KafkaContainer("apache/kafka:4.1.0");

    @Test
    void allocation_roundTrips_throughAContainerBroker() throws Exception {
        Map<String, Allocation> got = new ConcurrentHashMap<>();
        try (KafkaBus bus = KafkaBus.connect(new KafkaConfig(KAFKA.getBootstrapServers(), "tc.", Map.of()), "tc",
                new SimpleMeterRegistry())) {
            bus.subscribe(bus.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING, got::put);
            Allocation a = new Allocation(1, Instant.now(), "g1", 1, Map.of("premium", 2.0), Map.of("s1", 4), "grm");
            bus.publisher(bus.topics().allocation()).publish(a).get(30, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(60)).until(() -> got.containsKey("g1"));
            assertThat(got.get("g1")).isEqualTo(a);
        }
    }
}
