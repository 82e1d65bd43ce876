package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** {@code arbiter config check} on hostile files (issue #14 part 5): exit 2, one line, and the reading ends (no endless read). */
final class ConfigCheckLimitsTest {

    @TempDir
    Path dir;

    private final ConfigCheckRun run = new ConfigCheckRun();

    /** Picocli's and Jackson's classes loaded once before the guarded runs. */
    @org.junit.jupiter.api.BeforeAll
    static void warmUp(@TempDir Path tmp) throws Exception {
        ConfigCheckRun.warmUp(tmp);
    }

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void devZero_exits2_withOneLine() {
        assertThat(run.check(Path.of("/dev/zero"))).isEqualTo(2);
        assertThat(run.err().lines().toList())
                .containsExactly("/dev/zero: larger than 4MiB (expected: a configuration file of at most 4MiB)");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void aFiftyMegabyteFile_exits2_withOneLine() throws Exception {
        Path big = dir.resolve("big.yaml");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(50L << 20);
        }
        assertThat(run.check(big)).isEqualTo(2);
        assertThat(run.err().lines().toList())
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
        assertThat(run.check(f)).isEqualTo(2);
        assertThat(run.err().lines().toList())
                .containsExactly("console.port: given twice, at lines 7 and 9 (expected: each key once in a mapping)");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void anOverflowingSize_exits2_namingThePath() throws Exception {
        Path f = dir.resolve("size.yaml");
        Files.writeString(f, """
                classes: [{name: a, target: 1s, default: true}]
                servers: [{id: s1, url: "http://127.0.0.1:1"}]
                dispatch: {maxBodyBytes: 99999999999GiB}
                """);
        assertThat(run.check(f)).isEqualTo(2);
        assertThat(run.err().lines().toList()).containsExactly(
                "dispatch.maxBodyBytes: 99999999999GiB (expected: at most 9223372036854775807 bytes, 8EiB)");
    }
}
