package org.arbiter.loadgen.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

final class CommandTest {

    @TempDir
    Path dir;

    static String[] run(Object command, String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(command);
        cl.setErr(new PrintWriter(err, true));
        int code = cl.execute(args);
        return new String[] {String.valueOf(code), err.toString()};
    }

    @Test
    void simserver_badValues_exit2_withOneLineNamingTheOption() {
        String[][] cases = {
                {"--cores: 0 (expected: >= 1)", "--port", "0", "--cores", "0"},
                {"--mean-demand: soon (expected: a duration such as 250ms, 5s or 2m)", "--port", "0", "--mean-demand", "soon"},
                {"--io-fraction: 1.5 (expected: 0 <= x < 1)", "--port", "0", "--io-fraction", "1.5"},
                {"--mode: fake (expected: emulated or real)", "--port", "0", "--mode", "fake"},
                {"--demand: premium (expected: class=duration, e.g. premium=1s)", "--port", "0", "--demand", "premium"},
                {"--watts: 1,2 (expected: four numbers off,boot,idle,busy)", "--port", "0", "--watts", "1,2"},
                {"--time-scale: 0.0 (expected: > 0)", "--port", "0", "--time-scale", "0"},
        };
        for (String[] c : cases) {
            String[] args = java.util.Arrays.copyOfRange(c, 1, c.length);
            String[] r = run(new SimServerCommand(), args);
            assertThat(r[0]).as(c[0]).isEqualTo("2");
            assertThat(r[1].lines()).containsExactly("simserver: " + c[0]);
        }
    }

    @Test
    void loadgen_badScenarioOrTarget_exit2_namingThePath() throws Exception {
        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, """
                classes: {basic: {}}
                phases:
                  - {name: A, duration: -2s, clients: {basic: 1}}
                """);
        String[] r = run(new LoadgenCommand(), "--scenario", bad.toString(), "--target", "http://127.0.0.1:1", "--out", dir.toString());
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1].lines()).containsExactly("loadgen: phases[0].duration: -2s (expected: > 0)");
        Path good = dir.resolve("good.yaml");
        Files.writeString(good, "classes: {basic: {}}\nphases: [{name: A, duration: 1s, clients: {basic: 1}}]\n");
        r = run(new LoadgenCommand(), "--scenario", good.toString(), "--target", "ftp://x", "--out", dir.toString());
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1].lines()).containsExactly("loadgen: --target: ftp://x (expected: http://host:port)");
    }

    @Test
    void loadgen_refusesServerFailures_whichOnlyTheSimulatorRuns() throws Exception {
        Path f = dir.resolve("failures.yaml");
        Files.writeString(f, """
                classes: {basic: {}}
                phases: [{name: A, duration: 1s, clients: {basic: 1}}]
                failures: [{server: s1, at: 0.5s, recover: 0.8s}]
                """);
        String[] r = run(new LoadgenCommand(), "--scenario", f.toString(), "--target", "http://127.0.0.1:1", "--out", dir.toString());
        assertThat(r[0]).isEqualTo("2");
        assertThat(r[1].lines()).containsExactly("loadgen: failures: 1 server failure(s) (expected: none; only `arbiter sim`"
                + " simulates them; live, crash a simserver with POST /fault {\"kind\": \"crash\"} on its admin port)");
    }
}
