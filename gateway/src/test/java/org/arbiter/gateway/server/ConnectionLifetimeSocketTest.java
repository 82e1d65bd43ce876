package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Connection lifetimes on every protocol (docs/reliability.md, "Connection lifetimes on every
 * protocol"), over real sockets: HTTP/2 connections that send the preface and nothing more (h2c by
 * prior knowledge, h2 by ALPN over TLS) are closed by {@code dispatch.idleTimeout}; an idle
 * WebSocket tunnel is closed by {@code dispatch.tunnelIdleTimeout} and its slot freed; connections
 * beyond {@code gateway.maxConnections} are closed before a byte is read and counted; a drain sends
 * GOAWAY on an open HTTP/2 connection before the answer of its stream in flight.
 */
final class ConnectionLifetimeSocketTest {

    /** The client connection preface (RFC 9113 §3.4). */
    private static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1);
    private static final int GOAWAY = 0x7;
    private static final int HEADERS = 0x1;

    @TempDir
    Path dir;

    @RegisterExtension
    final GatewayTestSupport.Closing closing = new GatewayTestSupport.Closing();


    private <T extends AutoCloseable> T keep(T t) {
        return closing.keep(t);
    }

    private static ClusterConfig config(String url, int concurrency, String gatewayExtra, String gatewaySection,
                                        String dispatchExtra) {
        return ConfigLoader.parse("""
                classes:
                  - {name: basic, target: 2s, default: true, queue: {limit: 20, timeout: 5s}}
                servers:
                  - {id: s1, url: '%s', concurrency: %d}
                gateways:
                  - {id: g1, port: 0, adminPort: 0, drainTimeout: 10s%s}
                gateway: {%s}
                dispatch: {backendTimeout: 10s, %s}
                """.formatted(url, concurrency, gatewayExtra, gatewaySection, dispatchExtra));
    }

    private Gateway start(ClusterConfig c) throws InterruptedException {
        return keep(Gateway.start(c, "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
    }

    /** Reads until the peer closes; fails (SocketTimeoutException) if it has not within the guard. */
    private static void awaitClosedByPeer(Socket s) throws IOException {
        s.setSoTimeout(10_000);
        InputStream in = s.getInputStream();
        byte[] buf = new byte[4096];
        try {
            while (in.read(buf) >= 0) {
                // the server's SETTINGS (and GOAWAY) frames
            }
        } catch (java.net.SocketException reset) {
            // closed with a reset: closed all the same
        }
    }

    @Test
    void http2PrefaceOnly_byPriorKnowledge_andByAlpn_isClosedByTheIdleTimeout_whileAnOrdinaryClientIsAnswered()
            throws Exception {
        TestCerts certs = TestCerts.make(dir, "gw", "localhost");
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(0));
        Gateway plain = start(config(backend.url(), 4, "", "", "idleTimeout: 300ms"));
        Gateway tls = start(config(backend.url(), 4, ", tls: {cert: '" + certs.cert + "', key: '" + certs.key + "'}",
                "", "idleTimeout: 300ms"));
        int n = Integer.getInteger("arbiter.test.idleConnections", 50); // per protocol; -D… for a larger run
        long baseline = openDescriptors();
        long started = System.nanoTime();
        List<Socket> idle = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            Socket s = keep(new Socket("127.0.0.1", plain.port()));
            s.getOutputStream().write(PREFACE);
            idle.add(s);
        }
        var factory = certs.trusting().getSocketFactory();
        for (int i = 0; i < n; i++) {
            SSLSocket s = keep((SSLSocket) factory.createSocket("127.0.0.1", tls.port()));
            SSLParameters p = s.getSSLParameters();
            p.setApplicationProtocols(new String[] {"h2"});
            s.setSSLParameters(p);
            s.startHandshake();
            assertThat(s.getApplicationProtocol()).isEqualTo("h2");
            s.getOutputStream().write(PREFACE);
            idle.add(s);
        }
        // an ordinary client is answered meanwhile, on both ports
        try (var c = GatewayTestSupport.http(plain.port())) {
            assertThat(c.get("/ordinary").status()).isEqualTo(200);
        }
        HttpClient h2 = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(certs.trusting()).build();
        var answer = h2.send(java.net.http.HttpRequest.newBuilder(URI.create("https://localhost:" + tls.port() + "/o"))
                .build(), java.net.http.HttpResponse.BodyHandlers.ofString());
        assertThat(answer.statusCode()).isEqualTo(200);
        assertThat(answer.version()).isEqualTo(HttpClient.Version.HTTP_2);
        long peak = openDescriptors();
        for (Socket s : idle) {
            awaitClosedByPeer(s);
            s.close();
        }
        long allClosed = System.nanoTime();
        // every descriptor is given back (the JDK client's connection may be open, or closed idle too)
        await().atMost(Duration.ofSeconds(10)).until(() -> plain.dataPlane().connectionsOpen() == 0);
        await().atMost(Duration.ofSeconds(10)).until(() -> tls.dataPlane().connectionsOpen() <= 1);
        System.out.printf("h2 preface-only: %d by h2c + %d by ALPN, all closed %.2f s after the first opened; "
                + "descriptors of the JVM (both ends) %d before, %d at the peak, %d after%n", n, n,
                (allClosed - started) / 1e9, baseline, peak, openDescriptors());
    }

    private static long openDescriptors() {
        return java.lang.management.ManagementFactory.getOperatingSystemMXBean()
                instanceof com.sun.management.UnixOperatingSystemMXBean u ? u.getOpenFileDescriptorCount() : -1;
    }

    @Test
    void idleWebSocketTunnel_isClosedAfterTunnelIdleTimeout_andItsSlotIsFreed() throws Exception {
        ProtocolSocketTest.Backend backend = keep(new ProtocolSocketTest.Backend(0, null));
        // one slot at the server: the tunnel holds it
        Gateway g = start(config(backend.url(), 1, "", "", "idleTimeout: 300ms, tunnelIdleTimeout: 400ms"));
        CompletableFuture<String> ended = new CompletableFuture<>();
        echoSocket(g, ended);
        assertThat((int) g.dataPlane().withCore(c -> c.inFlightTotal())).isEqualTo(1);
        // silent both ways: the gateway closes the tunnel
        assertThat(ended.get(10, TimeUnit.SECONDS)).isNotNull();
        await().atMost(Duration.ofSeconds(30)).until(() -> g.dataPlane().withCore(c -> c.inFlightTotal()) == 0);
        try (var c = GatewayTestSupport.http(g.port())) {
            assertThat(c.get("/after").status()).isEqualTo(200); // the one slot is free again
        }
    }

    /**
     * dispatch.tunnelShare: with four slots at the one server and the default share (0.5), two
     * upgrades are held at a time; the third is answered 503 tunnelsFull at once (never queued, never
     * holding a slot), ordinary requests keep the other slots, and a closed tunnel gives its place back.
     */
    @Test
    void upgradesBeyondTheTunnelShare_get503AtOnce_andOrdinaryRequestsKeepTheRestOfTheSlots() throws Exception {
        ProtocolSocketTest.Backend backend = keep(new ProtocolSocketTest.Backend(0, null));
        Gateway g = start(config(backend.url(), 4, "", "", "idleTimeout: 30s"));
        List<WebSocket> open = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            open.add(echoSocket(g, new CompletableFuture<>()));
        }
        assertThat(g.dataPlane().upgradesHeld()).isEqualTo(2);
        for (int i = 0; i < 3; i++) {
            try (var c = GatewayTestSupport.http(g.port())) {
                c.send("GET /ws HTTP/1.1\r\nHost: t\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n");
                GatewayTestSupport.Http.Response r = c.read();
                assertThat(r.status()).as("an upgrade over the share").isEqualTo(503);
                assertThat(r.body()).contains("tunnelsFull");
                assertThat(r.headers()).containsEntry("retry-after", "1");
                assertThat(c.closedByPeer()).as("its connection closed after the 503").isTrue();
            }
        }
        assertThat(g.dataPlane().upgradesRefused()).isEqualTo(3);
        assertThat((int) g.dataPlane().withCore(c -> c.inFlightTotal())).as("slots held: the two tunnels").isEqualTo(2);
        backend.gated.set(true); // the ordinary requests stay at the server until both hold a slot
        List<GatewayTestSupport.Http> plain = new ArrayList<>();
        try {
            for (int i = 0; i < 2; i++) {
                GatewayTestSupport.Http c = keep(GatewayTestSupport.http(g.port()));
                c.send("GET /plain HTTP/1.1\r\nHost: t\r\n\r\n");
                plain.add(c);
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> g.dataPlane().withCore(c -> c.inFlightTotal()) == 4);
        } finally {
            backend.release.complete(null);
        }
        for (GatewayTestSupport.Http c : plain) {
            assertThat(c.read().status()).as("an ordinary request beside the tunnels").isEqualTo(200);
        }
        assertThat(g.metrics().scrape()).contains("arbiter_gateway_upgrades_refused_total{component=\"gateway\",id=\"g1\"} 3.0");
        // a closed tunnel gives its place back
        open.get(0).sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(10, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(30)).until(() -> g.dataPlane().upgradesHeld() == 1);
        open.add(echoSocket(g, new CompletableFuture<>()));
        assertThat(g.dataPlane().upgradesHeld()).isEqualTo(2);
    }

    /** A WebSocket through the gateway to the echo backend, its echo checked; {@code ended} completes when it closes. */
    private static WebSocket echoSocket(Gateway g, CompletableFuture<String> ended) throws Exception {
        CompletableFuture<String> echo = new CompletableFuture<>();
        WebSocket ws = HttpClient.newHttpClient().newWebSocketBuilder()
                .buildAsync(URI.create("ws://127.0.0.1:" + g.port() + "/ws"), new WebSocket.Listener() {
                    @Override
                    public java.util.concurrent.CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                        echo.complete(data.toString());
                        w.request(1);
                        return null;
                    }

                    @Override
                    public java.util.concurrent.CompletionStage<?> onClose(WebSocket w, int code, String reason) {
                        ended.complete("close " + code);
                        return null;
                    }

                    @Override
                    public void onError(WebSocket w, Throwable error) {
                        ended.complete("error " + error);
                    }
                }).get(30, TimeUnit.SECONDS);
        ws.sendText("hi", true).get(30, TimeUnit.SECONDS);
        assertThat(echo.get(30, TimeUnit.SECONDS)).isEqualTo("echo:hi");
        return ws;
    }

    @Test
    void connectionsBeyondMaxConnections_areClosedBeforeAByteIsRead_andCounted() throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(0));
        Gateway g = start(config(backend.url(), 4, "", "maxConnections: 5", "idleTimeout: 30s"));
        List<GatewayTestSupport.Http> held = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            held.add(keep(GatewayTestSupport.http(g.port())));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> g.dataPlane().connectionsOpen() == 5);
        for (int i = 0; i < 3; i++) {
            try (Socket s = new Socket("127.0.0.1", g.port())) {
                s.getOutputStream().write("GET /over HTTP/1.1\r\nHost: t\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                s.setSoTimeout(10_000);
                int first;
                try {
                    first = s.getInputStream().read();
                } catch (java.net.SocketException reset) {
                    first = -1;
                }
                assertThat(first).as("no answer byte to a refused connection").isEqualTo(-1);
            }
        }
        assertThat(g.dataPlane().connectionsRefused()).isEqualTo(3);
        assertThat(g.metrics().scrape()).contains("arbiter_gateway_connections_refused_total{component=\"gateway\",id=\"g1\"} 3.0");
        // the held ones are served, and a closed one gives its slot back
        assertThat(held.get(0).get("/held").status()).isEqualTo(200);
        held.get(4).close();
        await().atMost(Duration.ofSeconds(30)).until(() -> g.dataPlane().connectionsOpen() == 4);
        try (var c = GatewayTestSupport.http(g.port())) {
            assertThat(c.get("/again").status()).isEqualTo(200);
        }
        assertThat(g.dataPlane().connectionsRefused()).isEqualTo(3);
    }

    @Test
    void drain_sendsGoAway_onAnOpenHttp2Connection_beforeTheAnswerOfItsStreamInFlight() throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(800));
        Gateway g = start(config(backend.url(), 4, "", "", "idleTimeout: 30s"));
        Socket s = keep(new Socket("127.0.0.1", g.port()));
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        out.write(PREFACE);
        out.write(frame(0x4, 0, 0, new byte[0])); // SETTINGS, empty
        out.write(frame(HEADERS, 0x5, 1, requestBlock("/slow"))); // END_STREAM | END_HEADERS, stream 1
        out.flush();
        await().atMost(Duration.ofSeconds(30)).until(() -> backend.inFlightTotal() == 1);
        assertThat(g.drain()).isTrue();
        DataInputStream in = new DataInputStream(s.getInputStream());
        List<Integer> seen = new ArrayList<>();
        try {
            while (!seen.contains(HEADERS)) {
                int length = in.readUnsignedShort() << 8 | in.readUnsignedByte();
                int type = in.readUnsignedByte();
                in.readUnsignedByte(); // flags
                int stream = in.readInt() & 0x7fffffff;
                in.readNBytes(length);
                if (type == GOAWAY || type == HEADERS && stream == 1) {
                    seen.add(type);
                }
            }
        } catch (EOFException e) {
            // closed after the answer
        }
        assertThat(seen).as("GOAWAY first, then the answer of the stream in flight").containsExactly(GOAWAY, HEADERS);
        assertThat(g.drained().get(15, TimeUnit.SECONDS).refused()).isZero();
    }

    private static byte[] frame(int type, int flags, int stream, byte[] payload) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(payload.length >>> 16);
        b.write(payload.length >>> 8);
        b.write(payload.length);
        b.write(type);
        b.write(flags);
        b.write(stream >>> 24);
        b.write(stream >>> 16);
        b.write(stream >>> 8);
        b.write(stream);
        b.writeBytes(payload);
        return b.toByteArray();
    }

    /** HPACK (RFC 7541): :method GET, :scheme http (static table), :path and :authority as literals. */
    private static byte[] requestBlock(String path) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(0x82); // :method GET
        b.write(0x86); // :scheme http
        literal(b, 4, path); // :path
        literal(b, 1, "test"); // :authority
        return b.toByteArray();
    }

    /** A literal without indexing, its name the static table's {@code index}. */
    private static void literal(ByteArrayOutputStream b, int index, String value) {
        byte[] v = value.getBytes(StandardCharsets.ISO_8859_1);
        b.write(index);
        b.write(v.length);
        b.writeBytes(v);
    }
}
