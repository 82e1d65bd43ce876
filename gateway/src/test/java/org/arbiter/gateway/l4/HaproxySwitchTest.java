package org.arbiter.gateway.l4;

import org.arbiter.runtime.net.Ports;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.FunctionCounter;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.GatewayTestSupport;
import org.arbiter.gateway.cli.SwitchCommand;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * Real HAProxy, configured by {@code arbiter switch haproxy}, in front of two real gateways and a
 * real backend that echoes X-Forwarded-For. Clients connect only to the switch, from 127.0.0.3;
 * HAProxy connects to the gateways from 127.0.0.1 (the one trusted proxy), so a gateway that
 * reported its TCP peer would say 127.0.0.1 and only the PROXY v2 header can say 127.0.0.3.
 * Skipped only when the haproxy executable is absent (CI installs it from .ci/packages).
 */
final class HaproxySwitchTest {

    private static final String CLIENT = "127.0.0.3";

    @TempDir
    Path dir;

    @RegisterExtension
    final GatewayTestSupport.Closing closing = new GatewayTestSupport.Closing();
    private Gateway g1;
    private Gateway g2;
    private int switchPort;

    @BeforeEach
    void start() throws Exception {
        Assumptions.assumeTrue(HaproxyProcess.binary().isPresent(),
                "haproxy is not installed: the L4 switch test needs the haproxy executable (Debian package haproxy,"
                        + " listed in .ci/packages)");
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(5));
        int[] ports = Ports.free(5);
        String yaml = """
                classes:
                  - {name: partner, target: 1s, match: {source: 203.0.113.0/24}}
                  - {name: basic, target: 2s, default: true, queue: {timeout: 5s}}
                servers: [{id: s1, url: '%s', concurrency: 20}]
                gateways:
                  - {id: g1, port: %d, adminPort: %d, proxyProtocol: true, drainTimeout: 5s, drainDelay: 3s}
                  - {id: g2, port: %d, adminPort: %d, proxyProtocol: true, drainTimeout: 5s, drainDelay: 3s}
                dispatch: {backendTimeout: 5s, idleTimeout: 10s}
                gateway:
                  trustedProxies: [127.0.0.1/32]
                  accessLog: {path: '%s', format: json}
                  adminTokenFile: '%s'
                """.formatted(backend.url(), ports[0], ports[1], ports[2], ports[3], dir.resolve("access-{gateway}.log"),
                        GatewayTestSupport.adminTokenFile());
        Path clusterYaml = Files.writeString(dir.resolve("cluster.yaml"), yaml);
        ClusterConfig cluster = ConfigLoader.load(clusterYaml);
        g1 = keep(Gateway.start(cluster, "g1", GatewayOptions.defaults().standalone()));
        g2 = keep(Gateway.start(cluster, "g2", GatewayOptions.defaults().standalone()));

