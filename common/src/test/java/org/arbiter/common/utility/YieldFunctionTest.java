package org.arbiter.common.utility;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClassConfig.YieldSpec;
import org.arbiter.common.config.ClassConfig.YieldSpec.Shape;
import org.junit.jupiter.api.Test;

/** 002 §2.2, Fig. 2 and Fig. 6: the three shapes, at the points the figures draw. */
final class YieldFunctionTest {

    @Test
    void throughput_isFullUpToTheDeadline_thenZero() {
        YieldFunction y = YieldFunction.of(new YieldSpec(Shape.THROUGHPUT, 4, 2, 2, 1));
        assertThat(y.yield(0)).isEqualTo(4);
        assertThat(y.yield(1.5)).isEqualTo(4);
        assertThat(y.yield(2)).isEqualTo(4);
        assertThat(y.yield(2.001)).isZero();
    }

    @Test
    void responseTime_fallsLinearlyFromFullAtZero_toZeroAtTheDeadline() {
        YieldFunction y = YieldFunction.of(new YieldSpec(Shape.RESPONSE_TIME, 4, 2, 2, 1));
        assertThat(y.yield(0)).isEqualTo(4);
        assertThat(y.yield(0.5)).isCloseTo(3, within(1e-12));
        assertThat(y.yield(1)).isCloseTo(2, within(1e-12));
        assertThat(y.yield(2)).isCloseTo(0, within(1e-12));
        assertThat(y.yield(3)).isZero();
    }

    @Test
    void hybrid_isFullToThePreDeadline_fallsToTheDropPenaltyAtTheDeadline_thenZero() {
        // 002 §5.1: Gold, C = 4, C' = C/2, D = 2 s, D' = D/2
        YieldFunction y = YieldFunction.of(new YieldSpec(Shape.HYBRID, 4, 2, 2, 1));
        assertThat(y.yield(0.3)).isEqualTo(4);
        assertThat(y.yield(1)).isEqualTo(4);
        assertThat(y.yield(1.5)).isCloseTo(3, within(1e-12));
        assertThat(y.yield(2)).isCloseTo(2, within(1e-12));
        assertThat(y.yield(2.0001)).isZero();
    }

    @Test
    void aClassWithoutYield_isThroughput_withFullYieldOne_andItsTargetAsDeadline() {
        YieldFunction y = YieldFunction.of(ClassConfig.builder("basic", 3).build());
        assertThat(y.yield(3)).isEqualTo(1);
        assertThat(y.yield(3.1)).isZero();
    }

    @Test
    void anIncreasingHybrid_isRefused_namingTheField() {
        assertThatThrownBy(() -> YieldFunction.of(new YieldSpec(Shape.HYBRID, 1, 2, 2, 1)))
                .hasMessage("dropPenalty: 2.0 (expected: 0 <= x <= full, 1.0)");
    }

    @Test
    void everyShape_isNonIncreasing() {
        for (Shape s : Shape.values()) {
            YieldFunction y = YieldFunction.of(new YieldSpec(s, 4, 2, 2, 1));
            double last = Double.MAX_VALUE;
            for (double r = 0; r < 3; r += 0.01) {
                assertThat(y.yield(r)).as("%s at %s", s, r).isLessThanOrEqualTo(last).isGreaterThanOrEqualTo(0);
                last = y.yield(r);
            }
        }
    }
}
