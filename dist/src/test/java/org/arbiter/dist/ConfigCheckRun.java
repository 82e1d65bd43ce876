package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;

/**
 * {@code arbiter config check FILE} run in-process with its output captured, for the tests of what
 * the check does with hostile files. The check must end (a reader without its limits would read
 * /dev/zero until it ran out of memory): each run is guarded by 30 s, which holds on a busy machine,
 * not timed against a second, which a loaded machine could fail. Not thread-safe.
 */
final class ConfigCheckRun {

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    /** Loads picocli's and Jackson's classes once (a {@code @BeforeAll}), before any guarded run. */
    static void warmUp(Path tmp) throws Exception {
        Path ok = tmp.resolve("ok.yaml");
        Files.writeString(ok, "classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: \"http://127.0.0.1:1\"}]\n");
        assertThat(Main.run(new String[] {"config", "check", ok.toString()}, new PrintWriter(new StringWriter()),
                new PrintWriter(new StringWriter()))).isZero();
    }

    /** Runs the check on {@code file}; its exit code. */
    int check(Path file) {
        return assertTimeoutPreemptively(Duration.ofSeconds(30), () -> Main.run(new String[] {"config", "check",
                file.toString()}, new PrintWriter(out, true), new PrintWriter(err, true)));
    }

    /** What the runs printed on standard output. */
    String out() {
        return out.toString();
    }

    /** What the runs printed on standard error. */
    String err() {
        return err.toString();
    }
}
