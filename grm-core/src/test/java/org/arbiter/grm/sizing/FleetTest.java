package org.arbiter.grm.sizing;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.api.Test;

final class FleetTest {

    static ClusterConfig cluster(String sizing, String concurrency) {
        return ConfigLoader.parse("""
                classes:
                  - {name: web, target: 1s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: %1$s}
                  - {id: s2, url: "http://127.0.0.1:9002", concurrency: %1$s}
                  - {id: s3, url: "http://127.0.0.1:9003", concurrency: %1$s}
                gateways:
                  - {id: g1, port: 8080}
                control: {period: 5s, reportPeriod: 5s}
                sizing: %2$s
                """.formatted(concurrency, sizing));
    }

    /** One gateway's stats: total arrival rate, and per server (in flight now, mean in flight, throughput, service time). */
    static Map<String, GatewayStats> stats(double rate, Map<String, double[]> servers) {
        Map<String, GatewayStats.ServerStats> s = new LinkedHashMap<>();
        servers.forEach((id, v) -> s.put(id, new GatewayStats.ServerStats((int) v[0], 10, v[2], v[3], v[1], 0, true)));
        GatewayStats.PeriodCounters p = new GatewayStats.PeriodCounters(5, Math.round(rate * 5), Math.round(rate * 5), 0,
                0, rate, 100);
        return Map.of("g1", new GatewayStats(1, Instant.EPOCH, "g1", 30, 1, Map.of(
                "web", new GatewayStats.ClassStats(rate, rate, 0.5, 0, 0.5, 0.6, 0, 0, 0, 1, Map.of(), p)), s));
    }

    static Instant at(double t) {
        return Instant.EPOCH.plusMillis(Math.round(t * 1000));
    }

    @Test
    void off_neverOrders_andEveryServerStaysOn() {
        Fleet f = new Fleet(cluster("{policy: off}", "10"), 0);
        for (int t = 5; t < 300; t += 5) {
            Fleet.Step s = f.step(t, at(t), stats(1, Map.of()), null);
            assertThat(s.orders()).isEmpty();
            assertThat(s.actuations()).isEmpty();
        }
        assertThat(f.onConcurrency()).containsOnlyKeys("s1", "s2", "s3");
        // 3 idle servers at 60 W for 295 s (the load proxy is 0 without in-flight reports)
        assertThat(f.energyJoules()).isCloseTo(3 * 60 * 295.0, org.assertj.core.api.Assertions.within(1e-6));
    }

