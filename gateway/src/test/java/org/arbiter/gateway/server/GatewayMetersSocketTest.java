package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.search.Search;
import java.time.Duration;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;

/**
 * The gateway's meters over real sockets: responses counted by class and status code (the
 * server's and the gateway's own), the response-time histogram's buckets at each class's target
 * and twice it, and the JVM meters on its admin port's /metrics.
 */
final class GatewayMetersSocketTest {

    @Test
    void responses_areCountedByClassAndCode_andTheHistogramHasBucketsAtTargetAndTwiceIt() throws Exception {
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = Gateway.start(GatewayTestSupport.twoClasses(10, "5s", backend.url()), "g1",
                     GatewayOptions.defaults().standalone().withPorts(0, 0))) {
            try (var c = GatewayTestSupport.http(g.port())) {
                for (int i = 0; i < 3; i++) {
                    assertThat(c.get("/x", "X-Class: premium").status()).isEqualTo(200);
                }
                assertThat(c.get("/x").status()).isEqualTo(200); // basic, the default class
            }
            MeterRegistry r = g.metrics().registry();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(count(r, "premium", "200")).isEqualTo(3.0));
            assertThat(count(r, "basic", "200")).isEqualTo(1.0);
            try (var a = GatewayTestSupport.http(g.adminPort())) {
                String body = a.get("/metrics").body();
                // premium's target is 1 s, basic's 2 s (Fixtures.twoClasses)
                assertThat(body).contains(
                        "arbiter_gateway_response_time_seconds_bucket{class=\"premium\",component=\"gateway\",id=\"g1\",le=\"1.0\"} 3",
                        "arbiter_gateway_response_time_seconds_bucket{class=\"premium\",component=\"gateway\",id=\"g1\",le=\"2.0\"} 3",
                        "arbiter_gateway_response_time_seconds_bucket{class=\"basic\",component=\"gateway\",id=\"g1\",le=\"4.0\"} 1",
                        "arbiter_gateway_responses_total{class=\"premium\",code=\"200\",component=\"gateway\",id=\"g1\"} 3.0",
                        "arbiter_gateway_target_seconds{class=\"premium\",component=\"gateway\",id=\"g1\"} 1.0",
                        "arbiter_gateway_server_up{component=\"gateway\",id=\"g1\",server=\"s1\"} 1.0",
                        "# TYPE arbiter_gateway_server_ejections_total counter",
                        "jvm_threads_live_threads", "process_cpu_usage");
            }
        }
    }

    @Test
    void theGatewaysOwnAnswer_isCountedWithItsCode() throws Exception {
        // No server listens on port 1: the request waits for a server until its queue timeout, then 503.
        try (Gateway g = Gateway.start(GatewayTestSupport.twoClasses(10, "200ms", "http://127.0.0.1:1"), "g1",
                GatewayOptions.defaults().standalone().withPorts(0, 0))) {
            try (var c = GatewayTestSupport.http(g.port())) {
                assertThat(c.get("/x", "X-Class: premium").status()).isEqualTo(503);
            }
            MeterRegistry r = g.metrics().registry();
            await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                    assertThat(count(r, "premium", "503")).isEqualTo(1.0));
            assertThat(Search.in(r).name("arbiter.gateway.responses").tag("code", "200").functionCounters()).isEmpty();
        }
    }

    private static double count(MeterRegistry r, String cls, String code) {
        var c = Search.in(r).name("arbiter.gateway.responses").tags("class", cls, "code", code).functionCounter();
        return c == null ? 0 : c.count();
    }
}
