package org.arbiter.gateway.netty;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import org.junit.jupiter.api.Test;

/** The access-log line formats: fields, absent values, and escaping of what a client controls. */
final class AccessLogTest {

    private static final long T = 1_795_000_000_000L; // 2026-11-18T11:06:40Z

    private static AccessLog.Entry served() {
        return new AccessLog.Entry(T, "10.1.2.3", "GET", "/%61dmin?q=1", "/admin?q=1", "HTTP/1.1", 200, 1234,
                "http://ref/", "curl/8.5", "admin", "s2", 1.5, 20.25, 21.75, null);
    }

    @Test
    void combined_hasTheApacheFields_thenTheGatewayFields() {
        assertThat(AccessLog.combined(served())).isEqualTo("10.1.2.3 - - [18/Nov/2026:11:06:40 +0000] "
                + "\"GET /%61dmin?q=1 HTTP/1.1\" 200 1234 \"http://ref/\" \"curl/8.5\" class=admin server=s2 "
                + "queue_ms=1.500 backend_ms=20.250 total_ms=21.750 path=/admin?q=1 reason=-");
    }

    @Test
    void combined_refusal_hasDashesForWhatDidNotHappen() {
        var e = new AccessLog.Entry(T, "10.1.2.3", "PRI", "*", null, "HTTP/2.0", 505, 0, null, null, null, null, -1, -1,
                -1, "http2Preface");
        assertThat(AccessLog.combined(e)).endsWith("\"PRI * HTTP/2.0\" 505 - \"-\" \"-\" class=- server=- queue_ms=- "
                + "backend_ms=- total_ms=- path=- reason=http2Preface");
    }

    @Test
    void clientControlledText_cannotBreakTheLine() throws Exception {
        var e = new AccessLog.Entry(T, "10.1.2.3", "GET", "/a", "/a", "HTTP/1.1", 200, 1, null,
                "evil\" \\ \n\u00e9", "web", "s1", 0, 0, 0, null);
        String combined = AccessLog.combined(e);
        assertThat(combined).contains("\"evil\\x22 \\x5C \\x0A\\xE9\"").doesNotContain("\n");
        String json = AccessLog.json(e);
        assertThat(json).doesNotContain("\n");
        JsonNode n = new ObjectMapper().readTree(json);
        assertThat(n.get("userAgent").asText()).isEqualTo("evil\" \\ \n\u00e9");
        assertThat(n.get("referer").isNull()).isTrue();
        assertThat(n.get("status").asInt()).isEqualTo(200);
        assertThat(n.get("time").asText()).isEqualTo("2026-11-18T11:06:40Z");
    }

    @Test
    void off_writesNothing() {
        assertThat(AccessLog.OFF.enabled()).isFalse();
        AccessLog.OFF.record(served());
        AccessLog.OFF.close();
    }
}
