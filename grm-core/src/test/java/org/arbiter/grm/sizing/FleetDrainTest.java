package org.arbiter.grm.sizing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.api.Test;

/** The fleet's drains and actuator feedback, on fake time. */
final class FleetDrainTest {

    static final ClusterConfig CONFIG = ConfigLoader.parse("""
            classes:
              - {name: basic, target: 1s, default: true}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 4}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: 4}
            gateways:
              - {id: g1, port: 8080}
            control: {period: 1s, reportPeriod: 1s, statsWindow: 2s}
            sizing: {policy: static, staticCapacity: 10, minServers: 1, startupDelay: 2s, shutdownDelay: 2s, warmUp: 0s}
            """);
    static final Instant T = Instant.parse("2026-11-22T10:00:00Z");

    /** One gateway's report: 3 req/s arriving; s2 with the given cap in force and requests in flight. */
    static Map<String, GatewayStats> live(int s2Cap, int s2InFlight) {
        var cls = new GatewayStats.ClassStats(3, 3, 0.1, 0, 0.1, 0.1, 0, 0, 0, 1, Map.of(), GatewayStats.PeriodCounters.EMPTY);
        var servers = Map.of(
                "s1", new GatewayStats.ServerStats(0, 4, 3, 0.1, 0.3, 0, true),
                "s2", new GatewayStats.ServerStats(s2InFlight, s2Cap, 0, 0.1, s2InFlight, 0, true));
        return Map.of("g1", new GatewayStats(1, T, "g1", 2, 1, Map.of("basic", cls), servers));
    }

    @Test
    void drainCompletes_onlyOnceEveryGatewayStoppedSending_andNothingIsInFlight() {
        Fleet fleet = new Fleet(CONFIG, 0);
        // Light load: s2 is ordered off. The gateway still holds a cap on it (nothing in flight at
        // that instant), so it may still send: no shutdown yet.
        Fleet.Step first = fleet.step(0, T, live(2, 0), null);
        assertThat(fleet.state("s2")).isEqualTo(ServerState.DRAINING);
        assertThat(first.orders()).extracting(PowerOrder::server, PowerOrder::target, PowerOrder::state)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("s2", ServerState.OFF, ServerState.DRAINING));
        assertThat(first.actuations()).isEmpty();
        // The gateway applied cap 0; one request still finishing there.
        assertThat(fleet.step(1, T, live(0, 1), null).actuations()).isEmpty();
        assertThat(fleet.onConcurrency()).containsOnlyKeys("s1");
        // Drained: now, and only now, the server may be switched off.
        Fleet.Step drained = fleet.step(2, T, live(0, 0), null);
        assertThat(drained.actuations()).containsExactly(new Fleet.Actuation("s2", ServerState.OFF, "drained"));
        assertThat(fleet.step(3, T, live(0, 0), null).actuations()).isEmpty(); // one OFF per drain
    }

    @Test
    void observations_overrideTheModel_inBothDirections() {
        Fleet fleet = new Fleet(CONFIG, 0);
        fleet.step(0, T, live(2, 0), null);
        fleet.step(1, T, live(0, 0), null);
        // The actuator saw it off before the model's shutdown delay ended.
        assertThat(fleet.observed("s2", false, 1.5, T)).extracting(PowerOrder::state).containsExactly(ServerState.OFF);
        assertThat(fleet.state("s2")).isEqualTo(ServerState.OFF);
        // A server seen up is ON, whatever was ordered.
        assertThat(fleet.observed("s2", true, 1.6, T)).extracting(PowerOrder::state).containsExactly(ServerState.ON);
        assertThat(fleet.onConcurrency()).containsOnlyKeys("s1", "s2");
        // Seen up again: no change, no order.
        assertThat(fleet.observed("s2", true, 1.7, T)).isEmpty();
    }

    @Test
    void aBootThatFailed_isOff() {
        PowerStateMachine m = new PowerStateMachine(ServerState.OFF, SizingTest.W, 60, 30, 0);
        m.powerOn(0);
        m.observed(false, 10); // the actuator gave up and saw it off
        assertThat(m.state()).isEqualTo(ServerState.OFF);
        m.powerOn(20);
        m.observed(true, 25); // came up faster than the model's 60 s
        assertThat(m.state()).isEqualTo(ServerState.ON);
    }
}
