package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

/** 004 §5.3 (Fig. 6-8) at the documented length (600 s phases), seeds 1-3: the targets of docs/experiments.md. */
final class AdmissionExperimentTest {

    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void amc_holdsLatency_pmc_holdsAbandon_eachBeatsTheUncontrolledServer(long seed) {
        AdmissionResult r = AdmissionExperiment.run(seed, 600, s -> { });
        for (AdmissionResult.Scenario s : r.scenarios()) {
            // AM-C: mean latency at most L_max = 8 s after convergence, below the uncontrolled server's
            assertThat(s.amc().meanLatencyAfterConvergence()).as(s.name() + " amc latency").isLessThanOrEqualTo(8.0);
            assertThat(s.amc().meanLatencyAfterConvergence()).as(s.name() + " amc vs uncontrolled latency")
                    .isLessThan(s.uncontrolled().meanLatencyAfterConvergence());
            // PM-C: abandon rate at most α_max + 1 point, with a lower latency than the uncontrolled server
            assertThat(s.pmc().abandonAfterConvergence()).as(s.name() + " pmc abandon").isLessThanOrEqualTo(0.11);
            assertThat(s.pmc().meanLatencyAfterConvergence()).as(s.name() + " pmc vs uncontrolled latency")
                    .isLessThan(s.uncontrolled().meanLatencyAfterConvergence());
            assertThat(s.uncontrolled().abandonAfterConvergence()).isZero();
        }
        // as in 004 Fig. 6 and 8: M2 is the harder mix — more abandons under AM-C, higher latency under PM-C
        List<AdmissionResult.Phase> amc = r.scenarios().get(0).amc().phases();
        List<AdmissionResult.Phase> pmc = r.scenarios().get(0).pmc().phases();
        assertThat(amc.get(0).abandon()).isLessThan(amc.get(1).abandon());
        assertThat(amc.get(2).abandon()).isLessThan(amc.get(1).abandon());
        assertThat(pmc.get(1).meanLatency()).isGreaterThan(pmc.get(0).meanLatency()).isGreaterThan(pmc.get(2).meanLatency() - 1);
        // the amount ramp: the uncontrolled latency passes L_max at the top; AM-C's limit falls there
        List<AdmissionResult.Phase> ramp = r.scenarios().get(1).uncontrolled().phases();
        assertThat(ramp.get(ramp.size() - 1).meanLatency()).isGreaterThan(12.0);
    }

    @Test
    void sameSeed_sameResult_otherSeed_otherResult() {
        assertThat(AdmissionExperiment.run(3, 100, s -> { })).isEqualTo(AdmissionExperiment.run(3, 100, s -> { }));
        assertThat(AdmissionExperiment.run(4, 100, s -> { }).scenarios())
                .isNotEqualTo(AdmissionExperiment.run(3, 100, s -> { }).scenarios());
    }
}
