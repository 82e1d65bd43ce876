package org.arbiter.grm.control;

import static org.arbiter.grm.control.StageFixtures.cls;
import static org.arbiter.grm.control.StageFixtures.stats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import java.util.TreeMap;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.grm.Problem;
import org.junit.jupiter.api.Test;

/** Stage 1 alone: S̃ pooled and smoothed by requests, Δμ of the PI term. */
final class FlowEstimatorTest {

    static final Map<String, Double> TARGETS = Map.of("premium", 2.0, "basic", 3.0);

    static Map<String, GatewayStats> live(GatewayStats... stats) {
        Map<String, GatewayStats> out = new TreeMap<>();
        for (GatewayStats s : stats) {
            out.put(s.gateway(), s);
        }
        return out;
    }

    @Test
    void serviceTime_isPooledOverTheGateways_weightedByThroughput() {
        FlowEstimator e = new FlowEstimator(StageFixtures.CONFIG);
        // g1 completes 3 req/s at 1 s, g2 1 req/s at 5 s: (3·1 + 1·5) / 4 = 2 s
        FlowEstimates est = e.estimate(new FlowEstimator.Input(live(
                stats("g1", Map.of("premium", cls(3, 3, 1, 1, 3))),
                stats("g2", Map.of("premium", cls(1, 1, 5, 5, 3)))), TARGETS, 0));
        assertThat(est.serviceTimes()).containsOnlyKeys("premium");
        assertThat(est.serviceTimes().get("premium")).isCloseTo(2.0, within(1e-12));
        // every flow of the class gets the pooled S̃; a class with nothing completed falls back to its gateway's 0
        assertThat(est.serviceTime("premium", cls(3, 3, 1, 1, 3))).isCloseTo(2.0, within(1e-12));
        assertThat(est.serviceTime("basic", cls(0, 0, 0, 0, 1))).isZero();
        assertThat(est.deltaMu()).isEmpty(); // mm1: no PI term
    }

    @Test
    void serviceTime_isSmoothedByTheRequestsBehindIt_overTime() {
        FlowEstimator e = new FlowEstimator(StageFixtures.CONFIG);
        // t = 0: 1 req/s at S = 3 s, weight X·Γ = 5: A = 15, B = 5
        e.estimate(new FlowEstimator.Input(live(stats("g1", Map.of("premium", cls(1, 1, 3, 3, 3)))), TARGETS, 0));
        // t = 5: 1 req/s at S = 1 s. T = min(max(4·30, 1000/1), 20·30) = 600 s, d = e^(−5/600) = 0.9917013;
        // A = 15d + 5 = 19.875519, B = 5d + 5 = 9.958506, S̃ = 1.995833 (the plain mean of the two windows: 2)
        FlowEstimates est = e.estimate(new FlowEstimator.Input(live(stats("g1", Map.of("premium", cls(1, 1, 1, 1, 3)))),
                TARGETS, 5));
        assertThat(est.serviceTimes().get("premium")).isCloseTo(1.995833, within(1e-6));
    }

    @Test
    void deltaMu_isThePiTerm_againstTheTargetInForce() {
        ClusterConfig liu = ConfigLoader.parse("""
                classes:
                  - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 3s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
                gateways:
                  - {id: g1, port: 8080}
                control: {prediction: liu, liu: {k: 1, pi: {kp: 1, ki: 0}}}
                """);
        Map<String, GatewayStats> live = live(stats("g1", Map.of("premium", cls(1, 1, 3, 1, 1))));
        // premium measured 3 s against τ = 2 s: ε = (3 − 2)/2 = 0.5, Δμ = kp·ε/τ = 0.25 req/s;
        // basic measured nothing: Δμ holds the (zero) integral
        FlowEstimates est = new FlowEstimator(liu).estimate(new FlowEstimator.Input(live, TARGETS, 0));
        assertThat(est.deltaMu().get(new Problem.FlowId("g1", "premium"))).isCloseTo(0.25, within(1e-12));
        assertThat(est.deltaMu().get(new Problem.FlowId("g1", "basic"))).isZero();
        // an operator's target of 4 s: ε = (3 − 4)/4 = −0.25, Δμ = −0.0625
        FlowEstimates relaxed = new FlowEstimator(liu).estimate(
                new FlowEstimator.Input(live, Map.of("premium", 4.0, "basic", 3.0), 0));
        assertThat(relaxed.deltaMu().get(new Problem.FlowId("g1", "premium"))).isCloseTo(-0.0625, within(1e-12));
    }
}
