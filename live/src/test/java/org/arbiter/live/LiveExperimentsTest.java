package org.arbiter.live;

import org.arbiter.live.*;
import org.arbiter.sim.experiment.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** 003 Fig. 7 live, shortened: a real broker, gateway and simserver on loopback. */
final class LiveExperimentsTest {

    @TempDir
    Path work;

    @Test
    @SuppressWarnings("unchecked")
    void liveConcurrency_throughputRisesToTheKnee_andFallsBeyond() throws Exception {
        Map<String, Object> r = LiveExperiments.concurrency(1, 150, 0.02, work, s -> { }, new int[] {2, 10, 30});
        List<Map<String, Object>> points = (List<Map<String, Object>>) r.get("points");
        double x2 = ((Number) points.get(0).get("throughput")).doubleValue();
        double x10 = ((Number) points.get(1).get("throughput")).doubleValue();
        double x30 = ((Number) points.get(2).get("throughput")).doubleValue();
        // The model: 2 and 10 req/s (paper units) at N_s = 2 and 10; 30 in flight cost 3 % each above the knee.
        assertThat(x2).isBetween(1.5, 2.3);
        assertThat(x10).isBetween(7.5, 10.5);
        assertThat(x30).isLessThan(0.8 * x10);
        assertThat(r.get("knee")).isEqualTo(10);
    }
}
