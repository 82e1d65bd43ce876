package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.BugDetectors;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.netty.handler.codec.http.HttpHeaderNames;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;

/**
 * Coverage-guided fuzzing of the gateway's request parsing (Jazzer), over real sockets: a real
 * gateway in front of a real backend, each input written raw to a fresh client connection, which
 * is then half-closed.
 *
 * <p>Properties, for every input:
 * <ul>
 *   <li>whatever the gateway answers is HTTP: each response starts with {@code HTTP/1.1 NNN};</li>
 *   <li>the connection ends (the gateway answers and closes, or closes) within 5 s — a hostile
 *       input never holds a connection open;</li>
 *   <li>what reaches the backend is sound HTTP/1.1 as RFC 9112 asks of a proxy: exactly one
 *       {@code Host}, never {@code CONNECT}, {@code TRACE} or {@code PRI}, a path in origin form
 *       without dot segments or doubled slashes, and no {@code X-Forwarded-Proto} the client made up;</li>
 *   <li>every 64 inputs, and at the end of a run, a well-formed request on a new connection still
 *       gets its 200 — no input breaks the gateway for the next client;</li>
 *   <li>no connection goes anywhere but loopback (Jazzer's SSRF detector).</li>
 * </ul>
 */
class HttpRequestFuzzTest {

    private static final Pattern STATUS_LINE = Pattern.compile("HTTP/1\\.1 [1-5][0-9][0-9]( .*)?");
    private static final AtomicLong INPUTS = new AtomicLong();
    private static Rig rig;

    @FuzzTest(maxDuration = "5m")
    // libFuzzer dictionary syntax: CR LF written as \x0D\x0A
    @DictionaryEntries({"GET ", "POST ", "CONNECT ", "TRACE ", "PRI * HTTP/2.0", " HTTP/1.1\\x0D\\x0A", " HTTP/1.0\\x0D\\x0A",
        "Host: a\\x0D\\x0A", "Content-Length: ", "Transfer-Encoding: chunked\\x0D\\x0A", "X-Class: premium\\x0D\\x0A", "\\x0D\\x0A\\x0D\\x0A",
        "/admin", "/%61dmin", "/x/../", "//", "X-Forwarded-Proto: https\\x0D\\x0A", "Connection: close\\x0D\\x0A", "Expect: 100-continue\\x0D\\x0A"})
    void request(byte[] input) throws Exception {
        // Jazzer's SSRF detector: this test, the gateway and its backend talk over loopback only;
        // a connection anywhere else (say, to an authority taken from a request) is a finding.
        try (var loopbackOnly = BugDetectors.allowNetworkConnections(
                (host, port) -> "127.0.0.1".equals(host) || "localhost".equals(host))) {
            check(input);
        }
    }

    private static void check(byte[] input) throws Exception {
        Rig r = rig();
        byte[] answer = exchange(r.gateway.port(), input);
        String text = new String(answer, StandardCharsets.ISO_8859_1);
        if (!text.isEmpty()) {
            String first = text.lines().findFirst().orElse("");
            assertThat(first).as("the gateway's answer to %s", printable(input)).matches(STATUS_LINE);
        }
        List<String> bad = violations(r.backend);
        assertThat(bad).as("reached the backend from %s", printable(input)).isEmpty();
        if (INPUTS.incrementAndGet() % 64 == 0) {
            assertStillServes(r);
        }
    }

    private static void assertStillServes(Rig r) throws IOException {
        byte[] ok = exchange(r.gateway.port(), "GET /ok HTTP/1.1\r\nHost: probe\r\nConnection: close\r\n\r\n"
                .getBytes(StandardCharsets.ISO_8859_1));
        assertThat(new String(ok, StandardCharsets.ISO_8859_1)).startsWith("HTTP/1.1 200");
    }

