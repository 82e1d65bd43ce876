package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.junit.FuzzTest;
import java.nio.charset.StandardCharsets;

/**
 * Coverage-guided fuzzing of {@link ConfigLoader#parse} (Jazzer).
 *
 * <p>Properties: any text either loads or is refused with a {@link ConfigException} whose every
 * line names what is wrong; nothing else escapes (no {@code NullPointerException}, no
 * {@code NumberFormatException}, no stack overflow on deep nesting). A file that loads is written
 * back by {@link ConfigWriter} and loads again to an equal configuration.
 *
 * <p>Regression corpus: {@code src/test/resources/org/arbiter/common/config/ConfigLoaderFuzzTestInputs/parse/}.
 */
class ConfigLoaderFuzzTest {

    @FuzzTest(maxDuration = "5m")
    void parse(byte[] input) {
        String yaml = new String(input, StandardCharsets.UTF_8);
        ClusterConfig config;
        try {
            config = ConfigLoader.parse(yaml);
        } catch (ConfigException e) {
            assertThat(e.errors()).as("a refusal lists its problems").isNotEmpty();
            assertThat(e.errors()).allSatisfy(p -> assertThat(p).isNotBlank());
            return;
        }
        String written = ConfigWriter.toYaml(config);
        assertThat(ConfigLoader.parse(written)).as("written back:\n%s", written).isEqualTo(config);
    }
}
