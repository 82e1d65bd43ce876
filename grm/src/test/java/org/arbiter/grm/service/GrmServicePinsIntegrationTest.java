package org.arbiter.grm.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.arbiter.grm.control.GrmStep;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #14: two weight pins that fit alone but not together, published straight to the overrides
 * topic (no console to refuse them), against a running GRM on a real broker. The GRM must keep
 * publishing a new allocation every period, with the earlier pin applied, and name the later one
 * in its decisions as left out.
 */
final class GrmServicePinsIntegrationTest {

    @TempDir
    Path dir;

    EmbeddedKafka kafka;
    ClusterConfig config;
    final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();

    @BeforeEach
    void start() {
        kafka = EmbeddedKafka.start(dir.resolve("kafka"));
        config = ConfigLoader.parse("""
                classes:
                  - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 3s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
                gateways:
                  - {id: g1, port: 0}
                  - {id: g2, port: 0}
                control: {period: 500ms, reportPeriod: 250ms, statsWindow: 2s}
                kafka: {bootstrap: "%s", topicPrefix: "pins."}
                """.formatted(kafka.bootstrap()));
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
        kafka.close();
    }

    @Test
    void twoPinsThatDoNotFitTogether_theGrmKeepsAllocatingEveryPeriod_andNamesThePinLeftOut() throws Exception {
        ProcessMetrics m = ProcessMetrics.create("grm", "grm-p");
        KafkaBus grmBus = KafkaBus.connect(config.kafka(), "grm-p", m.registry());
        GrmService grm = GrmService.start("grm-p", config, grmBus, Clock.systemUTC(), new GrmStep(config, "grm-p", System::nanoTime), m);
        closing.add(0, m);
        closing.add(0, grmBus);
        closing.add(0, grm);

        KafkaBus client = KafkaBus.connect(config.kafka(), "client", null);
        closing.add(0, client);
        Map<String, Allocation> latest = new ConcurrentHashMap<>();
        List<Allocation> allocations = new CopyOnWriteArrayList<>();
        List<Decision> decisions = new CopyOnWriteArrayList<>();
        client.subscribe(client.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING, (k, a) -> {
            if (a != null) {
                latest.put(k, a);
                allocations.add(a);
            }
        });
        client.subscribe(client.topics().decisions(), Decision.class, Subscriber.Start.BEGINNING, (k, d) -> decisions.add(d));

        // two gateways report: g2's premium is busy (it gets more than its minimum when it may)
        ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor();
        closing.add(0, ex::shutdownNow);
        ex.scheduleAtFixedRate(() -> {
            for (String g : List.of("g1", "g2")) {
                Allocation a = latest.get(g);
                double wp = a == null ? 2.5 : Math.max(0.5, a.weights().getOrDefault("premium", 2.5));
                double wb = a == null ? 2.5 : Math.max(0.5, a.weights().getOrDefault("basic", 2.5));
                double lp = g.equals("g2") ? 3 : 1;
                client.publisher(client.topics().stats()).publish(new GatewayStats(1, Instant.now(), g, 2,
                        a == null ? 0 : a.version(), Map.of(
                        "premium", new GatewayStats.ClassStats(lp, lp, 0.2 + lp / wp, 0, 1, 0, 0, 0, 0, wp,
                                Map.of(), null),
                        "basic", new GatewayStats.ClassStats(0.5, 0.5, 1.0, 0, 1, 0, 0, 0, 0, wb, Map.of(), null)),
                        Map.of()));
            }
        }, 0, 250, TimeUnit.MILLISECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> decisions.stream().anyMatch(d -> d.liveGateways().size() == 2));

        // N = 10: 6 at g1/premium fits (the other three flows need 3), 3 at g2/premium fits, both need 11
        Instant now = Instant.now();
        client.publisher(client.topics().overrides()).publish(new OperatorOverride(1, now, "first",
                OperatorOverride.Kind.WEIGHT, "g1", "premium", null, 6.0, null, null, null, null, true, "bus"));
        client.publisher(client.topics().overrides()).publish(new OperatorOverride(1, now.plusMillis(1), "second",
                OperatorOverride.Kind.WEIGHT, "g2", "premium", null, 3.0, null, null, null, null, true, "bus")).get();
        await().atMost(Duration.ofSeconds(10)).until(() -> decisions.stream().anyMatch(d -> d.pin("second").isPresent()));

        // from here on, periods go on: new allocations and decisions keep coming (counted: 6 of each, where a
        // stalled GRM would publish none; a 30 s guard, not a rate, so a busy machine's slower periods pass),
        // and every decision names "second"
        int decided = decisions.size();
        long version = latest.get("g1").version();
        long t0 = System.nanoTime();
        java.util.function.LongSupplier newVersions = () -> allocations.stream()
                .filter(a -> a.gateway().equals("g1") && a.version() > version).map(Allocation::version).distinct().count();
        await().atMost(Duration.ofSeconds(30)).until(() -> newVersions.getAsLong() >= 6 && decisions.size() - decided >= 6);
        double seconds = (System.nanoTime() - t0) / 1e9;
        List<Decision> window = List.copyOf(decisions.subList(decided, decisions.size()));
        System.out.printf("pins: %.1f s, %d new allocation versions, %d decisions (period 0.5 s)%n", seconds,
                newVersions.getAsLong(), window.size());
        assertThat(window).hasSizeGreaterThanOrEqualTo(6).allSatisfy(d -> {
            assertThat(Double.isNaN(d.objective())).isFalse();
            assertThat(d.pin("first").orElseThrow().applied()).isTrue();
            Decision.PinStatus second = d.pin("second").orElseThrow();
            assertThat(second.applied()).isFalse();
            assertThat(second.reason()).startsWith("value: 3 (expected: between 0 and 2: N = 10 slots");
            assertThat(d.flows().stream().mapToDouble(Decision.Flow::weight).sum()).isEqualTo(10.0);
        });
        assertThat(latest.get("g1").weights()).containsEntry("premium", 6.0);
        assertThat(latest.get("g2").weights().get("premium")).isLessThanOrEqualTo(2.0);
    }
}
