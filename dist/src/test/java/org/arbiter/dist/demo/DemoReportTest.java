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

    @Test
    void enrich_addsThePredictionErrorPerPhase_leavingOutItsFirstWindow() {
        ObjectNode s = DemoReport.parse("""
                {"durationSeconds": 20, "classes": {},
                 "phases": [{"name": "A", "startSeconds": 0, "endSeconds": 10, "classes": {}},
                            {"name": "B", "startSeconds": 10, "endSeconds": 20, "classes": {}}]}
                """);
        double t0 = 1000;  // the load's start, epoch seconds
        var samples = java.util.List.of(
                // made in A's first window (W = 2 s): left out
                new org.arbiter.grm.model.PredictionErrors.Sample("g1", "premium", t0 + 1, t0 + 3, 3, 1),
                new org.arbiter.grm.model.PredictionErrors.Sample("g1", "premium", t0 + 4, t0 + 6, 1.2, 1),
                new org.arbiter.grm.model.PredictionErrors.Sample("g2", "basic", t0 + 5, t0 + 7, 0.6, 1),
                // made in A, measured in B: in neither
                new org.arbiter.grm.model.PredictionErrors.Sample("g1", "basic", t0 + 9, t0 + 11, 5, 1));
        DemoReport.enrich(s, new WeightTracker(), 0.05, samples, t0, 2);
        var a = s.withArray("phases").get(0).path("predictionError");
        assertThat(a.path("samples").asInt()).isEqualTo(2);
        assertThat(a.path("meanAbs").asDouble()).isCloseTo(0.3, org.assertj.core.data.Offset.offset(1e-9));  // (0.2 + 0.4) / 2
        assertThat(a.path("meanSigned").asDouble()).isCloseTo(-0.1, org.assertj.core.data.Offset.offset(1e-9));
        var b = s.withArray("phases").get(1).path("predictionError");
        assertThat(b.path("samples").asInt()).isZero();
        assertThat(b.path("meanAbs").isNull()).isTrue();
        String table = DemoReport.table(s, 0.05);
        assertThat(table.lines().toList().get(0)).endsWith("error");
        assertThat(table.lines().toList().get(1)).endsWith("0.300");
        assertThat(table.lines().toList().get(2)).endsWith("—");
    }
}
