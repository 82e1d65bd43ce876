package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.sun.net.httpserver.HttpServer;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.InetSocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.TlsConfig;
import org.arbiter.gateway.l4.HaproxyProcess;
import org.arbiter.haproxy.cli.HaproxyCommand;
import org.arbiter.runtime.net.Ports;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** {@code arbiter haproxy config}: the file's lines, its errors, HAProxy's own check, and real routing by class. */
final class HaproxyGatewayConfigTest {

    /*
     * Three gateways share s1 (N = 8) and s2 (N = 3); g1 is the first, so the configured allocation gives it
     * N(g1,s1) = 3 (8 = 3 + 3 + 2, the remainders to the first gateways) and N(g1,s2) = 1 (3 = 1 + 1 + 1).
     * T = 4 slots, weights 3 : 1, so premium has 3 slots and basic 1. Proportional cells: premium 2.25 on s1,
     * 0.75 on s2; basic 0.75 on s1, 0.25 on s2. Rounded with both margins exact: premium 3 on s1 and none on
     * s2, basic none on s1 and 1 on s2 (the only rounding with s2 = 1 and premium's row 3 where premium's s1
     * cell is its ceiling: premium 2 + 1 would need basic 0 + 1 on s1 with s1 then 3, s2 then 1+1 = 2 > 1).
     */
    static final String CLUSTER = """
            classes:
              - name: premium
                target: 1s
                weight: 3
                match: {header: {X-Class: premium}}
                queue: {timeout: 5s}
              - name: basic
                target: 2s
                weight: 1
                default: true
                queue: {timeout: 500ms}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 8}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: 3}
            gateways:
              - {id: g1, host: 127.0.0.1, port: 8080, kind: haproxy}
              - {id: g2, host: 127.0.0.1, port: 8081, kind: haproxy, proxyProtocol: true}
              - {id: g3, host: 127.0.0.1, port: 8082}
            gateway: {trustedProxies: [10.1.0.0/16, 10.2.0.7]}
            """;

    /** A rule with every condition and header values HAProxy's parser would read otherwise. */
    static final String RICH_MATCH = """
            {header: {X-Class: 'pre "mium" $HOME \\x', X-Re: 'regex:a\\d+ b', X-Empty: '', X-Dash: '-i'},
             path: /Api, caseInsensitive: true, method: get, host: api.example.com, source: 10.0.0.0/8}""";

    @TempDir
    Path dir;

    private ClusterConfig load(String yaml) throws IOException {
        Path file = dir.resolve("cluster.yaml");
        Files.writeString(file, yaml);
        return ConfigLoader.load(file);
    }

    private static HaproxyGatewayConfig.Options options(Path dir) {
        return new HaproxyGatewayConfig.Options(dir.resolve("g.sock").toString(), dir.resolve("g.state").toString(),
                "cluster.yaml");
    }

    /** The lines of section {@code header} (e.g. "backend class.basic"), without the header, blank lines or comments. */
    private static List<String> section(String text, String header) {
        List<String> out = new ArrayList<>();
        boolean in = false;
        for (String line : text.split("\n")) {
            if (!line.startsWith(" ") && !line.isBlank()) {
                in = line.equals(header);
                continue;
            }
            if (in && !line.isBlank() && !line.strip().startsWith("#")) {
                out.add(line.strip());
            }
        }
        return out;
    }

    @Test
    void eachClassIsABackend_withTheConfiguredCapsPerServer_andCapZeroAsMaxconnOneWeightZero() throws Exception {
        String text = HaproxyGatewayConfig.generate(load(CLUSTER), "g1", options(dir));

        assertThat(section(text, "backend class.premium")).containsExactly(
                "balance leastconn",
                "timeout queue 5s",
                "http-after-response set-header X-Arbiter-Class premium",
                "server s1 127.0.0.1:9001 maxconn 3 weight 3",
                "server s2 127.0.0.1:9002 maxconn 1 weight 0");
        assertThat(section(text, "backend class.basic")).containsExactly(
                "balance leastconn",
                "timeout queue 500ms",
                "http-after-response set-header X-Arbiter-Class basic",
                "server s1 127.0.0.1:9001 maxconn 1 weight 0",
                "server s2 127.0.0.1:9002 maxconn 1 weight 1");
        assertThat(section(text, "frontend gateway.g1")).containsExactly(
                "bind 127.0.0.1:8080",
                "acl premium.header.0 req.fhdr(X-Class,1) -m str \"premium\"",
                "use_backend class.premium if premium.header.0",
                "default_backend class.basic",
                "http-after-response set-header Retry-After 1 if { status 503 }");
        assertThat(section(text, "global")).containsExactly(
                "stats socket " + dir.resolve("g.sock") + " mode 660 level admin expose-fd listeners",
                "stats timeout 30s",
                "server-state-file " + dir.resolve("g.state"),
                "hard-stop-after 30s");
        assertThat(section(text, "defaults")).contains("mode http", "option http-keep-alive", "timeout connect 2s",
                "timeout server 60s", "timeout client 60s", "load-server-state-from-file global");
        assertThat(text).startsWith("# HAProxy as Arbiter gateway g1, generated by 'arbiter haproxy config' from"
                + " cluster.yaml.\n# Do not edit");
    }

