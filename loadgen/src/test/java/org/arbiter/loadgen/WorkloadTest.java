package org.arbiter.loadgen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;
import static org.assertj.core.api.Assertions.withinPercentage;
import static org.awaitility.Awaitility.await;

import java.net.ConnectException;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.common.config.ConfigException;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.loadgen.client.LoadSummary;
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

    @Test
    void closedLoop_followsTheInteractiveResponseTimeLaw_againstAFixedDelayBackend() throws Exception {
        try (FixedDelayBackend backend = new FixedDelayBackend(100)) {
            Scenario sc = Scenario.parse("""
                    classes:
                      premium: {headers: {X-Class: premium}}
                      basic: {headers: {X-Class: basic}, path: /b, method: POST}
                    think: 100ms
                    timeout: 10s
                    seed: 3
                    phases:
                      - {name: A, duration: 4s, clients: {premium: 5}}
                      - {name: B, duration: 4s, clients: {premium: 5, basic: 3}}
                    """);
            LoadSummary s = new LoadGenerator(sc, List.of(backend.uri()), null).run(dir);
            // X = N/(Z + R) = 5/(0.1 + 0.1) = 25 req/s for premium; 3/0.2 = 15 req/s for basic in B.
            assertThat(s.cls("premium").throughputPerSecond()).isCloseTo(25, within(2.5));
            assertThat(s.phases().get(1).cls("basic").throughputPerSecond()).isCloseTo(15, within(2.0));
            assertThat(s.phases().get(0).cls("basic").sent()).isZero();
            // ... and with the response time actually measured, within 10 %.
            for (int p = 0; p < 2; p++) {
                for (String c : List.of("premium", "basic")) {
                    LoadSummary.ClassSummary m = s.phases().get(p).cls(c);
                    identityHolds(m);
                    int n = c.equals("premium") ? 5 : p == 1 ? 3 : 0;
                    if (n > 0) {
                        assertThat(m.meanResponseSeconds()).isBetween(0.1, 0.15);
                        assertThat(m.throughputPerSecond()).as("phase %d %s", p, c)
                                .isCloseTo(n / (0.1 + m.meanResponseSeconds()), withinPercentage(10));
                    }
                }
            }
            identityHolds(s.cls("premium"));
            identityHolds(s.cls("basic"));
            List<String> lines = Files.readAllLines(dir.resolve("timeseries.jsonl"));
            assertThat(lines).hasSizeGreaterThanOrEqualTo(2 * (int) (8 / 0.05)).allMatch(l -> l.contains("\"class\""));
            for (String png : List.of("response-time.png", "throughput.png", "outcomes.png")) {
                assertThat(dir.resolve(png)).isNotEmptyFile();
            }
        }
    }

    @Test
    void openLoop_poissonParetoAndDiurnal_sendAtTheirRates_withoutWaitingForConnections() throws Exception {
        try (FixedDelayBackend backend = new FixedDelayBackend(100)) {
            Scenario sc = Scenario.parse("""
                    classes: {a: {}, b: {}}
                    timeout: 10s
                    phases:
                      - {name: warm-up, duration: 1s, rate: {a: 20}}
                      - {name: poisson, duration: 4s, rate: {a: 40}}
                      - {name: pareto, duration: 3s, pareto: {b: {shape: 1.5, on: 1s, off: 1s, interval: 20ms}}}
                      - {name: diurnal, duration: 3s, diurnal: {a: {peak: 40, trough: 0}}}
                    """);
            LoadSummary s = new LoadGenerator(sc, List.of(backend.uri(), backend.uri()), null).run(dir);
            // (A fresh JVM with paranoid leak detection answers its first requests slowly: warm-up phase.)
            // 40 req/s on 100 ms answers needs ~4 connections at once: the pool grows, nobody waits.
            assertThat(s.phases().get(1).cls("a").throughputPerSecond()).isCloseTo(40, within(8.0));
            assertThat(s.phases().get(1).cls("a").p95ResponseSeconds()).isLessThan(0.16);
            // 001's source, on 1 s / off 1 s, 50 req/s while on.
            assertThat(s.phases().get(2).cls("b").sent()).isPositive();
            assertThat(s.phases().get(2).cls("b").p95ResponseSeconds()).isLessThan(0.16);
            // A diurnal day from 0 to 40 and back averages 20 req/s.
            assertThat(s.phases().get(3).cls("a").throughputPerSecond()).isCloseTo(20, within(8.0));
            for (int p = 0; p < 4; p++) {
                identityHolds(s.phases().get(p).cls("a"));
                identityHolds(s.phases().get(p).cls("b"));
            }
        }
    }

    @Test
    void outcomes_rejectedErrorsTimedOutAndRefused_areCountedApart() throws Exception {
        try (FixedDelayBackend backend = new FixedDelayBackend(300)) {
            Scenario sc = Scenario.parse("""
                    classes: {basic: {}}
                    think: 10ms
                    timeout: 100ms
                    phases:
                      - {name: A, duration: 1s, clients: {basic: 2}}
                    """);
            LoadSummary.ClassSummary timedOut = new LoadGenerator(sc, List.of(backend.uri()), null).run(dir.resolve("t")).cls("basic");
            assertThat(timedOut.timedOut()).isEqualTo(timedOut.sent()).isPositive();
        }
        try (FixedDelayBackend backend = new FixedDelayBackend(10)) {
            backend.status = 503;
            LoadSummary.ClassSummary rejected = new LoadGenerator(closedLoop(2, "10ms", "1s"), List.of(backend.uri()), null)
                    .run(dir.resolve("r")).cls("basic");
            assertThat(rejected.rejected()).isEqualTo(rejected.sent()).isPositive();
            backend.status = 404;
            LoadSummary.ClassSummary notFound = new LoadGenerator(closedLoop(2, "10ms", "1s"), List.of(backend.uri()), null)
                    .run(dir.resolve("n")).cls("basic");
            assertThat(notFound.ok()).isEqualTo(notFound.sent()).isPositive();
        }
        int closedPort;
        try (java.net.ServerSocket ss = new java.net.ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
            closedPort = ss.getLocalPort();
        }
        LoadSummary.ClassSummary refused = new LoadGenerator(closedLoop(2, "0s", "1s"),
                List.of(URI.create("http://127.0.0.1:" + closedPort)), null).run(dir.resolve("e")).cls("basic");
        // Refused connections are errors; the 10 ms back-off keeps a think-0 client from spinning.
        assertThat(refused.errors()).isEqualTo(refused.sent()).isPositive().isLessThan(2 * 110);
    }

    static void identityHolds(LoadSummary.ClassSummary c) {
        assertThat(c.ok() + c.rejected() + c.errors() + c.timedOut() + c.lost()).isEqualTo(c.sent());
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
            return new LoadGenerator(closedLoop(clients, "0s", "6s"), List.of(target), null)
                    .run(dir.resolve("sat-" + clients)).cls("basic").throughputPerSecond();
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
            await().atMost(Duration.ofSeconds(5)).until(() -> s.state() == PowerModel.State.OFF);
            assertThatThrownBy(() -> new Socket("127.0.0.1", s.port()).close()).isInstanceOf(ConnectException.class);
            http.send(HttpRequest.newBuilder(admin.resolve("/power/on")).POST(HttpRequest.BodyPublishers.noBody()).build(),
                    HttpResponse.BodyHandlers.ofString());
            // BOOTING once the clock thread took the order; the check below comes within the 0.5 s boot.
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(2))
                    .until(() -> s.state() == PowerModel.State.BOOTING);
            assertThatThrownBy(() -> new Socket("127.0.0.1", s.port()).close()).isInstanceOf(ConnectException.class);
            await().atMost(Duration.ofSeconds(5)).until(() -> s.state() == PowerModel.State.ON);
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
            fault(s, http, admin, "{\"kind\": \"slow\", \"factor\": 5}");
            double slow = meanResponse(target, "slow");
            // 10 clients on 10 cores never queue: mean response = mean demand (0.1 s, then 0.5 s).
            assertThat(normal).isBetween(0.07, 0.2);
            assertThat(slow).isBetween(0.3, 0.8);
            fault(s, http, admin, "{\"kind\": \"errors\", \"rate\": 1.0}");
            LoadSummary.ClassSummary errors = new LoadGenerator(closedLoop(2, "10ms", "1s"), List.of(target), null)
                    .run(dir.resolve("errors")).cls("basic");
            assertThat(errors.errors()).isEqualTo(errors.sent()).isPositive();
            fault(s, http, admin, "{\"kind\": \"none\"}");
            fault(s, http, admin, "{\"kind\": \"crash\"}");
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() ->
                    assertThatThrownBy(() -> new Socket("127.0.0.1", s.port()).close()).isInstanceOf(ConnectException.class));
        }
    }

    private double meanResponse(URI target, String name) throws Exception {
        return new LoadGenerator(closedLoop(10, "0s", "2s"), List.of(target), null).run(dir.resolve(name)).cls("basic")
                .meanResponseSeconds();
    }

    /** Posts a fault and waits until the simserver applied it (its clock thread does, after the answer). */
    private static void fault(SimServer s, HttpClient http, URI admin, String body) throws Exception {
        assertThat(http.send(HttpRequest.newBuilder(admin.resolve("/fault")).POST(HttpRequest.BodyPublishers.ofString(body)).build(),
                HttpResponse.BodyHandlers.ofString()).statusCode()).isEqualTo(200);
        String kind = body.replaceAll(".*\"kind\": \"(\\w+)\".*", "$1");
        await().atMost(Duration.ofSeconds(5)).until(() -> kind.equals(s.status().fault()));
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
