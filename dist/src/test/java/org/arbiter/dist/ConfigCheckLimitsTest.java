package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.PrintWriter;
import java.io.RandomAccessFile;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** {@code arbiter config check} on hostile files (issue #14 part 5): exit 2, one line, and the reading ends (no endless read). */
final class ConfigCheckLimitsTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** Picocli's and Jackson's classes loaded once before the guarded runs. */
    @org.junit.jupiter.api.BeforeAll
    static void warmUp(@TempDir Path tmp) throws Exception {
        Path ok = tmp.resolve("ok.yaml");
        Files.writeString(ok, "classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: \"http://127.0.0.1:1\"}]\n");
        assertThat(Main.run(new String[] {"config", "check", ok.toString()}, new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()))).isZero();
    }

    /**
     * Runs the command in-process; returns the exit code. The check must end (a reader without its
     * limits would read /dev/zero until it ran out of memory): guarded by 30 s, which holds on a busy
     * machine, not timed against a second, which a loaded machine could fail.
     */
    private int check(Path file) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Main.run(new String[] {"config", "check",
                file.toString()}, new PrintWriter(out, true), new PrintWriter(err, true)));
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void devZero_exits2_withOneLine() {
        assertThat(check(Path.of("/dev/zero"))).isEqualTo(2);
        assertThat(err.toString().lines().toList())
                .containsExactly("/dev/zero: larger than 4MiB (expected: a configuration file of at most 4MiB)");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void aFiftyMegabyteFile_exits2_withOneLine() throws Exception {
        Path big = dir.resolve("big.yaml");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(50L << 20);
        }
        assertThat(check(big)).isEqualTo(2);
        assertThat(err.toString().lines().toList())
                .containsExactly(big + ": larger than 4MiB (expected: a configuration file of at most 4MiB)");
    }

    @Test
    void aDuplicateKey_exits2_withOneLineNamingBothLines() throws Exception {
        Path f = dir.resolve("dup.yaml");
        Files.writeString(f, """
                classes:
                  - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 3s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
                console:
                  port: 8090
                  publicRead: false
                  port: 9090
                """);
        assertThat(check(f)).isEqualTo(2);
        assertThat(err.toString().lines().toList())
                .containsExactly("console.port: given twice, at lines 7 and 9 (expected: each key once in a mapping)");
        assertThat(out.toString()).isEmpty();
    }

    @Test
    void anOverflowingSize_exits2_namingThePath() throws Exception {
        Path f = dir.resolve("size.yaml");
        Files.writeString(f, """
                classes: [{name: a, target: 1s, default: true}]
                servers: [{id: s1, url: "http://127.0.0.1:1"}]
                dispatch: {maxBodyBytes: 99999999999GiB}
                """);
        assertThat(check(f)).isEqualTo(2);
        assertThat(err.toString().lines().toList()).containsExactly(
                "dispatch.maxBodyBytes: 99999999999GiB (expected: at most 9223372036854775807 bytes, 8EiB)");
    }
}
