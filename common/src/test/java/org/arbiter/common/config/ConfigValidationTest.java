package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * A configuration built in code is checked by the loader's rules ({@link ClusterConfig#validate()}),
 * with the same paths and messages; whatever the loader accepts, the check accepts too.
 */
final class ConfigValidationTest {

    static List<Path> examples() throws IOException {
        return ExamplesTest.examples();
    }

    @ParameterizedTest
    @MethodSource("examples")
    void everyExample_loadsToAConfigurationWithoutProblems(Path file) {
        assertThat(ConfigLoader.load(file).problems()).as("%s", file).isEmpty();
    }

    @Test
    void theTestFiles_loadToConfigurationsWithoutProblems() {
        assertThat(ConfigLoader.parse(ConfigLoaderTest.MINIMAL).problems()).isEmpty();
        assertThat(ConfigLoader.parse(ConfigLoaderTest.FULL).problems()).isEmpty();
    }

    @Test
    void aConfigurationBuiltInCode_isCheckedByTheLoadersRules_everyProblemAtOnce() {
        ClassConfig premium = ClassConfig.builder("premium", 2).build();
        ClusterConfig built = ClusterConfig.builder()
                .addClass(premium)
                .addClass(ClassConfig.builder("basic", 3).build())
                .addServer(ServerConfig.builder("s1", java.net.URI.create("http://127.0.0.1:9001")).build())
                .addGateway(GatewayConfig.builder("g1").port(9000).build())
                .addGateway(GatewayConfig.builder("g2").port(9000).build())
                .control(ControlConfig.builder().granularity(5000).statsWindowSeconds(1).build())
                .sizing(SizingConfig.builder().minServers(3).maxServers(2).build())
                .dispatch(DispatchConfig.builder().maxHeaderBytes(100).build())
                .build();
        assertThatThrownBy(built::validate).isInstanceOf(ConfigException.class)
                .extracting(e -> ((ConfigException) e).errors()).asList().containsExactlyInAnyOrder(
                        "classes: 0 classes marked default (expected: exactly one class with default: true)",
                        "gateways[1].port: 9000 (expected: a port no other gateway uses)",
                        "gateways[1].adminPort: 9100 (expected: a port no other gateway uses)",
                        "dispatch.maxHeaderBytes: 100 (expected: >= 256 bytes)",
                        "control.granularity: 5000 (expected: 1..1000)",
                        "control.statsWindow: 1s (expected: >= control.reportPeriod, 5s)",
                        "sizing.minServers: 3 (expected: <= sizing.maxServers, 2)");
    }
}
