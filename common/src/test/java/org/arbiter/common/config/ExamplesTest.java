package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** Every file in the repository's {@code examples/} loads with no error (the package ships them). */
final class ExamplesTest {

    private static final Path EXAMPLES = Path.of("..", "examples");

    static List<Path> examples() throws IOException {
        try (Stream<Path> files = Files.list(EXAMPLES)) {
            return files.filter(Files::isRegularFile).sorted().toList();
        }
    }

    @Test
    void examples_holdTheFourConfigurationsTheDocsName() throws IOException {
        assertThat(examples()).extracting(p -> p.getFileName().toString())
                .contains("single-gateway.yaml", "two-gateways-grm.yaml", "sizing-power.yaml", "secured-kafka.yaml",
                        "pools-grm-group.yaml", "haproxy-gateways.yaml")
                .allMatch(name -> name.endsWith(".yaml"), "a .yaml file");
    }

    @ParameterizedTest
    @MethodSource("examples")
    void example_loadsWithoutErrors(Path file) {
        assertThatCode(() -> ConfigLoader.load(file))
                .as("%s", file)
                .doesNotThrowAnyException();
    }

    @Test
    void securedExample_setsARoleForEveryProcess() {
        ClusterConfig config = ConfigLoader.load(EXAMPLES.resolve("secured-kafka.yaml"));
        assertThat(config.kafka().security().enabled()).isTrue();
    }

    @Test
    void sizingExample_switchesServersWithACommand() {
        ClusterConfig config = ConfigLoader.load(EXAMPLES.resolve("sizing-power.yaml"));
        assertThat(config.servers()).hasSize(4);
        assertThat(config.power().actuator()).isEqualTo(PowerConfig.Actuator.EXEC);
        assertThat(config.power().command()).contains("{server}");
    }
}
