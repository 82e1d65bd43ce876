package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.console.auth.Authenticator;
import org.arbiter.console.server.Console;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The operator's console and the GRM's power orders reaching a real HAProxy 2.6 through the agent
 * ({@link HaproxyRig}: a real broker, the GRM service, the console, HAProxy and its agent, clients under
 * load; skipped without HAProxy).
 */
class HaproxyPinTest {

    private static final String TOKEN = "operator-token-0123456789";

    @TempDir
    Path dir;

    @BeforeEach
    void haproxy() {
        Assumptions.assumeTrue(org.arbiter.gateway.l4.HaproxyProcess.binary().isPresent(), "haproxy is not installed");
    }

    private static String console() {
        return """
                console:
                  port: 0
                  tokens:
                    - {name: operator, sha256: "%s", role: admin}
                """.formatted(Authenticator.sha256Hex(TOKEN));
    }

    private static HttpResponse<String> post(Console console, String body) throws Exception {
        return HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + console.port() + "/api/overrides"))
                .header("Authorization", "Bearer " + TOKEN).header("Content-Type", "application/json")
                .POST(HttpRequest.BodyPublishers.ofString(body)).build(), HttpResponse.BodyHandlers.ofString());
    }

    /** A weight pin posted to the console ({@code POST /api/overrides}, as its page does) reaches maxconn. */
    @Test
    void aConsoleWeightPinReachesMaxconnWithinTwoControlPeriods() throws Exception {
        try (HaproxyRig rig = new HaproxyRig(dir, 1, 10, 0,
                "control: {period: 1s, reportPeriod: 500ms, statsWindow: 3s, combine: min}\n" + console());
             Console console = Console.start(rig.cluster, rig.kafka.bootstrap(), 0)) {
            rig.load(4, 20);
            await().atMost(Duration.ofSeconds(30)).until(() -> rig.agent.allocation().epoch() > 0
                    && rig.agent.verified() != null && rig.agent.verified().epoch() > 0);
            long before = rig.stat().row("class.premium", "s1").slim();
            int pin = before == 3 ? 7 : 3; // a pin the caps in force do not already meet
            long t0 = System.nanoTime();
            HttpResponse<String> posted = post(console, "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": "
                    + "\"premium\", \"value\": " + pin + "}");
            assertThat(posted.statusCode()).as("the console took the pin: %s", posted.body()).isBetween(200, 299);
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
                StatCsv.Table t = rig.stat();
                return t.row("class.premium", "s1").slim() == pin && t.row("class.basic", "s1").slim() == 10 - pin;
            });
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("console pin premium = %d (caps had premium %d) reached HAProxy's maxconn after %.2f s "
                    + "(control period 1 s)%n", pin, before, seconds);
            assertThat(seconds).as("within two control periods").isLessThan(2.0);
        }
    }

    /**
     * A power-off order (the console's power pin, carried out by the GRM) drains the server in every class
     * backend — no new request reaches it, those in flight finish — before the GRM actuates it OFF; nothing is
     * lost.
     */
    @Test
    void aPowerOffDrainsTheServerInEveryBackendBeforeTheActuatorRuns() throws Exception {
        try (HaproxyRig rig = new HaproxyRig(dir, 2, 5, 300,
                "control: {period: 1s, reportPeriod: 500ms, statsWindow: 3s}\n"
                        + "sizing: {policy: off, startupDelay: 1s, shutdownDelay: 1s}\n"
                        + console());
             Console console = Console.start(rig.cluster, rig.kafka.bootstrap(), 0);
             KafkaBus watch = KafkaBus.connect(rig.cluster.kafka(), "watch", null)) {
            Map<ServerState, Long> s2 = new ConcurrentHashMap<>();
            watch.subscribe(watch.topics().power(), PowerOrder.class, Subscriber.Start.BEGINNING, (k, o) -> {
                if (o != null && o.server().equals("s2")) {
                    s2.putIfAbsent(o.state(), System.nanoTime());
                }
            });
            rig.load(12, 0);
            await().atMost(Duration.ofSeconds(30)).until(() -> rig.agent.verified() != null
                    && rig.agent.verified().epoch() > 0 && rig.stat().row("class.basic", "s2").scur() > 0);
            HttpResponse<String> posted = post(console, "{\"kind\": \"power\", \"server\": \"s2\", \"state\": \"OFF\"}");
            assertThat(posted.statusCode()).as("the console took the pin: %s", posted.body()).isBetween(200, 299);
            long drainedAt = 0;
            long stotAtDrain = -1;
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (!s2.containsKey(ServerState.OFF) && System.nanoTime() < deadline) {
                StatCsv.Table t = rig.stat();
                boolean drained = List.of("class.premium", "class.basic").stream()
                        .allMatch(b -> t.row(b, "s2").status().startsWith("DRAIN"));
                long stot = t.row("class.premium", "s2").stot() + t.row("class.basic", "s2").stot();
                if (drained && drainedAt == 0) {
                    drainedAt = System.nanoTime();
                    stotAtDrain = stot;
                    System.out.printf("s2 drained in both backends with %d in flight%n",
                            t.row("class.premium", "s2").scur() + t.row("class.basic", "s2").scur());
                }
                if (drainedAt != 0) {
                    assertThat(stot).as("no new request reaches a drained server").isEqualTo(stotAtDrain);
                }
                Thread.sleep(20);
            }
            assertThat(s2).as("the GRM powered s2 off").containsKey(ServerState.OFF);
            assertThat(drainedAt).as("s2 drained in every class backend").isPositive();
            assertThat(drainedAt).as("drained before the OFF actuation").isLessThan(s2.get(ServerState.OFF));
            StatCsv.Table t = rig.stat();
            assertThat(t.row("class.premium", "s2").scur() + t.row("class.basic", "s2").scur())
                    .as("nothing in flight on s2 when it went OFF").isZero();
            rig.stopLoad();
            System.out.printf("power-off: drained %.2f s before OFF; answers %s%n",
                    (s2.get(ServerState.OFF) - drainedAt) / 1e9, rig.answers);
            assertThat(rig.answers.keySet()).as("every request answered 200: %s", rig.answers).containsExactly("200");
        }
    }
}
