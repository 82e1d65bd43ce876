package org.arbiter.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.ConnectException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.arbiter.common.config.ConfigException;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The load generator and the simserver, over real sockets on 127.0.0.1. */
final class WorkloadTest {

    @TempDir
    Path dir;

    static Scenario closedLoop(int clients, String think, String duration) {
        return Scenario.parse("""
                classes:
                  basic: {headers: {X-Class: basic}}
                think: %s
                timeout: 10s
                seed: 3
                phases:
                  - {name: A, duration: %s, clients: {basic: %d}}
                """.formatted(think, duration, clients));
    }

    @SuppressWarnings("unchecked")
    static Map<String, Object> basic(Map<String, Object> summary) {
        return (Map<String, Object>) ((Map<String, Object>) summary.get("classes")).get("basic");
    }

    @Test
    @SuppressWarnings("unchecked")
    void closedLoop_followsTheInteractiveResponseTimeLaw_againstAFixedDelayBackend() throws Exception {
        ScheduledExecutorService delay = Executors.newScheduledThreadPool(4);
        HttpServer backend = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        backend.createContext("/", ex -> delay.schedule(() -> {
            try {
                ex.getRequestBody().readAllBytes();
                ex.sendResponseHeaders(200, 2);
                ex.getResponseBody().write("ok".getBytes());
                ex.close();
            } catch (IOException e) {
                ex.close();
            }
        }, 100, TimeUnit.MILLISECONDS));
        backend.setExecutor(Executors.newFixedThreadPool(4));
        backend.start();
        try {
            URI target = URI.create("http://127.0.0.1:" + backend.getAddress().getPort());
            Map<String, Object> s = new LoadGenerator(closedLoop(5, "100ms", "8s"), List.of(target), null).run(dir);
            Map<String, Object> b = basic(s);
            // X = N/(Z + R) = 5/(0.1 + 0.1) = 25 req/s.
            assertThat(((Number) b.get("throughputPerSecond")).doubleValue()).isCloseTo(25, within(2.5));
            identityHolds(b);
            for (Object p : (List<Object>) s.get("phases")) {
                ((Map<String, Object>) ((Map<String, Object>) p).get("classes")).values()
                        .forEach(c -> identityHolds((Map<String, Object>) c));
            }
            assertThat(dir.resolve("summary.json")).exists();
            assertThat(Files.readAllLines(dir.resolve("timeseries.jsonl"))).isNotEmpty();
            assertThat(dir.resolve("response-time.png")).exists();
            assertThat(dir.resolve("outcomes.png")).exists();
        } finally {
            backend.stop(0);
            delay.shutdownNow();
        }
    }

    static void identityHolds(Map<String, Object> c) {
        long sent = ((Number) c.get("sent")).longValue();
        long sum = 0;
        for (String k : List.of("ok", "rejected", "errors", "timedOut", "lost")) {
            sum += ((Number) c.get(k)).longValue();
        }
        assertThat(sum).isEqualTo(sent);
    }

    @Test
    void simserver_saturatesAtCoresOverDemand_andThrashesWithOverhead() throws Exception {
        double x10 = saturate(0, 10);
        double x30 = saturate(0.05, 30);
        assertThat(x10).isCloseTo(100, within(10.0));
        assertThat(x30).isLessThan(0.8 * x10);
    }

    private double saturate(double overhead, int clients) throws Exception {
        try (SimServer s = SimServer.start(SimServerOptions.defaults().withDemand(10, 0.1, overhead))) {
            URI target = URI.create("http://127.0.0.1:" + s.port());
            Map<String, Object> r = new LoadGenerator(closedLoop(clients, "0s", "6s"), List.of(target), null)
                    .run(dir.resolve("sat-" + clients));
            return ((Number) basic(r).get("throughputPerSecond")).doubleValue();
        }
    }

