package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.Executors;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;

/**
 * Random polling over real sockets (002 §3): three backends, each with a loadUrl served by a JDK HttpServer
 * that reports its backend's requests in flight; s3's, which claims to be idle, answers come after 2 s, past the 100 ms deadline
 * (wide, so that the fast servers' answers stay in time on a busy machine: at 10 ms against 50 ms, a clean-clone run
 * beside other builds saw every poll miss, every server skipped, and s3 took 17 %). Late answers are
 * discarded, so s3 misses every poll, is skipped after three in a row, and gets almost nothing although it
 * claims to be idle — if late answers counted, or a miss did not, it would get a third.
 */
final class RandomPollSocketTest {

    private static HttpServer loadServer(long delayMillis, java.util.function.IntSupplier active) throws Exception {
        HttpServer h = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        h.setExecutor(Executors.newFixedThreadPool(4, r -> {
            Thread t = new Thread(r, "load-url");
            t.setDaemon(true);
            return t;
        }));
        h.createContext("/load", ex -> {
            try {
                if (delayMillis > 0) {
                    Thread.sleep(delayMillis); // the slow server answering a poll, on its own thread
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            byte[] b = ("{\"active\": " + active.getAsInt() + ", \"queued\": 0}").getBytes(StandardCharsets.UTF_8);
            ex.getResponseHeaders().set("Content-Type", "application/json");
            ex.sendResponseHeaders(200, b.length);
            ex.getResponseBody().write(b);
            ex.close();
        });
        h.start();
        return h;
    }

    @Test
    void aServerWhoseLoadUrlAnswersAfterTheDeadline_isSkipped() throws Exception {
        var b1 = GatewayTestSupport.backend(20);
        var b2 = GatewayTestSupport.backend(20);
        var b3 = GatewayTestSupport.backend(20);
        HttpServer fast1 = loadServer(0, () -> b1.inFlight("basic"));
        HttpServer fast2 = loadServer(0, () -> b2.inFlight("basic"));
        HttpServer slow = loadServer(2000, () -> 0);
        try (b1; b2; b3) {
            String yaml = """
                    classes:
                      - {name: basic, target: 2s, default: true, queue: {limit: 100, timeout: 5s}}
                    servers:
                      - {id: s1, url: '%s', concurrency: 10, loadUrl: 'http://127.0.0.1:%d/load'}
                      - {id: s2, url: '%s', concurrency: 10, loadUrl: 'http://127.0.0.1:%d/load'}
                      - {id: s3, url: '%s', concurrency: 10, loadUrl: 'http://127.0.0.1:%d/load'}
                    gateways:
                      - {id: g1, port: 0, adminPort: 0}
                    control: {reportPeriod: 1s, statsWindow: 10s}
                    dispatch: {balancer: random-poll, poll: {count: 3, deadline: 100ms}, backendTimeout: 5s, idleTimeout: 5s}
                    """.formatted(b1.url(), fast1.getAddress().getPort(), b2.url(), fast2.getAddress().getPort(),
                    b3.url(), slow.getAddress().getPort());
            try (Gateway g = Gateway.start(ConfigLoader.parse(yaml), "g1", GatewayOptions.defaults().standalone().withPorts(0, 0));
                 var load = new GatewayTestSupport.Load(g.port(), Map.of("basic", 6))) {
                await().atMost(Duration.ofSeconds(60)).until(() -> load.count(200) >= 200);
                long s3Before = b3.served("basic");
                long b1Before = b1.served("basic");
                long b2Before = b2.served("basic");
                long totalBefore = b1.served("basic") + b2.served("basic") + s3Before;
                await().atMost(Duration.ofSeconds(60)).until(() -> load.count(200) >= 800);
                long s1 = b1.served("basic");
                long s2 = b2.served("basic");
                long s3 = b3.served("basic") - s3Before;
                long total = s1 + s2 + b3.served("basic") - totalBefore;
                System.out.printf("served after the first 200: s1 %d, s2 %d (whole run), s3 %d of %d%n", s1, s2, s3, total);
                // Skipped while its polls miss the deadline: fewer requests than a fast server on average
                // (without the skip it would get a third; a poll that timed out taken for an idle server
                // would send it the most). How few depends on how often a busy machine makes the fast
                // servers' polls miss too (29 of 602 on a loaded clean-clone run), so it is printed.
                long s1After = s1 - b1Before;
                long s2After = s2 - b2Before;
                assertThat(2 * s3).as("the slow-polling server (twice its count), against s1 (%d) + s2 (%d)",
                        s1After, s2After).isLessThan(s1After + s2After);
                // Both take requests; how evenly is decided without sockets (PollBookTest's
                // randomPoll_splitsEvenly...): here the polls race the machine's load, and one
                // clean-clone run beside other builds split 119 / 636.
                assertThat(s1).as("s1 takes requests").isPositive();
                assertThat(s2).as("s2 takes requests").isPositive();
            }
        } finally {
            fast1.stop(0);
            fast2.stop(0);
            slow.stop(0);
        }
    }
}
