package org.arbiter.sim.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
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

    @Test
    void failures_runAndCountTheirLosses_andBadOnesAreNamedWithTheirPath() throws Exception {
        Path cluster = dir.resolve("c.yaml");
        Files.writeString(cluster, """
                classes: [{name: basic, target: 3s, default: true}]
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10, sim: {cores: 10, meanDemand: 1s}}
                  - {id: s2, url: "http://127.0.0.1:9002", concurrency: 10, sim: {cores: 10, meanDemand: 1s}}
                """);
        Path ok = dir.resolve("ok.yaml");
        Files.writeString(ok, """
                classes: {basic: {}}
                phases: [{name: A, duration: 300s, rate: {basic: 15}}]
                failures:
                  - {server: s1, at: 100s, recover: 200s}
                """);
        assertThat(run("--config", cluster.toString(), "--scenario", ok.toString(), "--out", dir.resolve("out").toString(),
                "--no-grm")).isZero();
        JsonNode s = new ObjectMapper().readTree(dir.resolve("out/summary.json").toFile());
        assertThat(s.path("energy").path("lostRequests").asLong()).isPositive();
        assertThat(List.copyOf(s.properties()).stream().map(Map.Entry::getKey).toList())
                .containsExactly("durationSeconds", "classes", "phases", "simulatedRequestsPerWallSecond", "energy");
        assertThat(List.copyOf(s.path("energy").properties()).stream().map(Map.Entry::getKey).toList())
                .containsExactly("totalJoules", "serverJoules", "meanWatts", "lostRequests");
        assertThat(s.path("energy").path("serverJoules").path("s1").isIntegralNumber()).isTrue();
        assertThat(s.path("classes").path("basic").path("lost").asLong()).isEqualTo(s.path("energy").path("lostRequests").asLong());

        Path unknown = dir.resolve("unknown.yaml");
        Files.writeString(unknown, """
                classes: {basic: {}}
                phases: [{name: A, duration: 300s, rate: {basic: 1}}]
                failures: [{server: s9, at: 100s}]
                """);
        assertThat(run("--config", cluster.toString(), "--scenario", unknown.toString(), "--out", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("sim: failures[0].server: s9 (expected: one of s1, s2, the servers of");

        Path late = dir.resolve("late.yaml");
        Files.writeString(late, """
                classes: {basic: {}}
                phases: [{name: A, duration: 300s, rate: {basic: 1}}]
                failures: [{server: s1, at: 400s}]
                """);
        assertThat(run("--config", cluster.toString(), "--scenario", late.toString(), "--out", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("sim: failures[0].at: 400.0s (expected: before the scenario's end, 300.0s)");

        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, """
                classes: {basic: {}}
                phases: [{name: A, duration: 300s, rate: {basic: 1}}]
                failures:
                  - {server: s1, at: 100s, recover: 50s}
                  - {at: 10s, recvoer: 20s}
                  - {server: s2, at: -1s}
                """);
        assertThat(run("--config", cluster.toString(), "--scenario", bad.toString(), "--out", dir.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("sim: failures[0].recover: 50s (expected: later than at, 100s)")
                .contains("sim: failures[1].server: missing")
                .contains("sim: failures[1].recvoer: unknown key")
                .contains("sim: failures[2].at: -1s (expected:");
    }
}