    @Test
    void poweredOffSimserver_refusesConnections_untilPowerOnPlusBootDelay() throws Exception {
        try (SimServer s = SimServer.start(SimServerOptions.defaults().withDemand(10, 0.01, 0).withDelays(0.5, 0.1))) {
            HttpClient http = HttpClient.newHttpClient();
            URI admin = URI.create("http://127.0.0.1:" + s.adminPort());
            assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + "/")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            http.send(HttpRequest.newBuilder(admin.resolve("/power/off")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            Thread.sleep(400);
            assertThat(s.state()).isEqualTo(SimServer.State.OFF);
            assertThatThrownBy(() -> new Socket("127.0.0.1", s.port()).close()).isInstanceOf(ConnectException.class);
            http.send(HttpRequest.newBuilder(admin.resolve("/power/on")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            Thread.sleep(200);
            assertThat(s.state()).isEqualTo(SimServer.State.BOOTING);
            assertThatThrownBy(() -> new Socket("127.0.0.1", s.port()).close()).isInstanceOf(ConnectException.class);
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(5);
            while (s.state() != SimServer.State.ON && System.nanoTime() < deadline) {
                Thread.sleep(20);
            }
            assertThat(s.state()).isEqualTo(SimServer.State.ON);
            assertThat(http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + s.port() + "/")).build(),
                    HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
            String status = http.send(HttpRequest.newBuilder(admin.resolve("/status")).build(),
                    HttpResponse.BodyHandlers.ofString()).body();
            assertThat(status).contains("\"state\":\"ON\"").contains("joules");
            String bad = http.send(HttpRequest.newBuilder(admin.resolve("/fault"))
                    .POST(HttpRequest.BodyPublishers.ofString("{\"kind\":\"melt\"}")).build(), HttpResponse.BodyHandlers.ofString()).body();
            assertThat(bad).contains("kind: melt (expected: one of crash, slow, errors, none)");
        }
    }

    @Test
    void faults_errorsSlowAndCrash_areWhatTheClientsSee() throws Exception {
        // Demand 100 ms, so the HTTP round trip on a busy machine does not hide the factor.
        try (SimServer s = SimServer.start(SimServerOptions.defaults().withDemand(10, 0.1, 0))) {
            HttpClient http = HttpClient.newHttpClient();
            URI admin = URI.create("http://127.0.0.1:" + s.adminPort());
            URI target = URI.create("http://127.0.0.1:" + s.port());
            double normal = meanResponse(target, "normal");
            fault(http, admin, "{\"kind\": \"slow\", \"factor\": 5}");
            double slow = meanResponse(target, "slow");
            assertThat(slow).isGreaterThan(2.5 * normal);
            fault(http, admin, "{\"kind\": \"errors\", \"rate\": 1.0}");
            Map<String, Object> errors = basic(new LoadGenerator(closedLoop(2, "10ms", "1s"), List.of(target), null)
                    .run(dir.resolve("errors")));
            assertThat(((Number) errors.get("errors")).longValue()).isEqualTo(((Number) errors.get("sent")).longValue()).isPositive();
            fault(http, admin, "{\"kind\": \"none\"}");
            fault(http, admin, "{\"kind\": \"crash\"}");
            Thread.sleep(200);
            assertThatThrownBy(() -> new Socket("127.0.0.1", s.port()).close()).isInstanceOf(ConnectException.class);
        }
    }

    private double meanResponse(URI target, String name) throws Exception {
        Map<String, Object> r = basic(new LoadGenerator(closedLoop(2, "10ms", "2s"), List.of(target), null).run(dir.resolve(name)));
        return ((Number) r.get("meanResponseSeconds")).doubleValue();
    }

    private static void fault(HttpClient http, URI admin, String body) throws Exception {
        assertThat(http.send(HttpRequest.newBuilder(admin.resolve("/fault")).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        Thread.sleep(50);
    }

    @Test
    void scenarioErrors_nameTheirPath() {
        assertThatThrownBy(() -> Scenario.parse("""
                classes: {basic: {}}
                think: soon
                phases:
                  - {name: A, duration: -2s, clients: {premium: 3}}
                """)).isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).contains(
                "think: soon (expected: a duration such as 250ms, 5s or 2m)",
                "phases[0].duration: -2s (expected: > 0)"));
        assertThat(Scenario.parse("""
                classes: {premium: {headers: {X-Class: premium}}, basic: {}}
                timeScale: 0.5
                phases:
                  - {name: A, duration: 60s, clients: {premium: 5, basic: 5}}
                  - {name: B, duration: 60s, rate: {premium: 10, basic: 5}}
                  - {name: C, duration: 60s, pareto: {premium: {shape: 1.5, on: 1s, off: 10s, interval: 100ms}}}
                  - {name: D, duration: 600s, diurnal: {basic: {peak: 50, trough: 10}}}
                """).totalSeconds()).isEqualTo(390.0);
    }
}
