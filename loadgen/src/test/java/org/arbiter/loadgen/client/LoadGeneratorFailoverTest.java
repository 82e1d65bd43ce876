package org.arbiter.loadgen.client;

import org.arbiter.runtime.net.Ports;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The closed-loop client's failover: a request whose connection is refused or closed before any
 * answer byte is sent again to the next target and answered there; one whose answer had started
 * is an error, never resent.
 */
final class LoadGeneratorFailoverTest {

    @TempDir
    Path dir;

    private static Scenario scenario(int clients, double seconds) {
        return Scenario.parse(String.format(java.util.Locale.ROOT, """
                classes:
                  basic: {headers: {X-Class: basic}}
                think: 20ms
                timeout: 10s
                seed: 3
                phases:
                  - {name: one, duration: %.0fms, clients: {basic: %d}}
                """, seconds * 1000, clients));
    }

    @Test
    void refusedTarget_requestsFailOverToTheNextTarget_andAllAreAnswered() throws Exception {
        int dead = Ports.free();
        try (SimServer server = SimServer.start(SimServerOptions.defaults().withDemand(4, 0.005, 0))) {
            LoadGenerator g = new LoadGenerator(scenario(4, 3.0),
                    List.of(URI.create("http://127.0.0.1:" + dead), URI.create("http://127.0.0.1:" + server.port())), null);
            g.run(dir.resolve("a"));
            StatusTally t = g.tally();
            assertThat(t.sent()).isGreaterThan(4);
            assertThat(t.count(200)).isEqualTo(t.sent());
            assertThat(t.connectionErrors()).isZero();
            assertThat(t.lost()).isZero();
            // The two clients first placed on the dead target moved once each, then stayed on the live one.
            assertThat(t.failovers()).isEqualTo(2);
            assertThat(t.failoversAfterConnect()).as("refused: never connected").isZero();
        }
    }

    @Test
    void targetClosingBeforeAnyByte_failsOver_butOneClosingMidAnswer_isAnError() throws Exception {
        try (ServerSocket silent = closer(false); ServerSocket partial = closer(true);
             SimServer server = SimServer.start(SimServerOptions.defaults().withDemand(4, 0.005, 0))) {
            LoadGenerator g = new LoadGenerator(scenario(1, 3.0),
                    List.of(URI.create("http://127.0.0.1:" + silent.getLocalPort()),
                            URI.create("http://127.0.0.1:" + server.port())), null);
            g.run(dir.resolve("b"));
            StatusTally t = g.tally();
            assertThat(t.failovers()).isEqualTo(1);
            assertThat(t.failoversAfterConnect()).as("connected, request sent, closed unanswered").isEqualTo(1);
            assertThat(t.count(200)).isEqualTo(t.sent()).isGreaterThan(5);

            LoadGenerator h = new LoadGenerator(scenario(1, 3.0),
                    List.of(URI.create("http://127.0.0.1:" + partial.getLocalPort()),
                            URI.create("http://127.0.0.1:" + server.port())), null);
            h.run(dir.resolve("c"));
            StatusTally u = h.tally();
            assertThat(u.failovers()).as("an answer had started: not resent").isZero();
            assertThat(u.connectionErrors()).isEqualTo(u.sent()).isGreaterThan(5);
            assertThat(u.answered()).isZero();
        }
    }

    /** A server that reads a request and closes, optionally after the first bytes of an answer. */
    private static ServerSocket closer(boolean partialAnswer) throws IOException {
        ServerSocket s = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread t = new Thread(() -> {
            while (!s.isClosed()) {
                try (Socket c = s.accept()) {
                    InputStream in = c.getInputStream();
                    byte[] buf = new byte[4096];
                    StringBuilder head = new StringBuilder();
                    int n;
                    while (!head.toString().contains("\r\n\r\n") && (n = in.read(buf)) > 0) {
                        head.append(new String(buf, 0, n, StandardCharsets.ISO_8859_1));
                    }
                    if (partialAnswer) {
                        OutputStream out = c.getOutputStream();
                        out.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\nabc".getBytes(StandardCharsets.ISO_8859_1));
                        out.flush();
                    }
                } catch (IOException e) {
                    // closed
                }
            }
        }, "closer");
        t.setDaemon(true);
        t.start();
        return s;
    }
}
