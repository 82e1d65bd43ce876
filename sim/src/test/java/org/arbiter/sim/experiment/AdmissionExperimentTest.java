package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** A shortened 004 §5 run (300 s per phase): the claims docs/experiments.md makes for the full one. */
final class AdmissionExperimentTest {

    @Test
    @SuppressWarnings("unchecked")
    void amc_holdsLatencyWithin10PercentOfItsBound_pmc_holdsAbandonWithin2Points() {
        Map<String, Object> r = AdmissionExperiment.run(1, 300, s -> { });
        Map<String, Object> amc = (Map<String, Object>) r.get("amc");
        Map<String, Object> pmc = (Map<String, Object>) r.get("pmc");
        assertThat((double) amc.get("meanLatencyAfterConvergence")).isCloseTo(2.0, within(0.2));
        assertThat((double) pmc.get("abandonAfterConvergence")).isCloseTo(0.1, within(0.02));
        // the trade-off each law makes: AM-C rejects to keep latency, PM-C admits to keep availability
        assertThat((double) amc.get("abandonAfterConvergence")).isGreaterThan(0.1);
        assertThat((double) pmc.get("meanLatencyAfterConvergence")).isGreaterThan(2.0);
        // the limit follows the load: PM-C admits more with 110 clients than with 50
        List<Map<String, Object>> phases = (List<Map<String, Object>>) pmc.get("phases");
        assertThat((double) phases.get(3).get("meanLimit")).isGreaterThan((double) phases.get(4).get("meanLimit"));
    }

    @Test
    void sameSeed_sameResult_otherSeed_otherResult() {
        assertThat(AdmissionExperiment.run(3, 100, s -> { })).isEqualTo(AdmissionExperiment.run(3, 100, s -> { }));
        assertThat(AdmissionExperiment.run(4, 100, s -> { }).get("amc")).isNotEqualTo(AdmissionExperiment.run(3, 100, s -> { }).get("amc"));
    }
}