    /** Writes the input, half-closes, reads until the gateway closes; fails if that takes over 5 s. */
    static byte[] exchange(int port, byte[] input) throws IOException {
        try (Socket s = new Socket()) {
            s.connect(new InetSocketAddress("127.0.0.1", port), 2_000);
            s.setSoTimeout(5_000);
            try {
                s.getOutputStream().write(input);
                s.getOutputStream().flush();
                s.shutdownOutput();
            } catch (IOException e) {
                // The gateway may close on a bad head before the rest is written.
            }
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            InputStream in = s.getInputStream();
            byte[] buf = new byte[8192];
            try {
                for (int n; (n = in.read(buf)) >= 0; ) {
                    out.write(buf, 0, n);
                }
            } catch (SocketTimeoutException e) {
                throw new AssertionError("the gateway held the connection open for 5 s after " + printable(input), e);
            } catch (IOException e) {
                // reset by the gateway: the connection ended
            }
            return out.toByteArray();
        }
    }

    private static String printable(byte[] input) {
        String s = new String(input, 0, Math.min(input.length, 300), StandardCharsets.ISO_8859_1);
        return '"' + s.replace("\r", "\\r").replace("\n", "\\n") + '"' + (input.length > 300 ? "…" : "");
    }

    private static synchronized Rig rig() throws InterruptedException {
        if (rig == null) {
            rig = new Rig();
            Runtime.getRuntime().addShutdownHook(new Thread(rig::close));
        }
        return rig;
    }

    /** The gateway and its backend, started once per fuzzing JVM. */
    private static final class Rig {
        final HttpStrictnessSocketTest.RecordingBackend backend = new HttpStrictnessSocketTest.RecordingBackend(false);
        final Gateway gateway;

        Rig() throws InterruptedException {
            ClusterConfig cluster = ConfigLoader.parse("""
                    classes:
                      - {name: admin, target: 1s, match: {path: /admin}, queue: {limit: 100, timeout: 2s}}
                      - {name: basic, target: 2s, default: true, queue: {limit: 100, timeout: 2s}}
                    servers:
                      - {id: s1, url: '%s', concurrency: 20}
                    gateways:
                      - {id: g1, port: 0, adminPort: 0}
                    control: {reportPeriod: 1s, statsWindow: 10s}
                    dispatch: {backendTimeout: 2s, idleTimeout: 2s, maxBodyBytes: 64KiB, maxHeaderBytes: 8KiB}
                    """.formatted(backend.url()));
            gateway = Gateway.start(cluster, "g1", GatewayOptions.defaults().standalone().withPorts(0, 0));
        }

        void close() {
            gateway.close();
            backend.close();
        }
    }

    /** Every way the requests the backend received since the last call break RFC 9112. */
    private static List<String> violations(HttpStrictnessSocketTest.RecordingBackend backend) {
        List<String> out = new java.util.ArrayList<>();
        for (HttpStrictnessSocketTest.Seen req; (req = backend.seen.poll()) != null; ) {
            String what = req.method() + " " + req.uri();
            if (req.decodeFailure() != null) {
                out.add(what + ": not parseable by the backend (" + req.decodeFailure() + ")");
            }
            if (req.headers().getAll(HttpHeaderNames.HOST).size() != 1) {
                out.add(what + ": Host " + req.headers().getAll(HttpHeaderNames.HOST));
            }
            if (List.of("CONNECT", "TRACE", "PRI").contains(req.method())) {
                out.add(what + ": method forwarded");
            }
            String path = req.uri();
            int q = path.indexOf('?');
            path = q < 0 ? path : path.substring(0, q);
            if (!path.startsWith("/") || path.contains("//") || path.contains("/./") || path.contains("/../")
                    || path.endsWith("/.") || path.endsWith("/..")) {
                out.add(what + ": path not normalised");
            }
            if ("https".equalsIgnoreCase(req.headers().get("X-Forwarded-Proto"))) {
                out.add(what + ": the client's X-Forwarded-Proto reached the backend");
            }
        }
        return out;
    }
}
