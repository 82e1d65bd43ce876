package org.arbiter.dist.logging;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.arbiter.dist.Main;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code --log-format}: read before picocli (to set up logging first), and validated by picocli. */
final class LoggingArgsTest {

    @TempDir
    Path dir;

    @Test
    void formatIn_findsTheOptionAnywhere_inBothSpellings() {
        assertThat(Logging.formatIn(new String[] {"gateway", "--id", "g1"})).isEqualTo(LogFormat.TEXT);
        assertThat(Logging.formatIn(new String[] {"--log-format", "json", "gateway"})).isEqualTo(LogFormat.JSON);
        assertThat(Logging.formatIn(new String[] {"gateway", "--log-format=json"})).isEqualTo(LogFormat.JSON);
        assertThat(Logging.formatIn(new String[] {"--log-format", "xml"})).isEqualTo(LogFormat.TEXT);
        assertThat(Logging.formatIn(new String[] {"--log-format"})).isEqualTo(LogFormat.TEXT);
        assertThat(Logging.formatIn(new String[] {"sim", "--", "--log-format", "json"})).isEqualTo(LogFormat.TEXT);
    }

    @Test
    void option_isAcceptedBeforeAndAfterTheSubcommand_andABadValueIsExit2() throws Exception {
        Path config = dir.resolve("cluster.yaml");
        Files.writeString(config, "classes: [{name: basic, target: 1s, default: true}]\nservers: [{id: s1, url: \"http://127.0.0.1:9\"}]\n");
        assertThat(run("--log-format", "json", "config", "check", config.toString())).isZero();
        assertThat(run("config", "check", "--log-format=json", config.toString())).isZero();
        StringWriter err = new StringWriter();
        assertThat(Main.run(new String[] {"--log-format", "xml", "--version"}, new PrintWriter(new StringWriter(), true),
                new PrintWriter(err, true))).isEqualTo(2);
        assertThat(err.toString()).contains("--log-format").contains("'xml' (expected: text or json)");
    }

    private static int run(String... args) {
        return Main.run(args, new PrintWriter(new StringWriter(), true), new PrintWriter(new StringWriter(), true));
    }
}
