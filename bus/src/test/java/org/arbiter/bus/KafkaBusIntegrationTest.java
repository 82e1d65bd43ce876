package org.arbiter.bus;

import org.arbiter.common.bus.Topics;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.Config;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The bus against a real in-process KRaft broker. */
final class KafkaBusIntegrationTest {

    @TempDir
    Path dir;

    @Test
    void everyMessageType_roundTrips_andMalformedRecordsAreSkippedAndCounted() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"));
             KafkaBus bus = KafkaBus.connect(new KafkaConfig(kafka.bootstrap(), "t.", Map.of()), "test",
                     new SimpleMeterRegistry())) {
            Topics t = bus.topics();
            try (Admin admin = Admin.create(bus.clientProperties())) {
                assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).containsAll(t.all());
                Config alloc = admin.describeConfigs(List.of(new ConfigResource(ConfigResource.Type.TOPIC, t.allocation())))
                        .all().get(10, TimeUnit.SECONDS).values().iterator().next();
                assertThat(alloc.get("cleanup.policy").value()).isEqualTo("compact");
            }

            Instant at = Instant.parse("2026-11-22T10:00:00Z");
            List<Message> sent = List.of(
                    new GatewayStats(1, at, "g1", 30, 3, Map.of(), Map.of()),
                    new Allocation(1, at, "g1", 4, Map.of("premium", 6.0), Map.of("s1", 10), "grm"),
                    new PowerOrder(1, at, "s1", ServerState.OFF, ServerState.ON, "idle", 1),
                    new OperatorOverride(1, at, "o1", OperatorOverride.Kind.WEIGHT, "g1", "premium", null, 7.0,
                            null, null, null, null, true, "ops"),
                    new Decision(1, at, "grm-1", 1, 4, "min", -0.3, 0.001, List.of("g1"), List.of(), Map.of(), 0, List.of()));
            Map<Class<?>, String> topicOf = Map.of(GatewayStats.class, t.stats(), Allocation.class, t.allocation(),
                    PowerOrder.class, t.power(), OperatorOverride.class, t.overrides(), Decision.class, t.decisions());

            List<Message> got = new CopyOnWriteArrayList<>();
            List<Subscriber<?>> subs = new java.util.ArrayList<>();
            for (Message m : sent) {
                @SuppressWarnings("unchecked")
                Class<Message> type = (Class<Message>) m.getClass();
                subs.add(bus.subscribe(topicOf.get(m.getClass()), type, Subscriber.Start.BEGINNING, (k, v) -> got.add(v)));
            }
            // A malformed record written by a plain producer, before the good ones.
            try (KafkaProducer<String, byte[]> raw = rawProducer(kafka.bootstrap())) {
                raw.send(new ProducerRecord<>(t.allocation(), "g1", "{not json".getBytes(StandardCharsets.UTF_8))).get();
                raw.send(new ProducerRecord<>(t.allocation(), "g1",
                        "{\"v\":1,\"at\":\"2026-11-22T10:00:00Z\",\"gateway\":\"g1\",\"version\":-5}".getBytes(StandardCharsets.UTF_8))).get();
            }
            for (Message m : sent) {
                bus.publisher(topicOf.get(m.getClass())).publish(m).get(10, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> got.size() == sent.size());
            assertThat(got).containsExactlyInAnyOrderElementsOf(sent);
            Subscriber<?> allocSub = subs.get(1);
            assertThat(allocSub.malformedCount()).isEqualTo(2);
            assertThat(bus.registry().get("arbiter.bus.malformed").tag("topic", t.allocation()).counter().count())
                    .isEqualTo(2.0);
        }
    }

    @Test
    void subscriber_survivesBrokerRestart_onSamePortAndDirectory() throws Exception {
        Path data = dir.resolve("restart");
        EmbeddedKafka kafka = EmbeddedKafka.start(data);
        int port = kafka.port();
        int controller = kafka.controllerPort();
        Map<String, Allocation> latest = new ConcurrentHashMap<>();
        try (KafkaBus bus = KafkaBus.connect(new KafkaConfig(kafka.bootstrap(), "r.", Map.of()), "restart",
                new SimpleMeterRegistry())) {
            bus.subscribe(bus.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING,
                    (k, v) -> latest.put(k, v));
            Instant at = Instant.now();
            bus.publisher(bus.topics().allocation())
                    .publish(new Allocation(1, at, "g1", 1, Map.of("a", 1.0), Map.of(), "grm")).get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(20)).until(() -> latest.containsKey("g1"));

            kafka.close();
            kafka = EmbeddedKafka.start(data, port, controller);

            bus.publisher(bus.topics().allocation())
                    .publish(new Allocation(1, at, "g1", 2, Map.of("a", 2.0), Map.of(), "grm")).get(60, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(60)).until(() -> latest.get("g1").version() == 2);
        } finally {
            kafka.close();
        }
        // The data survived: a fresh reader sees both records after another restart.
        try (EmbeddedKafka again = EmbeddedKafka.start(data, port, controller);
             KafkaBus bus = KafkaBus.connect(new KafkaConfig(again.bootstrap(), "r.", Map.of()), "reader",
                     new SimpleMeterRegistry())) {
            List<Long> versions = new CopyOnWriteArrayList<>();
            bus.subscribe(bus.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING,
                    (k, v) -> versions.add(v.version()));
            await().atMost(Duration.ofSeconds(30)).until(() -> versions.contains(2L));
        }
    }

    private static KafkaProducer<String, byte[]> rawProducer(String bootstrap) {
        Properties p = new Properties();
        p.put("bootstrap.servers", bootstrap);
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        return new KafkaProducer<>(p);
    }
}
