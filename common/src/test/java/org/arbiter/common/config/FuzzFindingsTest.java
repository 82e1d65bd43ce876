package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.api.Test;

/** What {@link ConfigLoaderFuzzTest} found, each as a plain test (docs/reliability.md#fuzzing). */
class FuzzFindingsTest {

    private static String withQueueLimit(String limit) {
        return ConfigLoaderTest.MINIMAL.replace("target: 3s\n", "target: 3s\n    queue: {limit: " + limit + "}\n");
    }

    @Test
    void anIntegerPastLong_isAnError_notANumberFormatException() {
        assertThatThrownBy(() -> ConfigLoader.parse(withQueueLimit("\"0000012297829382473034411\"")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("classes[1].queue.limit: 12297829382473034411");
    }

    @Test
    void anIntegerPastLong_doesNotWrapAround() {
        // 2^64 + 10 used to wrap to 10 and load as a queue limit of 10.
        assertThatThrownBy(() -> ConfigLoader.parse(withQueueLimit("18446744073709551626")))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("classes[1].queue.limit: 18446744073709551626");
    }

    @Test
    void aSizePastLong_isAnError() {
        String yaml = ConfigLoaderTest.MINIMAL + "dispatch: {maxBodyBytes: 18446744073709551626}\n";
        assertThatThrownBy(() -> ConfigLoader.parse(yaml))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("dispatch.maxBodyBytes");
    }

    @Test
    void aBadOperatorRegex_isAConfigurationError() {
        String yaml = ConfigLoaderTest.MINIMAL.replace("{X-Class: premium}", "{X-Class: \"regex:)^gold\"}");
        assertThatThrownBy(() -> ConfigLoader.parse(yaml))
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("classes[0].match.header.X-Class");
    }

    @Test
    void theMinimalFileStillLoads() {
        assertThat(ConfigLoader.parse(withQueueLimit("12")).classes().get(1).queue().limit()).isEqualTo(12);
    }

    @Test
    void aDurationIsWrittenSoThatItReadsBack() {
        // ConfigWriter wrote 3.3333333333333335E103s, which the loader refused; durations that long
        // are now refused outright (Durations.MAX_SECONDS), and tiny ones are written in plain digits.
        assertThatThrownBy(() -> Durations.parseSeconds("3333333333333333500000000000000000000s"))
                .isInstanceOf(IllegalArgumentException.class);
        assertThat(Durations.format(1.5e-12)).doesNotContain("E");
        assertThat(Durations.parseSeconds(Durations.format(1.5e-12))).isEqualTo(1.5e-12);
    }
}
