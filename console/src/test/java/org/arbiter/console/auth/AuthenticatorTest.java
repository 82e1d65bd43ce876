package org.arbiter.console.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import org.arbiter.common.config.ConsoleConfig;
import org.arbiter.console.Fixtures;
import org.arbiter.console.auth.Authenticator.Credentials;
import org.arbiter.console.auth.Authenticator.Outcome;
import org.junit.jupiter.api.Test;

final class AuthenticatorTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final Authenticator auth = new Authenticator(Fixtures.config().console(), Duration.ofMinutes(30),
            Duration.ofHours(12), new SecureRandom());

    @Test
    void login_withRightPassword_opensASession() {
        Optional<Authenticator.Session> s = auth.login("alice", Fixtures.ADMIN_PASSWORD.toCharArray(), T0);
        assertThat(s).isPresent();
        assertThat(s.get().principal()).isEqualTo(new Principal("alice", Role.ADMIN, "password"));
        assertThat(s.get().id()).isNotEqualTo(s.get().csrfToken()).hasSizeGreaterThan(40);
        assertThat(auth.session(s.get().id(), T0.plusSeconds(1))).isPresent();
    }

    @Test
    void login_withWrongPasswordOrUnknownUser_fails() {
        assertThat(auth.login("alice", "wrong".toCharArray(), T0)).isEmpty();
        assertThat(auth.login("mallory", Fixtures.ADMIN_PASSWORD.toCharArray(), T0)).isEmpty();
        assertThat(auth.login(null, null, T0)).isEmpty();
    }

    @Test
    void session_expiresWhenIdle_andAfterMaxAge() {
        Authenticator.Session s = auth.login("alice", Fixtures.ADMIN_PASSWORD.toCharArray(), T0).orElseThrow();
        assertThat(auth.session(s.id(), T0.plus(Duration.ofMinutes(31)))).isEmpty();
        Authenticator.Session t = auth.login("alice", Fixtures.ADMIN_PASSWORD.toCharArray(), T0).orElseThrow();
        Instant now = T0;
        for (int i = 0; i < 30; i++) {   // used every 29 minutes, still ends after 12 h
            now = now.plus(Duration.ofMinutes(29));
            if (auth.session(t.id(), now).isEmpty()) {
                break;
            }
        }
        assertThat(now).isAfterOrEqualTo(T0.plus(Duration.ofHours(12))).isBefore(T0.plus(Duration.ofHours(13)));
        assertThat(auth.session(t.id(), now)).isEmpty();
    }

    @Test
    void logout_endsTheSession() {
        Authenticator.Session s = auth.login("bob", Fixtures.VIEWER_PASSWORD.toCharArray(), T0).orElseThrow();
        auth.logout(s.id());
        assertThat(auth.session(s.id(), T0)).isEmpty();
        assertThat(auth.openSessions(T0)).isZero();
    }

    @Test
    void readWithoutCredentials_gets401_unlessPublicRead() {
        assertThat(status(auth.authorize(Credentials.NONE, false, T0))).isEqualTo(401);
        Authenticator open = new Authenticator(Fixtures.config(true, null).console());
        assertThat(open.authorize(Credentials.NONE, false, T0)).isInstanceOf(Outcome.Allowed.class);
        assertThat(status(open.authorize(Credentials.NONE, true, T0))).isEqualTo(401);
    }

    @Test
    void bearerToken_adminMayWrite_viewerMayOnlyRead() {
        assertThat(auth.authorize(bearer(Fixtures.ADMIN_TOKEN), true, T0))
                .isEqualTo(new Outcome.Allowed(new Principal("ci", Role.ADMIN, "token"), Optional.empty()));
        assertThat(auth.authorize(bearer(Fixtures.VIEWER_TOKEN), false, T0)).isInstanceOf(Outcome.Allowed.class);
        assertThat(status(auth.authorize(bearer(Fixtures.VIEWER_TOKEN), true, T0))).isEqualTo(403);
    }

    @Test
    void wrongOrMalformedBearer_gets401() {
        assertThat(status(auth.authorize(bearer("nope"), false, T0))).isEqualTo(401);
        assertThat(status(auth.authorize(new Credentials("Basic YWxpY2U6eA==", null, null), false, T0))).isEqualTo(401);
        assertThat(status(auth.authorize(new Credentials("Bearer", null, null), false, T0))).isEqualTo(401);
    }

    @Test
    void sessionWrite_needsTheCsrfToken() {
        Authenticator.Session s = auth.login("alice", Fixtures.ADMIN_PASSWORD.toCharArray(), T0).orElseThrow();
        assertThat(auth.authorize(new Credentials(null, s.id(), null), false, T0)).isInstanceOf(Outcome.Allowed.class);
        assertThat(status(auth.authorize(new Credentials(null, s.id(), null), true, T0))).isEqualTo(403);
        assertThat(status(auth.authorize(new Credentials(null, s.id(), "forged"), true, T0))).isEqualTo(403);
        assertThat(auth.authorize(new Credentials(null, s.id(), s.csrfToken()), true, T0)).isInstanceOf(Outcome.Allowed.class);
    }

    @Test
    void viewerSession_writing_gets403() {
        Authenticator.Session s = auth.login("bob", Fixtures.VIEWER_PASSWORD.toCharArray(), T0).orElseThrow();
        assertThat(status(auth.authorize(new Credentials(null, s.id(), s.csrfToken()), true, T0))).isEqualTo(403);
    }

    @Test
    void unknownSession_gets401() {
        assertThat(status(auth.authorize(new Credentials(null, "made-up", "x"), true, T0))).isEqualTo(401);
        assertThat(status(auth.authorize(new Credentials(null, "x".repeat(10_000), null), false, T0))).isEqualTo(401);
    }

    @Test
    void sessions_areBounded() {
        for (int i = 0; i < Authenticator.MAX_SESSIONS + 5; i++) {
            auth.login("bob", Fixtures.VIEWER_PASSWORD.toCharArray(), T0.plusMillis(i));
        }
        assertThat(auth.openSessions(T0.plusSeconds(10))).isEqualTo(Authenticator.MAX_SESSIONS);
    }

    @Test
    void noUsersNoTokens_everythingNeedsCredentials() {
        Authenticator none = new Authenticator(new ConsoleConfig(0, false, java.util.List.of(), java.util.List.of()));
        assertThat(none.hasUsers()).isFalse();
        assertThat(status(none.authorize(bearer("x"), false, T0))).isEqualTo(401);
        assertThat(none.login("alice", "x".toCharArray(), T0)).isEmpty();
    }

    private static Credentials bearer(String token) {
        return new Credentials("Bearer " + token, null, null);
    }

    private static int status(Outcome o) {
        return o instanceof Outcome.Denied d ? d.status() : 200;
    }
}
