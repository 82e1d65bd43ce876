package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.sim.SimScenario;
import org.arbiter.sim.Simulator;
import org.arbiter.sim.run.RunSpec;
import org.junit.jupiter.api.Test;

/** A shortened 000 §7.5: a one-hour compressed day. */
final class EnergyExperimentTest {

    static final EnergyExperiment.Setup SHORT = new EnergyExperiment.Setup(3600, 4, 0.2, 400, 10, 300, 5);

    @Test
    void queueSavesEnergy_withAlmostNoDrops_andStaticDropsMoreOnHeavierRequests() {
        EnergyResult r = EnergyExperiment.run(SHORT, 1, List.of(EnergyPolicy.OFF, EnergyPolicy.STATIC, EnergyPolicy.QUEUE), new double[0], s -> { });
        Map<String, Map<String, EnergyResult.Day>> scenarios = r.scenarios();
        EnergyResult.Day off = scenarios.get("standard").get("off");
        EnergyResult.Day queue = scenarios.get("standard").get("queue");
        assertThat(off.droppedPercent()).isZero();
        assertThat(queue.savingsPercent()).isGreaterThan(20);
        assertThat(queue.droppedPercent()).isLessThan(0.5);
        for (var demand : scenarios.values()) {
            for (var policy : demand.values()) {
                assertThat(policy.lost()).as("lost (drains must finish first)").isZero();
            }
        }
        double staticHeavier = scenarios.get("heavier").get("static").droppedPercent();
        double queueHeavier = scenarios.get("heavier").get("queue").droppedPercent();
        assertThat(staticHeavier).isGreaterThan(1).isGreaterThan(10 * queueHeavier);
    }

    @Test
    void aDaysSpec_isItsClusterUnderTheGrm_andTheDiurnalDayAsTheSimulatorRanItBefore() {
        double peak = SHORT.peak();
        double trough = SHORT.trough();
        assertThat(peak).isEqualTo(80.0);
        assertThat(trough).isEqualTo(16.0);

        RunSpec spec = EnergyExperiment.spec(SHORT, 1.0, EnergyPolicy.QUEUE, 60, 19.9, peak, trough, 4);

        assertThat(spec.cluster()).isEqualTo(EnergyExperiment.cluster(SHORT, 1.0, EnergyPolicy.QUEUE, 60, 19.9, peak, trough));
        assertThat(spec.control()).isEqualTo(Simulator.Control.GRM);
        assertThat(spec.seed()).isEqualTo(4);
        assertThat(spec.simScenario()).isEqualTo(new SimScenario(1, List.of(new SimScenario.Phase("day", 3600, null, null,
                null, Map.of("web", new Scenario.Diurnal(peak, trough)))), 4));
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
    void seeds_reportEverySeed_andCountThoseAtTheTarget() {
        EnergyResult.Seeds r = EnergyExperiment.seeds(SHORT, 3, 2, s -> { });
        assertThat(r.first()).isEqualTo(3L);
        assertThat(r.count()).isEqualTo(2);
        for (EnergyPolicy policy : EnergyExperiment.SEED_POLICIES) {
            EnergyResult.SeedPolicy p = r.policy(policy);
            List<EnergyResult.SeedDay> rows = p.perSeed();
            assertThat(rows).extracting(EnergyResult.SeedDay::seed).containsExactly(3L, 4L);
            long at = rows.stream().filter(m -> m.day().savingsPercent() >= 38 && m.day().droppedPercent() <= 0.002).count();
            assertThat(p.seedsAtTarget()).isEqualTo((int) at);
            double mean = rows.stream().mapToDouble(m -> m.day().savingsPercent()).average().orElseThrow();
            assertThat(p.meanSavingsPercent()).isCloseTo(mean, org.assertj.core.api.Assertions.within(0.01));
            assertThat(p.minSavingsPercent()).isGreaterThan(10);
        }
    }
}
