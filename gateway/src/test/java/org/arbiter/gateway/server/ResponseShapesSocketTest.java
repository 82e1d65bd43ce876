package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.Locale;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Responses of every shape through the real gateway from a raw backend, each on one kept-alive client connection
 * after another: the whole response in one write (head and end in one read: forwarded as one message), the head
 * alone first and the body 100 ms later (forwarded as the head at the read's end, then the body), chunked with a
 * trailer in one write, a body too large to share the head's buffer, a HEAD answer and a 204. Each must reach the
 * client byte-exact in its framing and the connection must carry the next request.
 */
final class ResponseShapesSocketTest {

    @RegisterExtension
    final GatewayTestSupport.Closing closing = new GatewayTestSupport.Closing();

    private static final String BIG = "x".repeat(3000);

    @Test
    void everyResponseShape_reachesTheClientIntact_onOneKeptAliveConnection() throws Exception {
        try (ServerSocket listener = new ServerSocket(0, 50, InetAddress.getLoopbackAddress())) {
            Thread acceptor = new Thread(() -> serve(listener), "shapes-backend");
            acceptor.setDaemon(true);
            acceptor.start();
            Gateway g = closing.keep(Gateway.start(ConfigLoader.parse("""
                    classes:
                      - {name: basic, target: 1s, default: true, queue: {limit: 100, timeout: 5s}}
                    gateways:
                      - {id: g1, port: 0, adminPort: 0}
                    dispatch: {backendTimeout: 5s}
                    servers:
                      - {id: s1, url: 'http://127.0.0.1:%d', concurrency: 4}
                    """.formatted(listener.getLocalPort())), "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
            try (Socket c = new Socket("127.0.0.1", g.port())) {
                c.setSoTimeout(5_000);
                for (int round = 0; round < 2; round++) { // the second round on connections the pool kept
                    assertOkWithLength5(exchange(c, "GET /whole"), "hello");
                    assertOkWithLength5(exchange(c, "GET /split"), "later");
                    String chunked = exchange(c, "GET /chunked");
                    assertThat(chunked).startsWith("HTTP/1.1 200 OK\r\n")
                            .containsIgnoringCase("transfer-encoding: chunked\r\n")
                            .endsWith("\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n");
                    String big = exchange(c, "GET /big");
                    assertThat(big).containsIgnoringCase("content-length: 3000\r\n").endsWith("\r\n\r\n" + BIG);
                    assertOkWithLength5(exchange(c, "HEAD /whole"), ""); // the length of the body a GET would get
                    String empty = exchange(c, "GET /nocontent");
                    assertThat(empty).startsWith("HTTP/1.1 204 No Content\r\n").endsWith("\r\n\r\n")
                            .doesNotContainIgnoringCase("transfer-encoding");
                }
            }
        }
    }

    /** A 200 that declares Content-Length 5 and ends its head, then {@code body}. */
    private static void assertOkWithLength5(String response, String body) {
        assertThat(response).startsWith("HTTP/1.1 200 OK\r\n").containsIgnoringCase("content-length: 5\r\n")
                .endsWith("\r\n\r\n" + body);
    }

    /** One request on {@code c}, and its whole response as the client read it (framed by its own headers). */
    private static String exchange(Socket c, String requestLine) throws IOException {
        c.getOutputStream().write((requestLine + " HTTP/1.1\r\nHost: shapes\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        InputStream in = c.getInputStream();
        ByteArrayOutputStream got = new ByteArrayOutputStream();
        String head = readUntil(in, got, "\r\n\r\n");
        String lower = head.toLowerCase(Locale.ROOT);
        if (requestLine.startsWith("HEAD") || head.startsWith("HTTP/1.1 204")) {
            return head;
        }
        if (lower.contains("transfer-encoding: chunked")) {
            return readUntil(in, got, "0\r\nx-t: 1\r\n\r\n");
        }
        int at = lower.indexOf("content-length: ") + "content-length: ".length();
        int length = Integer.parseInt(lower.substring(at, lower.indexOf("\r\n", at)).trim());
        for (int i = 0; i < length; i++) {
            got.write(in.read());
        }
        return got.toString(StandardCharsets.US_ASCII);
    }

    private static String readUntil(InputStream in, ByteArrayOutputStream got, String end) throws IOException {
        while (!got.toString(StandardCharsets.US_ASCII).toLowerCase(Locale.ROOT).endsWith(end)) {
            int b = in.read();
            assertThat(b).as("the connection ended before %s; got %s", end.strip(), got).isNotNegative();
            got.write(b);
        }
        return got.toString(StandardCharsets.US_ASCII);
    }

    private static void serve(ServerSocket listener) {
        try {
            while (true) {
                Socket s = listener.accept();
                Thread t = new Thread(() -> answer(s), "shapes-connection");
                t.setDaemon(true);
                t.start();
            }
        } catch (IOException closed) {
            // the test is over
        }
    }

    /** Keep-alive: each request on the connection answered by its path, in the shape the test names. */
    private static void answer(Socket s) {
        try (s) {
            InputStream in = s.getInputStream();
            OutputStream out = s.getOutputStream();
            while (true) {
                ByteArrayOutputStream req = new ByteArrayOutputStream();
                while (!req.toString(StandardCharsets.US_ASCII).endsWith("\r\n\r\n")) {
                    int b = in.read();
                    if (b < 0) {
                        return;
                    }
                    req.write(b);
                }
                String line = req.toString(StandardCharsets.US_ASCII).lines().findFirst().orElse("");
                String path = line.split(" ")[1];
                switch (path) {
                    case "/whole" -> send(out, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n"
                            + (line.startsWith("HEAD") ? "" : "hello"));
                    case "/split" -> {
                        send(out, "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n");
                        Thread.sleep(100);
                        send(out, "later");
                    }
                    case "/chunked" -> send(out, "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                            + "5\r\nhello\r\n0\r\nX-T: 1\r\n\r\n");
                    case "/big" -> send(out, "HTTP/1.1 200 OK\r\nContent-Length: 3000\r\n\r\n" + BIG);
                    case "/nocontent" -> send(out, "HTTP/1.1 204 No Content\r\n\r\n");
                    default -> send(out, "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n");
                }
            }
        } catch (IOException | InterruptedException e) {
            // the test is over
        }
    }

    private static void send(OutputStream out, String s) throws IOException {
        out.write(s.getBytes(StandardCharsets.US_ASCII));
        out.flush();
    }
}
