package org.arbiter.grm.control;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Message;
import org.junit.jupiter.api.Test;

/** The step's feedback alone: ē_c moves a tenth of the way to each |e|; the recent window forgets. */
final class PredictionTrackerTest {

    static final Instant T0 = Instant.EPOCH.plusSeconds(1_000_000);

    /** A decision at T0 + {@code at} s: premium at g1 measured {@code measured} s, predicted 2 s, weight 1 as before. */
    static Decision decision(double at, double measured) {
        Decision.Flow f = new Decision.Flow("g1", "premium", 1, measured, 0, 1, 1, 2.0, 0.5, false);
        return new Decision(Message.VERSION, T0.plusMillis(Math.round(at * 1000)), "grm", 1, 1, "min", 0.5, 0,
                List.of("g1"), List.of(f), Map.of(), 0, List.of());
    }

    @Test
    void theMeanErrorMovesATenthOfTheWay_andTheRecentSummaryKeepsFourWindows() {
        PredictionTracker tracker = new PredictionTracker(30);
        double t0 = T0.getEpochSecond();
        tracker.track(decision(0, 1.0), t0);
        assertThat(tracker.meanErrors(StageFixtures.CONFIG.classes()))
                .containsExactly(Map.entry("premium", 0.1), Map.entry("basic", 0.1)); // the prior, nothing checked yet
        // 30 s later the 2 s predicted at 0 meets 1.6 s measured: |e| = 0.4/1.6 = 0.25, ē = 0.1 + 0.1·(0.25 − 0.1) = 0.115
        tracker.track(decision(30, 1.6), t0 + 30);
        assertThat(tracker.meanErrors().get("premium")).isCloseTo(0.115, within(1e-12));
        // and at 60 s the prediction made at 30 meets 2.5 s: |e| = 0.5/2.5 = 0.2, ē = 0.115 + 0.1·(0.2 − 0.115) = 0.1235
        tracker.track(decision(60, 2.5), t0 + 60);
        assertThat(tracker.meanErrors().get("premium")).isCloseTo(0.1235, within(1e-12));
        assertThat(tracker.recent().get("premium").samples()).isEqualTo(2);
        assertThat(tracker.recent().get("premium").meanAbs()).isCloseTo((0.25 + 0.2) / 2, within(1e-12));
        // at 151 s the last four windows begin at 31 s: the check measured at 30 s is forgotten
        tracker.track(decision(151, 0), t0 + 151);
        assertThat(tracker.recentForDecision()).containsOnlyKeys("premium");
        assertThat(tracker.recentForDecision().get("premium").samples()).isEqualTo(1);
        assertThat(tracker.recentForDecision().get("premium").meanAbs()).isCloseTo(0.2, within(1e-12));
        assertThat(tracker.meanErrors().get("premium")).isCloseTo(0.1235, within(1e-12)); // nothing measured: no sample
    }
}
