package org.arbiter.dist.logging;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import org.arbiter.dist.logging.RepeatLimiter.Decision;
import org.junit.jupiter.api.Test;

final class RepeatLimiterTest {

    private static final long S = 1_000_000_000L;

    private final RepeatLimiter limiter = new RepeatLimiter(Duration.ofMinutes(1), 100);

    @Test
    void firstLine_isShown_repeatsWithinTheMinute_areHeldBack_andTheNextOneCarriesTheirCount() {
        assertThat(limiter.offer("k", 0)).isEqualTo(new Decision.Show(0, 0));
        for (int i = 1; i <= 275; i++) {
            assertThat(limiter.offer("k", i * 200_000_000L)).as("repeat %d", i).isInstanceOf(Decision.HoldBack.class);
        }
        assertThat(limiter.offer("k", 59 * S + 999_999_999L)).isInstanceOf(Decision.HoldBack.class);
        assertThat(limiter.offer("k", 60 * S)).isEqualTo(new Decision.Show(276, 60 * S));
        // the window starts again at the shown line
        assertThat(limiter.offer("k", 61 * S)).isInstanceOf(Decision.HoldBack.class);
        assertThat(limiter.offer("k", 125 * S)).isEqualTo(new Decision.Show(1, 65 * S));
    }

    @Test
    void aLineAfterAQuietMinute_isShownWithNoCount() {
        limiter.offer("k", 0);
        assertThat(limiter.offer("k", 300 * S)).isEqualTo(new Decision.Show(0, 300 * S));
    }

    @Test
    void keys_areLimitedEachOnTheirOwn() {
        assertThat(limiter.offer("a", 0)).isInstanceOf(Decision.Show.class);
        assertThat(limiter.offer("b", S)).isInstanceOf(Decision.Show.class);
        assertThat(limiter.offer("a", 2 * S)).isInstanceOf(Decision.HoldBack.class);
        assertThat(limiter.offer("b", 3 * S)).isInstanceOf(Decision.HoldBack.class);
        assertThat(limiter.offer("a", 60 * S)).isEqualTo(new Decision.Show(1, 60 * S));
        assertThat(limiter.offer("b", 60 * S)).isInstanceOf(Decision.HoldBack.class); // b's minute ends at 61 s
    }

    @Test
    void whenFull_closedKeysAreForgotten_andNewKeysAreNeverDropped() {
        RepeatLimiter small = new RepeatLimiter(Duration.ofMinutes(1), 2);
        small.offer("a", 0);
        small.offer("b", 0);
        // full, nothing closed: a third key is shown, unlimited, not tracked
        assertThat(small.offer("c", S)).isInstanceOf(Decision.Show.class);
        assertThat(small.offer("c", 2 * S)).isInstanceOf(Decision.Show.class);
        assertThat(small.keys()).isEqualTo(2);
        // a's and b's minutes are over: they make room
        assertThat(small.offer("d", 61 * S)).isInstanceOf(Decision.Show.class);
        assertThat(small.offer("d", 62 * S)).isInstanceOf(Decision.HoldBack.class);
        assertThat(small.keys()).isEqualTo(1);
    }

    @Test
    void suffix_namesTheCountAndTheSpan() {
        assertThat(RepeatLimiter.suffix(0, 60 * S)).isEmpty();
        assertThat(RepeatLimiter.suffix(275, 60 * S)).isEqualTo(" (×275 in the last minute)");
        assertThat(RepeatLimiter.suffix(275, 119 * S)).isEqualTo(" (×275 in the last minute)");
        assertThat(RepeatLimiter.suffix(3, 7 * 60 * S + 5 * S)).isEqualTo(" (×3 in the last 7 min)");
        assertThat(RepeatLimiter.suffix(3, 3 * 3600 * S)).isEqualTo(" (×3 in the last 3 h)");
    }

    @Test
    void badArguments_areRefusedByName() {
        assertThatThrownBy(() -> new RepeatLimiter(Duration.ZERO, 1)).hasMessage("window: PT0S (expected: > 0)");
        assertThatThrownBy(() -> new RepeatLimiter(Duration.ofSeconds(1), 0)).hasMessage("maxKeys: 0 (expected: >= 1)");
    }
}
