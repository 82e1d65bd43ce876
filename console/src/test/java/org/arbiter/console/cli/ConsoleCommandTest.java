package org.arbiter.console.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.arbiter.console.Fixtures;
import org.arbiter.console.auth.Pbkdf2;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

final class ConsoleCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        CommandLine cl = new CommandLine(new ConsoleCommand());
        cl.setOut(new PrintWriter(out, true));
        cl.setErr(new PrintWriter(err, true));
        return cl.execute(args);
    }

    @Test
    void withoutBootstrap_exits2_withOneLine() throws Exception {
        Path yaml = Files.writeString(dir.resolve("cluster.yaml"), Fixtures.yaml(false, null));
        assertThat(run("--config", yaml.toString())).isEqualTo(2);
        assertThat(err.toString().strip().lines()).singleElement().asString().startsWith("console: no Kafka bootstrap");
    }

    @Test
    void badConfig_exits2_namingTheField() throws Exception {
        Path yaml = Files.writeString(dir.resolve("bad.yaml"), "classes: []\nservers: []\n");
        assertThat(run("--config", yaml.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("classes");
    }

    @Test
    void hashPassword_printsAHashThatVerifies() {
        assertThat(run("hash-password", "--password", "s3cret", "--iterations", "1000")).isEqualTo(0);
        String hash = out.toString().strip();
        assertThat(hash).startsWith("pbkdf2:1000:");
        assertThat(Pbkdf2.verify("s3cret".toCharArray(), hash)).isTrue();
    }
}
