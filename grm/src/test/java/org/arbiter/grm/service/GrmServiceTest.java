package org.arbiter.grm.service;

import org.arbiter.grm.control.GrmCore.Seen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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
import org.arbiter.common.bus.Bus;
import org.arbiter.common.bus.InMemoryBus;
import org.arbiter.common.bus.StatsTopics;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Epochs;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.power.PowerActuator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The GRM service over the in-memory bus, no broker: two GRMs, one fake gateway. Only the leader
 * publishes and actuates; when it leaves, the other takes over and outranks it; what the actuator
 * saw is published.
 */
final class GrmServiceTest {

    static final ClusterConfig CONFIG = ConfigLoader.parse("""
            classes:
              - {name: basic, target: 1s, default: true}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 4}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: 4}
            gateways:
              - {id: g1, port: 0}
            control: {period: 100ms, reportPeriod: 100ms, statsWindow: 1s}
            sizing: {policy: static, staticCapacity: 10, minServers: 1, startupDelay: 1s, shutdownDelay: 5s, warmUp: 0s}
            power: {actuator: exec, command: "unused"}
            """);

    final InMemoryBus bus = new InMemoryBus("t.");
    final List<AutoCloseable> closing = new CopyOnWriteArrayList<>();
    final List<String> actuated = new CopyOnWriteArrayList<>();

    @AfterEach
    void stop() throws Exception {
        for (AutoCloseable c : closing) {
            c.close();
        }
    }

    /** Records which GRM actuated what; the server is seen doing what it was told. */
    record Recording(String grm, List<String> log) implements PowerActuator {
        @Override
        public Seen actuate(ServerConfig server, ServerState action) {
            log.add(grm + " " + server.id() + " " + action);
            return action == ServerState.ON ? Seen.UP : Seen.DOWN;
        }

        @Override
        public String name() {
            return "recording";
        }
    }

    GrmService grm(String id) {
        ProcessMetrics m = ProcessMetrics.create("grm", id);
        GrmService s = GrmService.start(id, CONFIG, bus, Clock.systemUTC(), new GrmStep(CONFIG, id, System::nanoTime), m,
                new Recording(id, actuated));
        closing.add(0, m);
        closing.add(0, s);
        return s;
    }

    /** g1 at 3 req/s with nothing in flight, reporting the caps it was given, every 50 ms. */
    void gateway(Map<String, Allocation> latest) {
        bus.subscribe(bus.topics().allocation(), Allocation.class, Bus.Start.BEGINNING, (k, a) -> {
            if (a != null) {
                latest.put(k, a);
            }
        });
        ScheduledExecutorService ex = Executors.newSingleThreadScheduledExecutor();
        ex.scheduleAtFixedRate(() -> {
            Allocation a = latest.get("g1");
            Map<String, Integer> caps = a == null ? Map.of("s1", 4, "s2", 4) : a.serverCaps();
            bus.publisher(bus.topics().stats()).publish(new GatewayStats(1, Instant.now(), "g1", 1,
                    a == null ? 0 : a.version(),
                    Map.of("basic", new GatewayStats.ClassStats(3, 3, 0.1, 0, 0.1, 0.1, 0, 0, 0, 4, Map.of(),
                            GatewayStats.PeriodCounters.EMPTY)),
                    Map.of("s1", new GatewayStats.ServerStats(0, caps.getOrDefault("s1", 0), 3, 0.1, 0.3, 0, true),
                            "s2", new GatewayStats.ServerStats(0, caps.getOrDefault("s2", 0), 0, 0.1, 0, 0, true))));
        }, 0, 50, TimeUnit.MILLISECONDS);
        closing.add(0, ex::shutdownNow);
    }

