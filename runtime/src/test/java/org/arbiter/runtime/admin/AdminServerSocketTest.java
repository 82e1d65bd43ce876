package org.arbiter.runtime.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.arbiter.runtime.metrics.MetricsServer;
import org.junit.jupiter.api.Test;

/**
 * The GRM's admin server ({@link MetricsServer} on {@link AdminServer}) on real sockets: a client
 * that sends half a request line and waits blocks nobody and is closed at the request timeout; the
 * connection cap refuses the connection over it with 503 and serves again once one closes. (The
 * JDK server it replaced served one request at a time on one thread, without a timeout.)
 */
final class AdminServerSocketTest {

    private static final long TIMEOUT_NANOS = Duration.ofMillis(600).toNanos();

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    private int get(int port, String path) throws Exception {
        return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
                .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.ofString()).statusCode();
    }

    /** Reads until the peer closes; -1 at end of stream, else a byte (the peer answered). */
    private static int readUntilClosed(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        return in.read();
    }

    @Test
    void aHalfSentRequestLine_blocksNoOtherRequest_andIsClosedAtTheRequestTimeout() throws Exception {
        try (MetricsServer server = MetricsServer.start("t", "127.0.0.1", 0, new AdminLimits(8, 16 << 10, TIMEOUT_NANOS),
                () -> "up 1\n");
             Socket half = new Socket("127.0.0.1", server.port())) {
            half.getOutputStream().write("GET /hea".getBytes(StandardCharsets.US_ASCII));
            half.getOutputStream().flush();
            await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 1);
            // while it waits, others are served
            for (int i = 0; i < 5; i++) {
                assertThat(get(server.port(), "/health")).isEqualTo(200);
                assertThat(get(server.port(), "/metrics")).isEqualTo(200);
            }
            // trickling keeps nothing open: the timeout runs from the connection's start, not its last byte
            half.getOutputStream().write("l".getBytes(StandardCharsets.US_ASCII));
            assertThat(readUntilClosed(half)).as("closed without an answer").isEqualTo(-1);
            await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == 0);
        }
    }

    @Test
    void theConnectionCap_refusesTheConnectionOverIt_with503_andServesOnceOneCloses() throws Exception {
        int cap = 4;
        try (MetricsServer server = MetricsServer.start("t", "127.0.0.1", 0,
                new AdminLimits(cap, 16 << 10, Duration.ofSeconds(30).toNanos()), () -> "up 1\n")) {
            List<Socket> held = new ArrayList<>();
            try {
                for (int i = 0; i < cap; i++) {
                    held.add(new Socket("127.0.0.1", server.port()));
                }
                await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == cap);
                try (Socket over = new Socket("127.0.0.1", server.port())) {
                    over.setSoTimeout(5000);
                    String answer = new String(over.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                    assertThat(answer).startsWith("HTTP/1.1 503").contains("Retry-After: 1")
                            .contains("too many admin connections");
                }
                assertThat(server.openConnections()).isEqualTo(cap);
                held.remove(0).close();
                await().atMost(Duration.ofSeconds(5)).until(() -> server.openConnections() == cap - 1);
                assertThat(get(server.port(), "/health")).isEqualTo(200);
            } finally {
                for (Socket s : held) {
                    s.close();
                }
            }
        }
    }
}