        // the switch's configuration, as an operator would write it
        switchPort = ports[4];
        Path cfg = dir.resolve("haproxy.cfg");
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new SwitchCommand());
        cl.setErr(new PrintWriter(err));
        int code = cl.execute("haproxy", "--config", clusterYaml.toString(), "--out", cfg.toString(),
                "--bind", "127.0.0.1:" + switchPort);
        assertThat(code).as(err.toString()).isZero();
        HaproxyProcess.Check check = HaproxyProcess.check(cfg);
        assertThat(check.exitCode()).as(check.output()).isZero();
        keep(HaproxyProcess.start(cfg, new InetSocketAddress("127.0.0.1", switchPort), 20_000));
    }


    @Test
    void throughTheSwitch_theClientsAddressArrives_bothGatewaysCarryLoad_andADrainLosesNothing() throws Exception {
        // 1. the client's address, carried by HAProxy's PROXY v2 header
        int warmup = 40;
        for (int i = 0; i < warmup; i++) {
            Reply r = get(CLIENT, switchPort, "/warm" + i);
            assertThat(r.status()).as(r.raw()).isEqualTo(200);
            assertThat(r.raw()).contains("xff=" + CLIENT + " ", "X-Arbiter-Class: basic");
        }
        long g1Warm = arrivals(g1);
        long g2Warm = arrivals(g2);
        System.out.printf("switch: %d sequential requests, g1 got %d, g2 got %d%n", warmup, g1Warm, g2Warm);
        assertThat(g1Warm + g2Warm).isEqualTo(warmup);
        assertThat(g1Warm).as("g1 carries load").isPositive();
        assertThat(g2Warm).as("g2 carries load").isPositive();

        // 2. a PROXY v1 header straight to a trusted listener, with a documentation address
        Reply fake = send("127.0.0.1", g1.port(), ("PROXY TCP4 203.0.113.7 127.0.0.1 40000 " + g1.port() + "\r\n"
                + "GET /fake HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1));
        assertThat(fake.status()).isEqualTo(200);
        assertThat(fake.raw()).contains("xff=203.0.113.7 ", "X-Arbiter-Class: partner");

        // 3. load through the switch; drain g1 in the middle of it
        AtomicBoolean running = new AtomicBoolean(true);
        AtomicLong sent = new AtomicLong();
        AtomicLong ok = new AtomicLong();
        ConcurrentLinkedQueue<String> failures = new ConcurrentLinkedQueue<>();
        List<Thread> clients = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            Thread th = new Thread(() -> {
                while (running.get()) {
                    sent.incrementAndGet();
                    try {
                        Reply r = get(CLIENT, switchPort, "/load");
                        if (r.status() / 100 == 2) {
                            ok.incrementAndGet();
                        } else {
                            failures.add(r.raw().isEmpty() ? "closed without an answer" : r.raw().lines().findFirst().orElse(""));
                        }
                    } catch (IOException e) {
                        failures.add(e.toString());
                    }
                }
            }, "switch-client-" + t);
            th.setDaemon(true);
            clients.add(th);
            th.start();
        }
        long g1Before = arrivals(g1);
        long g2Before = arrivals(g2);
        await().atMost(Duration.ofSeconds(30)).until(() -> arrivals(g1) >= g1Before + 50 && arrivals(g2) >= g2Before + 50);
        long g1AtDrain = arrivals(g1);
        assertThat(postDrain(g1.adminPort())).startsWith("HTTP/1.1 202 ");
        g1.drained().get(30, java.util.concurrent.TimeUnit.SECONDS);
        long g1Drained = arrivals(g1);
        long g2Drained = arrivals(g2);
        // new connections keep arriving, all at g2
        await().atMost(Duration.ofSeconds(30)).until(() -> arrivals(g2) >= g2Drained + 200);
        running.set(false);
        for (Thread th : clients) {
            th.join(20_000);
        }
        long g1End = arrivals(g1);
        long g2End = arrivals(g2);
        System.out.printf("switch under load: %d sent, %d answered 2xx, %d failed; g1 %d before the drain, %d"
                        + " during it (then drained), %d after; g2 %d during the whole load%n", sent.get(), ok.get(),
                failures.size(), g1AtDrain - g1Before, g1Drained - g1AtDrain, g1End - g1Drained, g2End - g2Before);
        assertThat(failures).as("requests lost").isEmpty();
        assertThat(ok.get()).isEqualTo(sent.get());
        assertThat(g1End).as("a drained gateway gets nothing new").isEqualTo(g1Drained);
        assertThat(g2End - g2Drained).isGreaterThanOrEqualTo(200);

        // 4. the access logs: every line's client is the address HAProxy sent, never its own
        g1.close();
        g2.close();
        List<String> lines = new ArrayList<>(Files.readAllLines(dir.resolve("access-g1.log")));
        lines.addAll(Files.readAllLines(dir.resolve("access-g2.log")));
        assertThat(lines).hasSize((int) (warmup + 1 + sent.get()));
        assertThat(lines.stream().filter(l -> l.contains("\"client\":\"" + CLIENT + "\"")).count())
                .isEqualTo(warmup + sent.get());
        assertThat(lines.stream().filter(l -> l.contains("\"client\":\"203.0.113.7\"") && l.contains("\"class\":\"partner\"")))
                .hasSize(1);
        assertThat(lines).noneMatch(l -> l.contains("\"client\":\"127.0.0.1\""));
    }

    // ------------------------------------------------------------ helpers

    private <T extends AutoCloseable> T keep(T t) {
        return closing.keep(t);
    }

    private static long arrivals(Gateway g) {
        return (long) g.metrics().registry().find("arbiter.gateway.arrivals").functionCounters().stream()
                .mapToDouble(FunctionCounter::count).sum();
    }

    private record Reply(int status, String raw) {
    }

    private static Reply get(String from, int port, String path) throws IOException {
        return send(from, port, ("GET " + path + " HTTP/1.1\r\nHost: t\r\nConnection: close\r\n\r\n")
                .getBytes(StandardCharsets.ISO_8859_1));
    }

    private static String postDrain(int adminPort) throws IOException {
        return send("127.0.0.1", adminPort, ("POST /drain HTTP/1.1\r\nHost: t\r\n" + GatewayTestSupport.ADMIN_AUTHORIZATION
                + "Content-Length: 0\r\nConnection: close\r\n\r\n").getBytes(StandardCharsets.ISO_8859_1)).raw();
    }

    /** One exchange on a new connection from {@code from}: what came back until EOF, and its status (0 if none). */
    private static Reply send(String from, int port, byte[] data) throws IOException {
        try (Socket s = new Socket()) {
            s.bind(new InetSocketAddress(from, 0));
            s.connect(new InetSocketAddress("127.0.0.1", port), 5000);
            s.setSoTimeout(20_000);
            s.getOutputStream().write(data);
            s.getOutputStream().flush();
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            s.getInputStream().transferTo(out);
            String raw = out.toString(StandardCharsets.ISO_8859_1);
            int status = raw.startsWith("HTTP/1.1 ") && raw.length() >= 12 ? Integer.parseInt(raw.substring(9, 12)) : 0;
            return new Reply(status, raw);
        }
    }
}
