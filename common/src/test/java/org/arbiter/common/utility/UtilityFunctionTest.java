package org.arbiter.common.utility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import org.junit.jupiter.api.Test;

final class UtilityFunctionTest {

    @Property(tries = 300)
    void pacifici_isMonotoneDecreasing_andFlipsSignAtTheTarget(
            @ForAll @DoubleRange(min = 0.1, max = 10) double tau,
            @ForAll @DoubleRange(min = 0.1, max = 5) double phi,
            @ForAll @DoubleRange(min = 0.5, max = 3) double alpha,
            @ForAll @DoubleRange(min = 0.5, max = 3) double beta,
            @ForAll @DoubleRange(min = 0, max = 30) double t1,
            @ForAll @DoubleRange(min = 0, max = 30) double t2) {
        UtilityFunction u = UtilityFunction.pacifici(tau, phi, alpha, beta);
        double lo = Math.min(t1, t2);
        double hi = Math.max(t1, t2);
        assertThat(u.utility(lo)).isGreaterThanOrEqualTo(u.utility(hi));
        assertThat(u.utility(tau)).isZero();
        if (t1 < tau) {
            assertThat(u.utility(t1)).isPositive();
        } else if (t1 > tau) {
            assertThat(u.utility(t1)).isNegative();
        }
    }

    @Test
    void pacifici_matchesEquation7() {
        UtilityFunction u = UtilityFunction.pacifici(6, 1, 1.5, 2);
        assertThat(u.utility(2)).isCloseTo(Math.pow(4, 1.5), within(1e-12));
        assertThat(u.utility(9)).isCloseTo(-9.0, within(1e-12));
        UtilityFunction paper = UtilityFunction.pacifici(2, 1, 1, 1);
        assertThat(paper.utility(1.93)).isCloseTo(0.07, within(1e-12));
    }

    @Test
    void theRelativeScale_dividesPhiByTheTarget_soLatenessCountsAsAFractionOfIt() {
        org.arbiter.common.config.ClusterConfig cluster = org.arbiter.common.config.ConfigLoader.parse("""
                classes:
                  - {name: premium, target: 2s, default: true, utility: {scale: relative}}
                  - {name: basic, target: 3s, utility: {phi: 3, scale: relative}}
                  - {name: plain, target: 3s}
                servers: [{id: s1, url: "http://127.0.0.1:1"}]
                """);
        UtilityFunction premium = UtilityFunction.of(cluster.classes().get(0));
        UtilityFunction basic = UtilityFunction.of(cluster.classes().get(1));
        UtilityFunction plain = UtilityFunction.of(cluster.classes().get(2));
        assertThat(premium.utility(3)).as("1 s late on 2 s, φ = 1/2").isCloseTo(-0.5, within(1e-12));
        assertThat(premium.utility(1)).isCloseTo(0.5, within(1e-12));
        assertThat(basic.utility(4.5)).as("1.5 s late on 3 s, φ = 3/3").isCloseTo(-1.5, within(1e-12));
        assertThat(plain.utility(4.5)).as("absolute, the default").isCloseTo(-1.5, within(1e-12));
        assertThat(cluster.classes().get(2).utility().scale())
                .isEqualTo(org.arbiter.common.config.ClassConfig.UtilitySpec.Scale.ABSOLUTE);
        assertThat(UtilityFunction.of(cluster.classes().get(0)).concaveNonIncreasing())
                .as("still eq. 7 with α = β = 1: the fast paths apply").isTrue();
    }

    @Property(tries = 300)
    void yieldShapes_areNonIncreasing_andPenaliseMissedDeadlines(
            @ForAll @DoubleRange(min = 0, max = 10) double t1, @ForAll @DoubleRange(min = 0, max = 10) double t2) {
        for (String shape : new String[] {"throughput", "response-time", "hybrid"}) {
            UtilityFunction y = UtilityFunction.yield(shape, 4, 2, 2, 1);
            assertThat(y.utility(Math.min(t1, t2))).isGreaterThanOrEqualTo(y.utility(Math.max(t1, t2)));
            if (Math.max(t1, t2) > 2) {
                assertThat(y.utility(Math.max(t1, t2))).isEqualTo(-2.0);
            }
        }
    }

    @Test
    void yieldShapes_haveTheirDocumentedValues() {
        assertThat(UtilityFunction.yield("throughput", 4, 2, 2, 1).utility(1.9)).isEqualTo(4.0);
        assertThat(UtilityFunction.yield("response-time", 4, 2, 2, 1).utility(1.0)).isEqualTo(2.0);
        assertThat(UtilityFunction.yield("hybrid", 4, 2, 2, 1).utility(0.5)).isEqualTo(4.0);
        assertThat(UtilityFunction.yield("hybrid", 4, 2, 2, 1).utility(1.5)).isEqualTo(2.0);
    }

    @Test
    void badParameters_nameTheParameter() {
        assertThatThrownBy(() -> UtilityFunction.pacifici(-1, 1, 1, 1)).hasMessage("targetSeconds: -1.0 (expected: > 0)");
        assertThatThrownBy(() -> UtilityFunction.yield("step", 1, 0, 1, 0))
                .hasMessage("shape: step (expected: one of throughput, response-time, hybrid)");
    }
}
