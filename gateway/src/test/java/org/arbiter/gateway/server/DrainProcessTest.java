package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.arbiter.gateway.GatewayTestSupport.Http;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The acceptance test on a real gateway process: a backend taking 2 s, 20 requests in
 * flight or queued, SIGTERM 0.5 s later. Every request gets 200, {@code /ready} is 503 from the
 * signal on, a new connection is refused, and the process exits 0 saying what it drained.
 */
final class DrainProcessTest {

    @TempDir
    Path dir;

    @Test
    void sigterm_answersEveryHeldRequest_refusesNewConnections_andExitsZero() throws Exception {
        try (var backend = GatewayTestSupport.backend(2000)) {
            Path config = dir.resolve("cluster.yaml");
            Files.writeString(config, """
                    classes:
                      - {name: basic, target: 2s, default: true, queue: {limit: 100, timeout: 30s}}
                    servers:
                      - {id: s1, url: "%s", concurrency: 10}
                    gateways:
                      - {id: g1, port: 0, adminPort: 0, drainTimeout: 10s}
                    dispatch: {backendTimeout: 10s, idleTimeout: 30s}
                    """.formatted(backend.url()));
            GatewayTestSupport.GatewayProcess g = GatewayTestSupport.GatewayProcess.start(config, "g1", "-Xmx128m");
            Process p = g.process();
            List<String> output = g.output();
            ExecutorService pool = Executors.newFixedThreadPool(24);
            try {
                int port = g.port();
                int adminPort = g.adminPort();
                assertThat(adminGet(adminPort, "/ready").status()).isEqualTo(200);

                // 20 keep-alive requests: 10 at the server (N = 10), 10 queued.
                List<CompletableFuture<Http.Response>> replies = new ArrayList<>();
                List<Http> clients = new ArrayList<>();
                for (int i = 0; i < 20; i++) {
                    Http h = GatewayTestSupport.http(port);
                    clients.add(h);
                    replies.add(CompletableFuture.supplyAsync(() -> {
                        try {
                            return h.get("/work");
                        } catch (IOException e) {
                            return new Http.Response(-1, java.util.Map.of(), e.toString());
                        }
                    }, pool));
                }
                long sent = System.nanoTime();
                await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                        .until(() -> backend.inFlight("none") >= 10);
                assertThat(backend.inFlight("none")).isEqualTo(10);
                Thread.sleep(Math.max(0, 500 - (System.nanoTime() - sent) / 1_000_000));

                long signal = System.nanoTime();
                // SIGTERM. Process.destroy() would also close our end of the child's output.
                assertThat(p.toHandle().destroy()).isTrue();
                Http.Response notReady = await("/ready turned 503").atMost(Duration.ofSeconds(30))
                        .pollInterval(Duration.ofMillis(2)).until(() -> adminGet(adminPort, "/ready"), r -> r.status() == 503);
                long notReadyNanos = System.nanoTime() - signal;
                assertThat(notReady.body()).contains("\"ready\":false").contains("\"reason\":\"draining\"");
                await("a new connection is refused").atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(2))
                        .until(() -> {
                            try (Socket s = new Socket()) {
                                s.connect(new InetSocketAddress("127.0.0.1", port), 500);
                                return false;
                            } catch (ConnectException e) {
                                return true;
                            }
                        });
                long refusedNanos = System.nanoTime() - signal;
                assertThat(adminGet(adminPort, "/ready").status()).isEqualTo(503);

                int ok = 0;
                for (int i = 0; i < 20; i++) {
                    Http.Response r = replies.get(i).get(30, TimeUnit.SECONDS);
                    assertThat(r.status()).as("request %d: %s", i, r.body()).isEqualTo(200);
                    assertThat(r.header("Connection")).isEqualToIgnoringCase("close");
                    assertThat(clients.get(i).closedByPeer()).isTrue();
                    ok++;
                }
                long answeredNanos = System.nanoTime() - signal;
                assertThat(g.waitFor(30)).isTrue();
                long exitNanos = System.nanoTime() - signal;
                assertThat(p.exitValue()).as("exit status; output %s", output).isZero();
                assertThat(output).anyMatch(l -> l.startsWith("gateway g1 drained 20 requests")
                        && l.contains("20 held at the start") && l.contains("20 answered by servers")
                        && l.contains("0 answered 503") && l.contains("0 cut"));
                System.out.printf("drain: %d/20 got 200; /ready 503 after %.1f ms, new connection refused after %.1f ms,"
                                + " last answer %.2f s, exit 0 after %.2f s (from the signal)%n", ok, notReadyNanos / 1e6,
                        refusedNanos / 1e6, answeredNanos / 1e9, exitNanos / 1e9);
                for (Http h : clients) {
                    h.close();
                }
            } finally {
                pool.shutdownNow();
                g.close();
                output.forEach(l -> System.out.println("  gateway> " + l));
            }
        }
    }

    private static Http.Response adminGet(int adminPort, String path) throws IOException {
        try (Http h = GatewayTestSupport.http(adminPort)) {
            return h.get(path, "Connection: close");
        }
    }
}
