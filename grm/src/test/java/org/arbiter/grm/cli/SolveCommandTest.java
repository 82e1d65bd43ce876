package org.arbiter.grm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

final class SolveCommandTest {

    @TempDir
    Path dir;

    final StringWriter out = new StringWriter();
    final StringWriter err = new StringWriter();

    int run(String json, String... extra) throws Exception {
        Path f = dir.resolve("in.json");
        Files.writeString(f, json);
        CommandLine cl = new CommandLine(new SolveCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        String[] args = new String[extra.length + 2];
        args[0] = "--input";
        args[1] = f.toString();
        System.arraycopy(extra, 0, args, 2, extra.length);
        return cl.execute(args);
    }

    static final String EXAMPLE = """
            {"combine": "min", "granularity": 1, "minWeight": 1,
             "servers": [{"id": "s1", "concurrency": 10}],
             "classes": [{"name": "premium", "target": 2.0, "phi": 1, "alpha": 1, "beta": 1, "minShare": 0.0, "responseTimeCap": 10},
                         {"name": "basic", "target": 3.0}],
             "flows": [{"gateway": "g1", "class": "premium", "arrivalRate": 9.5, "responseTime": 2.4, "weight": 5, "queueLength": 3},
                       {"gateway": "g1", "class": "basic", "arrivalRate": 9.0, "responseTime": 4.0, "weight": 5}]}
            """;

    @Test
    void example_printsTheDocumentedShape() throws Exception {
        assertThat(run(EXAMPLE)).isZero();
        JsonNode r = new ObjectMapper().readTree(out.toString());
        assertThat(r.get("combine").asText()).isEqualTo("min");
        double wp = r.at("/weights/g1/premium").asDouble();
        double wb = r.at("/weights/g1/basic").asDouble();
        assertThat(wp + wb).isEqualTo(10.0);
        assertThat(r.at("/serverCaps/g1/s1").asInt()).isEqualTo(10);
        assertThat(r.at("/predicted/g1/premium/responseTime").isNumber()).isTrue();
        assertThat(r.get("objective").asDouble()).isEqualTo(Math.min(r.at("/predicted/g1/premium/utility").asDouble(),
                r.at("/predicted/g1/basic/utility").asDouble()), org.assertj.core.data.Offset.offset(1e-5));
        assertThat(r.get("solveMillis").asDouble()).isGreaterThanOrEqualTo(0);
        List<String> keys = new ArrayList<>();
        r.fieldNames().forEachRemaining(keys::add);
        assertThat(keys).containsExactly("objective", "combine", "granularity", "weights", "serverCaps", "predicted",
                "solveMillis");
        List<String> predictionKeys = new ArrayList<>();
        r.at("/predicted/g1/premium").fieldNames().forEachRemaining(predictionKeys::add);
        assertThat(predictionKeys).containsExactly("responseTime", "utility");
    }

    @Test
    void flagsOverrideTheFile() throws Exception {
        assertThat(run(EXAMPLE, "--combine", "sum", "--granularity", "10")).isZero();
        JsonNode r = new ObjectMapper().readTree(out.toString());
        assertThat(r.get("combine").asText()).isEqualTo("sum");
        assertThat(r.get("granularity").asInt()).isEqualTo(10);
    }

    @Test
    void badInput_givesOneLinePerProblem_withJsonPaths_andExit2() throws Exception {
        String bad = """
                {"servers": [],
                 "classes": [{"name": "premium", "target": -2}],
                 "flows": [{"gateway": "g1", "class": "gold", "arrivalRate": -3, "responseTime": 1, "weight": 1}]}
                """;
        assertThat(run(bad)).isEqualTo(2);
        assertThat(err.toString().lines().toList()).containsExactly(
                "servers: an empty list (expected: at least one server)",
                "classes[0].target: -2 (expected: > 0)",
                "flows[0].class: gold (expected: one of the classes: premium)",
                "flows[0].arrivalRate: -3 (expected: >= 0)");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void zeroServersAndInfeasibleBounds_areErrors() throws Exception {
        assertThat(run("""
                {"servers": [], "classes": [{"name": "a", "target": 1}],
                 "flows": [{"gateway": "g1", "class": "a", "arrivalRate": 1, "responseTime": 1, "weight": 1}]}""")).isEqualTo(2);
        assertThat(err.toString()).contains("servers: an empty list (expected: at least one server)");
        err.getBuffer().setLength(0);
        assertThat(run("""
                {"minWeight": 2, "servers": [{"id": "s1", "concurrency": 3}], "classes": [{"name": "a", "target": 1}],
                 "flows": [{"gateway": "g1", "class": "a", "arrivalRate": 1, "responseTime": 1, "weight": 1},
                           {"gateway": "g2", "class": "a", "arrivalRate": 1, "responseTime": 1, "weight": 1}]}""")).isEqualTo(2);
        assertThat(err.toString()).contains("need 4 of N = 3 (expected: N >= the sum of lower bounds)");
    }

    @Test
    void badFlagValues_giveOneLineEach_andExit2() throws Exception {
        assertThat(run(EXAMPLE, "--combine", "max", "--granularity", "0")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).containsExactly(
                "--combine: max (expected: one of min, sum)",
                "--granularity: 0 (expected: 1..1000)");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void unparsableFlag_isAUsageError_exit2() throws Exception {
        assertThat(run(EXAMPLE, "--granularity", "ten")).isEqualTo(2);
        assertThat(err.toString()).contains("--granularity");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void missingFieldsAndMalformedJson_areNamed() throws Exception {
        assertThat(run("{\"servers\": [{\"id\": \"s1\"}], \"classes\": [], \"flows\": [{\"gateway\": \"g1\"}]}")).isEqualTo(2);
        assertThat(err.toString()).contains("servers[0].concurrency: missing (expected: a value)")
                .contains("flows[0].class: missing (expected: a value)");
        err.getBuffer().setLength(0);
        assertThat(run("{nope")).isEqualTo(2);
        assertThat(err.toString()).contains("not valid JSON at line 1");
    }

    /** prediction liu: premium's backlog (ℓ = 30 against λ̃τ = 19) moves weight to it; a bad liu.k names its path. */
    @Test
    void liu_givesTheBackloggedFlowMoreThanMm1_andABadKIsNamed() throws Exception {
        String withQueue = EXAMPLE.replace("\"queueLength\": 3", "\"queueLength\": 30");
        assertThat(run(withQueue.replace("{\"combine\"", "{\"prediction\": \"mm1\", \"combine\""))).isZero();
        double mm1 = new ObjectMapper().readTree(out.toString()).at("/weights/g1/premium").asDouble();
        out.getBuffer().setLength(0);
        assertThat(run(withQueue.replace("{\"combine\"", "{\"prediction\": \"liu\", \"liu\": {\"k\": 1}, \"combine\""))).isZero();
        double liu = new ObjectMapper().readTree(out.toString()).at("/weights/g1/premium").asDouble();
        assertThat(liu).isGreaterThan(mm1);
        assertThat(run(EXAMPLE.replace("{\"combine\"", "{\"prediction\": \"liu\", \"liu\": {\"k\": -1}, \"combine\""))).isEqualTo(2);
        assertThat(err.toString()).contains("liu.k: -1 (expected: 0..1000)");
    }
}
