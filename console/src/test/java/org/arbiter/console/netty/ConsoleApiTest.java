package org.arbiter.console.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.common.bus.Publisher;
import org.arbiter.console.server.Console;
import org.arbiter.console.Fixtures;
import org.arbiter.console.Http;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Every endpoint and every error, against a console on a real (embedded) Kafka broker. */
final class ConsoleApiTest {

    @TempDir
    static Path dir;

    static EmbeddedKafka kafka;
    static KafkaBus bus;
    static Console console;
    static Http http;
    static final List<Map.Entry<String, OperatorOverride>> published = new CopyOnWriteArrayList<>();

    @BeforeAll
    static void start() {
        kafka = EmbeddedKafka.start(dir.resolve("kafka"));
        ClusterConfig config = Fixtures.config(false, kafka.bootstrap());
        bus = KafkaBus.connect(config.kafka(), "console-test", null);
        bus.subscribe(bus.topics().overrides(), OperatorOverride.class, Subscriber.Start.BEGINNING,
                (k, v) -> published.add(new java.util.AbstractMap.SimpleEntry<>(k, v)));
        console = Console.start(config, bus, "127.0.0.1", 0, Clock.systemUTC());
        http = new Http(console.url());
    }

    @AfterAll
    static void stop() {
        if (console != null) {
            console.close();
        }
        if (bus != null) {
            bus.close();
        }
        if (kafka != null) {
            kafka.close();
        }
    }

    // ---- reads -------------------------------------------------------------------------------

    @Test
    void getCluster_showsClassesGatewaysAndServers() {
        HttpResponse<String> r = http.get("/api/cluster", Http.bearer(Fixtures.VIEWER_TOKEN));
        assertThat(r.statusCode()).isEqualTo(200);
        JsonNode n = json(r);
        assertThat(n.at("/classes/0/name").asText()).isEqualTo("premium");
        assertThat(n.at("/classes/0/targetSeconds").asDouble()).isEqualTo(2.0);
        assertThat(n.at("/classes/1/default").asBoolean()).isTrue();
        assertThat(n.at("/gateways").findValuesAsText("id")).contains("g1", "g2");
        assertThat(n.at("/gateways").findValuesAsText("kind")).containsExactly("arbiter", "haproxy");
        assertThat(n.at("/servers/0/id").asText()).isEqualTo("s1");
        assertThat(n.at("/servers/0/concurrency").asInt()).isEqualTo(10);
        assertThat(r.headers().firstValue("Cache-Control")).hasValue("no-store");
    }

