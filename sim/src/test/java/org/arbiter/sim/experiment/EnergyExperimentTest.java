package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A shortened 000 §7.5: a one-hour compressed day. */
final class EnergyExperimentTest {

    static final EnergyExperiment.Setup SHORT = new EnergyExperiment.Setup(3600, 4, 0.2, 400, 10, 300, 5);

    @Test
    @SuppressWarnings("unchecked")
    void queueSavesEnergy_withAlmostNoDrops_andStaticDropsMoreOnHeavierRequests() {
        Map<String, Object> r = EnergyExperiment.run(SHORT, 1, List.of("off", "static", "queue"), new double[0], s -> { });
        var scenarios = (Map<String, Map<String, Map<String, Object>>>) r.get("scenarios");
        Map<String, Object> off = scenarios.get("standard").get("off");
        Map<String, Object> queue = scenarios.get("standard").get("queue");
        assertThat(((Number) off.get("droppedPercent")).doubleValue()).isZero();
        assertThat(((Number) queue.get("savingsPercent")).doubleValue()).isGreaterThan(20);
        assertThat(((Number) queue.get("droppedPercent")).doubleValue()).isLessThan(0.5);
        for (var demand : scenarios.values()) {
            for (var policy : demand.values()) {
                assertThat(((Number) policy.get("lost")).longValue()).as("lost (drains must finish first)").isZero();
            }
        }
        double staticHeavier = ((Number) scenarios.get("heavier").get("static").get("droppedPercent")).doubleValue();
        double queueHeavier = ((Number) scenarios.get("heavier").get("queue").get("droppedPercent")).doubleValue();
        assertThat(staticHeavier).isGreaterThan(1).isGreaterThan(10 * queueHeavier);
    }

    @Test
    void schedule_coversEachSlotsPeakAtTheBenchmarkCapacity() {
        double peak = 80;
        List<Integer> s = EnergyExperiment.schedule(EnergyExperiment.FULL, 7200, 20, peak, 16);
        assertThat(s).hasSize(12).allMatch(n -> n >= 1 && n <= 5);
        assertThat(s.get(5)).isEqualTo(4); // the slot that holds the peak: ⌈80 / 20⌉
        assertThat(s.get(0)).isEqualTo(2); // ends at 20.3 req/s, just above one server
    }

    @Test
    @SuppressWarnings("unchecked")
    void seeds_reportEverySeed_andCountThoseAtTheTarget() {
        Map<String, Object> r = EnergyExperiment.seeds(SHORT, 3, 2, s -> { });
        assertThat(r).containsEntry("first", 3L).containsEntry("count", 2);
        for (String policy : EnergyExperiment.SEED_POLICIES) {
            Map<String, Object> p = (Map<String, Object>) r.get(policy);
            List<Map<String, Object>> rows = (List<Map<String, Object>>) p.get("perSeed");
            assertThat(rows).extracting(m -> m.get("seed")).containsExactly(3L, 4L);
            long at = rows.stream().filter(m -> ((Number) m.get("savingsPercent")).doubleValue() >= 38
                    && ((Number) m.get("droppedPercent")).doubleValue() <= 0.002).count();
            assertThat(p.get("seedsAtTarget")).isEqualTo((int) at);
            double mean = rows.stream().mapToDouble(m -> ((Number) m.get("savingsPercent")).doubleValue()).average().orElseThrow();
            assertThat(((Number) p.get("meanSavingsPercent")).doubleValue()).isCloseTo(mean, org.assertj.core.api.Assertions.within(0.01));
            assertThat(((Number) p.get("minSavingsPercent")).doubleValue()).isGreaterThan(10);
        }
    }
}