    @Test
    void weightIsTheCapUpTo256_andProxyProtocolAcceptsItFromTrustedProxiesOnly() throws Exception {
        String big = CLUSTER.replace("concurrency: 8}", "concurrency: 1200}");
        String text = HaproxyGatewayConfig.generate(load(big), "g2", options(dir));
        // g2 is the second gateway: N(g2,s1) = 400, N(g2,s2) = 1; premium 301 slots of 401 (300.75 rounded up),
        // 301 of them on s1 (300.25 rounded up, s2 then 0)
        assertThat(section(text, "frontend gateway.g2")).startsWith("bind 127.0.0.1:8081 accept-proxy",
                "tcp-request connection reject unless { src 10.1.0.0/16 10.2.0.7/32 }");
        assertThat(section(text, "backend class.premium")).filteredOn(l -> l.startsWith("server s1 "))
                .containsExactly("server s1 127.0.0.1:9001 maxconn 301 weight 256");
    }

    @Test
    void pools_restrictEachClassBackendToItsPoolsServers() throws Exception {
        String pooled = """
                classes:
                  - {name: gold, target: 1s, match: {header: {X-Tier: gold}}}
                  - {name: silver, target: 2s, match: {path: /batch}}
                  - {name: bronze, target: 3s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
                  - {id: s2, url: "http://127.0.0.1:9002", concurrency: 8}
                  - {id: s3, url: "http://127.0.0.1:9003", concurrency: 6}
                pools:
                  - {name: web, servers: [s1, s2], classes: [gold, bronze]}
                  - {name: batch, servers: [s3], classes: [silver]}
                gateways:
                  - {id: g1, host: 127.0.0.1, port: 8080, kind: haproxy}
                """;
        String text = HaproxyGatewayConfig.generate(load(pooled), "g1", options(dir));
        // one gateway: N(g1,s) = N_s; web's 18 slots go 9 : 9 to gold and bronze, in proportion to each server
        assertThat(section(text, "backend class.gold")).filteredOn(l -> l.startsWith("server ")).containsExactly(
                "server s1 127.0.0.1:9001 maxconn 5 weight 5",
                "server s2 127.0.0.1:9002 maxconn 4 weight 4");
        assertThat(section(text, "backend class.bronze")).filteredOn(l -> l.startsWith("server ")).containsExactly(
                "server s1 127.0.0.1:9001 maxconn 5 weight 5",
                "server s2 127.0.0.1:9002 maxconn 4 weight 4");
        assertThat(section(text, "backend class.silver")).filteredOn(l -> l.startsWith("server ")).containsExactly(
                "server s3 127.0.0.1:9003 maxconn 6 weight 6");
    }

    @Test
    void everyProblem_isNamedAtOnce() throws Exception {
        ClusterConfig c = load(CLUSTER);
        assertThatThrownBy(() -> HaproxyGatewayConfig.generate(c, "g9", options(dir)))
                .isInstanceOf(HaproxyGatewayConfig.Invalid.class)
                .satisfies(e -> assertThat(((HaproxyGatewayConfig.Invalid) e).errors()).containsExactly(
                        "--gateway: g9 (expected: one of gateways[].id [g1, g2, g3])"));
        assertThatThrownBy(() -> HaproxyGatewayConfig.generate(c, "g3", options(dir)))
                .satisfies(e -> assertThat(((HaproxyGatewayConfig.Invalid) e).errors()).containsExactly(
                        "gateways[g3].kind: arbiter (expected: haproxy — arbiter haproxy config writes HAProxy's file"
                                + " for an haproxy gateway)"));

        String bad = CLUSTER.replace("{header: {X-Class: premium}}", "{header: {X-Class: \"a\\nb\"}, host: \"x\\ry\"}");
        GatewayConfig g1 = load(bad).gateway("g1").orElseThrow();
        ClusterConfig withTls = load(bad).toBuilder().gateways(List.of(g1.toBuilder()
                .tls(new TlsConfig(Path.of("/etc/g1.pem"), Path.of("/etc/g1.key"), List.of(), Map.of())).port(0)
                .build())).build();
        assertThatThrownBy(() -> HaproxyGatewayConfig.generate(withTls, "g1",
                new HaproxyGatewayConfig.Options("/run/a\n.sock", "/s", "x")))
                .satisfies(e -> assertThat(((HaproxyGatewayConfig.Invalid) e).errors()).containsExactly(
                        "gateways[g1].tls.cert: /etc/g1.pem (expected: none for an haproxy gateway — arbiter haproxy"
                                + " config does not write TLS termination; terminate TLS in front of HAProxy, e.g. on"
                                + " the L4 switch, and remove gateways[g1].tls)",
                        "gateways[g1].port: 0 (expected: a fixed port — HAProxy binds the port the file names, and"
                                + " clients must know it)",
                        "--socket: \"/run/a\\n.sock\" (expected: no newline or other control character — a value of"
                                + " HAProxy's configuration is one line)",
                        "classes[0].match.header.X-Class: \"a\\nb\" (expected: no newline or other control character"
                                + " — a value of HAProxy's configuration is one line)",
                        "classes[0].match.host: \"x\\ry\" (expected: no newline or other control character — a value"
                                + " of HAProxy's configuration is one line)"));
    }