    @Test
    void static_drainsThenShutsDown_andBootsWhenLoadReturns() {
        Fleet f = new Fleet(cluster("{policy: static, staticCapacity: 10, startupDelay: 20s, shutdownDelay: 10s, "
                + "minServers: 1, warmUp: 10s}", "10"), 0);
        List<PowerOrder> orders = new ArrayList<>();
        List<Fleet.Actuation> acts = new ArrayList<>();
        // 4 req/s: one server carries it. s3 is drained first (requests still in flight), then s2.
        Map<String, double[]> busy = Map.of("s3", new double[] {2, 2, 1, 0.5});
        Fleet.Step s = f.step(5, at(5), stats(4, busy), null);
        orders.addAll(s.orders());
        acts.addAll(s.actuations());
        assertThat(orders).extracting(PowerOrder::server, PowerOrder::state)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("s3", ServerState.DRAINING));
        assertThat(acts).isEmpty(); // two requests still in flight at s3: no power-off yet
        assertThat(f.onConcurrency()).containsOnlyKeys("s1", "s2"); // but no new requests go there
        s = f.step(10, at(10), stats(4, Map.of()), null); // s3 drained; s2 ordered off, idle, so down at once
        assertThat(s.actuations()).containsExactly(new Fleet.Actuation("s3", ServerState.OFF, "drained"),
                new Fleet.Actuation("s2", ServerState.OFF, "drained"));
        for (int t = 15; t <= 60; t += 5) {
            s = f.step(t, at(t), stats(4, Map.of()), null);
            orders.addAll(s.orders());
            acts.addAll(s.actuations());
        }
        assertThat(f.state("s3")).isEqualTo(ServerState.OFF);
        assertThat(f.state("s2")).isEqualTo(ServerState.OFF);
        assertThat(f.state("s1")).isEqualTo(ServerState.ON); // minServers and the load
        assertThat(acts).isEmpty(); // one shutdown each, no repeats
        // Load jumps to 25 req/s: 3 servers wanted, powered on one per warm-up.
        List<Fleet.Actuation> on = new ArrayList<>();
        for (int t = 65; t <= 200; t += 5) {
            s = f.step(t, at(t), stats(25, Map.of()), null);
            on.addAll(s.actuations());
        }
        assertThat(on).extracting(Fleet.Actuation::server, Fleet.Actuation::action).containsExactly(
                org.assertj.core.groups.Tuple.tuple("s2", ServerState.ON),
                org.assertj.core.groups.Tuple.tuple("s3", ServerState.ON));
        assertThat(f.onConcurrency()).containsOnlyKeys("s1", "s2", "s3");
        // Savings against always-on: s3 off from ~20 s, s2 from ~20 s, both back from 65-90 s, idle load.
        // idle 60 W × 3 × 200 s, plus s3 at 2 of 10 slots busy for 5 s: (65 − 60) × 0.2 × 5 = 5 J
        assertThat(f.alwaysOnJoules()).isCloseTo(3 * 60 * 200.0 + 5, org.assertj.core.api.Assertions.within(1e-6));
        assertThat(f.energyJoules()).isLessThan(f.alwaysOnJoules());
        assertThat(f.savedPercent()).isBetween(10.0, 40.0);
    }

    @Test
    void operatorPins_winOverThePolicy_andReleaseHandsTheServerBack() {
        Fleet f = new Fleet(cluster("{policy: off, shutdownDelay: 10s, startupDelay: 10s}", "10"), 0);
        Map<String, ServerState> pins = Map.of("s2", ServerState.OFF);
        Fleet.Step s = f.step(5, at(5), stats(5, Map.of("s2", new double[] {0, 0, 0, 0})), null, pins);
        assertThat(f.state("s2")).isEqualTo(ServerState.DRAINING);
        assertThat(s.actuations()).isEmpty(); // the gateway still reports a cap on s2: not drained yet
        s = f.step(10, at(10), stats(5, Map.of()), null, pins); // no cap on s2 any more, nothing in flight
        assertThat(s.actuations()).containsExactly(new Fleet.Actuation("s2", ServerState.OFF, "drained"));
        for (int t = 15; t <= 40; t += 5) {
            s = f.step(t, at(t), stats(5, Map.of()), null, pins);
        }
        assertThat(f.state("s2")).isEqualTo(ServerState.OFF);
        // released: sizing is off, so it comes back on
        s = f.step(45, at(45), stats(5, Map.of()), null, Map.of());
        assertThat(s.actuations()).containsExactly(new Fleet.Actuation("s2", ServerState.ON, "sizing off: every server on"));
        // pinned on under a policy that would turn it off: it stays on
        Fleet g = new Fleet(cluster("{policy: static, staticCapacity: 10, minServers: 1}", "10"), 0);
        for (int t = 5; t <= 100; t += 5) {
            g.step(t, at(t), stats(1, Map.of()), null, Map.of("s3", ServerState.ON));
        }
        assertThat(g.state("s3")).isEqualTo(ServerState.ON);
        assertThat(g.state("s1")).isEqualTo(ServerState.ON); // minServers among the managed ones
        assertThat(g.state("s2")).isIn(ServerState.DRAINING, ServerState.OFF);
    }

    @Test
    void observation_overridesTheModel() {
        Fleet f = new Fleet(cluster("{policy: static, staticCapacity: 10}", "10"), 0);
        List<PowerOrder> o = f.observed("s2", false, 3, at(3));
        assertThat(o).extracting(PowerOrder::server, PowerOrder::state)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("s2", ServerState.OFF));
        assertThat(f.onConcurrency()).containsOnlyKeys("s1", "s3");
    }

    @Test
    void utility_keepsTheSmallestSetAboveTheFloor_oneChangePerStatisticsWindow() {
        Fleet f = new Fleet(cluster("{policy: utility, utilityFloor: 0.5, warmUp: 0s, shutdownDelay: 0s, "
                + "estimator: static, staticCapacity: 10}", "10"), 0);
        // Ω(k) = 0.4 with one server, 0.6 with two, 0.7 with three: two should stay on.
        UtilityOfSize omega = s -> s.size() == 1 ? 0.4 : s.size() == 2 ? 0.6 : 0.7;
        f.step(5, at(5), stats(5, Map.of()), omega);
        assertThat(f.onConcurrency()).containsOnlyKeys("s1", "s2");
        // the statistics window is 30 s: Ω(1) is not even asked before it has passed
        for (int t = 10; t <= 30; t += 5) {
            f.step(t, at(t), stats(5, Map.of()), s -> {
                throw new AssertionError("Ω judged on statistics from before the change");
            });
        }
        for (int t = 35; t <= 200; t += 5) {
            f.step(t, at(t), stats(5, Map.of()), omega);
        }
        assertThat(f.onConcurrency()).containsOnlyKeys("s1", "s2");
        // the load check still applies: at 15 req/s one server of 10 req/s cannot carry it, whatever Ω says
        Fleet g = new Fleet(cluster("{policy: utility, utilityFloor: 0.5, warmUp: 0s, shutdownDelay: 0s, "
                + "estimator: static, staticCapacity: 10}", "10"), 0);
        for (int t = 5; t <= 200; t += 5) {
            g.step(t, at(t), stats(15, Map.of()), s -> 1.0);
        }
        assertThat(g.onConcurrency()).containsOnlyKeys("s1", "s2");
    }

    @Test
    void autoConcurrency_movesTowardsTheKnee_withinBounds() {
        Fleet f = new Fleet(cluster("{policy: off}", "auto"), 0);
        // A server whose latency is flat up to 10 in flight and grows fast beyond (L = 1 + 0.05 (N-10)² above 10).
        int n = 10;
        for (int t = 5; t <= 400; t += 5) {
            int probe = n + (t / 5 % 3) - 1; // in-flight samples around the limit
            double l = 1 + (probe > 8 ? 0.05 * (probe - 8) * (probe - 8) : 0);
            Map<String, double[]> s = Map.of("s1", new double[] {probe, probe, probe / l, l});
            f.step(t, at(t), stats(probe / l, s), null);
            n = f.onConcurrency().get("s1");
            assertThat(n).isBetween(1, 100);
        }
        assertThat(f.onConcurrency().get("s1")).isBetween(6, 14);
        assertThat(f.onConcurrency().get("s2")).isEqualTo(10); // no samples: unchanged
    }

    @Test
    void forecast_extrapolatesARisingTrend_andDoesNotExtrapolateAFallingOne() {
        RateForecast r = new RateForecast(60, 30, 1, 30);
        double last = 0;
        for (int t = 0; t <= 60; t += 5) {
            last = r.update(t, 10 + t);
        }
        assertThat(last).isCloseTo(100, org.assertj.core.api.Assertions.within(1e-6)); // 70 + 30 s of 1 req/s²
        RateForecast d = new RateForecast(60, 30, 1, 30);
        for (int t = 0; t <= 60; t += 5) {
            last = d.update(t, 100 - t);
        }
        // the line 30 s ahead says 10: λ̂ stays at the latest rate (40) less 2σ of its counting noise
        assertThat(last).isCloseTo(40 - 2 * Math.sqrt(40 / 30.0), org.assertj.core.api.Assertions.within(1e-9));
        assertThat(d.falling()).isTrue();
    }

    @Test
    void forecast_withTheMeasurementWindow_smoothsNoise_catchesSurges_andSeesAFall() {
        // flat at 50 req/s counted over 30 s windows (σ ≈ 1.3): λ̂ is the window's level, not the last sample
        RateForecast f = new RateForecast(240, 60, 6, 30);
        double[] noisy = {50, 53, 48, 51, 47, 52, 49, 54, 50, 46, 51, 52, 49, 50, 51, 48, 52, 50, 49, 51};
        double last = 0;
        for (int i = 0; i < noisy.length; i++) {
            last = f.update(5 * i, noisy[i]);
        }
        double mean = java.util.Arrays.stream(noisy).average().orElseThrow();
        assertThat(last).isCloseTo(mean, org.assertj.core.api.Assertions.within(0.6));
        assertThat(f.falling()).isFalse();
        // a lucky window (+2σ) does not raise λ̂ above the level...
        assertThat(f.update(100, 52.5)).isLessThan(52.5);
        // ...a surge the line has not caught up with does: the latest rate less 2σ of counting noise
        double surge = f.update(105, 80);
        assertThat(surge).isCloseTo(80 - 2 * Math.sqrt(80 / 30.0), org.assertj.core.api.Assertions.within(1e-9));
        // a steady fall: falling() and a level on the line, below the recent peak
        RateForecast d = new RateForecast(240, 60, 6, 30);
        for (int t = 0; t <= 240; t += 5) {
            d.update(t, 80 - 0.05 * t);
        }
        assertThat(d.falling()).isTrue();
        assertThat(d.level()).isCloseTo(68, org.assertj.core.api.Assertions.within(1e-6));
    }
}
