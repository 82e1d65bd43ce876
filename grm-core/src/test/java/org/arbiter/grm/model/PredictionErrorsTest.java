package org.arbiter.grm.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Message;
import org.junit.jupiter.api.Test;

final class PredictionErrorsTest {

    static Decision at(double seconds, double measured, double previousWeight, double weight, double predicted) {
        return new Decision(Message.VERSION, Instant.EPOCH.plusMillis(Math.round(seconds * 1000)), "grm", 1, 1, "min", 0, 0,
                List.of("g1"), List.of(new Decision.Flow("g1", "basic", 1, measured, 0, previousWeight, weight, predicted,
                        0, false)), Map.of(), 0, List.of(), List.of(), 1);
    }

    @Test
    void aPrediction_isCheckedAgainstTheMeasurementOneWindowLater() {
        PredictionErrors e = new PredictionErrors(30, true);
        assertThat(e.accept(at(0, 1.0, 5, 5, 2.0))).isEmpty();
        assertThat(e.accept(at(15, 1.0, 5, 5, 2.0))).isEmpty();
        var resolved = e.accept(at(30, 2.5, 5, 5, 2.0));
        assertThat(resolved).hasSize(1);
        assertThat(resolved.get(0).relative()).isCloseTo(-0.2, within(1e-9));
        assertThat(e.latest().get("g1").get("basic").measured()).isEqualTo(2.5);
    }

    @Test
    void aWeightChange_voidsThePredictionsMadeUnderTheOldWeight() {
        PredictionErrors e = new PredictionErrors(30, true);
        e.accept(at(0, 1.0, 5, 5, 2.0));
        e.accept(at(10, 1.0, 5, 6, 1.5)); // a new weight: the prediction at 0 no longer describes the next window
        assertThat(e.accept(at(30, 2.5, 6, 6, 1.5))).isEmpty();
        var resolved = e.accept(at(40, 1.5, 6, 6, 1.5));
        assertThat(resolved).hasSize(1);
        assertThat(resolved.get(0).madeSeconds()).isEqualTo(10);
        assertThat(PredictionErrors.Summary.of(e.samples()).meanAbs()).isZero();
    }
}