    @Test
    void valuesHAProxyWouldReadOtherwise_areQuotedAndEscaped() throws Exception {
        String odd = CLUSTER.replace("{header: {X-Class: premium}}", RICH_MATCH);
        String text = HaproxyGatewayConfig.generate(load(odd), "g1", options(dir));
        // header conditions in name order: X-Class, X-Dash, X-Empty, X-Re
        assertThat(section(text, "frontend gateway.g1")).contains(
                "acl premium.header.0 req.fhdr(X-Class,1) -m str \"pre \\\"mium\\\" \\$HOME \\\\x\"",
                "acl premium.header.1 req.fhdr(X-Dash,1) -m str -- \"-i\"",
                "acl premium.header.2 req.fhdr(X-Empty,1) -m len 0",
                "acl premium.header.3 req.fhdr(X-Re,1) -m reg \"^(?:a\\\\d+ b)\\$\"",
                "acl premium.path path -m beg -i \"/Api\"",
                "acl premium.method method -i GET",
                "acl premium.host req.hdr(host,1) -m reg -i \"^api\\\\.example\\\\.com(:[0-9]+)?\\$\"",
                "acl premium.source src 10.0.0.0/8",
                "use_backend class.premium if premium.header.0 premium.header.1 premium.header.2 premium.header.3"
                        + " premium.path premium.method premium.host premium.source");
    }

    @Test
    void command_writesTheFile_orExits2WithOneLinePerProblem() throws Exception {
        Path cluster = dir.resolve("cluster.yaml");
        Files.writeString(cluster, CLUSTER);
        Path out = dir.resolve("haproxy.cfg");
        StringWriter err = new StringWriter();
        CommandLine cli = new CommandLine(new HaproxyCommand()).setErr(new PrintWriter(err));
        assertThat(cli.execute("config", "--config", cluster.toString(), "--gateway", "g1", "--out", out.toString()))
                .isZero();
        assertThat(Files.readString(out)).contains(
                "stats socket /run/haproxy/arbiter-g1.sock mode 660 level admin expose-fd listeners",
                "server-state-file /var/lib/haproxy/arbiter-g1.state",
                "from " + cluster + ".\n");
        assertThat(cli.execute("config", "--config", cluster.toString(), "--gateway", "g3")).isEqualTo(2);
        assertThat(err.toString()).isEqualTo("haproxy config: gateways[g3].kind: arbiter (expected: haproxy — arbiter"
                + " haproxy config writes HAProxy's file for an haproxy gateway)" + System.lineSeparator());
    }

    @Test
    void haproxyAcceptsTheFile() throws Exception {
        Assumptions.assumeTrue(HaproxyProcess.binary().isPresent(), "haproxy is not installed");
        String rich = CLUSTER.replace("{header: {X-Class: premium}}", RICH_MATCH)
                .replace("\"http://127.0.0.1:9002\", concurrency: 3}",
                        "\"https://localhost:9443\", concurrency: 3, health: {path: /health, interval: 2s, timeout: 1s}}");
        String text = HaproxyGatewayConfig.generate(load(rich), "g1", options(dir));
        assertThat(text).contains("server s2 localhost:9443 maxconn 1 weight 0 ssl verify required ca-file @system-ca"
                + " sni str(localhost) track health.s2/s2");
        assertThat(section(text, "backend health.s2")).containsExactly(
                "option httpchk GET /health HTTP/1.1",
                "http-check send hdr Host localhost:9443",
                "timeout check 1s",
                "server s2 localhost:9443 check inter 2s fall 3 rise 1 ssl verify required ca-file @system-ca"
                        + " sni str(localhost)");
        Path file = dir.resolve("haproxy.cfg");
        Files.writeString(file, text);
        HaproxyProcess.Check check = HaproxyProcess.check(file);
        assertThat(check.exitCode()).as(check.output()).isZero();
    }

