package org.arbiter.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

final class SimCommandTest {

    @TempDir
    Path dir;

    final StringWriter err = new StringWriter();

    int run(String... args) {
        CommandLine cl = new CommandLine(new SimCommand());
        cl.setOut(new PrintWriter(new StringWriter(), true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void clusterAndScenario_giveTheLoadgenOutputs_plusAllocations() throws Exception {
        Path cluster = dir.resolve("cluster.yaml");
        Files.writeString(cluster, """
                classes:
                  - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 3s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10, sim: {cores: 10, meanDemand: 1s}}
                gateways:
                  - {id: g1, port: 8080}
                """);
        Path scenario = dir.resolve("scenario.yaml");
        Files.writeString(scenario, """
                classes:
                  premium: {headers: {X-Class: premium}}
                  basic: {}
                think: 1s
                phases:
                  - {name: B, duration: 300s, clients: {premium: 20, basic: 20}}
                  - {name: D, duration: 300s, clients: {premium: 20, basic: 5}}
                """);
        assertThat(run("--config", cluster.toString(), "--scenario", scenario.toString(), "--out", dir.resolve("out").toString()))
                .isZero();
        JsonNode s = new ObjectMapper().readTree(dir.resolve("out/summary.json").toFile());
        assertThat(s.path("phases")).hasSize(2);
        JsonNode p = s.path("classes").path("premium");
        assertThat(p.path("sent").asLong()).isEqualTo(p.path("ok").asLong() + p.path("rejected").asLong()
                + p.path("errors").asLong() + p.path("timedOut").asLong() + p.path("lost").asLong());
        assertThat(s.path("simulatedRequestsPerWallSecond").asLong()).isPositive();
        assertThat(Files.readAllLines(dir.resolve("out/allocations.jsonl"))).isNotEmpty();
        assertThat(dir.resolve("out/timeseries.jsonl")).exists();
    }

    @Test
    void unknownClassInTheScenario_isNamed() throws Exception {
        Path cluster = dir.resolve("c.yaml");
        Files.writeString(cluster, """
                classes: [{name: basic, target: 3s, default: true}]
                servers: [{id: s1, url: "http://127.0.0.1:9001"}]
                """);
        Path scenario = dir.resolve("s.yaml");
        Files.writeString(scenario, """
                classes: {gold: {}}
                phases: [{name: A, duration: 10s, clients: {gold: 1}}]
                """);
        assertThat(run("--config", cluster.toString(), "--scenario", scenario.toString(), "--out", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("sim: phases.A.clients.gold: (expected: a class of");
    }
}
