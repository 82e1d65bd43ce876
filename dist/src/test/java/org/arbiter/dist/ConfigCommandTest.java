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
                "servers[0].concurency: unknown key (expected: one of id, url, concurrency, adaptiveLimit, power, adminUrl, loadUrl, sim, concurrencyControl, health; did you mean 'concurrency'?)",
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
        refused("experiment: --live: scale (expected: --live with concurrency, phases, regions, energy or bursty)",
                "experiment", "scale", "--out", "target/x", "--live");
        refused("experiment: --size: 10,x,2 (expected: G,S,C whole numbers, G >= 1, S >= 1, C >= 2, or medium"
                + " (100,1000,20) or large (1000,10000,20))",
                "experiment", "scale", "--out", "target/x", "--size", "10,x,2");
        refused("experiment: --pools: 21 (expected: 0, or 1 to min(classes, servers) = 20)",
                "experiment", "scale", "--out", "target/x", "--size", "large", "--pools", "21");
        refused("experiment: --pools: 6 (expected: 0, or 1 to min(classes, servers) = 5)",
                "experiment", "scale", "--out", "target/x", "--size", "4,20,5", "--pools", "6");
        refused("experiment: --owners: 5 (expected: 1 to the number of pools, 4)",
                "experiment", "scale", "--out", "target/x", "--pools", "4", "--owners", "5");
        refused("experiment: --owners: 2 (expected: with --pools P)",
                "experiment", "scale", "--out", "target/x", "--owners", "2");
        refused("experiment: --pools/--owners: energy (expected: with scale)",
                "experiment", "energy", "--out", "target/x", "--pools", "2");
        refused("experiment: --seeds: phases (expected: --seeds with energy)",
                "experiment", "phases", "--out", "target/x", "--seeds", "3");
        refused("experiment: --seeds: -1 (expected: 0 to 1000)",
                "experiment", "energy", "--out", "target/x", "--seeds", "-1");
        refused("experiment: --faults: disk-full (expected: all or some of simserver-kill, simserver-stop,"
                + " grm-leader-kill, grm-leader-term, broker-term, broker-kill, gateway-term, grm-member-kill)",
                "experiment", "faults", "--out", "target/x", "--faults", "simserver-kill,disk-full");
        refused("experiment: --quick: scale (expected: with faults, abuse or overload)",
                "experiment", "scale", "--out", "target/x", "--quick");
        refused("experiment: --runs/--spikes/--contenders: phases (expected: with overload)",
                "experiment", "phases", "--out", "target/x", "--runs", "2");
        refused("experiment: --runs: 0 (expected: 1 to 100)",
                "experiment", "overload", "--out", "target/x", "--runs", "0");
        refused("experiment: --spikes: 3,x (expected: multiples of the capacity, each above 0 and at most 100,"
                + " comma-separated, e.g. 1.4,3,10)", "experiment", "overload", "--out", "target/x", "--spikes", "3,x");
        refused("experiment: --contenders: envoy (expected: all, or a comma-separated list of arbiter-grm,"
                + " arbiter-grm-queue, arbiter-static, arbiter-gradient2, arbiter-vegas, haproxy, nginx)",
                "experiment", "overload", "--out", "target/x", "--contenders", "envoy");
        refused("experiment: --connections: faults (expected: with abuse)",
                "experiment", "faults", "--out", "target/x", "--connections", "5");
        refused("experiment: --connections: 0 (expected: 1 to 10000)",
                "experiment", "abuse", "--out", "target/x", "--connections", "0");
    }

    /** The command exits 2 with exactly {@code message} on stderr. */
    private void refused(String message, String... args) {
        err.getBuffer().setLength(0);
        assertThat(run(args)).as(String.join(" ", args)).isEqualTo(2);
        assertThat(err.toString().lines().toList()).singleElement().asString().isEqualTo(message);
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