    @Test
    void haproxyRoutesEachClassToItsBackend() throws Exception {
        Assumptions.assumeTrue(HaproxyProcess.binary().isPresent(), "haproxy is not installed");
        HttpServer a = backend("a");
        HttpServer b = backend("b");
        try {
            int port = Ports.free();
            String yaml = """
                    classes:
                      - {name: premium, target: 1s, weight: 1, match: {header: {X-Class: premium}}}
                      - {name: basic, target: 1s, weight: 1, default: true}
                    servers:
                      - {id: a, url: "http://127.0.0.1:%d", concurrency: 4}
                      - {id: b, url: "http://127.0.0.1:%d", concurrency: 4}
                    gateways:
                      - {id: g1, host: 127.0.0.1, port: %d, kind: haproxy}
                    """.formatted(a.getAddress().getPort(), b.getAddress().getPort(), port);
            Path socket = dir.resolve("g1.sock");
            Path file = dir.resolve("haproxy.cfg");
            Files.writeString(file, HaproxyGatewayConfig.generate(load(yaml), "g1", new HaproxyGatewayConfig.Options(
                    socket.toString(), dir.resolve("g1.state").toString(), "cluster.yaml")));
            try (HaproxyProcess haproxy = HaproxyProcess.start(file, new InetSocketAddress("127.0.0.1", port), 10_000)) {
                HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                        .connectTimeout(Duration.ofSeconds(5)).build();
                List<String> classes = new ArrayList<>();
                for (int i = 0; i < 5; i++) {
                    HttpRequest.Builder r = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/x"))
                            .timeout(Duration.ofSeconds(5));
                    if (i < 3) {
                        r.header("X-Class", "premium");
                    }
                    HttpResponse<String> res = client.send(r.build(), HttpResponse.BodyHandlers.ofString());
                    assertThat(res.statusCode()).as(haproxy.output()).isEqualTo(200);
                    assertThat(res.body()).isIn("a", "b");
                    classes.add(res.headers().firstValue("X-Arbiter-Class").orElse("none"));
                }
                assertThat(classes).containsExactly("premium", "premium", "premium", "basic", "basic");

                Map<String, Long> stot = backendStot(runtimeApi(socket, "show stat\n"));
                assertThat(stot).containsEntry("class.premium", 3L).containsEntry("class.basic", 2L);
            }
        } finally {
            a.stop(0);
            b.stop(0);
        }
    }

    /** A backend on 127.0.0.1 that answers every request 200 with its name. */
    private static HttpServer backend(String name) throws IOException {
        HttpServer s = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        s.createContext("/", ex -> {
            byte[] body = name.getBytes(StandardCharsets.UTF_8);
            ex.getRequestBody().readAllBytes();
            ex.sendResponseHeaders(200, body.length);
            ex.getResponseBody().write(body);
            ex.close();
        });
        s.start();
        return s;
    }

    /** One Runtime API command, its whole answer (HAProxy closes the connection after it). */
    private static String runtimeApi(Path socket, String command) throws IOException {
        try (SocketChannel ch = SocketChannel.open(StandardProtocolFamily.UNIX)) {
            ch.connect(UnixDomainSocketAddress.of(socket));
            ch.write(ByteBuffer.wrap(command.getBytes(StandardCharsets.US_ASCII)));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            ByteBuffer buf = ByteBuffer.allocate(8192);
            while (ch.read(buf) >= 0) {
                buf.flip();
                out.write(buf.array(), 0, buf.limit());
                buf.clear();
            }
            return out.toString(StandardCharsets.UTF_8);
        }
    }

    /** {@code stot} of every BACKEND row of a {@code show stat} CSV, by proxy name (the columns found by name). */
    private static Map<String, Long> backendStot(String csv) {
        String[] lines = csv.split("\n");
        assertThat(lines[0]).as(csv).startsWith("# ");
        List<String> header = Arrays.asList(lines[0].substring(2).split(",", -1));
        int px = header.indexOf("pxname");
        int sv = header.indexOf("svname");
        int st = header.indexOf("stot");
        Map<String, Long> out = new HashMap<>();
        for (int i = 1; i < lines.length; i++) {
            String[] f = lines[i].split(",", -1);
            if (f.length > st && "BACKEND".equals(f[sv])) {
                out.put(f[px], Long.parseLong(f[st]));
            }
        }
        return out;
    }
}
