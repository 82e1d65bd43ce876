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
import org.arbiter.grm.control.StatsBook;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The GRM service against a real broker: stats in, allocations and decisions out, overrides, hand-over. */
final class GrmServiceIntegrationTest {

    @TempDir
    static Path dir;

    /** One broker for the class (its start is most of a test's set-up); each test has topics of its own. */
    static EmbeddedKafka kafka;
    static int tests;
    ClusterConfig config;
    final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void startBroker() {
        kafka = EmbeddedKafka.start(dir.resolve("kafka"));
    }

    @AfterAll
    static void stopBroker() {
        kafka.close();
    }

    @BeforeEach
    void start() {
        config = ConfigLoader.parse("""
                classes:
                  - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 3s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
                gateways:
                  - {id: g1, port: 0}
                control: {period: 500ms, reportPeriod: 500ms, statsWindow: 2s}
                kafka: {bootstrap: "%s", topicPrefix: "it%d."}
                """.formatted(kafka.bootstrap(), ++tests));
    }

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    GrmService grm(String id) {
        return grm(id, ProcessMetrics.create("grm", id));
    }

    GrmService grm(String id, ProcessMetrics m) {
        KafkaBus bus = KafkaBus.connect(config.kafka(), id, m.registry());
        GrmService s = GrmService.start(id, config, bus, Clock.systemUTC(), new GrmStep(config, id, System::nanoTime), m);
        closing.add(0, m);
        closing.add(0, bus);
        closing.add(0, s);
        return s;
    }

    /** A gateway that keeps reporting phase D's load (premium heavy) under the weights it was given. */
    ScheduledExecutorService reporter(KafkaBus bus, Map<String, Allocation> latest) {
        ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor();
        ex.scheduleAtFixedRate(() -> {
            Allocation a = latest.get("g1");
            double wp = a == null ? 5 : a.weights().getOrDefault("premium", 5.0);
            double wb = a == null ? 5 : a.weights().getOrDefault("basic", 5.0);
            double xp = Math.min(wp, 9.8);
            double xb = Math.min(wb, 2.45);
            GatewayStats s = new GatewayStats(1, Instant.now(), "g1", 2, a == null ? 0 : a.version(), Map.of(
                    "premium", new GatewayStats.ClassStats(xp, xp, 20 / xp - 1, 0, 1, 0, 0, 0, 0, wp, Map.of(), null),
                    "basic", new GatewayStats.ClassStats(xb, xb, 5 / xb - 1, 0, 1, 0, 0, 0, 0, wb, Map.of(), null)),
                    Map.of());
            bus.publisher(bus.topics().stats()).publish(s);
        }, 0, 250, TimeUnit.MILLISECONDS);
        closing.add(0, ex::shutdownNow);
        return ex;
    }

    @Test
    void statsIn_allocationsAndDecisionsOut_andAPinIsHonoured() throws Exception {
        grm("grm-a");
        KafkaBus client = KafkaBus.connect(config.kafka(), "client", null);
        closing.add(0, client);
        Map<String, Allocation> latest = new ConcurrentHashMap<>();
        List<Decision> decisions = new CopyOnWriteArrayList<>();
        client.subscribe(client.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING, latest::put);
        client.subscribe(client.topics().decisions(), Decision.class, Subscriber.Start.BEGINNING, (k, d) -> decisions.add(d));

        // Before any stats: the configured allocation.
        await().atMost(Duration.ofSeconds(30)).until(() -> latest.containsKey("g1"));
        assertThat(latest.get("g1").source()).isEqualTo("configured");
        assertThat(latest.get("g1").serverCaps()).containsEntry("s1", 10);

        reporter(client, latest);
        await().atMost(Duration.ofSeconds(30)).until(() -> "grm".equals(latest.get("g1").source())
                && latest.get("g1").weights().get("premium") > latest.get("g1").weights().get("basic"));
        // The decision is published right after the allocations of its period.
        await().atMost(Duration.ofSeconds(10)).until(() -> !decisions.isEmpty());
        Decision d = decisions.get(decisions.size() - 1);
        assertThat(d.liveGateways()).containsExactly("g1");
        assertThat(d.flows()).hasSize(2);

        client.publisher(client.topics().overrides()).publish(new OperatorOverride(1, Instant.now(), "pin-1",
                OperatorOverride.Kind.WEIGHT, "g1", "premium", null, 3.0, null, null, null, null, true, "test"));
        // In force within two control periods (1 s), plus delivery.
        await().atMost(Duration.ofSeconds(30)).until(() -> latest.get("g1").weights().get("premium") == 3.0);
        assertThat(latest.get("g1").weights().get("basic")).isEqualTo(7.0);
        client.publisher(client.topics().overrides()).publish(new OperatorOverride(1, Instant.now(), "pin-1",
                OperatorOverride.Kind.WEIGHT, null, null, null, null, null, null, null, null, false, "test"));
        await().atMost(Duration.ofSeconds(30)).until(() -> latest.get("g1").weights().get("premium") > 3.0);
    }

