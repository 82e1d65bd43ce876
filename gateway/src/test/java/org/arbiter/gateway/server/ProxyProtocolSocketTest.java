package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * PROXY protocol v1 and v2 on a listener with {@code proxyProtocol: true}, over real sockets: the
 * switch is 127.0.0.1 (in gateway.trustedProxies), an outsider is 127.0.0.2 (a second loopback
 * source address, not trusted). The backend echoes the X-Forwarded-For it got.
 */
final class ProxyProtocolSocketTest {

    private static final String SWITCH = "127.0.0.1";
    private static final String OUTSIDER = "127.0.0.2";
    private static final String REQUEST = "GET /x HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n";

    @RegisterExtension
    final GatewayTestSupport.Closing closing = new GatewayTestSupport.Closing();


    private <T extends AutoCloseable> T keep(T t) {
        return closing.keep(t);
    }

    private Gateway gateway(Path log, boolean proxyProtocol) throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(0));
        ClusterConfig c = ConfigLoader.parse("""
                classes:
                  - {name: partner, target: 1s, match: {source: 203.0.113.0/24}}
                  - {name: basic, target: 2s, default: true}
                servers: [{id: s1, url: '%s', concurrency: 10}]
                gateways: [{id: g1, port: 0, adminPort: 0, proxyProtocol: %s}]
                gateway: {trustedProxies: ['127.0.0.1/32'], accessLog: {path: '%s', format: json}}
                """.formatted(backend.url(), proxyProtocol, log));
        return keep(Gateway.start(c, "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
    }

    @Test
    void v1FromTheSwitch_givesTheClientsAddress_toXForwardedFor_theAccessLog_andMatchSource(@TempDir Path dir)
            throws Exception {
        Path log = dir.resolve("access.log");
        Gateway g = gateway(log, true);
        String r = exchange(SWITCH, g.port(), bytes("PROXY TCP4 203.0.113.7 127.0.0.1 40000 8080\r\n"
                + "GET /x HTTP/1.1\r\nHost: t\r\nX-Forwarded-For: 6.6.6.6\r\nConnection: close\r\n\r\n"));
        assertThat(r).startsWith("HTTP/1.1 200 ").contains("X-Arbiter-Class: partner")
                .as("the client is not a trusted proxy: its own X-Forwarded-For is replaced").contains("xff=203.0.113.7 ");
        g.close();
        assertThat(Files.readAllLines(log)).singleElement().asString().contains("\"client\":\"203.0.113.7\"",
                "\"class\":\"partner\"");
        assertThat(refused(g, "missing") + refused(g, "untrusted") + refused(g, "malformed")).isZero();
    }

    @Test
    void v2FromTheSwitch_ipv4AndIpv6_andLocalKeepsThePeer() throws Exception {
        Gateway g = gateway(Path.of("/dev/null"), true);
        String v4 = exchange(SWITCH, g.port(), concat(v2(0x21, 0x11, ip("198.51.100.9"), ip("127.0.0.1"), 5555, 80),
                bytes(REQUEST)));
        assertThat(v4).startsWith("HTTP/1.1 200 ").contains("xff=198.51.100.9 ", "X-Arbiter-Class: basic");
        String partner = exchange(SWITCH, g.port(), concat(v2(0x21, 0x11, ip("203.0.113.250"), ip("127.0.0.1"), 5555, 80),
                bytes(REQUEST)));
        assertThat(partner).contains("xff=203.0.113.250 ", "X-Arbiter-Class: partner");
        String v6 = exchange(SWITCH, g.port(), concat(v2(0x21, 0x21, ip("2001:db8::5"), ip("2001:db8::1"), 5555, 80),
                bytes(REQUEST)));
        assertThat(v6).startsWith("HTTP/1.1 200 ").contains("xff=2001:db8:0:0:0:0:0:5 ");
        // LOCAL: the switch speaking for itself (a health check); no address block follows
        String local = exchange(SWITCH, g.port(), concat(v2(0x20, 0x00, new byte[0], new byte[0], 0, 0), bytes(REQUEST)));
        assertThat(local).startsWith("HTTP/1.1 200 ").contains("xff=127.0.0.1 ");
    }

    @Test
    void theSwitchWithoutAHeader_isClosedUnanswered_andCountedMissing() throws Exception {
        Gateway g = gateway(Path.of("/dev/null"), true);
        assertThat(exchange(SWITCH, g.port(), bytes(REQUEST))).isEmpty();
        assertThat(refused(g, "missing")).isEqualTo(1);
        assertThat(refused(g, "untrusted")).isZero();
    }

    @Test
    void anOutsiderWithAHeader_isClosedUnanswered_andCountedUntrusted_v1AndV2() throws Exception {
        Gateway g = gateway(Path.of("/dev/null"), true);
        assertThat(exchange(OUTSIDER, g.port(), bytes("PROXY TCP4 203.0.113.7 127.0.0.1 40000 8080\r\n" + REQUEST)))
                .isEmpty();
        assertThat(exchange(OUTSIDER, g.port(), concat(v2(0x21, 0x11, ip("203.0.113.7"), ip("127.0.0.1"), 1, 2),
                bytes(REQUEST)))).isEmpty();
        assertThat(refused(g, "untrusted")).isEqualTo(2);
        assertThat(refused(g, "missing")).isZero();
    }

    @Test
    void anOutsiderWithoutAHeader_isServedAsADirectClient() throws Exception {
        Gateway g = gateway(Path.of("/dev/null"), true);
        String r = exchange(OUTSIDER, g.port(), bytes(REQUEST));
        assertThat(r).startsWith("HTTP/1.1 200 ").contains("xff=127.0.0.2 ", "X-Arbiter-Class: basic");
        assertThat(refused(g, "untrusted") + refused(g, "missing")).isZero();
    }

    @Test
    void aMalformedHeaderFromTheSwitch_isClosed_andCountedMalformed() throws Exception {
        Gateway g = gateway(Path.of("/dev/null"), true);
        assertThat(exchange(SWITCH, g.port(), bytes("PROXY TCP4 999.0.0.1 127.0.0.1 40000 8080\r\n" + REQUEST))).isEmpty();
        assertThat(exchange(SWITCH, g.port(), bytes("PROXY " + "X".repeat(200) + "\r\n" + REQUEST))).isEmpty();
        // Netty's decoder closes the connection before it raises the error that is counted
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> assertThat(refused(g, "malformed")).isEqualTo(2));
        // the listener goes on serving
        assertThat(exchange(SWITCH, g.port(), bytes("PROXY TCP4 203.0.113.7 127.0.0.1 1 2\r\n" + REQUEST)))
                .startsWith("HTTP/1.1 200 ");
    }

    @Test
    void withoutProxyProtocol_aHeaderIsJustAMalformedRequest() throws Exception {
        Gateway g = gateway(Path.of("/dev/null"), false);
        assertThat(exchange(SWITCH, g.port(), bytes("PROXY TCP4 203.0.113.7 127.0.0.1 40000 8080\r\n" + REQUEST)))
                .startsWith("HTTP/1.1 400 ");
        assertThat(exchange(SWITCH, g.port(), bytes(REQUEST))).contains("xff=127.0.0.1 ");
    }

    // ------------------------------------------------------------ helpers

    private static double refused(Gateway g, String reason) {
        return g.metrics().registry().get("arbiter.gateway.proxy.refused").tag("reason", reason).counter().count();
    }

    /** Sends {@code data} from local address {@code from}, returns everything until EOF ("" if none). */
    static String exchange(String from, int port, byte[] data) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress("127.0.0.1", port));
            s.setSoTimeout(15_000);
            s.getOutputStream().write(data);
            s.getOutputStream().flush();
            InputStream in = s.getInputStream();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            try {
                in.transferTo(out);
            } catch (java.net.SocketException reset) {
                // a refused connection may be reset rather than closed: what arrived is the answer
            }
            return out.toString(StandardCharsets.ISO_8859_1);
        }
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.ISO_8859_1);
    }

    static byte[] ip(String literal) throws IOException {
        return InetAddress.getByName(literal).getAddress();
    }

    static byte[] concat(byte[] a, byte[] b) {
        byte[] r = new byte[a.length + b.length];
        System.arraycopy(a, 0, r, 0, a.length);
        System.arraycopy(b, 0, r, a.length, b.length);
        return r;
    }

    /** A PROXY v2 header: {@code verCmd} 0x21 PROXY / 0x20 LOCAL, {@code family} 0x11 TCP4, 0x21 TCP6, 0 unspec. */
    static byte[] v2(int verCmd, int family, byte[] src, byte[] dst, int srcPort, int dstPort) {
        int addrLen = src.length == 0 ? 0 : src.length + dst.length + 4;
        ByteBuffer b = ByteBuffer.allocate(16 + addrLen);
        b.put(new byte[] {0x0D, 0x0A, 0x0D, 0x0A, 0x00, 0x0D, 0x0A, 0x51, 0x55, 0x49, 0x54, 0x0A});
        b.put((byte) verCmd).put((byte) family).putShort((short) addrLen);
        if (addrLen > 0) {
            b.put(src).put(dst).putShort((short) srcPort).putShort((short) dstPort);
        }
        return b.array();
    }
}
