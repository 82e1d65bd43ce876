package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The admin port's mutations on real sockets (issue 30, item 3): without the token, with a wrong
 * one, or from a foreign origin, {@code POST /drain} and {@code POST /reload} are refused and
 * nothing is drained or reloaded; with the token and no {@code Origin} they run. Without a token
 * file they are refused with 403 naming the key; a token file others can read stops the start.
 */
final class AdminAuthSocketTest {

    @TempDir
    Path dir;

    private static String yaml(String backendUrl, String gatewaySection, String gatewayExtra) {
        return """
                classes:
                  - {name: basic, target: 2s, default: true}
                servers:
                  - {id: s1, url: "%s", concurrency: 4}
                gateways:
                  - {id: g1, port: 0, adminPort: 0%s}
                %s
                """.formatted(backendUrl, gatewayExtra, gatewaySection);
    }

    private static ClusterConfig cluster(String backendUrl, String gatewaySection, String gatewayExtra) {
        return ConfigLoader.parse(yaml(backendUrl, gatewaySection, gatewayExtra));
    }

    /** A standalone gateway that reloads from a file. */
    private Gateway start(String backendUrl, String gatewaySection) throws Exception {
        Path file = Files.writeString(dir.resolve("cluster.yaml"), yaml(backendUrl, gatewaySection, ""));
        Gateway g = Gateway.start(ConfigLoader.load(file), "g1", GatewayOptions.defaults().standalone());
        g.reloadFrom(file);
        return g;
    }

    /** One request on a new connection; the whole answer (the server closes: Connection: close). */
    static String post(int port, String path, String... headers) throws IOException {
        StringBuilder req = new StringBuilder("POST " + path + " HTTP/1.1\r\nHost: 127.0.0.1:" + port + "\r\n");
        for (String h : headers) {
            req.append(h).append("\r\n");
        }
        req.append("Content-Type: text/plain\r\nContent-Length: 0\r\nConnection: close\r\n\r\n");
        try (Socket s = new Socket("127.0.0.1", port)) {
            s.setSoTimeout(20_000);
            s.getOutputStream().write(req.toString().getBytes(StandardCharsets.ISO_8859_1));
            ByteArrayOutputStream out = new ByteArrayOutputStream();
            s.getInputStream().transferTo(out);
            return out.toString(StandardCharsets.ISO_8859_1);
        }
    }

    private static final String TOKEN = "Authorization: Bearer " + GatewayTestSupport.ADMIN_TOKEN;
    private static final String WRONG = "Authorization: Bearer " + GatewayTestSupport.ADMIN_TOKEN.replace('0', '1');

