package org.arbiter.dist.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Map;
import org.junit.jupiter.api.Test;

final class DemoReportTest {

    @Test
    void enrich_addsTimeAveragedWeightsAndClusterUtility_perPhase() {
        ObjectNode s = DemoReport.parse("""
                {"durationSeconds": 20, "classes": {},
                 "phases": [{"name": "B", "startSeconds": 0, "endSeconds": 10,
                             "classes": {"premium": {"ok": 10, "meanResponseSeconds": 0.1, "throughputPerSecond": 5},
                                         "basic": {"ok": 10, "meanResponseSeconds": 0.2, "throughputPerSecond": 5}}}]}
                """);
        WeightTracker w = new WeightTracker();
        w.record("g1", 0, Map.of("premium", 5.0, "basic", 5.0));
        w.record("g1", 5, Map.of("premium", 7.0, "basic", 3.0));
        DemoReport.enrich(s, w, 0.05);
        var p = s.withArray("phases").get(0);
        assertThat(p.path("weights").path("g1").path("premium").asDouble()).isEqualTo(6.0);
        // Scaled back: premium 2 s (utility 0), basic 4 s (utility −1): min −1.
        assertThat(p.path("clusterUtility").asDouble()).isEqualTo(-1.0);
        assertThat(DemoReport.table(s, 0.05)).contains("B     20,20").contains("6.0,4.0");
    }
}
