package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The scale run, small: the generated cluster is valid, the GRM runs every period, the load is carried. */
final class ScaleExperimentTest {

    @Test
    @SuppressWarnings("unchecked")
    void smallScaleRun_carriesItsLoad_withTheGrmInTheLoop() {
        List<String> progress = new ArrayList<>();
        Map<String, Object> r = ScaleExperiment.run(4, 20, 5, 600, 1, progress::add);
        assertThat(r.get("flows")).isEqualTo(20);
        assertThat(r.get("controlPeriods")).isEqualTo(119); // every 5 s of 600 s but the last instant
        List<Map<String, Object>> phases = (List<Map<String, Object>>) r.get("phases");
        // 20 servers × 10 req/s: 60 % then 85 % of 200 req/s, all served (nothing rejected)
        assertThat(((Number) phases.get(0).get("throughputPerSecond")).doubleValue()).isBetween(110.0, 130.0);
        assertThat(((Number) phases.get(1).get("throughputPerSecond")).doubleValue()).isBetween(155.0, 185.0);
        assertThat(phases).allSatisfy(p -> assertThat(p.get("rejected")).isEqualTo(0L));
        assertThat(progress).anyMatch(l -> l.startsWith("sim: 60 of 600 simulated s"));
    }
}
