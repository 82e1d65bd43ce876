package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.arbiter.common.config.ConfigException;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code arbiter config check} on files that amplify their own error messages (issue 30, item 5),
 * run in-process through {@link Main#run}. Before the change, the aliased file below ran 25 s,
 * reached 4.4 GB and died with OutOfMemoryError: each of 1 000 errors quoted the 4 MB value.
 */
final class BoundedConfigErrorsTest {

    /** A bound on everything {@code config check} may print for one file (50 lines of at most ~1 000 chars). */
    private static final int MAX_ERR_CHARS = (ConfigException.MAX_ERRORS + 1) * (ConfigException.MAX_LINE_CHARS + 40);

    @TempDir
    Path dir;

    private final ConfigCheckRun run = new ConfigCheckRun();

    @BeforeAll
    static void warmUp(@TempDir Path tmp) throws Exception {
        ConfigCheckRun.warmUp(tmp);
    }

    @Test
    void aFourMegabyteStringBehindAThousandAliases_exits2_withOneBoundedLine() throws Exception {
        // the 4 MB string as a block scalar of 4 000 lines of 1 000 characters (one line of 4 MB is refused first, below)
        StringBuilder yaml = new StringBuilder(4_100_000).append("x: &a |\n");
        String line = "a".repeat(1_000);
        for (int i = 0; i < 4_000; i++) {
            yaml.append("  ").append(line).append('\n');
        }
        yaml.append("classes:\n");
        for (int i = 0; i < 1_000; i++) {
            yaml.append("  - *a\n");
        }
        Path f = dir.resolve("amplify.yaml");
        Files.writeString(f, yaml);
        assertThat(Files.size(f)).isBetween(4_000_000L, 4L << 20);

        assertThat(run.check(f)).isEqualTo(2);
        assertThat(run.err().lines().toList()).containsExactly("(yaml): aliases expand to more than 1048576"
                + " characters at line 4003, alias *a (expected: at most 1000 aliases adding at most 100000 values and"
                + " 1048576 characters)");
        assertThat(run.out()).isEmpty();
    }

    @Test
    void aFourMegabyteLine_exits2_beforeParsing() throws Exception {
        StringBuilder yaml = new StringBuilder("x: &a \"").append("a".repeat(4_000_000)).append("\"\nclasses:\n");
        for (int i = 0; i < 1_000; i++) {
            yaml.append("  - *a\n");
        }
        Path f = dir.resolve("line.yaml");
        Files.writeString(f, yaml);

        assertThat(run.check(f)).isEqualTo(2);
        assertThat(run.err().lines().toList())
                .containsExactly("(yaml): line 1 has 4000008 characters (expected: at most 65536 a line)");
    }

    @Test
    void sixtyFourLinesOfSixtyFourKibibytes_areReadQuickly_andTheirErrorsCut() throws Exception {
        StringBuilder yaml = new StringBuilder("classes:\n");
        for (int i = 0; i < 63; i++) {
            yaml.append("  - \"").append("b".repeat((64 << 10) - 6)).append("\"\n");
        }
        Path f = dir.resolve("wide.yaml");
        Files.writeString(f, yaml);

        assertThat(run.check(f)).isEqualTo(2);
        assertThat(run.err().lines().toList()).hasSize(ConfigException.MAX_ERRORS + 1)
                .allSatisfy(l -> assertThat(l.length()).isLessThan(200));
    }

    @Test
    void aHundredAndTwentyLongBadValues_listFiftyProblems_eachValueCut_andCountTheRest() throws Exception {
        StringBuilder yaml = new StringBuilder("classes:\n");
        for (int i = 0; i < 120; i++) {
            yaml.append("  - \"").append(Character.toString('a' + i % 26).repeat(5_000)).append("\"\n");
        }
        Path f = dir.resolve("long.yaml");
        Files.writeString(f, yaml);

        assertThat(run.check(f)).isEqualTo(2);
        List<String> lines = run.err().lines().toList();
        assertThat(lines).hasSize(ConfigException.MAX_ERRORS + 1);
        assertThat(lines.get(0)).isEqualTo("classes[0]: " + "a".repeat(64) + "… (5000 chars) (expected: a mapping)");
        assertThat(lines.get(ConfigException.MAX_ERRORS)).matches("\\(and \\d+ more problems\\)");
        assertThat(run.err().length()).isLessThan(MAX_ERR_CHARS);
    }

    @Test
    void aLongUnknownKeyAndAHugeNumber_areQuotedShort() throws Exception {
        // YAML limits a plain key to 1024 characters; a 60 000-digit number used to be parsed (and printed) whole
        Path f = dir.resolve("keys.yaml");
        Files.writeString(f, "classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: \"http://127.0.0.1:1\"}]\n"
                + "k" + "x".repeat(1_000) + ": 1\n"
                + "dispatch: {pollSize: \"" + "9".repeat(60_000) + "\"}\n");
        assertThat(run.check(f)).isEqualTo(2);
        List<String> lines = run.err().lines().toList();
        assertThat(lines).hasSize(2).allSatisfy(l -> assertThat(l.length()).isLessThan(ConfigException.MAX_LINE_CHARS));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("dispatch.pollSize: 9999").contains("… (60000 chars)"));
        assertThat(lines).anySatisfy(l -> assertThat(l).startsWith("kxxx").contains("… (1001 chars): unknown key"));
    }
}
