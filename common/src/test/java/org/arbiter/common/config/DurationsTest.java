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

    @Property(tries = 200)
    void format_thenParse_isIdentity(@ForAll @DoubleRange(min = 0.001, max = 100000) @Scale(3) double seconds) {
        double rounded = Math.round(seconds * 1000) / 1000.0;
        assertThat(Durations.parseSeconds(Durations.format(rounded))).isCloseTo(rounded, org.assertj.core.data.Offset.offset(1e-9));
    }
}
