package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Message;
import org.junit.jupiter.api.Test;

final class TimelineTest {

    private static final Map<String, Double> TARGETS = targets();

    private static Map<String, Double> targets() {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put("premium", 2.0);
        m.put("basic", 3.0);
        return m;
    }

    private static Decision at(double epochSeconds, Decision.Flow... flows) {
        return new Decision(Message.VERSION, Instant.EPOCH.plusMillis(Math.round(epochSeconds * 1000)), "grm", 1, 1,
                "min", 0, 0, List.of("g1", "g2"), List.of(flows), Map.of(), 0, List.of(), List.of(), 1);
    }

    private static Decision.Flow flow(String gateway, String cls, double measured, double predicted) {
        return new Decision.Flow(gateway, cls, 1, measured, 0, 5, 5, predicted, 0, false);
    }

    @Test
    void liveDecisions_areScaledToPaperSeconds_averagedOverGateways_andPredictionsDrawnOneWindowLater() {
        // a live run at scale 0.05 whose load started at epoch 100; W = 1.5 s of wall time (30 paper s)
        List<Decision> ds = List.of(
                at(99, flow("g1", "premium", 0.05, 0.05)),                       // before the load: left out
                at(100.25, flow("g1", "premium", 0.1, 0.12), flow("g2", "premium", 0.2, Double.NaN),
                        flow("g1", "basic", 0, 0.15)),                              // basic measured nothing
                at(101.75, flow("g1", "premium", 0.11, 0.1), flow("g1", "basic", 0.15, 0.2)),
                at(102.0, flow("g1", "premium", 0.1, 0.1)));
        Timeline t = Timeline.of(ds, 100, 0.05, 1.5, List.of(new Timeline.PhaseMark("A", 0)), TARGETS);

        Timeline.Curves p = t.classes().get("premium");
        assertThat(p.measuredSeconds()).containsExactly(5.0, 35.0, 40.0);
        assertThat(p.measured()).containsExactly(3.0, 2.2, 2.0);              // (0.1 + 0.2) / 2 / 0.05 first
        // predictions drawn at t + W = +30 paper s; those that end after the last decision (40 s) are dropped
        assertThat(p.predictedSeconds()).containsExactly(35.0);
        assertThat(p.predicted()).containsExactly(2.4);                        // g2's NaN left out
        Timeline.Curves b = t.classes().get("basic");
        assertThat(b.measuredSeconds()).containsExactly(35.0);
        assertThat(b.predictedSeconds()).containsExactly(35.0);
        assertThat(b.predicted()).containsExactly(3.0);
        assertThat(t.targets()).containsExactly(Map.entry("premium", 2.0), Map.entry("basic", 3.0));
    }

    @Test
    void badScale_isRefused() {
        assertThatThrownBy(() -> Timeline.of(List.of(), 0, 0, 1, List.of(), TARGETS))
                .hasMessageContaining("scale 0.0");
    }

    @Test
    void simulatedPhases_carryATimelineOfEveryPhase_withPredictionsBesideMeasurements() throws Exception {
        PhasesResult r = Experiments.phases(1, 300, org.arbiter.common.config.ControlConfig.Combine.MIN, s -> { });
        Timeline t = r.timeline();
        assertThat(t.phases()).extracting(Timeline.PhaseMark::name).containsExactly("A", "B", "C", "D");
        assertThat(t.phases()).extracting(Timeline.PhaseMark::startSeconds).containsExactly(0.0, 300.0, 600.0, 900.0);
        for (String c : List.of("premium", "basic")) {
            Timeline.Curves k = t.classes().get(c);
            // one decision every Γ = 5 s over 1 200 s, the first ones before any measurement
            assertThat(k.measured()).as(c).hasSizeGreaterThan(200);
            assertThat(k.predicted()).as(c).hasSizeGreaterThan(200);
            assertThat(k.predictedSeconds().get(0)).as(c).isGreaterThanOrEqualTo(30.0);
        }
        java.nio.file.Path dir = java.nio.file.Files.createTempDirectory("timeline");
        java.nio.file.Path png = Charts.timeline(t, "test", dir.resolve("t.png"));
        assertThat(java.nio.file.Files.size(png)).isPositive();
    }
}
