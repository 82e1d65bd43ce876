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
        // 004's gain (0.1) holds every phase's latency at L_max, on M1 and on M2 (004 Fig. 6c, 7c)
        for (AdmissionResult.Scenario s : r.scenarios()) {
            assertThat(s.amc().phases()).as(s.name() + " amc (gain 0.1) per phase")
                    .allSatisfy(p -> assertThat(p.meanLatency()).isLessThanOrEqualTo(8.0));
        }
    }

    /**
     * 004 Fig. 7: "the abandon rate is maintained below 5 % with up to 75 clients". At 004's gain (0.1) it is from
     * 30 clients to 80; below, eq. 10 caps the limit at N_e / (1 − 8 γ'_L) = 5 N_e, which a lightly loaded
     * server's bursts exceed (N = 10: 16-20 %, docs/experiments.md); at 0.3 the law stops limiting there and
     * the rate stays under 5 % at every N up to 80.
     */
    @ParameterizedTest
    @ValueSource(longs = {1, 2, 3})
    void clients_abandonUnderFivePercent_from30To80AtGain0_1_andUpTo80AtGain0_3(long seed) {
        AdmissionResult r = AdmissionExperiment.run(seed, 600, s -> { });
        AdmissionResult.Scenario clients = r.scenarios().get(2);
        assertThat(clients.name()).isEqualTo("clients");
        assertThat(clients.amc().phases()).extracting(AdmissionResult.Phase::clients)
                .containsExactly(10, 20, 30, 40, 50, 60, 70, 80, 90, 100);
        for (int i = 0; i < 10; i++) {
            AdmissionResult.Phase slow = clients.amc().phases().get(i);
            AdmissionResult.Phase fast = clients.amcFast().phases().get(i);
            if (slow.clients() >= 30 && slow.clients() <= 80) {
                assertThat(slow.abandon()).as("gain 0.1, N = %d", slow.clients()).isLessThan(0.05);
            }
            if (fast.clients() <= 80) {
                assertThat(fast.abandon()).as("gain 0.3, N = %d", fast.clients()).isLessThan(0.05);
            }
        }
        // the gap at 10 clients is 0.1's own: more abandons than 0.3 there
        assertThat(clients.amc().phases().get(0).abandon()).isGreaterThan(clients.amcFast().phases().get(0).abandon());
    }

    @Test
    void sameSeed_sameResult_otherSeed_otherResult() {
        assertThat(AdmissionExperiment.run(3, 100, s -> { })).isEqualTo(AdmissionExperiment.run(3, 100, s -> { }));
        assertThat(AdmissionExperiment.run(4, 100, s -> { }).scenarios())
                .isNotEqualTo(AdmissionExperiment.run(3, 100, s -> { }).scenarios());
    }
}
