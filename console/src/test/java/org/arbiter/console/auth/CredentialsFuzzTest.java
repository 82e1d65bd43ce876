package org.arbiter.console.auth;

import static org.assertj.core.api.Assertions.assertThat;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.DictionaryEntries;
import com.code_intelligence.jazzer.junit.FuzzTest;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import org.arbiter.console.Fixtures;

/**
 * Coverage-guided fuzzing of the console's credentials (Jazzer): the {@code Authorization} header,
 * the session cookie and the CSRF token of a request, and a login's user and password.
 *
 * <p>Properties: nothing makes {@link Authenticator#authorize} or {@link Authenticator#login} throw,
 * and no credentials but the configured ones ever get in: a login that is checked (not refused
 * unchecked by the throttle) succeeds exactly with alice's or bob's password, a request is allowed only with a configured token (the fixture has no public
 * read), and a denial is 401 or 403 with a reason.
 */
class CredentialsFuzzTest {

    private static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");
    private static final Authenticator AUTH = new Authenticator(Fixtures.config().console(), Duration.ofMinutes(30),
            Duration.ofHours(12), new SecureRandom());

    @FuzzTest(maxDuration = "5m")
    @DictionaryEntries({"Bearer ", "alice", "bob", Fixtures.ADMIN_PASSWORD, Fixtures.ADMIN_TOKEN, Fixtures.VIEWER_TOKEN})
    void authorize(FuzzedDataProvider data) {
        boolean write = data.consumeBoolean();
        String user = data.consumeString(32);
        String password = data.consumeString(64);
        String authorization = data.consumeBoolean() ? null : data.consumeString(200);
        String session = data.consumeBoolean() ? null : data.consumeString(100);
        String csrf = data.consumeRemainingAsString();

        boolean rightPassword = ("alice".equals(user) && Fixtures.ADMIN_PASSWORD.equals(password))
                || ("bob".equals(user) && Fixtures.VIEWER_PASSWORD.equals(password));
        // the login throttle (one Authenticator, fixed time) blocks a user after enough wrong
        // passwords: a blocked attempt is refused unchecked, whatever the password — the right
        // one included; checked attempts succeed exactly with the right password
        Authenticator.LoginResult login = AUTH.login(user, password.toCharArray(), null, NOW);
        if (!(login instanceof Authenticator.LoginResult.Throttled)) {
            assertThat(login instanceof Authenticator.LoginResult.Success).as("login of %s", user).isEqualTo(rightPassword);
        }

        Authenticator.Outcome o = AUTH.authorize(new Authenticator.Credentials(authorization, session, csrf), write, NOW);
        if (o instanceof Authenticator.Outcome.Denied d) {
            assertThat(d.status()).isIn(401, 403);
            assertThat(d.reason()).isNotBlank();
            return;
        }
        String header = authorization == null ? "" : authorization.strip();
        assertThat(header.regionMatches(true, 0, "Bearer ", 0, 7)).as("allowed only with a bearer token").isTrue();
        String token = header.substring(7).strip();
        assertThat(token).as("allowed only with a configured token").isIn(Fixtures.ADMIN_TOKEN, Fixtures.VIEWER_TOKEN);
        if (write) {
            assertThat(token).as("only an admin writes").isEqualTo(Fixtures.ADMIN_TOKEN);
        }
    }
}