    @Test
    void whenTheLeaderStops_anotherPublishesANewerVersion() throws Exception {
        GrmService a = grm("grm-a");
        GrmService b = grm("grm-b");
        KafkaBus client = KafkaBus.connect(config.kafka(), "client", null);
        closing.add(0, client);
        Map<String, Allocation> latest = new ConcurrentHashMap<>();
        client.subscribe(client.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING, latest::put);
        reporter(client, latest);
        await().atMost(Duration.ofSeconds(30)).until(() -> a.isLeader() ^ b.isLeader());
        await().atMost(Duration.ofSeconds(30)).until(() -> "grm".equals(latest.getOrDefault("g1",
                new Allocation(1, Instant.now(), "g1", 0, Map.of(), Map.of(), "x")).source()));
        GrmService leader = a.isLeader() ? a : b;
        GrmService follower = leader == a ? b : a;
        long before = latest.get("g1").version();
        leader.close();
        long t0 = System.nanoTime();
        await().atMost(Duration.ofSeconds(15)).until(() -> follower.isLeader() && latest.get("g1").version() > before);
        double seconds = (System.nanoTime() - t0) / 1e9;
        assertThat(seconds).as("hand-over time, s").isLessThan(15);
        assertThat(latest.get("g1").version()).isGreaterThan(before);
    }

    /**
     * Bounded statistics (issue 30): one record for g1 stamped 2099 is refused and counted as
     * {@code arbiter.bus.refused{topic=<stats>, reason=future}}; g1's ordinary reports keep it live,
     * and its caps stay at N_s, for more than 12 control periods after it (Γ = 200 ms here).
     */
    @Test
    void aStatsRecordStampedIn2099_isRefusedAndCounted_andTheGatewayIsNeverGone() throws Exception {
        config = ConfigLoader.parse("""
                classes:
                  - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 3s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
                gateways:
                  - {id: g1, port: 0}
                control: {period: 200ms, reportPeriod: 200ms, statsWindow: 2s}
                kafka: {bootstrap: "%s", topicPrefix: "it%d."}
                """.formatted(kafka.bootstrap(), ++tests));
        ProcessMetrics m = ProcessMetrics.create("grm", "grm-f");
        grm("grm-f", m);
        KafkaBus client = KafkaBus.connect(config.kafka(), "client", null);
        closing.add(0, client);
        Map<String, Allocation> latest = new ConcurrentHashMap<>();
        List<Allocation> seen = new CopyOnWriteArrayList<>();
        client.subscribe(client.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING, (k, a) -> {
            latest.put(k, a);
            seen.add(a);
        });
        reporter(client, latest);
        await().atMost(Duration.ofSeconds(30)).until(() -> latest.containsKey("g1") && "grm".equals(latest.get("g1").source()));

        client.publisher(client.topics().stats()).publish(new GatewayStats(1, Instant.parse("2099-01-01T00:00:00Z"),
                "g1", 2, 0, Map.of("premium", new GatewayStats.ClassStats(1, 1, 1, 0, 1, 0, 0, 0, 0, 5, Map.of(), null)),
                Map.of()));
        await().atMost(Duration.ofSeconds(10)).until(() -> refused(m, client.topics().stats(), "future") == 1);
        int from = seen.size();
        // one allocation per period: wait for 12 + 3 periods after the refusal
        await().atMost(Duration.ofSeconds(20)).until(() -> seen.size() - from > StatsBook.GONE_AFTER_PERIODS + 3);
        List<Allocation> after = List.copyOf(seen.subList(from, seen.size()));
        assertThat(after).as("allocations published after the refusal").hasSizeGreaterThan(StatsBook.GONE_AFTER_PERIODS)
                .allSatisfy(a -> {
                    assertThat(a.source()).isEqualTo("grm");
                    assertThat(a.serverCaps()).containsEntry("s1", 10);
                });
        assertThat(refused(m, client.topics().stats(), "stale")).isZero();
    }

    private static long refused(ProcessMetrics m, String topic, String reason) {
        var c = m.registry().find("arbiter.bus.refused").tags("topic", topic, "reason", reason).counter();
        return c == null ? 0 : Math.round(c.count());
    }
}
