package org.arbiter.gateway.server;

import org.arbiter.runtime.net.Ports;
import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The answers the gateway gives, over real sockets on port 0 against a real backend. */
final class ProxySocketTest {

    @RegisterExtension
    final GatewayTestSupport.Closing closing = new GatewayTestSupport.Closing();


    private <T extends AutoCloseable> T keep(T t) {
        return closing.keep(t);
    }

    private Gateway gateway(ClusterConfig cluster) throws InterruptedException {
        return keep(Gateway.start(cluster, "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
    }

    @Test
    void request_isForwardedWithForwardedHeaders_andKeepAliveOnBothSides() throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(0));
        Gateway g = gateway(GatewayTestSupport.twoClasses(10, "5s", backend.url()));
        try (GatewayTestSupport.Http c = GatewayTestSupport.http(g.port())) {
            for (int i = 0; i < 3; i++) {
                var r = c.get("/x", "X-Class: premium", "Connection: keep-alive, X-Hop", "X-Hop: secret");
                assertThat(r.status()).isEqualTo(200);
                assertThat(r.header("X-Arbiter-Class")).isEqualTo("premium");
                assertThat(r.header("Keep-Alive")).isNull();
                assertThat(r.body()).contains("xff=127.0.0.1", "proto=http", "connection=null", "hop=null");
            }
            var basic = c.get("/y");
            assertThat(basic.header("X-Arbiter-Class")).isEqualTo("basic");
        }
        assertThat(backend.connections()).isEqualTo(1);
    }

