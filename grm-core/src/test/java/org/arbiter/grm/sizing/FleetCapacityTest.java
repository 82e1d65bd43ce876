package org.arbiter.grm.sizing;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.api.Test;

final class FleetCapacityTest {

    static final ClusterConfig CONFIG = ConfigLoader.parse("""
            classes: [{name: web, target: 1s, default: true}]
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 4}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: 4}
            gateways: [{id: g1, port: 8080}]
            sizing: {policy: queue, minServers: 2, startupDelay: 60s}
            """);

    /** One 5 s period: {@code arrivals} arrived, {@code accepted} were taken into service, {@code dropped} refused. */
    static Map<String, GatewayStats> period(long arrivals, long accepted, long dropped) {
        GatewayStats.PeriodCounters p = new GatewayStats.PeriodCounters(5, arrivals, accepted, dropped, 0, arrivals / 5.0, 100);
        GatewayStats.ClassStats c = new GatewayStats.ClassStats(arrivals / 5.0, accepted / 5.0, 0.2, 0, 0.2, 0.3, 0, 0, 0,
                1, Map.of("queueFull", dropped), p);
        return Map.of("g1", new GatewayStats(1, Instant.EPOCH, "g1", 30, 1, Map.of("web", c), Map.of()));
    }

    @Test
    void capacitySample_isPerServerThatHadACapThroughThePeriod_notOneThatJustBooted() {
        Fleet f = new Fleet(CONFIG, 0);
        f.step(5, Instant.EPOCH, period(100, 100, 0), null);
        f.observed("s2", false, 6, Instant.EPOCH); // s2 goes down
        f.step(10, Instant.EPOCH, period(100, 100, 0), null);
        f.observed("s2", true, 11, Instant.EPOCH); // back up, but it gets a cap only from the next step
        assertThat(f.state("s2")).isEqualTo(ServerState.ON);
        // s1 alone served this period and dropped 10 %: c = μ = 80 / 5 s on one server, not on two
        f.step(15, Instant.EPOCH, period(100, 80, 10), null);
        assertThat(f.capacityPerServer()).isCloseTo(16, within(1e-9));
        // both had caps in the next period
        f.step(20, Instant.EPOCH, period(200, 160, 20), null);
        assertThat(f.capacityPerServer()).isCloseTo(16, within(1e-9));
    }

    @Test
    void withSeveralGateways_aBacklogCountsOnlyWhenEveryGatewayHadOne() {
        ClusterConfig two = ConfigLoader.parse("""
                classes: [{name: web, target: 1s, default: true}]
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 4}
                  - {id: s2, url: "http://127.0.0.1:9002", concurrency: 4}
                gateways: [{id: g1, port: 8080}, {id: g2, port: 8081}]
                sizing: {policy: queue, minServers: 2, startupDelay: 60s}
                """);
        // g1 alone backlogged: its slots were busy, but g2's may have been idle — not a measurement
        Fleet f = new Fleet(two, 0);
        for (int i = 1; i <= 6; i++) {
            f.step(5 * i, Instant.EPOCH, halves(new GatewayStats.Backlog(5, 5, 120), new GatewayStats.Backlog(5, 0, 0)), null);
        }
        assertThat(f.capacityPerServer()).as("still the fast start's lower bound").isCloseTo(20, within(1e-9));
        // both backlogged throughout, each taking in 100 requests per period: 2 × 100 / 5 s / 2 servers
        Fleet both = new Fleet(two, 0);
        for (int i = 1; i <= 7; i++) {
            both.step(5 * i, Instant.EPOCH, halves(new GatewayStats.Backlog(5, 5, 100), new GatewayStats.Backlog(5, 4.8, 96)),
                    null);
        }
        // 30 s of backlog measured 20 req/s per server: the fast start ends at its lower bound
        assertThat(both.capacityPerServer()).isCloseTo(20 - 2 * Math.sqrt(20 / 33.6), within(1e-6)); // 7 × 4.8 s
    }

    /** Gateways g1 and g2, each holding 2 of each server's 4 slots and 20 req/s, with these backlogs. */
    static Map<String, GatewayStats> halves(GatewayStats.Backlog g1, GatewayStats.Backlog g2) {
        GatewayStats.PeriodCounters p = new GatewayStats.PeriodCounters(5, 100, 100, 0, 0, 20, 100);
        GatewayStats.ClassStats c = new GatewayStats.ClassStats(20, 20, 0.2, 0, 0.2, 0.3, 0, 0, 0, 1, Map.of(), p);
        Map<String, GatewayStats.ServerStats> half = Map.of(
                "s1", new GatewayStats.ServerStats(2, 2, 10, 0.2, 2, 0, true),
                "s2", new GatewayStats.ServerStats(2, 2, 10, 0.2, 2, 0, true));
        return Map.of("g1", new GatewayStats(1, Instant.EPOCH, "g1", 30, 1, Map.of("web", c), half, g1),
                "g2", new GatewayStats(1, Instant.EPOCH, "g2", 30, 1, Map.of("web", c), half, g2));
    }
}
