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
 * A configuration built in code is checked by the loader's rules when it is built
 * ({@link ClusterConfig.Builder#build()} runs {@link ClusterConfig#validate()}), with the same paths and
 * messages; whatever the loader accepts, the check accepts too.
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
    void aConfigurationBuiltInCode_isRefusedByTheLoadersRules_everyProblemAtOnce() {
        ClassConfig premium = ClassConfig.builder("premium", 2).build();
        ClusterConfig.Builder builder = ClusterConfig.builder()
                .addClass(premium)
                .addClass(ClassConfig.builder("basic", 3).build())
                .addServer(ServerConfig.builder("s1", java.net.URI.create("http://127.0.0.1:9001")).build())
                .addGateway(GatewayConfig.builder("g1").port(9000).build())
                .addGateway(GatewayConfig.builder("g2").port(9000).build())
                .control(ControlConfig.builder().granularity(5000).statsWindowSeconds(1).build())
                .sizing(SizingConfig.builder().minServers(3).maxServers(2).build())
                .dispatch(DispatchConfig.builder().maxHeaderBytes(100).build());
        assertThatThrownBy(builder::build).isInstanceOf(ConfigException.class)
                .extracting(e -> ((ConfigException) e).errors()).asList().containsExactlyInAnyOrder(
                        "classes: 0 classes marked default (expected: exactly one class with default: true)",
                        "gateways[1].port: 9000 (expected: a port no other gateway uses)",
                        "gateways[1].adminPort: 9100 (expected: a port no other gateway uses)",
                        "dispatch.maxHeaderBytes: 100 (expected: >= 256 bytes)",
                        "control.granularity: 5000 (expected: 1..1000)",
                        "control.statsWindow: 1s (expected: >= control.reportPeriod, 5s)",
                        "sizing.minServers: 3 (expected: <= sizing.maxServers, 2)");
    }

    @Test
    void oneBadKeyInCode_isRefusedWithAMessageNamingTheKey_andTheSameConfigurationIsAcceptedOnceFixed() {
        ClusterConfig.Builder builder = ClusterConfig.builder()
                .addClass(ClassConfig.builder("basic", 3).isDefault(true).build())
                .addServer(ServerConfig.builder("s1", java.net.URI.create("http://127.0.0.1:9001")).build())
                .control(ControlConfig.builder().reportPeriodSeconds(10).statsWindowSeconds(5).build());
        assertThatThrownBy(builder::build).isInstanceOf(ConfigException.class)
                .hasMessage("control.statsWindow: 5s (expected: >= control.reportPeriod, 10s)");
        ClusterConfig fixed = builder.control(ControlConfig.builder().reportPeriodSeconds(10).statsWindowSeconds(30).build())
                .build();
        assertThat(fixed.problems()).isEmpty();
        assertThat(fixed.control().statsWindowSeconds()).isEqualTo(30);
    }

    @Test
    void noClassesOrServers_isRefused_namingTheRequiredKeys() {
        assertThatThrownBy(() -> ClusterConfig.builder().build()).isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).errors())
                        .anySatisfy(l -> assertThat(l).startsWith("classes"))
                        .anySatisfy(l -> assertThat(l).startsWith("servers")));
    }

    @Test
    void aConfigurationMadeWithTheConstructor_isStillCheckedByValidate() {
        ClusterConfig ok = ClusterConfig.builder()
                .addClass(ClassConfig.builder("basic", 3).isDefault(true).build())
                .addServer(ServerConfig.builder("s1", java.net.URI.create("http://127.0.0.1:9001")).build())
                .build();
        ClusterConfig bad = new ClusterConfig(ok.classes(), ok.servers(), ok.gateways(), ok.dispatch(),
                ControlConfig.builder().granularity(0).build(), ok.sizing(), ok.power(), ok.kafka(), ok.console(),
                ok.gatewayHttp(), ok.grm());
        assertThat(bad.problems()).containsExactly("control.granularity: 0 (expected: 1..1000)");
        assertThatThrownBy(bad::validate).isInstanceOf(ConfigException.class);
    }
}
