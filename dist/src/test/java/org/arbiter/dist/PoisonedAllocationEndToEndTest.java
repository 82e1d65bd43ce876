package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.service.GrmService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14's "done when", on a real broker with a real GRM and a real gateway (control period
 * 500 ms): a poisoned record on the compacted allocation topic — the legacy
 * {@code version: 9223372036854775807} that used to freeze the cluster for good, a forged record
 * from a plausible future epoch, and one from an absurd future epoch — is refused (or, the
 * plausible forgery, outranked), the refusal is counted, the GRM keeps publishing and the gateway's
 * {@code /allocation} keeps following the GRM; the same after restarting the gateway and the GRM
 * with the poison as the latest record of the gateway's key. Recovery times are printed in
 * control periods.
 */
final class PoisonedAllocationEndToEndTest {

    static final double PERIOD_SECONDS = 0.5;

    @TempDir
    Path dir;

    final HttpClient http = HttpClient.newHttpClient();

    @Test
    void aPoisonedAllocation_isRefusedOrOutranked_andTheGatewayKeepsFollowingTheGrm_alsoAfterRestarts() throws Exception {
        List<AutoCloseable> closing = new ArrayList<>();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"))) {
            ClusterConfig cluster = ConfigLoader.parse("""
                    classes:
                      - {name: premium, target: 1s, match: {header: {X-Class: premium}}}
                      - {name: basic, target: 2s, default: true}
                    servers:
                      - {id: s1, url: "http://127.0.0.1:1", concurrency: 8}
                    gateways:
                      - {id: g1, port: 0, adminPort: 0}
                    control: {period: 500ms, reportPeriod: 500ms, statsWindow: 1s, maxClockSkew: 30s}
                    kafka: {bootstrap: "%s", topicPrefix: "poison."}
                    """.formatted(kafka.bootstrap()));
            String topic = "poison.allocation";
            Properties pp = new Properties();
            pp.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, kafka.bootstrap());
            pp.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
            pp.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
            KafkaProducer<String, byte[]> raw = new KafkaProducer<>(pp);
            closing.add(0, raw);

            Running run = start(cluster, "poison-grm-1", closing);
            Gateway g1 = run.gateway;
            awaitTrue("the gateway follows the GRM", 60, () -> g1.allocation().epoch() > 0
                    && fromGrm(g1.allocation().source()));

            // 1. The legacy poison: key g1, version Long.MAX_VALUE.
            Allocation before = g1.allocation();
            long t0 = System.nanoTime();
            poison(raw, topic);
            awaitTrue("the gateway counts the poison", 10, () -> refused(g1.metrics().registry(), topic, "malformed") >= 1);
            awaitTrue("the GRM counts the poison", 10, () -> refused(run.metrics.registry(), topic, "malformed") >= 1);
            Allocation[] seen = new Allocation[1];
            awaitTrue("the gateway follows a newer GRM allocation", 10, () -> {
                seen[0] = g1.allocation();
                return seen[0].isNewerThan(before) && seen[0].epoch() == before.epoch() && fromGrm(seen[0].source());
            });
            double legacyPeriods = periods(t0);
            JsonNode shown = allocationJson(g1);
            assertThat(shown.get("epoch").asLong()).isEqualTo(before.epoch());
            assertThat(shown.get("version").asLong()).isGreaterThan(before.version());
            assertThat(shown.get("source").asText()).startsWith("grm");
            assertThat(shown.get("weights").get("basic").asDouble()).isNotEqualTo(99.0);

            // 2. A forged record from a plausible future epoch (20 s ahead, inside the 30 s skew):
            //    a gateway cannot tell it from a leader's, takes it, and the GRM outranks it.
            long forgedEpoch = Instant.now().toEpochMilli() + 20_000;
            long t1 = System.nanoTime();
            run.bus.publisher(topic).publish(new Allocation(1, Instant.now(), "g1", 1, Map.of("basic", 77.0, "premium", 1.0),
                    Map.of("s1", 1), "forged", forgedEpoch)).get(30, TimeUnit.SECONDS);
            awaitTrue("the GRM outranks the forged epoch", 10, () -> g1.allocation().epoch() > forgedEpoch
                    && fromGrm(g1.allocation().source()));
            double forgedPeriods = periods(t1);
            assertThat(allocationJson(g1).get("epoch").asLong()).isGreaterThan(forgedEpoch);

            // 3. A record from an absurd future epoch (a day ahead): refused as implausible, never applied.
            Allocation beforeFuture = g1.allocation();
            run.bus.publisher(topic).publish(new Allocation(1, Instant.now(), "g1", 1, Map.of("basic", 66.0),
                    Map.of("s1", 1), "future", Instant.now().toEpochMilli() + 86_400_000L)).get(30, TimeUnit.SECONDS);
            awaitTrue("the gateway counts the future epoch", 10,
                    () -> refused(g1.metrics().registry(), topic, "implausible-epoch") >= 1);
            awaitTrue("the GRM counts the future epoch", 10,
                    () -> refused(run.metrics.registry(), topic, "implausible-epoch") >= 1);
            awaitTrue("the gateway keeps following the GRM", 10, () -> g1.allocation().isNewerThan(beforeFuture)
                    && fromGrm(g1.allocation().source()));
            assertThat(allocationJson(g1).get("refused").get("implausible-epoch").asLong()).isEqualTo(1);

