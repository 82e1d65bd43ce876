package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.GatewayTestSupport.Http;
import org.arbiter.gateway.GatewayTestSupport;
import org.arbiter.gateway.DrainReport;
import org.junit.jupiter.api.Test;

/** Drain past its deadline, {@code POST /drain}, and readiness reasons, on real sockets. */
final class DrainSocketTest {

    private static ClusterConfig cluster(String backendUrl, String gatewayExtra) {
        return ConfigLoader.parse("""
                classes:
                  - {name: basic, target: 2s, default: true, queue: {limit: 100, timeout: 30s}}
                servers:
                  - {id: s1, url: "%s", concurrency: 4}
                gateways:
                  - {id: g1, port: 0, adminPort: 0%s}
                dispatch: {backendTimeout: 20s, idleTimeout: 30s}
                gateway: {adminTokenFile: '%s'}
                """.formatted(backendUrl, gatewayExtra, GatewayTestSupport.adminTokenFile()));
    }

    @Test
    void postDrain_pastTheDeadline_answers503WithRetryAfter_andReportsIt() throws Exception {
        try (var backend = GatewayTestSupport.backend(5000);
             Gateway g = Gateway.start(cluster(backend.url(), ", drainTimeout: 1s"), "g1",
                     GatewayOptions.defaults().withPorts(0, 0))) {
            ExecutorService pool = Executors.newFixedThreadPool(6);
            List<Http> clients = new ArrayList<>();
            List<CompletableFuture<Http.Response>> replies = new ArrayList<>();
            for (int i = 0; i < 6; i++) { // 4 at the server, 2 queued
                Http h = GatewayTestSupport.http(g.port());
                clients.add(h);
                replies.add(CompletableFuture.supplyAsync(() -> {
                    try {
                        return h.get("/slow");
                    } catch (IOException e) {
                        return new Http.Response(-1, Map.of(), e.toString());
                    }
                }, pool));
            }
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> backend.inFlight("none") >= 4 && g.stats().classes().get("basic").queueLength() >= 2);
            long t0 = System.nanoTime();
            Http.Response drain;
            try (Http admin = GatewayTestSupport.http(g.adminPort())) {
                admin.send("POST /drain HTTP/1.1\r\nHost: test\r\n" + GatewayTestSupport.ADMIN_AUTHORIZATION + "Content-Length: 0\r\n\r\n");
                drain = admin.read();
                assertThat(admin.get("/ready").body()).contains("\"reason\":\"draining\"");
                admin.send("POST /drain HTTP/1.1\r\nHost: test\r\n" + GatewayTestSupport.ADMIN_AUTHORIZATION + "Content-Length: 0\r\n\r\n");
                assertThat(admin.read().body()).contains("\"started\":false");
            }
            assertThat(drain.status()).isEqualTo(202);
            assertThat(drain.body()).contains("\"started\":true");
            for (CompletableFuture<Http.Response> f : replies) {
                Http.Response r = f.get(10, TimeUnit.SECONDS);
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.header("Retry-After")).isEqualTo("1");
                assertThat(r.header("Connection")).isEqualToIgnoringCase("close");
                assertThat(r.body()).contains("\"reason\":\"draining\"");
            }
            double answeredSeconds = (System.nanoTime() - t0) / 1e9;
            DrainReport report = g.drained().get(10, TimeUnit.SECONDS);
            assertThat(report.held()).isEqualTo(6);
            assertThat(report.refused()).isEqualTo(6);
            assertThat(report.served()).isZero();
            assertThat(report.clean()).isFalse();
            // when the deadline forces the 503s is the pure Drain's verdict, on fake time (DrainTest)
            for (Http h : clients) {
                assertThat(h.closedByPeer()).isTrue();
                h.close();
            }
            pool.shutdown();
            System.out.printf("drain past a 1 s deadline: 6 held requests answered 503 draining after %.2f s; %s%n",
                    answeredSeconds, Gateway.describe(report));
        }
    }

    @Test
    void aRequestOnAnOpenKeepAliveConnection_duringTheDrain_isServed_andClosesIt() throws Exception {
        try (var backend = GatewayTestSupport.backend(1000);
             Gateway g = Gateway.start(cluster(backend.url(), ""), "g1", GatewayOptions.defaults().withPorts(0, 0));
             Http idle = GatewayTestSupport.http(g.port());
             Http busy = GatewayTestSupport.http(g.port())) {
            Http.Response before = idle.get("/");
            assertThat(before.status()).isEqualTo(200);
            assertThat(before.header("Connection")).isNull(); // keep-alive before the drain
            busy.send("GET /held HTTP/1.1\r\nHost: test\r\n\r\n");
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> backend.inFlight("none") >= 1);
            assertThat(g.drain()).isTrue();
            assertThat(g.drain()).isFalse();
            Http.Response during = idle.get("/late");
            assertThat(during.status()).isEqualTo(200);
            assertThat(during.header("Connection")).isEqualToIgnoringCase("close");
            assertThat(idle.closedByPeer()).isTrue();
            Http.Response held = busy.read();
            assertThat(held.status()).isEqualTo(200);
            assertThat(held.header("Connection")).isEqualToIgnoringCase("close");
            DrainReport r = g.drained().get(10, TimeUnit.SECONDS);
            // The late request counts as held or as arrived, depending on whether the loop read it
            // before or after it ran the drain's start; either way both were served.
            assertThat(r.held() + r.arrived()).isEqualTo(2);
            assertThat(r.served()).isEqualTo(2);
            assertThat(r.clean()).isTrue();
            assertThat(g.readiness().reason()).contains(org.arbiter.gateway.Lifecycle.Reason.DRAINING);
        }
    }

    /**
     * The drain ends only once the keep-alive connections that carry no request are closed: a request
     * sent on such a connection at the very moment the drain finishes meets a closed connection (no
     * answer byte: a client retries it elsewhere), not a 503. The request is sent from the drain's
     * completion callback, so it cannot come later than that moment.
     */
    @Test
    void aRequestSentAsTheDrainFinishes_meetsAClosedConnection_notA503() throws Exception {
        try (var backend = GatewayTestSupport.backend(300);
             Gateway g = Gateway.start(cluster(backend.url(), ""), "g1", GatewayOptions.defaults().withPorts(0, 0));
             Http idle = GatewayTestSupport.http(g.port());
             Http busy = GatewayTestSupport.http(g.port())) {
            assertThat(idle.get("/").status()).isEqualTo(200); // keep-alive, then idle
            busy.send("GET /held HTTP/1.1\r\nHost: test\r\n\r\n");
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(5))
                    .until(() -> backend.inFlight("none") >= 1);
            assertThat(g.drain()).isTrue();
            await().atMost(Duration.ofSeconds(10)).until(() -> g.dataPlane().drainFinished() != null);
            CompletableFuture<Boolean> sent = new CompletableFuture<>();
            g.dataPlane().drainFinished().whenComplete((r, e) -> {
                try {
                    idle.send("GET /late HTTP/1.1\r\nHost: test\r\n\r\n");
                    sent.complete(true);
                } catch (IOException x) {
                    sent.complete(false); // closed already: the send itself failed
                }
            });
            assertThat(busy.read().status()).isEqualTo(200);
            sent.get(10, TimeUnit.SECONDS);
            Http.Response late;
            try {
                late = idle.read();
            } catch (IOException closed) {
                late = null;
            }
            assertThat(late).as("the late request's answer (none: its connection was closed)").isNull();
            DrainReport r = g.drained().get(10, TimeUnit.SECONDS);
            assertThat(r.refused()).isZero();
            assertThat(r.served()).isEqualTo(1);
        }
    }

    /** How soon it finishes is the pure Drain's verdict, on fake time (DrainTest); here: the counts. */
    @Test
    void drainWithNothingHeld_finishesClean_andClosesTheIdleConnection() throws Exception {
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = Gateway.start(cluster(backend.url(), ""), "g1", GatewayOptions.defaults().withPorts(0, 0))) {
            try (Http h = GatewayTestSupport.http(g.port())) {
                assertThat(h.get("/").status()).isEqualTo(200);
                assertThat(g.drain()).isTrue();
                DrainReport r = g.drained().get(10, TimeUnit.SECONDS);
                assertThat(r.held()).isZero();
                assertThat(r.arrived()).isZero();
                assertThat(r.clean()).isTrue();
                assertThat(h.closedByPeer()).isTrue(); // the idle keep-alive connection is closed at the end
            }
        }
    }

    @Test
    void ready_saysWhyNot_awaitingAllocation_thenNoCapacity_thenReady() throws Exception {
        // A bootstrap nobody listens on: Kafka mode, the broker away from the start.
        long t00 = System.nanoTime();
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = Gateway.start(cluster(backend.url(), ", startupGrace: 4s"), "g1",
                     GatewayOptions.defaults().withPorts(0, 0).withBootstrap("127.0.0.1:1"))) {
            long t0 = System.nanoTime(); // the grace runs from the ports listening, just before start returns
            double startSeconds = (t0 - t00) / 1e9;
            Http.Response first = adminGet(g.adminPort(), "/ready");
            double firstSeconds = (System.nanoTime() - t0) / 1e9;
            assertThat(first.status()).as("first /ready %.2f s after the start (start took %.2f s)",
                    firstSeconds, startSeconds).isEqualTo(503);
            assertThat(first.body()).contains("\"reason\":\"awaitingAllocation\"");
            assertThat(adminGet(g.adminPort(), "/health").status()).isEqualTo(200);
            // Requests are still served on the configured allocation meanwhile.
            try (Http h = GatewayTestSupport.http(g.port())) {
                assertThat(h.get("/").status()).isEqualTo(200);
            }
            Http.Response r = await().atMost(Duration.ofSeconds(15)).pollInterval(Duration.ofMillis(20))
                    .until(() -> adminGet(g.adminPort(), "/ready"), ready -> ready.status() != 503);
            double readySeconds = (System.nanoTime() - t0) / 1e9;
            assertThat(r.status()).as("after %.2f s (start took %.2f s): %s", readySeconds, startSeconds, r.body())
                    .isEqualTo(200);
            assertThat(r.body()).contains("configured allocation");
            System.out.printf("readiness: start took %.2f s; awaitingAllocation until %.2f s after it returned"
                    + " (startupGrace 4s)%n", startSeconds, readySeconds);
            // that the grace bounds the wait, and runs from the ports listening, is Lifecycle's verdict on
            // fake time (LifecycleTest); a busy machine only delays what is seen here

            // The GRM gives this gateway no capacity at all: not ready, with its reason.
            g.accept(new Allocation(1, Instant.now(), "g1", 1, Map.of("basic", 1.0), Map.of("s1", 0), "grm"));
            awaitStatus(g.adminPort(), 503);
            assertThat(adminGet(g.adminPort(), "/ready").body()).contains("\"reason\":\"noCapacity\"");
            g.accept(new Allocation(1, Instant.now(), "g1", 2, Map.of("basic", 1.0), Map.of("s1", 3), "grm"));
            awaitStatus(g.adminPort(), 200);
            assertThat(adminGet(g.adminPort(), "/ready").body()).contains("\"detail\":\"ready\"");
        }
    }

    @Test
    void firstAllocation_endsTheStartupWait_beforeTheGrace() throws Exception {
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = Gateway.start(cluster(backend.url(), ", startupGrace: 60s"), "g1",
                     GatewayOptions.defaults().withPorts(0, 0).withBootstrap("127.0.0.1:1"))) {
            assertThat(adminGet(g.adminPort(), "/ready").body()).contains("awaitingAllocation");
            g.accept(new Allocation(1, Instant.now(), "g1", 1, Map.of("basic", 1.0), Map.of("s1", 4), "grm"));
            awaitStatus(g.adminPort(), 200);
        }
    }

    private static void awaitStatus(int adminPort, int status) {
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(10))
                .untilAsserted(() -> assertThat(adminGet(adminPort, "/ready").status()).isEqualTo(status));
    }

    static Http.Response adminGet(int adminPort, String path) throws IOException {
        try (Http h = GatewayTestSupport.http(adminPort)) {
            return h.get(path, "Connection: close");
        }
    }
}
