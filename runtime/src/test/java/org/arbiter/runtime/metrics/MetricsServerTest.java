package org.arbiter.runtime.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import org.junit.jupiter.api.Test;

final class MetricsServerTest {

    private final HttpClient http = HttpClient.newHttpClient();

    private HttpResponse<String> send(String method, URI uri) throws Exception {
        return http.send(HttpRequest.newBuilder(uri).method(method, HttpRequest.BodyPublishers.noBody()).build(),
                HttpResponse.BodyHandlers.ofString());
    }

    @Test
    void servesTheScrape_health_andRefusesOtherPathsAndMethods() throws Exception {
        try (ProcessMetrics m = ProcessMetrics.createWithJvm("test", "t1");
             MetricsServer s = MetricsServer.start("t1", "127.0.0.1", 0, m::scrape)) {
            m.registry().counter("arbiter.test.scrapes").increment(2);
            URI base = URI.create("http://127.0.0.1:" + s.port());
            HttpResponse<String> metrics = send("GET", base.resolve("/metrics"));
            assertThat(metrics.statusCode()).isEqualTo(200);
            assertThat(metrics.headers().firstValue("Content-Type")).hasValue(MetricsServer.PROMETHEUS_TEXT);
            assertThat(metrics.body()).contains("arbiter_test_scrapes_total{component=\"test\",id=\"t1\"} 2.0",
                    "jvm_memory_used_bytes{area=\"heap\",component=\"test\",id=\"t1\",pool=", "process_uptime_seconds",
                    "jvm_classes_loaded_classes", "process_files_open_files", "system_cpu_count");
            assertThat(send("HEAD", base.resolve("/metrics")).statusCode()).isEqualTo(200);
            assertThat(send("GET", base.resolve("/health")).body()).isEqualTo("{\"status\":\"up\"}");
            assertThat(send("GET", base.resolve("/nope")).statusCode()).isEqualTo(404);
            HttpResponse<String> post = send("POST", base.resolve("/metrics"));
            assertThat(post.statusCode()).isEqualTo(405);
            assertThat(post.headers().firstValue("Allow")).hasValue("GET, HEAD");

            assertThatThrownBy(() -> MetricsServer.start("t2", "127.0.0.1", s.port(), m::scrape))
                    .isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("cannot bind the admin port 127.0.0.1:" + s.port());
        }
    }
}