    @Test
    void malformedLine_hugeHeader_hugeBody_get400_431_413_andTheNextRequestSucceeds() throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(0));
        Gateway g = gateway(GatewayTestSupport.twoClasses(10, "5s", backend.url()));
        try (var c = GatewayTestSupport.http(g.port())) {
            c.send("THIS IS NOT HTTP\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(400);
        }
        try (var c = GatewayTestSupport.http(g.port())) {
            c.send("GET / HTTP/1.1\r\nHost: t\r\nX-Big: " + "a".repeat(64 * 1024) + "\r\n\r\n");
            assertThat(c.read().status()).isEqualTo(431);
        }
        try (var c = GatewayTestSupport.http(g.port())) {
            int size = 20 << 20;
            ExecutorService writer = Executors.newSingleThreadExecutor();
            Future<?> sent = writer.submit(() -> {
                c.send("POST /upload HTTP/1.1\r\nHost: t\r\nContent-Length: " + size + "\r\n\r\n");
                byte[] chunk = new byte[1 << 16];
                for (int i = 0; i < size / chunk.length; i++) {
                    c.send(chunk);
                }
                return null;
            });
            var r = c.read();
            assertThat(r.status()).isEqualTo(413);
            try {
                sent.get();
            } catch (Exception ignored) {
                // the gateway may close before the whole body is written
            }
            writer.shutdownNow();
        }
        try (var c = GatewayTestSupport.http(g.port())) {
            assertThat(c.get("/after").status()).isEqualTo(200);
        }
    }

    @Test
    void refusedServer_requestGoesBackToItsQueueAndToAnother_whateverItsMethod() throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(0));
        int dead = Ports.free();
        Gateway g = gateway(GatewayTestSupport.twoClasses(10, "5s", "http://127.0.0.1:" + dead, backend.url()));
        try (var c = GatewayTestSupport.http(g.port())) {
            // least-outstanding starts at s1, the dead one: the GET is requeued and goes to s2.
            assertThat(c.get("/a").status()).isEqualTo(200);
        }
        Gateway g2 = keep(Gateway.start(GatewayTestSupport.twoClasses(10, "5s", "http://127.0.0.1:" + dead,
                backend.url()), "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
        try (var c = GatewayTestSupport.http(g2.port())) {
            // no byte of it reached s1 (refused), so a POST is requeued too (a sent one gets 502:
            // BackendHealthSocketTest)
            c.send("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi");
            var r = c.read();
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("method=POST", "bytes=2");
        }
    }

    @Test
    void slowBackend_gets504() throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(2000));
        Gateway g = gateway(GatewayTestSupport.withDispatch("{backendTimeout: 300ms, idleTimeout: 5s}", 10, "5s",
                backend.url()));
        try (var c = GatewayTestSupport.http(g.port())) {
            var r = c.get("/slow");
            assertThat(r.status()).isEqualTo(504);
            assertThat(r.body()).contains("backendTimeout");
        }
    }

    @Test
    void queuedTooLong_gets503WithRetryAfter() throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(1500));
        Gateway g = gateway(GatewayTestSupport.twoClasses(100, "200ms", backend.url()));
        List<GatewayTestSupport.Http> clients = new ArrayList<>();
        for (int i = 0; i < 11; i++) {
            var c = keep(GatewayTestSupport.http(g.port()));
            c.send("GET /q HTTP/1.1\r\nHost: t\r\nX-Class: premium\r\n\r\n");
            clients.add(c);
        }
        // Ten take the ten slots, one waits and times out. Which one is the order the requests reach
        // the core in, not the order they were sent: the connections are spread over the event loops.
        List<GatewayTestSupport.Http.Response> refused = new ArrayList<>();
        int ok = 0;
        for (var c : clients) {
            var r = c.read();
            if (r.status() == 200) {
                ok++;
            } else {
                refused.add(r);
            }
        }
        assertThat(ok).as("answered by the backend").isEqualTo(10);
        assertThat(refused).hasSize(1);
        var r = refused.get(0);
        assertThat(r.status()).isEqualTo(503);
        assertThat(r.header("Retry-After")).isEqualTo("1");
        assertThat(r.body()).contains("\"class\":\"premium\"", "queueTimeout");
    }

    @Test
    void idleAndTricklingClients_areClosedAfterIdleTimeout() throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(0));
        Gateway g = gateway(GatewayTestSupport.withDispatch("{idleTimeout: 300ms}", 10, "5s", backend.url()));
        try (var idle = GatewayTestSupport.http(g.port()); var trickle = GatewayTestSupport.http(g.port())) {
            long start = System.nanoTime();
            trickle.send("GET / HTTP/1.1\r\n");
            for (int i = 0; i < 3; i++) {
                Thread.sleep(100);
                try {
                    trickle.send("X-A: b\r\n");
                } catch (IOException closed) {
                    break;
                }
            }
            // closed by the gateway, not the client's 15 s read timeout (how long it took is printed)
            assertThat(idle.closedByPeer()).isTrue();
            assertThat(trickle.closedByPeer()).isTrue();
            System.out.printf("idle and trickling clients closed %.2f s after the start (idle timeout 0.3 s)%n",
                    (System.nanoTime() - start) / 1e9);
        }
    }

    /**
     * The idle timeout counts from the end of the last answer, not from the connection's start or
     * its first idle spell: a client asking every 150 ms with a 400 ms timeout keeps its connection
     * for ten requests (1.5 s), a request slower than the timeout does not close it, and once the
     * client stops the connection closes after about the timeout.
     */
    @Test
    void idleTimeout_restartsAfterEveryAnswer_andBusyTimeIsNotIdle() throws Exception {
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(0));
        Gateway g = gateway(GatewayTestSupport.withDispatch("{idleTimeout: 400ms}", 10, "5s", backend.url()));
        try (var c = GatewayTestSupport.http(g.port())) {
            for (int i = 0; i < 10; i++) {
                assertThat(c.get("/keep").status()).as("request %d on one connection", i).isEqualTo(200);
                Thread.sleep(150);
            }
            backend.delayMillis = 700; // busy for longer than the idle timeout
            assertThat(c.get("/slow").status()).isEqualTo(200);
            backend.delayMillis = 0;
            assertThat(c.get("/after").status()).as("still open after a slow answer").isEqualTo(200);
            long lastAnswer = System.nanoTime();
            assertThat(c.closedByPeer()).isTrue();
            double idleSeconds = (System.nanoTime() - lastAnswer) / 1e9;
            // no sooner than the timeout after the last answer (a lower bound holds at any load); closed by
            // the gateway within the client's 15 s read timeout
            assertThat(idleSeconds).as("closed after the idle timeout").isGreaterThanOrEqualTo(0.35);
        }
    }

    @Test
    void burstOfTenTimesCapacity_everyRequestAnswered_excessGets503_andServiceResumes() throws Exception {
        // caps 10 + queues 2 x 5 = 20 held; 200 requests at once. The backend holds each request 2 s, so
        // "at once" holds on a busy machine too: the 200 are sent long before the first slot frees (with
        // 100 ms answers a loaded machine sent them slower than the slots turned over, and fewer than
        // half were refused).
        GatewayTestSupport.Backend backend = keep(GatewayTestSupport.backend(2000));
        Gateway g = gateway(GatewayTestSupport.twoClasses(5, "5s", backend.url()));
        int n = 200;
        List<GatewayTestSupport.Http> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            var c = keep(GatewayTestSupport.http(g.port()));
            c.send("GET /b HTTP/1.1\r\nHost: t\r\n" + (i % 2 == 0 ? "X-Class: premium\r\n" : "") + "\r\n");
            clients.add(c);
        }
        int ok = 0;
        int unavailable = 0;
        for (var c : clients) {
            var r = c.read();
            if (r.status() == 200) {
                ok++;
            } else {
                assertThat(r.status()).isEqualTo(503);
                assertThat(r.header("Retry-After")).isNotNull();
                unavailable++;
            }
        }
        assertThat(ok + unavailable).isEqualTo(n);
        assertThat(ok).isGreaterThanOrEqualTo(20);
        assertThat(unavailable).isGreaterThanOrEqualTo(n / 2);
        var stats = g.stats();
        assertThat(stats.classes().values()).allMatch(s -> s.queueLength() == 0 && s.inFlight() == 0);
        try (var c = GatewayTestSupport.http(g.port())) {
            assertThat(c.get("/after").status()).isEqualTo(200);
        }
    }
}
