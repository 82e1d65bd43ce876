package org.arbiter.dist.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

final class WeightTrackerTest {

    @Test
    void average_isTheTimeIntegralOfTheStepFunction() {
        WeightTracker t = new WeightTracker();
        t.record("g1", 0, Map.of("premium", 5.0, "basic", 5.0));
        t.record("g1", 10, Map.of("premium", 8.0, "basic", 2.0));
        Map<String, Double> avg = t.average(5, 15).get("g1");
        assertThat(avg.get("premium")).isCloseTo(6.5, within(1e-9));
        assertThat(avg.get("basic")).isCloseTo(3.5, within(1e-9));
        assertThat(t.average(10, 20).get("g1").get("premium")).isCloseTo(8.0, within(1e-9));
        assertThat(t.average(-5, 0)).isEmpty();
    }
}