            // 4. Restart both with the poisons as the latest records of key g1 on the compacted topic.
            long lastEpoch = g1.allocation().epoch();
            run.close(closing);
            poison(raw, topic);
            run.bus.close();
            try (KafkaBus b = KafkaBus.connect(cluster.kafka(), "poison-writer", null)) {
                b.publisher(topic).publish(new Allocation(1, Instant.now(), "g1", 1, Map.of("basic", 55.0),
                        Map.of("s1", 1), "future", Instant.now().toEpochMilli() + 86_400_000L)).get(30, TimeUnit.SECONDS);
            }
            long t2 = System.nanoTime();
            Running again = start(cluster, "poison-grm-2", closing);
            Gateway g1b = again.gateway;
            awaitTrue("the restarted gateway follows the restarted GRM's new epoch", 60,
                    () -> g1b.allocation().epoch() > lastEpoch && fromGrm(g1b.allocation().source()));
            double restartPeriods = periods(t2);
            awaitTrue("the restarted gateway counts the poison replayed", 10,
                    () -> refused(g1b.metrics().registry(), topic, "malformed") >= 2
                            && refused(g1b.metrics().registry(), topic, "implausible-epoch") >= 2);
            awaitTrue("the restarted GRM counts the poison replayed", 10,
                    () -> refused(again.metrics.registry(), topic, "malformed") >= 2
                            && refused(again.metrics.registry(), topic, "implausible-epoch") >= 2);
            Allocation nowIn = g1b.allocation();
            awaitTrue("and keeps following it", 10, () -> g1b.allocation().isNewerThan(nowIn));
            JsonNode last = allocationJson(g1b);
            assertThat(last.get("source").asText()).startsWith("grm");
            assertThat(last.get("epoch").asLong()).isGreaterThan(lastEpoch);

            System.out.printf("poison recovery (control period %.1f s): legacy Long.MAX: gateway on a newer GRM "
                    + "allocation %.1f periods after publishing (never left it); forged epoch +20 s: GRM allocation back in "
                    + "force after %.1f periods; restart of gateway and GRM with the poison latest on the topic: new epoch "
                    + "in force %.1f periods after the GRM was started (includes joining the leader group)%n",
                    PERIOD_SECONDS, legacyPeriods, forgedPeriods, restartPeriods);
            assertThat(forgedPeriods).as("periods to outrank a forged plausible epoch").isLessThanOrEqualTo(4);
        } finally {
            for (AutoCloseable c : closing) {
                try {
                    c.close();
                } catch (Exception e) {
                    // already closed
                }
            }
        }
    }

    /** A GRM with its own bus and meters, and gateway g1. */
    record Running(GrmService grm, KafkaBus bus, ProcessMetrics metrics, Gateway gateway) {
        void close(List<AutoCloseable> closing) {
            gateway.close();
            grm.close();
            metrics.close();
            closing.remove(gateway);
            closing.remove(grm);
            closing.remove(metrics);
        }
    }

    static Running start(ClusterConfig cluster, String id, List<AutoCloseable> closing) throws InterruptedException {
        ProcessMetrics m = ProcessMetrics.create("grm", id);
        KafkaBus bus = KafkaBus.connect(cluster.kafka(), id, m.registry());
        GrmService grm = GrmService.start(id, cluster, bus, Clock.systemUTC(), new GrmStep(cluster, id, System::nanoTime), m);
        Gateway g = Gateway.start(cluster, "g1", GatewayOptions.defaults());
        closing.add(0, m);
        closing.add(0, bus);
        closing.add(0, grm);
        closing.add(0, g);
        return new Running(grm, bus, m, g);
    }

    static void poison(KafkaProducer<String, byte[]> raw, String topic) throws Exception {
        String json = "{\"v\":1,\"at\":\"" + Instant.now() + "\",\"gateway\":\"g1\",\"version\":9223372036854775807,"
                + "\"weights\":{\"basic\":99.0,\"premium\":1.0},\"serverCaps\":{\"s1\":1},\"source\":\"poison\"}";
        raw.send(new ProducerRecord<>(topic, "g1", json.getBytes(StandardCharsets.UTF_8))).get(30, TimeUnit.SECONDS);
    }

    static double refused(MeterRegistry registry, String topic, String reason) {
        Counter c = registry.find("arbiter.bus.refused").tag("topic", topic).tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    JsonNode allocationJson(Gateway g) throws Exception {
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + g.adminPort()
                + "/allocation")).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(200);
        return MessageCodec.mapper().readTree(r.body());
    }

    static double periods(long sinceNanos) {
        return (System.nanoTime() - sinceNanos) / 1e9 / PERIOD_SECONDS;
    }

    static void awaitTrue(String what, double seconds, BooleanSupplier condition) {
        await(what).atMost(Duration.ofMillis(Math.round(seconds * 1000))).pollInterval(Duration.ofMillis(10))
                .until(condition::getAsBoolean);
    }

    /** An allocation the GRM published: "grm", or "grm: idle" (the neutral allocation with no traffic anywhere). */
    private static boolean fromGrm(String source) {
        return source != null && (source.equals("grm") || source.startsWith("grm:"));
    }
}
