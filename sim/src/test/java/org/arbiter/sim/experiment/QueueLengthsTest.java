package org.arbiter.sim.experiment;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Message;
import org.junit.jupiter.api.Test;

/** 003 Fig. 10's queue lengths from the GRM's decisions: per flow against time, and per phase. */
final class QueueLengthsTest {

    private static Decision at(double epochSeconds, Decision.Flow... flows) {
        return new Decision(Message.VERSION, Instant.EPOCH.plusMillis(Math.round(epochSeconds * 1000)), "grm", 1, 1,
                "min", 0, 0, List.of("g1", "g2"), List.of(flows), Map.of(), 0, List.of(), List.of(), 1);
    }

    private static Decision.Flow flow(String gateway, String cls, double queue) {
        return new Decision.Flow(gateway, cls, 1, 1, queue, 5, 5, 1, 0, false);
    }

    @Test
    void eachFlowsSeries_inPaperSeconds_andEachPhasesMean_perFlow_andPerClassOverGateways() {
        // a live run at scale 0.5 whose load started at epoch 100: phase A from 0, B from 10 paper seconds
        List<Timeline.PhaseMark> phases = List.of(new Timeline.PhaseMark("A", 0), new Timeline.PhaseMark("B", 10));
        QueueLengths q = QueueLengths.of(List.of(
                at(99, flow("g1", "premium", 50)),                                   // before the load: left out
                at(101, flow("g1", "premium", 1), flow("g2", "premium", 3), flow("g1", "basic", 0)),
                at(103, flow("g1", "premium", 2), flow("g2", "premium", 5), flow("g1", "basic", 2)),
                at(106, flow("g1", "premium", 8), flow("g2", "premium", 4), flow("g1", "basic", 12))),
                100, 0.5, phases);
        assertThat(q.series().keySet()).containsExactly("g1/basic", "g1/premium", "g2/premium");
        assertThat(q.series().get("g1/premium").seconds()).containsExactly(2.0, 6.0, 12.0);
        assertThat(q.series().get("g1/premium").lengths()).containsExactly(1.0, 2.0, 8.0);
        assertThat(q.phaseMeans().get("A")).containsEntry("g1/premium", 1.5).containsEntry("g2/premium", 4.0)
                .containsEntry("g1/basic", 1.0);
        assertThat(q.phaseMeans().get("B")).containsEntry("g1/premium", 8.0).containsEntry("g1/basic", 12.0);
        // a class's backlog in a phase: its gateways' means summed
        assertThat(q.classTotal("A", "premium")).isEqualTo(5.5);
        assertThat(q.classTotal("B", "premium")).isEqualTo(12.0);
        assertThat(q.classTotal("C", "premium")).isZero();
    }
}
