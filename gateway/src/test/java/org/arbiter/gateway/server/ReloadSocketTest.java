package org.arbiter.gateway.server;

import org.arbiter.runtime.net.Ports;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.junit.jupiter.api.Assumptions.assumeFalse;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.GatewayTestSupport;
import org.arbiter.gateway.cli.GatewayCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Reloading cluster.yaml under load: a server added takes traffic, a server removed drains, and no
 * request fails — through {@code POST /reload} on an in-process gateway, and through SIGHUP to a
 * gateway in its own process. How soon a server added takes traffic is printed, not asserted: the
 * waits are 30 s guards (a clean-clone run beside other builds saw the gateway process take more
 * than 5 s after SIGHUP, where it takes well under a second on a quiet machine).
 */
final class ReloadSocketTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final GatewayTestSupport.Closing closing = new GatewayTestSupport.Closing();


    private <T extends AutoCloseable> T keep(T t) {
        return closing.keep(t);
    }

    private static String yaml(int port, int adminPort, String... urls) {
        StringBuilder y = new StringBuilder("""
                classes:
                  - {name: premium, target: 1s, weight: 8, match: {header: {X-Class: premium}}, queue: {limit: 1000, timeout: 10s}}
                  - {name: basic, target: 2s, weight: 2, default: true, queue: {limit: 1000, timeout: 10s}}
                servers:
                """);
        for (int i = 0; i < urls.length; i++) {
            y.append("  - {id: s").append(i + 1).append(", url: '").append(urls[i]).append("', concurrency: 4}\n");
        }
        y.append("gateways:\n  - {id: g1, port: ").append(port).append(", adminPort: ").append(adminPort).append("}\n");
        y.append("dispatch: {backendTimeout: 10s, idleTimeout: 10s}\n");
        y.append("gateway: {adminTokenFile: '").append(GatewayTestSupport.adminTokenFile()).append("'}\n");
        return y.toString();
    }

    /** Closed-loop GETs from {@code threads} clients until stopped; every status counted. */
    private static final class Load implements AutoCloseable {
        final AtomicBoolean running = new AtomicBoolean(true);
        final Map<Integer, AtomicInteger> codes = new ConcurrentHashMap<>();
        final List<String> errors = new CopyOnWriteArrayList<>();
        final ExecutorService pool;

        Load(int port, int threads) {
            pool = Executors.newFixedThreadPool(threads);
            HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
            URI uri = URI.create("http://127.0.0.1:" + port + "/load");
            for (int t = 0; t < threads; t++) {
                pool.execute(() -> {
                    while (running.get()) {
                        try {
                            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(20))
                                    .build(), HttpResponse.BodyHandlers.ofString());
                            codes.computeIfAbsent(r.statusCode(), k -> new AtomicInteger()).incrementAndGet();
                        } catch (Exception e) {
                            errors.add(e.toString());
                        }
                    }
                });
            }
        }

        int total() {
            return codes.values().stream().mapToInt(AtomicInteger::get).sum();
        }

        @Override
        public void close() throws InterruptedException {
            running.set(false);
            pool.shutdown();
            pool.awaitTermination(30, TimeUnit.SECONDS);
        }
    }

    private static HttpResponse<String> post(int adminPort, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
                .header("Authorization", "Bearer " + GatewayTestSupport.ADMIN_TOKEN)
                .POST(HttpRequest.BodyPublishers.noBody()).build(), HttpResponse.BodyHandlers.ofString());
    }

    private static String get(int adminPort, String path) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + path))
                .build(), HttpResponse.BodyHandlers.ofString()).body();
    }

    @Test
    void postReload_underLoad_addsAServer_drainsARemovedOne_andNoRequestFails() throws Exception {
        GatewayTestSupport.Backend s1 = keep(GatewayTestSupport.backend(20));
        GatewayTestSupport.Backend s2 = keep(GatewayTestSupport.backend(20));
        Path file = dir.resolve("cluster.yaml");
        Files.writeString(file, yaml(0, 0, s1.url()));
        Gateway g = keep(Gateway.start(ConfigLoader.load(file), "g1", GatewayOptions.defaults().standalone()));
        g.reloadFrom(file);
        assertThat(get(g.adminPort(), "/allocation")).contains("\"config\":{", "\"version\":0");
        Load load = new Load(g.port(), 12);
        await().atMost(Duration.ofSeconds(10)).until(() -> load.total() > 100);
        Files.writeString(file, yaml(0, 0, s1.url(), s2.url()) + "# s2 added\n");
        long t0 = System.nanoTime();
        HttpResponse<String> r = post(g.adminPort(), "/reload");
        assertThat(r.statusCode()).as(r.body()).isEqualTo(200);
        assertThat(r.body()).contains("\"version\":1", "server s2 added");
        assertThat(r.body()).contains("\"notApplied\":[]");
        await().atMost(Duration.ofSeconds(30)).until(() -> s2.served("none") > 0);
        double addedSeconds = (System.nanoTime() - t0) / 1e9;
        assertThat(get(g.adminPort(), "/allocation")).contains("\"version\":1", "\"s2\":4");
        // remove s1: it drains (its requests finish), then gets nothing more
        Files.writeString(file, yaml(0, 0, "http://unused:1", s2.url()).replace("  - {id: s1, url: 'http://unused:1', concurrency: 4}\n", ""));
        r = post(g.adminPort(), "/reload");
        assertThat(r.body()).contains("server s1 removed");
        await().atMost(Duration.ofSeconds(30)).until(() -> s1.inFlight("none") == 0);
        long s1After = s1.served("none");
        long s2Before = s2.served("none");
        await().atMost(Duration.ofSeconds(10)).until(() -> s2.served("none") > s2Before + 100);
        assertThat(s1.served("none")).isEqualTo(s1After);
        // a port change is reported and the rest applied
        Files.writeString(file, yaml(1, 0, "http://unused:1", s2.url()).replace("  - {id: s1, url: 'http://unused:1', concurrency: 4}\n", ""));
        r = post(g.adminPort(), "/reload");
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.body()).contains("gateways[].port: 0 -> 1 (needs a restart)");
        // an invalid file changes nothing
        Files.writeString(file, "classes: []\n");
        r = post(g.adminPort(), "/reload");
        assertThat(r.statusCode()).isEqualTo(422);
        assertThat(r.body()).contains("\"reloaded\":false", "classes");
        load.close();
        System.out.printf("reload under load: s2 took traffic %.2f s after POST /reload; %d answers %s, %d errors%n",
                addedSeconds, load.total(), load.codes, load.errors.size());
        assertThat(load.errors).isEmpty();
        assertThat(load.codes.keySet()).containsOnly(200);
    }

    @Test
    void sighup_toAGatewayProcess_underLoad_addsAServer_andNoRequestFails() throws Exception {
        GatewayTestSupport.Backend s1 = keep(GatewayTestSupport.backend(20));
        GatewayTestSupport.Backend s2 = keep(GatewayTestSupport.backend(20));
        int[] ports = Ports.free(2);
        int port = ports[0];
        int adminPort = ports[1];
        Path file = dir.resolve("cluster.yaml");
        Files.writeString(file, yaml(port, adminPort, s1.url()));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx128m",
                "-cp", System.getProperty("java.class.path"), GatewayCommand.class.getName(), "--config", file.toString(),
                "--id", "g1").redirectErrorStream(true).redirectOutput(dir.resolve("gateway.log").toFile()).start();
        closing.keep(() -> {
            p.destroyForcibly();
            p.waitFor(10, TimeUnit.SECONDS);
        });
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> get(adminPort, "/health").contains("up"));
        Load load = new Load(port, 12);
        await().atMost(Duration.ofSeconds(10)).until(() -> load.total() > 100);
        // A process started with SIGHUP ignored (under nohup) keeps it ignored, and says so
        assumeFalse(Files.readString(dir.resolve("gateway.log"), StandardCharsets.UTF_8).contains("SIGHUP is ignored"),
                "this test runs under nohup: a gateway process cannot handle SIGHUP");
        Files.writeString(file, yaml(port, adminPort, s1.url(), s2.url()));
        long t0 = System.nanoTime();
        Process kill = new ProcessBuilder("kill", "-HUP", Long.toString(p.pid())).inheritIO().start();
        assertThat(kill.waitFor()).isZero();
        await().atMost(Duration.ofSeconds(30)).until(() -> s2.served("none") > 0);
        double addedSeconds = (System.nanoTime() - t0) / 1e9;
        await().atMost(Duration.ofSeconds(10)).until(() -> s2.served("none") > 100);
        assertThat(get(adminPort, "/allocation")).contains("\"version\":1");
        load.close();
        String log = Files.readString(dir.resolve("gateway.log"), StandardCharsets.UTF_8);
        System.out.printf("SIGHUP under load: s2 took traffic %.2f s after the signal; %d answers %s, %d errors%n",
                addedSeconds, load.total(), load.codes, load.errors.size());
        assertThat(log).contains("configuration 1", "server s2 added");
        assertThat(p.isAlive()).isTrue();
        assertThat(load.errors).isEmpty();
        assertThat(load.codes.keySet()).containsOnly(200);
    }
}
