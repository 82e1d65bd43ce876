package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import org.junit.jupiter.api.Test;

/** A shortened 004 §5 run (300 s per phase): the claims docs/experiments.md makes for the full one. */
final class AdmissionExperimentTest {

    @Test
    void amc_holdsLatencyWithin10PercentOfItsBound_pmc_holdsAbandonWithin2Points() {
        AdmissionResult r = AdmissionExperiment.run(1, 300, s -> { });
        AdmissionResult.Run amc = r.amc().run();
        AdmissionResult.Run pmc = r.pmc().run();
        assertThat(amc.meanLatencyAfterConvergence()).isCloseTo(2.0, within(0.2));
        assertThat(pmc.abandonAfterConvergence()).isCloseTo(0.1, within(0.02));
        // the trade-off each law makes: AM-C rejects to keep latency, PM-C admits to keep availability
        assertThat(amc.abandonAfterConvergence()).isGreaterThan(0.1);
        assertThat(pmc.meanLatencyAfterConvergence()).isGreaterThan(2.0);
        // the limit follows the load: PM-C admits more with 110 clients than with 50
        List<AdmissionResult.Phase> phases = pmc.phases();
        assertThat(phases.get(3).meanLimit()).isGreaterThan(phases.get(4).meanLimit());
    }

    @Test
    void sameSeed_sameResult_otherSeed_otherResult() {
        assertThat(AdmissionExperiment.run(3, 100, s -> { })).isEqualTo(AdmissionExperiment.run(3, 100, s -> { }));
        assertThat(AdmissionExperiment.run(4, 100, s -> { }).amc()).isNotEqualTo(AdmissionExperiment.run(3, 100, s -> { }).amc());
    }
}