    @Test
    void onlyTheLeaderPublishesAndActuates_andATakeoverOutranksIt() {
        GrmService a = grm("mem-a");
        GrmService b = grm("mem-b");
        assertThat(a.isLeader()).as("the first to join leads").isTrue();
        assertThat(b.isLeader()).isFalse();
        Map<String, Allocation> latest = new ConcurrentHashMap<>();
        gateway(latest);

        // the leader drains s2, switches it off, and publishes what the actuator saw
        await().atMost(Duration.ofSeconds(20)).until(() -> bus.published(bus.topics().power(), PowerOrder.class).stream()
                .anyMatch(o -> o.server().equals("s2") && o.state() == ServerState.OFF));
        PowerOrder off = bus.published(bus.topics().power(), PowerOrder.class).stream()
                .filter(o -> o.server().equals("s2") && o.state() == ServerState.OFF).findFirst().orElseThrow();
        assertThat(off.reason()).isEqualTo("DRAINING -> OFF (recording saw it down)");
        assertThat(actuated).containsExactly("mem-a s2 OFF");
        Allocation beforeTakeover = latest.get("g1");
        assertThat(beforeTakeover.serverCaps()).containsOnlyKeys("s1");

        // a leaves; b takes over, republishes s2's state, and its allocations outrank a's
        a.close();
        await().atMost(Duration.ofSeconds(10)).until(b::isLeader);
        await().atMost(Duration.ofSeconds(10)).until(() -> latest.get("g1").epoch() > beforeTakeover.epoch());
        Allocation after = latest.get("g1");
        assertThat(Epochs.compare(after.epoch(), after.version(), beforeTakeover.epoch(), beforeTakeover.version()))
                .isPositive();
        assertThat(after.serverCaps()).as("b remembers s2 is off").containsOnlyKeys("s1");
        assertThat(bus.published(bus.topics().power(), PowerOrder.class)).anySatisfy(o -> {
            assertThat(o.server()).isEqualTo("s2");
            assertThat(o.reason()).endsWith("(taken over: last published OFF)");
            assertThat(o.epoch()).isGreaterThan(beforeTakeover.epoch());
        });
        // b never powers s2 back on; its fleet re-asserts the off state once (Fleet: one OFF per drain)
        assertThat(actuated).startsWith("mem-a s2 OFF").allMatch(x -> x.endsWith(" s2 OFF"))
                .filteredOn(x -> x.startsWith("mem-b")).hasSizeLessThanOrEqualTo(1);
        assertThat(bus.malformed()).isZero();
        assertThat(bus.handlerErrors()).isZero();
    }

    /**
     * A gateway with a Kafka principal of its own (here g1) is read from its own statistics topic
     * only: its record there is taken; one there naming g2, and one on the shared topic naming g1, are
     * refused and counted by reason; g2 (no principal of its own) is read from the shared topic.
     */
    @Test
    void aGatewayOfItsOwn_isReadFromItsOwnTopicOnly_andForgeriesAreCountedByReason() {
        ClusterConfig config = ConfigLoader.parse("""
                classes:
                  - {name: basic, target: 1s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 4}
                gateways:
                  - {id: g1, port: 0}
                  - {id: g2, port: 0}
                control: {period: 100ms, reportPeriod: 100ms, statsWindow: 1s}
                kafka:
                  topicPrefix: "t."
                  security:
                    principals:
                      grm:     {username: u-grm, passwordFile: /p}
                      gateway: {username: u-gateway, passwordFile: /p}
                      console: {username: u-console, passwordFile: /p}
                      gateways:
                        g1: {username: u-g1, passwordFile: /p}
                """);
        ProcessMetrics m = ProcessMetrics.create("grm", "own");
        closing.add(0, m);
        closing.add(0, GrmService.start("own", config, bus, Clock.systemUTC(), new GrmStep(config, "own", System::nanoTime),
                m, new Recording("own", actuated)));
        await().atMost(Duration.ofSeconds(10)).until(() -> m.registry().find("arbiter.bus.refused").counters().isEmpty()
                && bus.published(bus.topics().allocation(), Allocation.class).stream().anyMatch(a -> a.gateway().equals("g2")));
        bus.publisher("t.stats.g1").publish(report("g1"));
        bus.publisher("t.stats.g1").publish(report("g2"));
        bus.publisher("t.stats").publish(report("g1"));
        bus.publisher("t.stats").publish(report("g2"));
        await().atMost(Duration.ofSeconds(10)).until(() -> refused(m, StatsTopics.OTHER_GATEWAY) == 1
                && refused(m, StatsTopics.NOT_OWN_TOPIC) == 1);
        // the records taken are not refused by the rule: each is followed on its topic by one more
        // forgery, and once both forgeries are counted the counts are two each, not three
        bus.publisher("t.stats.g1").publish(report("g1"));
        bus.publisher("t.stats.g1").publish(report("g2"));
        bus.publisher("t.stats").publish(report("g2"));
        bus.publisher("t.stats").publish(report("g1"));
        await().atMost(Duration.ofSeconds(10)).until(() -> refused(m, StatsTopics.OTHER_GATEWAY) >= 2
                && refused(m, StatsTopics.NOT_OWN_TOPIC) >= 2);
        // and they stay at two (a legitimate record refused would make one of them three)
        await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(5)).until(() ->
                refused(m, StatsTopics.OTHER_GATEWAY) == 2 && refused(m, StatsTopics.NOT_OWN_TOPIC) == 2);
    }

    private static GatewayStats report(String gateway) {
        return new GatewayStats(1, Instant.now(), gateway, 1, 0,
                Map.of("basic", new GatewayStats.ClassStats(3, 3, 0.1, 0, 0.1, 0.1, 0, 0, 0, 4, Map.of(),
                        GatewayStats.PeriodCounters.EMPTY)),
                Map.of("s1", new GatewayStats.ServerStats(0, 4, 3, 0.1, 0.3, 0, true)));
    }

    private static long refused(ProcessMetrics m, String reason) {
        var c = m.registry().find("arbiter.bus.refused").tags("topic", "t.stats", "reason", reason).counter();
        return c == null ? 0 : Math.round(c.count());
    }
}
