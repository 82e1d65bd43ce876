package org.arbiter.console.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.arbiter.common.bus.Publisher;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.console.Fixtures;
import org.arbiter.console.Http;
import org.arbiter.console.LogCapture;
import org.arbiter.console.TestClock;
import org.arbiter.console.server.Console;
import org.junit.jupiter.api.Test;

/**
 * The console behind a reverse proxy (issue 30, item 7), on real HTTP (127.0.0.1, port 0; the test
 * plays the proxy, so the socket peer is always 127.0.0.1). With {@code console.trustedProxies:
 * [127.0.0.1]}, the client is the one {@code X-Forwarded-For} names; without it, the header is
 * ignored. The console runs on a {@link TestClock}, so the throttle's waits pass without sleeping.
 */
final class ConsoleProxyTest {

    private static final Instant T0 = Instant.parse("2026-03-01T12:00:00Z");

    private static Console console(TestClock clock, String trustedProxies) {
        String yaml = Fixtures.yaml(false, null) + (trustedProxies == null ? "" : "  trustedProxies: " + trustedProxies + "\n");
        return Console.detached(ConfigLoader.parse(yaml), Publisher.noop(), "127.0.0.1", 0, clock);
    }

    private static String login(String user, String password) {
        return "{\"user\": \"" + user + "\", \"password\": \"" + password + "\"}";
    }

    /** Ten wrong passwords for alice from {@code client} (as the proxy says), waiting out each back-off; the statuses. */
    private static List<Integer> tenWrongPasswords(Http http, TestClock clock, String client) {
        List<Integer> status = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            HttpResponse<String> r = http.post("/api/login", login("alice", "guess-" + i), "X-Forwarded-For", client);
            status.add(r.statusCode());
            if (i < 9) {  // the 10th locks out for 15 min: the clock stays inside it
                clock.advance(Duration.ofSeconds(Long.parseLong(r.headers().firstValue("Retry-After").orElse("0"))));
            }
        }
        return status;
    }

    @Test
    void behindATrustedProxy_tenWrongPasswords_lockOutNeitherAnotherUserNorTheSameUserFromAnotherClient() {
        TestClock clock = new TestClock(T0);
        try (Console c = console(clock, "[127.0.0.1/32]"); LogCapture log = LogCapture.of(ConsoleHttpHandler.class)) {
            Http http = new Http(c.url());
            assertThat(tenWrongPasswords(http, clock, "203.0.113.5")).containsOnly(401);

            // the guesser's own client is locked out, for alice and for anyone it tries next
            HttpResponse<String> locked = http.post("/api/login", login("alice", Fixtures.ADMIN_PASSWORD),
                    "X-Forwarded-For", "203.0.113.5");
            assertThat(locked.statusCode()).isEqualTo(429);
            assertThat(locked.headers().firstValue("Retry-After")).hasValue("900");
            assertThat(http.post("/api/login", login("bob", Fixtures.VIEWER_PASSWORD), "X-Forwarded-For", "203.0.113.5")
                    .statusCode()).isEqualTo(429);
            // everyone else is not: another user, the same user from another client, a forged left-most hop
            assertThat(http.post("/api/login", login("bob", Fixtures.VIEWER_PASSWORD), "X-Forwarded-For", "198.51.100.7")
                    .statusCode()).isEqualTo(200);
            assertThat(http.post("/api/login", login("alice", Fixtures.ADMIN_PASSWORD), "X-Forwarded-For", "198.51.100.8")
                    .statusCode()).isEqualTo(200);
            assertThat(http.post("/api/login", login("alice", Fixtures.ADMIN_PASSWORD),
                    "X-Forwarded-For", "203.0.113.5, 198.51.100.9").statusCode())
                    .as("the right-most untrusted hop is the client, not what it claims to its left").isEqualTo(200);
            // and the guesser cannot escape its lockout by claiming another address to the left
            assertThat(http.post("/api/login", login("alice", Fixtures.ADMIN_PASSWORD),
                    "X-Forwarded-For", "198.51.100.10, 203.0.113.5").statusCode()).isEqualTo(429);
            assertThat(log.lines()).contains("WARN console login locked out: user alice from 203.0.113.5 for 900 s after "
                    + "10 failures (from address 203.0.113.5)");
        }
    }

    @Test
    void fromAPeerThatIsNotTrusted_XForwardedForIsIgnored_andTheProxysAddressIsTheClient() {
        TestClock clock = new TestClock(T0);
        try (Console c = console(clock, null)) {
            Http http = new Http(c.url());
            assertThat(tenWrongPasswords(http, clock, "203.0.113.5")).containsOnly(401);
            // every client behind this (untrusted) proxy shares its address: configure console.trustedProxies
            assertThat(http.post("/api/login", login("bob", Fixtures.VIEWER_PASSWORD), "X-Forwarded-For", "198.51.100.7")
                    .statusCode()).isEqualTo(429);
        }
    }

    @Test
    void theSessionCookie_isSecure_exactlyWhenATrustedProxySaysHttps() {
        TestClock clock = new TestClock(T0);
        try (Console trusted = console(clock, "[127.0.0.0/8]"); Console direct = console(clock, null)) {
            assertThat(cookie(trusted, "X-Forwarded-Proto", "https")).contains("Secure", "HTTPOnly", "SameSite=Strict");
            assertThat(cookie(trusted, "X-Forwarded-Proto", "HTTPS")).contains("Secure");
            assertThat(cookie(trusted, "X-Forwarded-Proto", "http")).doesNotContain("Secure");
            assertThat(cookie(trusted, "X-Forwarded-Proto", "https, http")).as("the trusted proxy's own, right-most")
                    .doesNotContain("Secure");
            assertThat(cookie(trusted)).doesNotContain("Secure").contains("HTTPOnly");
            assertThat(cookie(direct, "X-Forwarded-Proto", "https")).as("a peer that is not trusted").doesNotContain("Secure");
            assertThat(cookie(direct)).doesNotContain("Secure");
        }
    }

    /** The attributes of the session cookie a login is answered with ({@code Path=/}, {@code Secure}, …). */
    private static List<String> cookie(Console c, String... headers) {
        HttpResponse<String> r = new Http(c.url()).post("/api/login", login("alice", Fixtures.ADMIN_PASSWORD), headers);
        assertThat(r.statusCode()).isEqualTo(200);
        List<String> parts = List.of(r.headers().firstValue("Set-Cookie").orElseThrow().split(";\\s*"));
        assertThat(parts.get(0)).startsWith("arbiter_session=");
        return parts.subList(1, parts.size());
    }
}
