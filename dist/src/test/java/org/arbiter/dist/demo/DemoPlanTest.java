package org.arbiter.dist.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.ConfigWriter;
import org.arbiter.common.config.ConsoleConfig;
import org.junit.jupiter.api.Test;

final class DemoPlanTest {

    @Test
    void cluster_isValid_andScaled() {
        DemoPlan plan = new DemoPlan(120, 0.05);
        ClusterConfig c = plan.cluster("127.0.0.1:9092", new int[] {9001, 9002}, new int[] {10001, 10002},
                new int[] {8080, 8180, 8081, 8181}, 8090, null);
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
        assertThat(c.classes().get(0).targetSeconds()).isEqualTo(0.1);
        assertThat(c.classes().get(1).targetSeconds()).isCloseTo(0.15, org.assertj.core.data.Offset.offset(1e-12));
        assertThat(c.control().periodSeconds()).isEqualTo(0.25);
        // closed-loop clients, think Exp(1 s): the GRM's model must know (docs/grm.md, "Closed-loop clients")
        assertThat(c.classes()).allSatisfy(k -> assertThat(k.thinkTimeSeconds()).isEqualTo(0.05));
        assertThat(c.totalConcurrency()).isEqualTo(20);
        assertThat(c.gateways()).hasSize(2);
        assertThat(c.servers().get(1).adminUrl()).hasToString("http://127.0.0.1:10002");
        assertThat(c.console().users()).isEmpty();
        assertThat(plan.cluster("127.0.0.1:9092", new int[] {9001}, new int[] {10001}, new int[] {0, 0, 0, 0}, 0, "h")
                .console().users()).singleElement().extracting(ConsoleConfig.User::role).isEqualTo(ConsoleConfig.Role.ADMIN);
        assertThat(plan.phaseSeconds()).isEqualTo(30.0);
        assertThat(plan.scenarioYaml()).contains("{name: B, duration: 30000ms, clients: {premium: 20, basic: 20}}")
                .contains("think: 50ms");
    }

    @Test
    void relative_putsBothClassesOnTheRelativeScale_absoluteByDefault() {
        int[] ports = {8080, 8180, 8081, 8181};
        ClusterConfig rel = new DemoPlan(120, 0.05, ClassConfig.UtilitySpec.Scale.RELATIVE).cluster("127.0.0.1:9092",
                new int[] {9001}, new int[] {10001}, ports, 8090, null);
        assertThat(rel.classes()).allSatisfy(k -> assertThat(k.utility().scale())
                .isEqualTo(ClassConfig.UtilitySpec.Scale.RELATIVE));
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(rel))).isEqualTo(rel);
        assertThat(new DemoPlan(120, 0.05).cluster("127.0.0.1:9092", new int[] {9001}, new int[] {10001}, ports, 8090,
                null).classes()).allSatisfy(k -> assertThat(k.utility().scale())
                .isEqualTo(ClassConfig.UtilitySpec.Scale.ABSOLUTE));
    }

    @Test
    void badOptions_areNamed() {
        assertThatThrownBy(() -> new DemoPlan(0, 0.05)).hasMessage("--duration: 0.0 (expected: > 0)");
        assertThatThrownBy(() -> new DemoPlan(10, 2)).hasMessage("--time-scale: 2.0 (expected: 0 < x <= 1)");
    }
}