    @Test
    void busMessages_showInAllocationClusterStatsAndDecisions() {
        Instant now = Instant.now();
        bus.publisher(bus.topics().allocation()).publish(new Allocation(Message.VERSION, now, "g2", 42,
                Map.of("premium", 6.0, "basic", 4.0), Map.of("s1", 5, "s2", 5), "grm"));
        bus.publisher(bus.topics().power()).publish(new PowerOrder(Message.VERSION, now, "s2", ServerState.OFF,
                ServerState.DRAINING, "sizing", 3));
        bus.publisher(bus.topics().stats()).publish(Fixtures.stats("g2", now, 1.25, 8));
        bus.publisher(bus.topics().decisions()).publish(new Decision(Message.VERSION, now, "grm-7", 9, 42, "min", 0.75,
                0.002, List.of("g2"), List.of(), Map.of(), 0, List.of(), List.of(), 0,
                Map.of("premium", new Decision.PredictionError(0.25, 4))));
        String[] auth = Http.bearer(Fixtures.VIEWER_TOKEN);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            JsonNode a = json(http.get("/api/allocation", auth));
            assertThat(a.at("/g2/version").asLong()).isEqualTo(42);
            assertThat(a.at("/g2/weights/premium").asDouble()).isEqualTo(6.0);
            assertThat(a.at("/g2/serverCaps/s1").asInt()).isEqualTo(5);
            JsonNode d = json(http.get("/api/decisions?limit=5", auth));
            assertThat(d.at("/decisions").findValuesAsText("grm")).contains("grm-7");
            // the flow model's prediction error per class, for the console's decisions table
            assertThat(d.at("/decisions/0/predictionErrors/premium/meanAbs").asDouble()).isEqualTo(0.25);
            assertThat(d.at("/decisions/0/predictionErrors/premium/samples").asInt()).isEqualTo(4);
            JsonNode c = json(http.get("/api/cluster", auth));
            assertThat(c.at("/servers/1/state").asText()).isEqualTo("DRAINING");
            assertThat(c.at("/gateways/1/live").asBoolean()).isTrue();
            JsonNode st = json(http.get("/api/stats?since=" + now.minusSeconds(1), auth));
            assertThat(st.at("/stats").findValuesAsText("gateway")).contains("g2");
        });
        JsonNode later = json(http.get("/api/stats?since=" + now.plusSeconds(3600), auth));
        assertThat(later.at("/stats").size()).isZero();
        JsonNode point = null;
        for (JsonNode p : json(http.get("/api/stats", auth)).at("/stats")) {
            if (p.get("gateway").asText().equals("g2")) {
                point = p.at("/classes/premium");
            }
        }
        assertThat(point.get("responseTime").asDouble()).isEqualTo(1.25);
        assertThat(point.get("utility").asDouble()).isEqualTo(0.75);   // τ − t with φ = α = 1
    }

    @Test
    void badQueryParameters_get400NamingTheParameter() {
        String[] auth = Http.bearer(Fixtures.VIEWER_TOKEN);
        HttpResponse<String> since = http.get("/api/stats?since=yesterday", auth);
        assertThat(since.statusCode()).isEqualTo(400);
        assertThat(json(since).get("field").asText()).isEqualTo("since");
        for (String limit : List.of("0", "abc", "100000")) {
            HttpResponse<String> r = http.get("/api/decisions?limit=" + limit, auth);
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(json(r).get("field").asText()).isEqualTo("limit");
        }
    }

    @Test
    void getConfig_leavesOutHashesAndDigests() {
        HttpResponse<String> r = http.get("/api/config", Http.bearer(Fixtures.VIEWER_TOKEN));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(json(r).at("/config/classes/0/name").asText()).isEqualTo("premium");
        assertThat(r.body()).contains("alice").doesNotContain("pbkdf2:").doesNotContain(
                org.arbiter.console.auth.Authenticator.sha256Hex(Fixtures.ADMIN_TOKEN));
    }

    @Test
    void events_streamNewMessages() throws Exception {
        HttpRequest req = http.request("/api/events", Http.bearer(Fixtures.VIEWER_TOKEN)).GET().build();
        HttpResponse<InputStream> r = http.client().send(req, HttpResponse.BodyHandlers.ofInputStream());
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).startsWith("text/event-stream");
        try (BufferedReader in = new BufferedReader(new InputStreamReader(r.body(), StandardCharsets.UTF_8))) {
            bus.publisher(bus.topics().stats()).publish(Fixtures.stats("g1", Instant.now(), 0.5, 3));
            // a new epoch (now, in ms) outranks every allocation held; a bare nanoTime counter is out of range
            bus.publisher(bus.topics().allocation()).publish(new Allocation(Message.VERSION, Instant.now(), "g1",
                    1, Map.of("premium", 5.0), Map.of("s1", 10), "grm", System.currentTimeMillis()));
            bus.publisher(bus.topics().decisions()).publish(new Decision(Message.VERSION, Instant.now(), "grm-e", 1, 1,
                    "min", 0.5, 0.001, List.of(), List.of(), Map.of(), 0, List.of()));
            bus.publisher(bus.topics().power()).publish(new PowerOrder(Message.VERSION, Instant.now(), "s1",
                    ServerState.ON, ServerState.ON, "", 1));
            Set<String> seen = new HashSet<>();
            // until all four are seen, not any four: another test's events (an override) share the bus,
            // and a clean-clone run stopped at {allocation, decision, stats, override} before "power"
            Set<String> expected = Set.of("stats", "allocation", "decision", "power");
            long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
            String line;
            while (!seen.containsAll(expected) && System.nanoTime() < deadline && (line = in.readLine()) != null) {
                if (line.startsWith("event: ")) {
                    seen.add(line.substring(7));
                }
            }
            assertThat(seen).contains("stats", "allocation", "decision", "power");
        }
    }

    // ---- authentication ----------------------------------------------------------------------

    @Test
    void readsWithoutCredentials_get401() {
        for (String path : List.of("/api/cluster", "/api/allocation", "/api/stats", "/api/decisions", "/api/overrides",
                "/api/config", "/api/events")) {
            HttpResponse<String> r = http.get(path);
            assertThat(r.statusCode()).as(path).isEqualTo(401);
            assertThat(json(r).get("error").asText()).as(path).contains("authentication required");
            assertThat(r.headers().firstValue("WWW-Authenticate")).as(path).isPresent();
        }
    }

    @Test
    void postWithoutCredentials_gets401() {
        HttpResponse<String> r = http.post("/api/overrides", "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 7}");
        assertThat(r.statusCode()).isEqualTo(401);
        assertThat(http.delete("/api/overrides/weight:g1:premium").statusCode()).isEqualTo(401);
    }

    @Test
    void wrongBearerToken_gets401() {
        assertThat(http.get("/api/cluster", Http.bearer("guess")).statusCode()).isEqualTo(401);
        assertThat(http.post("/api/overrides", "{}", Http.bearer("guess")).statusCode()).isEqualTo(401);
    }

    @Test
    void viewerWriting_gets403() {
        HttpResponse<String> r = http.post("/api/overrides", "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 7}",
                Http.bearer(Fixtures.VIEWER_TOKEN));
        assertThat(r.statusCode()).isEqualTo(403);
        assertThat(json(r).get("error").asText()).contains("viewer");
    }

    @Test
    void login_givesASessionCookie_andWritesNeedTheCsrfToken() {
        HttpResponse<String> wrong = http.post("/api/login", "{\"user\": \"alice\", \"password\": \"nope\"}");
        assertThat(wrong.statusCode()).isEqualTo(401);
        HttpResponse<String> ok = http.post("/api/login", "{\"user\": \"alice\", \"password\": \"" + Fixtures.ADMIN_PASSWORD + "\"}");
        assertThat(ok.statusCode()).isEqualTo(200);
        String setCookie = ok.headers().firstValue("Set-Cookie").orElseThrow();
        assertThat(setCookie).startsWith("arbiter_session=").containsIgnoringCase("HttpOnly").contains("SameSite=Strict");
        String cookie = setCookie.substring(0, setCookie.indexOf(';'));
        String csrf = json(ok).get("csrf").asText();
        assertThat(json(ok).get("role").asText()).isEqualTo("admin");

        assertThat(json(http.get("/api/session", "Cookie", cookie)).get("user").asText()).isEqualTo("alice");
        assertThat(http.get("/api/cluster", "Cookie", cookie).statusCode()).isEqualTo(200);
        String body = "{\"kind\": \"target\", \"class\": \"basic\", \"value\": 2.5}";
        assertThat(http.post("/api/overrides", body, "Cookie", cookie).statusCode()).isEqualTo(403);
        assertThat(http.post("/api/overrides", body, "Cookie", cookie, "X-CSRF-Token", "forged").statusCode()).isEqualTo(403);
        assertThat(http.post("/api/overrides", body, "Cookie", cookie, "X-CSRF-Token", csrf).statusCode()).isEqualTo(201);
        assertThat(http.delete("/api/overrides/target:basic", "Cookie", cookie, "X-CSRF-Token", csrf).statusCode()).isEqualTo(200);

        assertThat(http.post("/api/logout", "{}", "Cookie", cookie).statusCode()).isEqualTo(403);   // no CSRF token
        assertThat(http.get("/api/cluster", "Cookie", cookie).statusCode()).isEqualTo(200);
        HttpResponse<String> out = http.post("/api/logout", "{}", "Cookie", cookie, "X-CSRF-Token", csrf);
        assertThat(out.statusCode()).isEqualTo(204);
        assertThat(http.get("/api/cluster", "Cookie", cookie).statusCode()).isEqualTo(401);
        assertThat(json(http.get("/api/session", "Cookie", cookie)).get("user").isNull()).isTrue();
    }

    @Test
    void viewerSession_writing_gets403() {
        HttpResponse<String> ok = http.post("/api/login", "{\"user\": \"bob\", \"password\": \"" + Fixtures.VIEWER_PASSWORD + "\"}");
        String cookie = ok.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
        HttpResponse<String> r = http.post("/api/overrides", "{\"kind\": \"target\", \"class\": \"basic\", \"value\": 2}",
                "Cookie", cookie, "X-CSRF-Token", json(ok).get("csrf").asText());
        assertThat(r.statusCode()).isEqualTo(403);
    }

    @Test
    void malformedLogin_gets400() {
        HttpResponse<String> r = http.post("/api/login", "{\"user\": \"alice\"}");
        assertThat(r.statusCode()).isEqualTo(400);
        assertThat(json(r).get("field").asText()).isEqualTo("password");
    }

    // ---- overrides ---------------------------------------------------------------------------

    @Test
    void adminToken_pinsAndUnpins_onTheOverridesTopic() {
        String[] admin = Http.bearer(Fixtures.ADMIN_TOKEN);
        HttpResponse<String> r = http.post("/api/overrides",
                "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 7}", admin);
        assertThat(r.statusCode()).isEqualTo(201);
        assertThat(r.headers().firstValue("Location")).hasValue("/api/overrides/weight:g1:premium");
        assertThat(json(r).get("author").asText()).isEqualTo("ci");
        await().atMost(Duration.ofSeconds(20)).until(() -> published.stream().anyMatch(e -> e.getKey().equals("weight:g1:premium")
                && e.getValue() != null && e.getValue().active() && e.getValue().value() == 7.0));
        JsonNode list = json(http.get("/api/overrides", admin));
        assertThat(list.at("/overrides").findValuesAsText("id")).contains("weight:g1:premium");

        HttpResponse<String> del = http.delete("/api/overrides/weight:g1:premium", admin);
        assertThat(del.statusCode()).isEqualTo(200);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
            List<OperatorOverride> records = published.stream().filter(e -> e.getKey().equals("weight:g1:premium"))
                    .map(Map.Entry::getValue).toList();
            assertThat(records).hasSizeGreaterThanOrEqualTo(3);
            assertThat(records.get(records.size() - 2).active()).isFalse();
            assertThat(records.get(records.size() - 1)).isNull();   // the tombstone
        });
        assertThat(json(http.get("/api/overrides", admin)).at("/overrides").findValuesAsText("id"))
                .doesNotContain("weight:g1:premium");
        assertThat(http.delete("/api/overrides/weight:g1:premium", admin).statusCode()).isEqualTo(404);
    }

    @Test
    void everyOverrideKind_isAccepted() {
        String[] admin = Http.bearer(Fixtures.ADMIN_TOKEN);
        for (String body : List.of("{\"kind\": \"concurrency\", \"server\": \"s1\", \"value\": 8}",
                "{\"kind\": \"target\", \"class\": \"premium\", \"value\": 1.5}",
                "{\"kind\": \"power\", \"server\": \"s2\", \"state\": \"OFF\"}",
                "{\"kind\": \"utility\", \"class\": \"premium\", \"phi\": 2}")) {
            HttpResponse<String> r = http.post("/api/overrides", body, admin);
            assertThat(r.statusCode()).as(body).isEqualTo(201);
            String id = json(r).get("id").asText();
            assertThat(http.delete("/api/overrides/" + id, admin).statusCode()).as(id).isEqualTo(200);
        }
    }

    @Test
    void malformedOverride_gets400NamingTheField() {
        String[] admin = Http.bearer(Fixtures.ADMIN_TOKEN);
        HttpResponse<String> r = http.post("/api/overrides",
                "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": -3}", admin);
        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode n = json(r);
        assertThat(n.get("field").asText()).isEqualTo("value");
        assertThat(n.get("rule").asText()).isEqualTo("between 0 and 1000000");
        assertThat(n.get("error").asText()).isEqualTo("value: -3 (expected: between 0 and 1000000)");

        HttpResponse<String> notJson = http.post("/api/overrides", "{kind: weight", admin);
        assertThat(notJson.statusCode()).isEqualTo(400);
        assertThat(json(notJson).get("field").asText()).isEqualTo("body");

        HttpResponse<String> unknown = http.post("/api/overrides", "{\"kind\": \"weight\", \"gateway\": \"g9\", \"class\": \"premium\", \"value\": 1}", admin);
        assertThat(json(unknown).get("field").asText()).isEqualTo("gateway");
        assertThat(json(unknown).get("rule").asText()).isEqualTo("one of g1, g2");
    }

    @Test
    void numbersOutOfTheirRange_get400WithTheRange() {
        String[] admin = Http.bearer(Fixtures.ADMIN_TOKEN);
        for (String[] c : new String[][] {
                {"{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 1e10}",
                        "value: 1.0E10 (expected: between 0 and 1000000)"},
                {"{\"kind\": \"concurrency\", \"server\": \"s1\", \"value\": 1e12}",
                        "value: 1.0E12 (expected: a whole number from 1 to 100000)"},
                {"{\"kind\": \"target\", \"class\": \"premium\", \"value\": 1e999}",
                        "value: Infinity (expected: > 0 and <= 86400)"},
                {"{\"kind\": \"utility\", \"class\": \"premium\", \"beta\": 1e308}",
                        "beta: 1.0E308 (expected: > 0 and <= 10)"}}) {
            HttpResponse<String> r = http.post("/api/overrides", c[0], admin);
            assertThat(r.statusCode()).as(c[0]).isEqualTo(400);
            assertThat(json(r).get("error").asText()).as(c[0]).isEqualTo(c[1]);
        }
    }

    @Test
    void aWeightPinThatCannotBeMet_gets400WithTheFeasibleRange() {
        String[] admin = Http.bearer(Fixtures.ADMIN_TOKEN);
        awaitNoOverrides(admin);
        // N = 20 (s1, s2 at 10), two gateways × two classes, minWeight 1: one flow may hold 17 at most
        HttpResponse<String> r = http.post("/api/overrides",
                "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 18}", admin);
        assertThat(r.statusCode()).isEqualTo(400);
        JsonNode n = json(r);
        assertThat(n.get("field").asText()).isEqualTo("value");
        assertThat(n.get("rule").asText()).startsWith("between 0 and 17: N = 20 slots");
        assertThat(n.get("error").asText()).isEqualTo("value: 18 (expected: between 0 and 17: N = 20 slots, of which the "
                + "other 3 flows need 3 (minWeight 1, minShare and the pins set before this one))");
        assertThat(published).noneMatch(e -> e.getKey().equals("weight:g1:premium") && e.getValue() != null
                && e.getValue().value() == 18.0);
    }

    @Test
    void aPinThatDoesNotFitWithThePinsInForce_gets400_andTheGrmsVerdictIsShown() {
        String[] admin = Http.bearer(Fixtures.ADMIN_TOKEN);
        awaitNoOverrides(admin);
        String first = "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"basic\", \"value\": 10}";
        assertThat(http.post("/api/overrides", first, admin).statusCode()).isEqualTo(201);
        try {
            // alone 9 would fit (9 + 3 <= 20); with 10 in force the other flows need 12, so at most 8
            HttpResponse<String> r = http.post("/api/overrides",
                    "{\"kind\": \"weight\", \"gateway\": \"g2\", \"class\": \"basic\", \"value\": 9}", admin);
            assertThat(r.statusCode()).isEqualTo(400);
            assertThat(json(r).get("rule").asText()).startsWith("between 0 and 8: N = 20 slots, of which the other 3 flows need 12");
            // a power pin that would take s2's 10 slots away from the pin in force is refused too
            HttpResponse<String> off = http.post("/api/overrides", "{\"kind\": \"power\", \"server\": \"s2\", \"state\": \"OFF\"}", admin);
            assertThat(off.statusCode()).isEqualTo(400);
            assertThat(json(off).get("field").asText()).isEqualTo("state");
            assertThat(json(off).get("error").asText()).contains("weight:g1:basic");

            // the GRM's decision says which pin it left out (here: as if the cluster were smaller than configured)
            bus.publisher(bus.topics().decisions()).publish(new Decision(Message.VERSION, Instant.now(), "grm-p", 1, 1, "min",
                    0.5, 0.001, List.of("g1"), List.of(), Map.of(), 0, List.of("weight:g1:basic"),
                    List.of(new Decision.PinStatus("weight:g1:basic", false, "value: 10 (expected: between 0 and 8: ...)"))));
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                JsonNode st = json(http.get("/api/overrides", admin)).at("/status/weight:g1:basic");
                assertThat(st.path("applied").isBoolean()).as("a status for weight:g1:basic").isTrue();
                assertThat(st.path("applied").asBoolean()).isFalse();
                assertThat(st.path("reason").asText()).startsWith("value: 10 (expected: between 0 and 8");
            });
        } finally {
            assertThat(http.delete("/api/overrides/weight:g1:basic", admin).statusCode()).isEqualTo(200);
        }
    }

    /** Waits until no override of another test is in force (the tests share one console and topic). */
    private static void awaitNoOverrides(String[] auth) {
        await().atMost(Duration.ofSeconds(20)).until(() -> json(http.get("/api/overrides", auth)).at("/overrides").isEmpty());
    }

    // ---- protocol errors ---------------------------------------------------------------------

    @Test
    void protocolErrors_getTheirStatus() {
        String[] admin = Http.bearer(Fixtures.ADMIN_TOKEN);
        assertThat(http.get("/api/nothing", admin).statusCode()).isEqualTo(404);
        assertThat(http.get("/nothing.html").statusCode()).isEqualTo(404);
        assertThat(http.get("/webjars/../../etc/passwd").statusCode()).isEqualTo(404);
        assertThat(http.delete("/api/cluster", admin).statusCode()).isEqualTo(405);
        assertThat(http.get("/api/login").statusCode()).isEqualTo(405);
        assertThat(http.post("/", "{}").statusCode()).isEqualTo(405);
        assertThat(http.post("/api/overrides", "kind=weight", admin[0], admin[1], "Content-Type", "application/x-www-form-urlencoded")
                .statusCode()).isEqualTo(415);
        HttpResponse<String> big = http.post("/api/overrides", "{\"x\": \"" + "a".repeat(100_000) + "\"}", admin);
        assertThat(big.statusCode()).isEqualTo(413);
        assertThat(http.get("/api/cluster", admin).statusCode()).isEqualTo(200);   // still serving
    }

    @Test
    void page_andChartLibrary_areServedWithoutCredentials() {
        HttpResponse<String> page = http.get("/");
        assertThat(page.statusCode()).isEqualTo(200);
        assertThat(page.headers().firstValue("Content-Type").orElse("")).startsWith("text/html");
        assertThat(page.headers().firstValue("Content-Security-Policy").orElse("")).contains("default-src 'self'");
        assertThat(page.body()).contains("Arbiter").contains("/webjars/chart.js/dist/chart.umd.js");
        assertThat(http.get("/console.js").statusCode()).isEqualTo(200);
        HttpResponse<String> lib = http.get("/webjars/chart.js/dist/chart.umd.js");
        assertThat(lib.statusCode()).isEqualTo(200);
        assertThat(lib.headers().firstValue("Content-Type").orElse("")).startsWith("text/javascript");
        assertThat(lib.body()).contains("Chart");
    }

    @Test
    void garbageOnTheTopics_isSkipped_andTheConsoleGoesOn() {
        Properties p = bus.clientProperties();
        p.put("key.serializer", StringSerializer.class.getName());
        p.put("value.serializer", ByteArraySerializer.class.getName());
        try (KafkaProducer<String, byte[]> raw = new KafkaProducer<>(p)) {
            for (String topic : List.of(bus.topics().stats(), bus.topics().allocation(), bus.topics().decisions(),
                    bus.topics().power(), bus.topics().overrides())) {
                raw.send(new ProducerRecord<>(topic, "g1", "{not json".getBytes(StandardCharsets.UTF_8)));
                raw.send(new ProducerRecord<>(topic, "g1", "{\"v\": 1, \"at\": \"2026-01-01T00:00:00Z\", \"gateway\": \"\"}".getBytes(StandardCharsets.UTF_8)));
                raw.send(new ProducerRecord<>(topic, "g1", new byte[] {0, 1, 2}));
            }
            raw.flush();
        }
        Instant now = Instant.now();
        bus.publisher(bus.topics().stats()).publish(Fixtures.stats("g1", now, 0.3, 2));
        String[] auth = Http.bearer(Fixtures.VIEWER_TOKEN);
        await().atMost(Duration.ofSeconds(20)).untilAsserted(() ->
                assertThat(json(http.get("/api/stats?since=" + now.minusMillis(1), auth)).at("/stats").size()).isPositive());
        assertThat(http.get("/api/cluster", auth).statusCode()).isEqualTo(200);
    }

    @Test
    void publicRead_letsReadsThrough_butNotWrites() {
        try (Console open = Console.detached(Fixtures.config(true, null), Publisher.noop(), "127.0.0.1", 0, Clock.systemUTC())) {
            Http h = new Http(open.url());
            assertThat(h.get("/api/cluster").statusCode()).isEqualTo(200);
            assertThat(h.get("/api/session").body()).contains("\"publicRead\":true");
            assertThat(h.post("/api/overrides", "{\"kind\": \"target\", \"class\": \"basic\", \"value\": 2}").statusCode())
                    .isEqualTo(401);
        }
    }

    static JsonNode json(HttpResponse<String> r) {
        try {
            return MessageCodec.mapper().readTree(r.body());
        } catch (Exception e) {
            throw new AssertionError("not JSON (" + r.statusCode() + "): " + r.body(), e);
        }
    }
}