    @Test
    void mutations_needTheToken_andTheAdminPortsOwnOrigin_andNothingRunsUntilThen() throws Exception {
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = start(backend.url(), "gateway: {adminTokenFile: '" + GatewayTestSupport.adminTokenFile() + "'}")) {
            int admin = g.adminPort();
            for (String path : new String[] {"/drain", "/reload", "/drain?final=true"}) {
                String none = post(admin, path);
                assertThat(none).as("%s without a token", path).startsWith("HTTP/1.1 401 ")
                        .contains("www-authenticate: Bearer").contains("\"error\":\"unauthorized\"");
                String wrong = post(admin, path, WRONG);
                assertThat(wrong).as("%s with a wrong token", path).startsWith("HTTP/1.1 401 ")
                        .contains("www-authenticate: Bearer").contains("is not the one in gateway.adminTokenFile");
                String foreign = post(admin, path, TOKEN, "Origin: http://evil.example");
                assertThat(foreign).as("%s from a foreign origin", path).startsWith("HTTP/1.1 403 ")
                        .contains("\"error\":\"crossOrigin\"");
                String dataPortOrigin = post(admin, path, TOKEN, "Origin: http://127.0.0.1:" + g.port());
                assertThat(dataPortOrigin).as("%s from the data port's origin", path).startsWith("HTTP/1.1 403 ");
                String crossSite = post(admin, path, TOKEN, "Sec-Fetch-Site: cross-site");
                assertThat(crossSite).as("%s cross-site", path).startsWith("HTTP/1.1 403 ");
            }
            assertThat(g.draining()).as("drained by a refused request").isFalse();
            assertThat(g.metrics().registry().counter("arbiter.gateway.admin.refused", "reason", "unauthorized").count())
                    .isEqualTo(6);
            assertThat(g.metrics().registry().counter("arbiter.gateway.admin.refused", "reason", "crossOrigin").count())
                    .isEqualTo(9);
            assertThat(g.fileReloadRuns()).as("reloads run by refused requests").isZero();
            assertThat(g.configVersion().counter()).isZero();
            assertThat(DrainSocketTest.adminGet(admin, "/ready").status()).as("reads stay open").isEqualTo(200);

            String reload = post(admin, "/reload", TOKEN);
            assertThat(reload).startsWith("HTTP/1.1 200 ").contains("\"reloaded\":true", "\"version\":1");
            assertThat(g.fileReloadRuns()).isEqualTo(1);
            String sameOrigin = post(admin, "/reload", TOKEN, "Origin: http://127.0.0.1:" + admin);
            assertThat(sameOrigin).as("the admin port's own origin").startsWith("HTTP/1.1 200 ");
            assertThat(g.draining()).isFalse();

            String drain = post(admin, "/drain", TOKEN);
            assertThat(drain).startsWith("HTTP/1.1 202 ").contains("\"started\":true", "\"exitStatus\":75");
            assertThat(g.draining()).isTrue();
            assertThat(g.stopCause()).isEqualTo(StopCause.RESTART);
        }
    }

    @Test
    void concurrentReloads_areAllAnswered_andEveryRunAnswersSomeone() throws Exception {
        int n = 16;
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = start(backend.url(), "gateway: {adminTokenFile: '" + GatewayTestSupport.adminTokenFile() + "'}")) {
            java.util.concurrent.ExecutorService pool = java.util.concurrent.Executors.newFixedThreadPool(n);
            try {
                List<java.util.concurrent.Future<String>> answers = new ArrayList<>();
                for (int i = 0; i < n; i++) {
                    answers.add(pool.submit(() -> post(g.adminPort(), "/reload", TOKEN)));
                }
                Set<Long> versions = new TreeSet<>();
                for (var f : answers) {
                    String a = f.get(30, java.util.concurrent.TimeUnit.SECONDS);
                    assertThat(a).startsWith("HTTP/1.1 200 ");
                    Matcher m = Pattern.compile("\"version\":(\\d+)").matcher(a);
                    assertThat(m.find()).isTrue();
                    versions.add(Long.parseLong(m.group(1)));
                }
                long runs = g.fileReloadRuns();
                assertThat(runs).isBetween(1L, (long) n);
                assertThat(g.configVersion().counter()).isEqualTo(runs);
                // every run answered at least one request: no run happened for nobody
                assertThat(versions).hasSize((int) runs).first().isEqualTo(1L);
                System.out.printf("%d concurrent POST /reload: %d runs%n", n, runs);
            } finally {
                pool.shutdownNow();
            }
        }
    }

    @Test
    void aFinalRequest_makesARestartDrainFinal_andAnUnknownFinalValueIsRefused() throws Exception {
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = start(backend.url(), "gateway: {adminTokenFile: '" + GatewayTestSupport.adminTokenFile() + "'}")) {
            assertThat(post(g.adminPort(), "/drain?final=yes", TOKEN)).startsWith("HTTP/1.1 400 ")
                    .contains("final: yes (expected: true or false)");
            assertThat(g.draining()).isFalse();
            assertThat(post(g.adminPort(), "/drain", TOKEN)).startsWith("HTTP/1.1 202 ")
                    .contains("\"started\":true", "\"exitStatus\":75");
            assertThat(g.stopCause()).isEqualTo(StopCause.RESTART);
            // a stop asked for during a restart drain makes it final
            assertThat(post(g.adminPort(), "/drain?final=true", TOKEN)).startsWith("HTTP/1.1 202 ")
                    .contains("\"started\":false", "\"exitStatus\":0");
            assertThat(g.stopCause()).isEqualTo(StopCause.FINAL);
            assertThat(post(g.adminPort(), "/drain", TOKEN)).as("and a later restart request does not undo it")
                    .contains("\"exitStatus\":0");
        }
    }

    @Test
    void withoutATokenFile_mutationsAreRefused403_namingTheKey_evenWithAToken() throws Exception {
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = start(backend.url(), "")) {
            for (String path : new String[] {"/drain", "/reload"}) {
                assertThat(post(g.adminPort(), path, TOKEN)).startsWith("HTTP/1.1 403 ")
                        .contains("\"error\":\"mutationsDisabled\"", "set gateway.adminTokenFile");
            }
            assertThat(g.draining()).isFalse();
            assertThat(g.fileReloadRuns()).isZero();
        }
    }

    @Test
    void aTokenFileOthersCanRead_stopsTheStart_namingTheKeyAndTheMode() throws Exception {
        Path loose = Files.writeString(dir.resolve("token"), GatewayTestSupport.ADMIN_TOKEN);
        Files.setPosixFilePermissions(loose, PosixFilePermissions.fromString("rw-r--r--"));
        try (var backend = GatewayTestSupport.backend(0)) {
            ClusterConfig c = cluster(backend.url(), "gateway: {adminTokenFile: '" + loose + "'}", "");
            assertThatThrownBy(() -> Gateway.start(c, "g1", GatewayOptions.defaults().standalone()))
                    .isInstanceOf(IllegalArgumentException.class)
                    .hasMessage("gateway.adminTokenFile: " + loose + " has mode 0644 (expected: 0600 or 0400, readable by its"
                            + " owner only; chmod 600 " + loose + ")");
            Path empty = Files.writeString(dir.resolve("empty"), "");
            Files.setPosixFilePermissions(empty, PosixFilePermissions.fromString("rw-------"));
            ClusterConfig e = cluster(backend.url(), "gateway: {adminTokenFile: '" + empty + "'}", "");
            assertThatThrownBy(() -> Gateway.start(e, "g1", GatewayOptions.defaults().standalone()))
                    .hasMessageStartingWith("gateway.adminTokenFile: " + empty + " is empty");
        }
    }

    @Test
    void theAdminPort_binds127001_evenWhenTheDataPortBindsEveryAddress() throws Exception {
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = Gateway.start(cluster(backend.url(), "", ", host: 0.0.0.0"), "g1",
                     GatewayOptions.defaults().standalone())) {
            assertThat(g.host()).isEqualTo("0.0.0.0");
            assertThat(g.adminHost()).isEqualTo("127.0.0.1");
        }
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = Gateway.start(cluster(backend.url(), "", ", adminHost: 0.0.0.0"), "g1",
                     GatewayOptions.defaults().standalone())) {
            assertThat(java.net.InetAddress.getByName(g.adminHost()).isAnyLocalAddress()).as("configured otherwise: %s",
                    g.adminHost()).isTrue();
        }
    }
}
