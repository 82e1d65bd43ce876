package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * The memory budget for buffered bodies and the order of the gateway's own answers
 * (docs/reliability.md, "A memory budget for buffered bodies"), over real sockets: bodies beyond
 * {@code gateway.bodyBudget} get 503 {@code bodyBudget} with Retry-After while an ordinary GET is
 * answered, and every reserved byte is given back; a 413, 417 or 100 Continue on a pipelined
 * connection comes after the answers to the requests before it.
 */
final class BodyBudgetSocketTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final GatewayTestSupport.Closing closing = new GatewayTestSupport.Closing();


    private <T extends AutoCloseable> T keep(T t) {
        return closing.keep(t);
    }

    private static ClusterConfig config(String url, int concurrency, String gatewaySection, String maxBody) {
        return ConfigLoader.parse("""
                classes:
                  - {name: premium, target: 1s, weight: 8, match: {header: {X-Class: premium}}, queue: {limit: 20, timeout: 20s}}
                  - {name: basic, target: 2s, weight: 1, default: true, queue: {limit: 20, timeout: 20s}}
                servers:
                  - {id: s1, url: '%s', concurrency: %d}
                gateways:
                  - {id: g1, port: 0, adminPort: 0}
                gateway: {%s}
                dispatch: {backendTimeout: 20s, idleTimeout: 10s, maxBodyBytes: %s}
                """.formatted(url, concurrency, gatewaySection, maxBody));
    }

    private Gateway start(ClusterConfig c) throws InterruptedException {
        return keep(Gateway.start(c, "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
    }

    @Test
    void bodiesBeyondTheBudget_get503WithRetryAfter_whileAnOrdinaryGetIsAnswered_andEveryByteIsGivenBack()
            throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(150));
        Gateway g = start(config(backend.url(), 1, "bodyBudget: 4MiB", "2MiB"));
        // The backend holds its answers until the budget has refused a body: the bodies then pile up
        // in the gateway whatever the machine's load (a loaded machine sent them too slowly to overlap).
        backend.hold();
        int n = 8;
        int size = 3 << 19; // 1.5 MiB each: 12 MiB sent, three times the budget
        ExecutorService pool = Executors.newFixedThreadPool(n);
        List<Future<GatewayTestSupport.Http.Response>> posts = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                posts.add(pool.submit(() -> {
                    try (var c = GatewayTestSupport.http(g.port())) {
                        c.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: " + size + "\r\n\r\n");
                        byte[] chunk = new byte[1 << 16];
                        try {
                            for (int sent = 0; sent < size; sent += chunk.length) {
                                c.send(chunk);
                            }
                        } catch (java.io.IOException refusedMidBody) {
                            // the gateway answered 503 and closed while the body was on its way
                        }
                        return c.read();
                    }
                }));
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> g.dataPlane().bodyBudgetRefused() > 0);
            backend.release();
            try (var c = GatewayTestSupport.http(g.port())) {
                assertThat(c.get("/ordinary", "X-Class: premium").status()).isEqualTo(200);
            }
            int ok = 0;
            int refused = 0;
            for (var f : posts) {
                var r = f.get(30, TimeUnit.SECONDS);
                if (r.status() == 503) {
                    refused++;
                    assertThat(r.header("Retry-After")).isEqualTo("1");
                    assertThat(r.body()).contains("bodyBudget");
                } else {
                    assertThat(r.status()).isEqualTo(200);
                    ok++;
                }
            }
            assertThat(ok + refused).isEqualTo(n);
            assertThat(refused).isPositive().isEqualTo((int) g.dataPlane().bodyBudgetRefused());
            assertThat(ok).as("bodies within the budget are served").isPositive();
        } finally {
            pool.shutdownNow();
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> g.dataPlane().bodyBytesHeld() == 0);
        assertThat(g.metrics().scrape()).contains("arbiter_gateway_body_budget_refused_total");
    }

    @Test
    void http2StreamsBeyondTheBudget_eachGet503WithRetryAfter_onTheirOwnStream_andEveryByteIsGivenBack()
            throws Exception {
        TestCerts certs = TestCerts.make(dir, "gw", "localhost");
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(150));
        Gateway g = start(ConfigLoader.parse(tlsConfig(backend.url(), certs)));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(certs.trusting())
                .build();
        URI uri = URI.create("https://localhost:" + g.port() + "/upload");
        assertThat(client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).version())
                .isEqualTo(HttpClient.Version.HTTP_2); // the connection the streams share
        byte[] body = new byte[3 << 19];
        backend.hold(); // until the budget refuses a stream: the bodies pile up whatever the load (see above)
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < 8; i++) {
            all.add(client.sendAsync(HttpRequest.newBuilder(uri).POST(HttpRequest.BodyPublishers.ofByteArray(body))
                    .timeout(Duration.ofSeconds(60)).build(), HttpResponse.BodyHandlers.ofString()));
        }
        await().atMost(Duration.ofSeconds(30)).until(() -> g.dataPlane().bodyBudgetRefused() > 0);
        backend.release();
        int ok = 0;
        int refused = 0;
        for (var f : all) {
            HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
            if (r.statusCode() == 503) {
                refused++;
                assertThat(r.headers().firstValue("retry-after")).contains("1");
                assertThat(r.body()).contains("bodyBudget");
            } else {
                assertThat(r.statusCode()).isEqualTo(200);
                ok++;
            }
        }
        assertThat(refused).isPositive();
        assertThat(ok).isPositive();
        assertThat(client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).statusCode())
                .isEqualTo(200);
        await().atMost(Duration.ofSeconds(10)).until(() -> g.dataPlane().bodyBytesHeld() == 0);
    }

    private static String tlsConfig(String url, TestCerts certs) {
        return """
                classes:
                  - {name: basic, target: 2s, default: true, queue: {limit: 20, timeout: 20s}}
                servers:
                  - {id: s1, url: '%s', concurrency: 1}
                gateways:
                  - {id: g1, port: 0, adminPort: 0, tls: {cert: '%s', key: '%s'}}
                gateway: {bodyBudget: 4MiB}
                dispatch: {backendTimeout: 20s, idleTimeout: 10s, maxBodyBytes: 2MiB}
                """.formatted(url, certs.cert, certs.key);
    }

    @Test
    void pipelinedSlowGet_thenOversizedPost_the200ComesBeforeThe413() throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(300));
        Gateway g = start(config(backend.url(), 4, "", "1KiB"));
        try (var c = GatewayTestSupport.http(g.port())) {
            c.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "POST /big HTTP/1.1\r\nHost: t\r\nContent-Length: 4096\r\n\r\n" + "x".repeat(4096));
            var first = c.read();
            assertThat(first.status()).as("the answer to GET /slow comes first").isEqualTo(200);
            var second = c.read();
            assertThat(second.status()).isEqualTo(413);
            assertThat(second.body()).contains("bodyTooLarge");
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> g.dataPlane().bodyBytesHeld() == 0);
    }

    @Test
    void pipelinedSlowGet_thenExpect100_theContinueComesAfterThe200_andAnUnknownExpectGets417InItsTurn()
            throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(300));
        Gateway g = start(config(backend.url(), 4, "", "1KiB"));
        try (var c = GatewayTestSupport.http(g.port())) {
            c.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "POST /small HTTP/1.1\r\nHost: t\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(200);
            var hundred = c.read();
            assertThat(hundred.status()).isEqualTo(100);
            c.send("abc");
            assertThat(c.read().status()).isEqualTo(200);
        }
        try (var c = GatewayTestSupport.http(g.port())) {
            c.send("GET /slow HTTP/1.1\r\nHost: t\r\n\r\n"
                    + "POST /odd HTTP/1.1\r\nHost: t\r\nExpect: something-else\r\nContent-Length: 3\r\n\r\nabc");
            assertThat(c.read().status()).isEqualTo(200);
            assertThat(c.read().status()).isEqualTo(417);
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> g.dataPlane().bodyBytesHeld() == 0);
    }

    @Test
    void manyPipelinedRequestsInOneWrite_theHeldOnesAreAnsweredInOrder_theLastSaysClose_theRestAreDropped()
            throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(5));
        Gateway g = start(config(backend.url(), 4, "", "1KiB"));
        int sent = 400;
        int answered = 0;
        boolean announcedClose = false;
        try (var c = GatewayTestSupport.http(g.port())) {
            StringBuilder all = new StringBuilder();
            for (int i = 0; i < sent; i++) {
                all.append("GET /p HTTP/1.1\r\nHost: t\r\nX-Hop: ").append(i).append("\r\n\r\n");
            }
            c.send(all.toString());
            while (!announcedClose) {
                var r = c.read(); // an IOException here: closed without saying so, answers lost
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.body()).contains("hop=" + answered + " ");
                answered++;
                announcedClose = "close".equalsIgnoreCase(r.header("Connection"));
            }
            assertThat(c.closedByPeer()).isTrue();
        }
        // at most 64 wait behind the one being answered; what came beyond them was dropped unread
        assertThat(answered).isBetween(17, sent - 1);
        await().atMost(Duration.ofSeconds(10)).until(() -> g.dataPlane().connectionsOpen() == 0);
    }
}
