package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class ConfigCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    }

    @Test
    void check_printsEffectiveConfiguration_withDefaults() throws Exception {
        Path f = dir.resolve("cluster.yaml");
        Files.writeString(f, """
                classes:
                  - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 3s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
                """);
        assertThat(run("config", "check", f.toString())).isZero();
        assertThat(out.toString()).contains("period: \"5s\"").contains("scheduler: \"wrr\"").contains("name: \"premium\"");
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void check_withThreeMistakes_printsThreeLinesWithPaths_andExits2() throws Exception {
        Path f = dir.resolve("bad.yaml");
        Files.writeString(f, """
                classes:
                  - {name: premium, target: 2s}
                  - {name: basic, target: -2s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurency: 10}
                control: {combine: average}
                """);
        assertThat(run("config", "check", f.toString())).isEqualTo(2);
        assertThat(err.toString().lines().toList()).containsExactly(
                "classes[1].target: -2s (expected: > 0)",
                "servers[0].concurency: unknown key (expected: one of id, url, concurrency, power, adminUrl, loadUrl, sim, concurrencyControl, health; did you mean 'concurrency'?)",
                "control.combine: average (expected: one of min, sum)");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void badArguments_giveOneLine_andExit2() {
        assertThat(run("config", "check")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .startsWith("arbiter config check: Missing required parameter: 'FILE'");
        err.getBuffer().setLength(0);
        assertThat(run("nosuch")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString().startsWith("arbiter: Unmatched argument");
    }

    @Test
    void experimentLive_forScale_saysItIsNotAvailable_andExits2() {
        assertThat(run("experiment", "scale", "--out", "target/x", "--live")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --live: scale (expected: --live with concurrency, phases, regions, energy or bursty)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "scale", "--out", "target/x", "--size", "10,x,2")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --size: 10,x,2 (expected: G,S,C whole numbers, G >= 1, S >= 1, C >= 2, or medium"
                        + " (100,1000,20) or large (1000,10000,20))");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "scale", "--out", "target/x", "--size", "large", "--pools", "21")).as("a preset")
                .isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --pools: 21 (expected: 0, or 1 to min(classes, servers) = 20)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "scale", "--out", "target/x", "--size", "4,20,5", "--pools", "6")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --pools: 6 (expected: 0, or 1 to min(classes, servers) = 5)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "scale", "--out", "target/x", "--pools", "4", "--owners", "5")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --owners: 5 (expected: 1 to the number of pools, 4)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "scale", "--out", "target/x", "--owners", "2")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --owners: 2 (expected: with --pools P)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "energy", "--out", "target/x", "--pools", "2")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --pools/--owners: energy (expected: with scale)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "phases", "--out", "target/x", "--seeds", "3")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --seeds: phases (expected: --seeds with energy)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "energy", "--out", "target/x", "--seeds", "-1")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --seeds: -1 (expected: 0 to 1000)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "faults", "--out", "target/x", "--faults", "simserver-kill,disk-full")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --faults: disk-full (expected: all or some of simserver-kill, simserver-stop,"
                        + " grm-leader-kill, grm-leader-term, broker-term, broker-kill, gateway-term, grm-member-kill)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "scale", "--out", "target/x", "--quick")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --quick: scale (expected: with faults or abuse)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "faults", "--out", "target/x", "--connections", "5")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --connections: faults (expected: with abuse)");
        err.getBuffer().setLength(0);
        assertThat(run("experiment", "abuse", "--out", "target/x", "--connections", "0")).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString()
                .isEqualTo("experiment: --connections: 0 (expected: 1 to 10000)");
    }

    @Test
    void everyCommand_hasHelp() {
        for (String c : new String[] {"kafka", "config", "grm", "solve", "gateway", "simserver", "loadgen", "console", "sim", "experiment", "demo"}) {
            out.getBuffer().setLength(0);
            assertThat(run(c, "--help")).as(c).isZero();
            assertThat(out.toString()).as(c).contains("Usage: arbiter " + c);
        }
    }
}
