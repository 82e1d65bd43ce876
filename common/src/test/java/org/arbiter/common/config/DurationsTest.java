package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.Scale;
import org.junit.jupiter.api.Test;

final class DurationsTest {

    @Test
    void parsesTheUnitsOfTheSchema() {
        assertThat(Durations.parseSeconds("250ms")).isEqualTo(0.25);
        assertThat(Durations.parseSeconds("5s")).isEqualTo(5.0);
        assertThat(Durations.parseSeconds("2m")).isEqualTo(120.0);
        assertThat(Durations.parseSeconds("1h")).isEqualTo(3600.0);
        assertThat(Durations.parseSeconds("1.5s")).isEqualTo(1.5);
        assertThat(Durations.parseSeconds("30")).isEqualTo(30.0);
        assertThat(Durations.parseSeconds("-2s")).isEqualTo(-2.0);
        assertThat(Durations.parseBytes("10MiB")).isEqualTo(10L << 20);
        assertThat(Durations.parseBytes("16KiB")).isEqualTo(16L << 10);
        assertThat(Durations.parseBytes("512")).isEqualTo(512L);
    }

    @Test
    void rejectsTextThatIsNotADuration() {
        assertThatThrownBy(() -> Durations.parseSeconds("5 parsecs"))
                .hasMessage("'5 parsecs' is not a duration (expected: a number with ms, s, m or h, e.g. 250ms, 5s, 2m)");
        assertThatThrownBy(() -> Durations.parseBytes("big")).hasMessageContaining("is not a size");
    }

    @Test
    void overflowingValues_areRefused_notSaturated() {
        assertThatThrownBy(() -> Durations.parseBytes("99999999999GiB")).isInstanceOf(Durations.OutOfRange.class)
                .hasMessage("'99999999999GiB' is out of range (expected: at most 9223372036854775807 bytes, 8EiB)");
        assertThatThrownBy(() -> Durations.parseSeconds("99999999999999h")).isInstanceOf(Durations.OutOfRange.class)
                .hasMessage("'99999999999999h' is out of range (expected: at most 106751d, about 292 years)");
        assertThatThrownBy(() -> Durations.parseSeconds("9".repeat(400))).isInstanceOf(Durations.OutOfRange.class);
        assertThatThrownBy(() -> Durations.parse("-106752d")).isInstanceOf(Durations.OutOfRange.class);
        assertThat(Durations.parse("106751d")).isEqualTo(java.time.Duration.ofDays(106751));
        assertThat(Durations.parseBytes("8589934591GiB")).isEqualTo(8589934591L << 30);   // just below 2^63
        assertThatThrownBy(() -> Durations.parseBytes("8589934592GiB")).isInstanceOf(Durations.OutOfRange.class);
        assertThat(Durations.parseBytes("1.5KiB")).isEqualTo(1536);
        assertThat(Durations.parseBytes("1GB")).isEqualTo(1_000_000_000L);
    }

    @Property(tries = 200)
    void format_thenParse_isIdentity(@ForAll @DoubleRange(min = 0.001, max = 100000) @Scale(3) double seconds) {
        double rounded = Math.round(seconds * 1000) / 1000.0;
        assertThat(Durations.parseSeconds(Durations.format(rounded))).isCloseTo(rounded, org.assertj.core.data.Offset.offset(1e-9));
    }
}
