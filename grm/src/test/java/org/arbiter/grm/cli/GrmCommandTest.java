package org.arbiter.grm.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code arbiter grm}'s admin-port handling: bad values exit 2, a port taken exits 1, before any Kafka. */
final class GrmCommandTest {

    @TempDir
    Path dir;

    private int run(StringWriter err, String... args) {
        CommandLine cl = new CommandLine(new GrmCommand());
        cl.setErr(new PrintWriter(err, true));
        cl.setOut(new PrintWriter(new StringWriter(), true));
        return cl.execute(args);
    }

    @Test
    void adminPortOutOfRange_exits2_andATakenPort_exits1_namingIt() throws Exception {
        Path config = dir.resolve("cluster.yaml");
        Files.writeString(config, "classes: [{name: a, target: 1s, default: true}]\n"
                + "servers: [{id: s1, url: 'http://127.0.0.1:9'}]\nkafka: {bootstrap: '127.0.0.1:1'}\n");
        StringWriter err = new StringWriter();
        assertThat(run(err, "--config", config.toString(), "--admin-port", "70000")).isEqualTo(2);
        assertThat(err.toString()).contains("grm: --admin-port 70000 (expected: 0..65535)");

        try (ServerSocket taken = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            err = new StringWriter();
            assertThat(run(err, "--config", config.toString(), "--id", "grm-t", "--admin-port",
                    Integer.toString(taken.getLocalPort()))).isEqualTo(1);
            assertThat(err.toString()).contains("grm: cannot bind the admin port 127.0.0.1:" + taken.getLocalPort());
        }

        Files.writeString(config, Files.readString(config) + "grm: {adminPort: -1}\n");
        err = new StringWriter();
        assertThat(run(err, "--config", config.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("grm.adminPort: -1 (expected: 0..65535)");
    }
}
