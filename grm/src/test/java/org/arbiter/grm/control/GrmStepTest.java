package org.arbiter.grm.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.Decoded;
import org.arbiter.common.message.Decision;
import org.junit.jupiter.api.Test;

/** The control step on fake time: no broker, no threads. */
final class GrmStepTest {

    static final ClusterConfig CONFIG = ConfigLoader.parse("""
            classes:
              - {name: premium, target: 2s, weight: 3, match: {header: {X-Class: premium}}}
              - {name: basic, target: 3s, default: true}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: 5}
            gateways:
              - {id: g1, port: 8080}
              - {id: g2, port: 8081}
            """);
    static final Instant T = Instant.parse("2026-11-22T10:00:00Z");

    final AtomicLong ticker = new AtomicLong();
    final GrmStep step = new GrmStep(CONFIG, "grm-t", () -> ticker.addAndGet(1_000_000));
    final OverrideBook overrides = new OverrideBook(CONFIG);
    final EpochClock versions = new EpochClock();

    static GatewayStats stats(String g, double lp, double tp, double wp, double lb, double tb, double wb) {
        return new GatewayStats(1, T, g, 30, 1, Map.of(
                "premium", new GatewayStats.ClassStats(lp, lp, tp, 0, 1, 0, 0, 2, 0, wp, Map.of(), null),
                "basic", new GatewayStats.ClassStats(lb, lb, tb, 0, 1, 0, 0, 0, 0, wb, Map.of(), null)), Map.of());
    }

    @Test
    void beforeAnyStats_everyGatewayWithoutAnAllocationGetsTheConfiguredOne() {
        var r = step.step(T, Map.of(), overrides, Map.of(), versions);
        assertThat(r.decision()).isNull();
        assertThat(r.allocations()).extracting(Allocation::gateway).containsExactly("g1", "g2");
        Allocation g1 = r.allocations().get(0);
        assertThat(g1.weights()).containsEntry("premium", 3.0).containsEntry("basic", 1.0);
        assertThat(g1.serverCaps().get("s1") + r.allocations().get(1).serverCaps().get("s1")).isEqualTo(10);
        assertThat(g1.source()).isEqualTo("configured");
        // Once they have one, nothing is re-sent.
        var again = step.step(T, Map.of(), overrides, Map.of("g1", g1, "g2", r.allocations().get(1)), versions);
        assertThat(again.allocations()).isEmpty();
    }

    @Test
    void liveGateways_shareN_andVersionsGrowAcrossPeriods() {
        Map<String, GatewayStats> live = Map.of("g1", stats("g1", 6, 2.3, 4, 2, 1.5, 3.5),
                "g2", stats("g2", 1, 1.1, 4, 1, 1.2, 3.5));
        // another leader's epoch, a little ahead of this GRM's clock, with a high counter
        long other = T.toEpochMilli() + 5;
        versions.observe(other, 41);
        var r = step.step(T, live, overrides, Map.of(), versions);
        assertThat(r.allocations()).hasSize(2).allSatisfy(a -> {
            assertThat(a.epoch()).isEqualTo(other + 1);
            assertThat(a.version()).isEqualTo(1);
        });
        assertThat(r.decision().epoch()).isEqualTo(other + 1);
        assertThat(r.decision().allocationVersion()).isEqualTo(1);
        double total = r.allocations().stream().mapToDouble(a -> a.weights().values().stream().mapToDouble(d -> d).sum()).sum();
        assertThat(total).isEqualTo(15.0);
        int caps = r.allocations().stream().mapToInt(Allocation::totalCap).sum();
        assertThat(caps).isEqualTo(15);
        assertThat(r.decision().flows()).hasSize(4);
        assertThat(r.decision().solveSeconds()).isEqualTo(0.001);
        Allocation second = step.step(T.plusSeconds(5), live, overrides, Map.of(), versions).allocations().get(0);
        assertThat(second.epoch()).isEqualTo(other + 1);
        assertThat(second.version()).isEqualTo(2);
        assertThat(second.isNewerThan(r.allocations().get(0))).isTrue();
        // The busier gateway gets more.
        assertThat(r.allocations()).extracting(Allocation::gateway).containsExactly("g1", "g2");
        assertThat(r.allocations().get(0).totalCap()).isGreaterThan(r.allocations().get(1).totalCap());
    }

    @Test
    void pinsAndConcurrencyOverrides_areApplied_andTheDecisionRoundTrips() {
        overrides.apply("p", new OperatorOverride(1, T, "p", OperatorOverride.Kind.WEIGHT, "g1", "premium", null, 2.0,
                null, null, null, null, true, "t"));
        overrides.apply("c", new OperatorOverride(1, T, "c", OperatorOverride.Kind.CONCURRENCY, null, null, "s2", 1.0,
                null, null, null, null, true, "t"));
        var r = step.step(T, Map.of("g1", stats("g1", 6, 2.3, 5, 2, 1.5, 5)), overrides, Map.of(), versions);
        Allocation a = r.allocations().get(0);
        assertThat(a.weights()).containsEntry("premium", 2.0).containsEntry("basic", 9.0);
        assertThat(a.serverCaps()).containsEntry("s1", 10).containsEntry("s2", 1);
        assertThat(r.decision().overrides()).containsExactly("c", "p");
        assertThat(r.decision().flows()).anySatisfy(f -> assertThat(f.pinned()).isTrue());
        assertThat(MessageCodec.decode(MessageCodec.encode(r.decision()), Decision.class)).isInstanceOf(Decoded.Ok.class);
    }

    @Test
    void infeasiblePins_keepTheLastAllocation_andSayWhy() {
        overrides.apply("p", new OperatorOverride(1, T, "p", OperatorOverride.Kind.WEIGHT, "g1", "premium", null, 40.0,
                null, null, null, null, true, "t"));
        var r = step.step(T, Map.of("g1", stats("g1", 6, 2.3, 5, 2, 1.5, 5)), overrides, Map.of(), versions);
        assertThat(r.allocations()).isEmpty();
        assertThat(r.decision()).isNotNull();
        assertThat(Double.isNaN(r.decision().objective())).isTrue();
        assertThat(MessageCodec.decode(MessageCodec.encode(r.decision()), Decision.class)).isInstanceOf(Decoded.Ok.class);
    }
}
