package org.arbiter.sim;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.loadgen.client.Scenario;
import org.junit.jupiter.api.Test;

/** {@link SimScenario#from}: the one conversion from the load generator's scenario to the simulator's. */
final class SimScenarioFromTest {

    private static final ClusterConfig CLUSTER = ClusterConfig.builder()
            .addClass(ClassConfig.builder("gold", 1).isDefault(true).build())
            .addClass(ClassConfig.builder("bulk", 2).build())
            .addServer(ServerConfig.builder("s1", URI.create("http://127.0.0.1:9001")).build())
            .addServer(ServerConfig.builder("s2", URI.create("http://127.0.0.1:9002")).build())
            .addGateway(GatewayConfig.builder("g1").build())
            .build();

    private static Scenario load(List<Scenario.Phase> phases, List<Scenario.Failure> failures) {
        return new Scenario(Map.of("gold", Scenario.RequestShape.get(Map.of("X-Class", "gold"), 1)), 0.7, 30, 42,
                phases, failures);
    }

    @Test
    void everySourceKind_thinkTimeSeedAndFailures_carryOver_inOrder() {
        Scenario s = load(List.of(
                new Scenario.Phase("warm", 100, Map.of("gold", 5), Map.of("bulk", 2.5), Map.of(), Map.of()),
                new Scenario.Phase("burst", 50, Map.of(), Map.of(),
                        Map.of("bulk", new Scenario.Pareto(1.5, 1, 10, 0.1)),
                        Map.of("gold", new Scenario.Diurnal(80, 16)))),
                List.of(new Scenario.Failure("s2", 120, 140), new Scenario.Failure("s1", 10, Double.POSITIVE_INFINITY)));

        SimScenario sc = SimScenario.from(s, CLUSTER, "cluster.yaml");

        assertThat(sc).isEqualTo(new SimScenario(0.7, List.of(
                new SimScenario.Phase("warm", 100, Map.of("gold", 5), Map.of("bulk", 2.5), Map.of(), Map.of()),
                new SimScenario.Phase("burst", 50, Map.of(), Map.of(), Map.of("bulk", new Scenario.Pareto(1.5, 1, 10, 0.1)),
                        Map.of("gold", new Scenario.Diurnal(80, 16)))), 42,
                List.of(new SimScenario.Failure("s2", 120, 140),
                        new SimScenario.Failure("s1", 10, Double.POSITIVE_INFINITY))));
        assertThat(sc.totalSeconds()).isEqualTo(s.totalSeconds());
    }

    @Test
    void everyProblem_isNamedAtOnce_withThePathAndTheCluster() {
        Scenario s = load(List.of(
                new Scenario.Phase("A", 100, Map.of("silver", 1), Map.of("bronze", 1.0), Map.of(), Map.of())),
                List.of(new Scenario.Failure("s9", 10, 20), new Scenario.Failure("s1", 100, 120)));

        assertThatThrownBy(() -> SimScenario.from(s, CLUSTER, "c.yaml"))
                .isInstanceOf(ConfigException.class)
                .extracting(e -> ((ConfigException) e).errors()).asList().containsExactly(
                        "phases.A.clients.silver: (expected: a class of c.yaml)",
                        "phases.A.rate.bronze: (expected: a class of c.yaml)",
                        "failures[0].server: s9 (expected: one of s1, s2, the servers of c.yaml)",
                        "failures[1].at: 100.0s (expected: before the scenario's end, 100.0s)");
    }
}
