package org.arbiter.console.netty;

import static org.arbiter.console.netty.ConsoleApiTest.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.net.Socket;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.arbiter.common.bus.Publisher;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.console.server.Console;
import org.arbiter.console.ConsoleFeed;
import org.arbiter.console.Fixtures;
import org.arbiter.console.Http;
import org.arbiter.console.LogCapture;
import org.arbiter.console.TestClock;
import org.junit.jupiter.api.Test;

/**
 * Issue #14 part 4 on real HTTP (127.0.0.1, port 0): login throttling and lockout, logout CSRF,
 * the event-stream cap, reports from the future, unknown members. The console runs on a
 * {@link TestClock}, so the throttle's seconds and minutes pass without sleeping.
 */
final class ConsoleHardeningTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    private static Console console(TestClock clock, String login) {
        String yaml = Fixtures.yaml(false, null) + (login == null ? "" : "  login: " + login + "\n");
        ClusterConfig config = ConfigLoader.parse(yaml);
        return Console.detached(config, Publisher.noop(), "127.0.0.1", 0, clock);
    }

    private static String login(String user, String password) {
        return "{\"user\": \"" + user + "\", \"password\": \"" + password + "\"}";
    }

    // ---- login throttling ----------------------------------------------------------------------

    @Test
    void twentyWrongPasswords_laterOnesGet429_theLockoutIsLogged_andTheRightPasswordWaitsForItsEnd() {
        TestClock clock = new TestClock(T0);
        try (Console c = console(clock, "{freeFailures: 2, delay: 1s, maxDelay: 60s, lockoutAfter: 5, lockout: 15m}");
             LogCapture log = LogCapture.of(ConsoleHttpHandler.class)) {
            Http http = new Http(c.url());
            List<Integer> status = new ArrayList<>();
            List<String> retryAfter = new ArrayList<>();
            for (int i = 0; i < 20; i++) {   // one guess a second
                HttpResponse<String> r = http.post("/api/login", login("alice", "guess-" + i));
                status.add(r.statusCode());
                retryAfter.add(r.headers().firstValue("Retry-After").orElse(null));
                clock.advance(Duration.ofSeconds(1));
            }
            // 0 s, 1 s free; 2 s: wait 1 s; 3 s: wait 2 s; 4 s: refused; 5 s: the 5th failure locks out for 15 min
            assertThat(status).containsExactly(401, 401, 401, 401, 429, 401, 429, 429, 429, 429, 429, 429, 429, 429, 429,
                    429, 429, 429, 429, 429);
            assertThat(retryAfter.subList(0, 7)).containsExactly(null, null, "1", "2", "1", "900", "899");
            assertThat(retryAfter.get(19)).isEqualTo("886");

            HttpResponse<String> refused = http.post("/api/login", login("alice", Fixtures.ADMIN_PASSWORD));
            assertThat(refused.statusCode()).isEqualTo(429);
            assertThat(json(refused).get("error").asText())
                    .isEqualTo("user alice from 127.0.0.1 is locked out after 5 failed logins (expected: retry after 885 s)");
            clock.set(T0.plusSeconds(5 + 900 - 1));
            assertThat(http.post("/api/login", login("alice", Fixtures.ADMIN_PASSWORD)).statusCode()).isEqualTo(429);
            clock.set(T0.plusSeconds(5 + 900));
            HttpResponse<String> ok = http.post("/api/login", login("alice", Fixtures.ADMIN_PASSWORD));
            assertThat(ok.statusCode()).isEqualTo(200);

            List<String> lines = log.lines();
            assertThat(lines.stream().filter(l -> l.startsWith("WARN console login failed: user=alice address=127.0.0.1")))
                    .hasSize(5);
            assertThat(lines).contains("WARN console login failed: user=alice address=127.0.0.1 failures: user 3, address 3; "
                    + "next attempt in 1 s");
            assertThat(lines).contains("WARN console login locked out: user alice from 127.0.0.1 for 900 s after 5 failures (from address 127.0.0.1)");
            assertThat(lines).contains("INFO console login: user=alice address=127.0.0.1");
            assertThat(lines).noneMatch(l -> l.contains("guess-") || l.contains(Fixtures.ADMIN_PASSWORD));  // never a password
        }
    }

    @Test
    void aGuesserOnTheRealClock_isHeldToTheDefaultWaits_ofOneThenTwoSeconds() {
        // Defaults: 3 failures free, then blocks of 1 s, 2 s, 4 s after the 4th, 5th and 6th failure. On
        // the system clock: the first four guesses are checked at once, and each later check comes no
        // sooner than its wait after the previous check (a lower bound, which holds on a machine of any
        // load; how long a loaded machine takes beyond it is printed, not asserted).
        try (Console c = Console.detached(Fixtures.config(), Publisher.noop(), "127.0.0.1", 0, java.time.Clock.systemUTC())) {
            Http http = new Http(c.url());
            List<Integer> statuses = new ArrayList<>();
            List<long[]> checked = new ArrayList<>(); // {sent, answered} of each guess answered 401, in nanoseconds
            long start = System.nanoTime();
            while (checked.size() < 6) {
                assertThat(System.nanoTime() - start).as("six guesses checked within 60 s (a guard)")
                        .isLessThan(60_000_000_000L);
                long sent = System.nanoTime();
                int status = http.post("/api/login", login("alice", "guess")).statusCode();
                statuses.add(status);
                if (status == 401) {
                    checked.add(new long[] {sent, System.nanoTime()});
                } else {
                    assertThat(status).as("a guess is checked (401) or refused (429)").isEqualTo(429);
                }
            }
            System.out.printf("measured: checks at %s s, %d guesses refused (429)%n", checked.stream()
                    .map(t -> String.format(java.util.Locale.ROOT, "%.2f", (t[1] - start) / 1e9)).toList(),
                    statuses.stream().filter(s -> s == 429).count());
            assertThat(statuses.subList(0, 4)).as("three free failures and the fourth, checked at once")
                    .containsOnly(401);
            // The server recorded a failure between that guess's send and its answer, and checks the next
            // no sooner than the wait after it: so from the send of one to the answer of the next >= wait.
            assertThat(checked.get(4)[1] - checked.get(3)[0]).as("fifth check >= 1 s after the fourth")
                    .isGreaterThanOrEqualTo(1_000_000_000L);
            assertThat(checked.get(5)[1] - checked.get(4)[0]).as("sixth check >= 2 s after the fifth")
                    .isGreaterThanOrEqualTo(2_000_000_000L);
            assertThat(statuses).as("guesses within a wait are refused, not checked").contains(429);
        }
    }

    @Test
    void bearerTokens_areNotThrottled_whileAUserIsLockedOut() {
        TestClock clock = new TestClock(T0);
        try (Console c = console(clock, "{freeFailures: 0, lockoutAfter: 1}")) {
            Http http = new Http(c.url());
            assertThat(http.post("/api/login", login("alice", "x")).statusCode()).isEqualTo(401);
            assertThat(http.post("/api/login", login("alice", Fixtures.ADMIN_PASSWORD)).statusCode()).isEqualTo(429);
            assertThat(http.get("/api/cluster", Http.bearer(Fixtures.ADMIN_TOKEN)).statusCode()).isEqualTo(200);
        }
    }

    @Test
    void userNamesWithLineBreaks_doNotForgeLogLines() {
        TestClock clock = new TestClock(T0);
        try (Console c = console(clock, null); LogCapture log = LogCapture.of(ConsoleHttpHandler.class)) {
            new Http(c.url()).post("/api/login", login("mallory\\nWARN console login: user=alice", "x"));
            assertThat(log.lines()).singleElement().asString()
                    .startsWith("WARN console login failed: user=mallory?WARN console login: user=alice address=");
        }
    }

    // ---- logout --------------------------------------------------------------------------------

    @Test
    void logout_needsTheCsrfToken() {
        TestClock clock = new TestClock(T0);
        try (Console c = console(clock, null)) {
            Http http = new Http(c.url());
            HttpResponse<String> ok = http.post("/api/login", login("bob", Fixtures.VIEWER_PASSWORD));
            String cookie = ok.headers().firstValue("Set-Cookie").orElseThrow().split(";")[0];
            String csrf = json(ok).get("csrf").asText();

            HttpResponse<String> forged = http.post("/api/logout", "{}", "Cookie", cookie);
            assertThat(forged.statusCode()).isEqualTo(403);
            assertThat(json(forged).get("error").asText()).contains("CSRF token missing or wrong");
            assertThat(http.post("/api/logout", "{}", "Cookie", cookie, "X-CSRF-Token", "forged").statusCode()).isEqualTo(403);
            assertThat(json(http.get("/api/session", "Cookie", cookie)).get("user").asText()).isEqualTo("bob");  // still in

            assertThat(http.post("/api/logout", "{}", "Cookie", cookie, "X-CSRF-Token", csrf).statusCode()).isEqualTo(204);
            assertThat(json(http.get("/api/session", "Cookie", cookie)).get("user").isNull()).isTrue();
            assertThat(http.post("/api/logout", "{}").statusCode()).isEqualTo(204);   // no session: nothing to end
        }
    }

    // ---- event-stream cap ------------------------------------------------------------------------

    @Test
    void overTheStreamCap_theConsoleAnswers503WithRetryAfter_notAClosing200() throws Exception {
        TestClock clock = new TestClock(T0);
        try (Console c = console(clock, null)) {
            List<Socket> streams = new ArrayList<>();
            try {
                for (int i = 0; i < ConsoleServer.MAX_STREAMS; i++) {
                    Socket s = stream(c.port());
                    assertThat(statusLine(s)).as("stream %d", i).isEqualTo("HTTP/1.1 200 OK");
                    streams.add(s);
                }
                Socket over = stream(c.port());
                List<String> head = head(over);
                assertThat(head.get(0)).isEqualTo("HTTP/1.1 503 Service Unavailable");
                assertThat(head).contains("retry-after: " + ReadEndpoints.EVENTS_RETRY_AFTER_SECONDS);
                over.close();

                streams.remove(0).close();   // a place comes free
                await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
                    try (Socket again = stream(c.port())) {
                        assertThat(statusLine(again)).isEqualTo("HTTP/1.1 200 OK");
                    }
                });
            } finally {
                for (Socket s : streams) {
                    s.close();
                }
            }
        }
    }

    private static Socket stream(int port) throws Exception {
        Socket s = new Socket("127.0.0.1", port);
        s.setSoTimeout(10_000);
        OutputStream out = s.getOutputStream();
        out.write(("GET /api/events HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer " + Fixtures.VIEWER_TOKEN
                + "\r\n\r\n").getBytes(StandardCharsets.US_ASCII));
        out.flush();
        return s;
    }

    private static String statusLine(Socket s) throws Exception {
        return head(s).get(0);
    }

    /** The status line and the headers, lower-cased but the status line. */
    private static List<String> head(Socket s) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
        List<String> lines = new ArrayList<>();
        String line;
        while ((line = in.readLine()) != null && !line.isEmpty()) {
            lines.add(lines.isEmpty() ? line : line.toLowerCase(java.util.Locale.ROOT));
        }
        return lines;
    }

    // ---- reports from the future -------------------------------------------------------------------

    @Test
    void aReportDatedAYearAhead_countsAsReceived_andIsWarnedAboutOnce() {
        TestClock clock = new TestClock(T0);
        try (Console c = console(clock, null); LogCapture log = LogCapture.of(ConsoleFeed.class)) {
            Http http = new Http(c.url());
            String[] auth = Http.bearer(Fixtures.VIEWER_TOKEN);
            Instant yearAhead = T0.plus(Duration.ofDays(365));
            c.feed().onStats("g1", Fixtures.stats("g1", yearAhead, 1, 5));
            JsonNode now = json(http.get("/api/cluster", auth)).at("/gateways/0");
            assertThat(now.get("live").asBoolean()).isTrue();
            assertThat(Instant.parse(now.get("lastReport").asText())).isEqualTo(T0);
            assertThat(c.state().futureReports()).isEqualTo(1);

            clock.advance(Duration.ofSeconds(4));   // three report periods of 1 s, and one more
            assertThat(json(http.get("/api/cluster", auth)).at("/gateways/0/live").asBoolean()).isFalse();

            c.feed().onStats("g1", Fixtures.stats("g1", yearAhead.plusSeconds(4), 1, 5));   // within the minute: no new line
            Instant honest = clock.instant();
            c.feed().onStats("g1", Fixtures.stats("g1", honest, 1, 5));   // a right clock replaces the future report
            JsonNode g1 = json(http.get("/api/cluster", auth)).at("/gateways/0");
            assertThat(g1.get("live").asBoolean()).isTrue();
            assertThat(Instant.parse(g1.at("/stats/at").asText())).isEqualTo(honest);
            JsonNode stats = json(http.get("/api/stats", auth)).at("/stats");
            assertThat(stats.findValuesAsText("at")).allMatch(at -> !Instant.parse(at).isAfter(honest));

            assertThat(log.lines()).containsExactly("WARN gateway g1 reports from 31536000 s in the future (at "
                    + yearAhead + ", console clock " + T0 + "): counted as received now; check its clock");
            clock.advance(Duration.ofMinutes(1));
            c.feed().onStats("g1", Fixtures.stats("g1", yearAhead, 1, 5));
            assertThat(log.lines()).hasSize(2);
            assertThat(log.lines().get(1)).endsWith("(1 more such reports since the last warning)");
        }
    }

    // ---- unknown members ------------------------------------------------------------------------------

    @Test
    void gatewaysAndServersNotInTheConfiguration_areShownAsUnknown_andNotCounted() {
        TestClock clock = new TestClock(T0);
        try (Console c = console(clock, null)) {
            c.feed().onStats("g1", Fixtures.stats("g1", T0, 1, 5));
            c.feed().onStats("g9", Fixtures.stats("g9", T0, 1, 5));   // reports on server s1 only
            c.feed().onAllocation("g9", new Allocation(Message.VERSION, T0, "g9", 1, Map.of("premium", 5.0),
                    Map.of("s1", 3, "s7", 4), "grm"));
            c.feed().onPower("s8", new PowerOrder(Message.VERSION, T0, "s8", ServerState.ON, ServerState.BOOTING, "", 1));
            JsonNode v = json(new Http(c.url()).get("/api/cluster", Http.bearer(Fixtures.VIEWER_TOKEN)));
            assertThat(v.get("gateways").findValuesAsText("id")).containsExactly("g1", "g2", "g9");
            assertThat(v.at("/gateways/0/unknown").asBoolean()).isFalse();
            assertThat(v.at("/gateways/2/unknown").asBoolean()).isTrue();
            assertThat(v.at("/gateways/2/kind").isNull()).isTrue();   // not in the file: no kind
            assertThat(v.at("/gateways/2/live").asBoolean()).isTrue();
            assertThat(v.get("liveGateways").asInt()).isEqualTo(1);   // g1; g9 reports but is not counted
            assertThat(v.get("unknownGateways").asInt()).isEqualTo(1);
            assertThat(v.get("servers").findValuesAsText("id")).containsExactly("s1", "s2", "s7", "s8");
            assertThat(v.at("/servers/2/unknown").asBoolean()).isTrue();
            assertThat(v.at("/servers/2/url").isNull()).isTrue();
            assertThat(v.at("/servers/3/state").asText()).isEqualTo("BOOTING");
            assertThat(v.get("configuredServers").asInt()).isEqualTo(2);
            assertThat(v.get("unknownServers").asInt()).isEqualTo(2);
        }
    }
}
