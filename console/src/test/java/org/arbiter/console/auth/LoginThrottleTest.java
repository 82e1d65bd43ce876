package org.arbiter.console.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.arbiter.common.config.ConsoleConfig;
import org.arbiter.console.Fixtures;
import org.junit.jupiter.api.Test;

/** The throttle on fake time: delays, lockout, both keys, forgetting, bounds. */
final class LoginThrottleTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final ConsoleConfig.Login DEFAULT = ConsoleConfig.Login.DEFAULT;   // 3 free, 1 s..60 s, 10 → 15 min

    private final LoginThrottle throttle = new LoginThrottle(DEFAULT);

    @Test
    void failuresBeyondTheFreeOnes_waitTwiceAsLongEachTime_thenLockOut() {
        List<Long> waits = new ArrayList<>();
        List<List<String>> lockouts = new ArrayList<>();
        Instant t = T0;
        for (int i = 1; i <= 10; i++) {
            assertThat(throttle.check("alice", "10.0.0.1", t)).as("attempt %d", i).isNull();
            LoginThrottle.Failure f = throttle.onFailure("alice", "10.0.0.1", t);
            assertThat(f.userFailures()).isEqualTo(i);
            assertThat(f.addressFailures()).isEqualTo(i);
            waits.add(f.retryAfter().toMillis());
            lockouts.add(f.lockouts());
            t = t.plus(f.retryAfter());
        }
        assertThat(waits).containsExactly(0L, 0L, 0L, 1_000L, 2_000L, 4_000L, 8_000L, 16_000L, 32_000L, 900_000L);
        assertThat(lockouts.subList(0, 9)).allMatch(List::isEmpty);
        assertThat(lockouts.get(9)).containsExactly("user alice from 10.0.0.1", "address 10.0.0.1");
    }

    @Test
    void aBlockedKey_isRefusedWithTheTimeLeft_untilTheBlockEnds() {
        for (int i = 0; i < 4; i++) {
            throttle.onFailure("alice", "10.0.0.1", T0);
        }
        LoginThrottle.Refusal r = throttle.check("alice", "10.0.0.1", T0.plusMillis(400));
        assertThat(r.key()).isEqualTo("user alice from 10.0.0.1");
        assertThat(r.retryAfter()).isEqualTo(Duration.ofMillis(600));
        assertThat(r.retryAfterSeconds()).isEqualTo(1);
        assertThat(r.lockedOut()).isFalse();
        assertThat(r.firstRefusal()).isTrue();
        assertThat(throttle.check("alice", "10.0.0.1", T0.plusMillis(500)).firstRefusal()).isFalse();  // logged once
        assertThat(throttle.check("alice", "10.0.0.1", T0.plusMillis(1_000))).isNull();
        assertThat(throttle.check("alice", "10.0.0.2", T0.plusMillis(400))).as("another client").isNull();
    }

    @Test
    void theRightPassword_isRefusedDuringALockout_andAcceptedAfter() {
        ConsoleConfig base = Fixtures.config().console();
        Authenticator auth = new Authenticator(new ConsoleConfig(base.port(), base.publicRead(), base.users(),
                base.tokens(), new ConsoleConfig.Login(1, 1, 60, 3, 600, 3600)));
        Instant t = T0;
        for (int i = 0; i < 3; i++) {
            Authenticator.LoginResult r = auth.login("alice", "guess".toCharArray(), "10.0.0.9", t);
            assertThat(r).isInstanceOf(Authenticator.LoginResult.Failure.class);
            t = t.plus(((Authenticator.LoginResult.Failure) r).failure().retryAfter());
        }
        Instant lockedAt = t.minusSeconds(600);
        Authenticator.LoginResult during = auth.login("alice", Fixtures.ADMIN_PASSWORD.toCharArray(), "10.0.0.9",
                lockedAt.plusSeconds(599));
        assertThat(during).isInstanceOfSatisfying(Authenticator.LoginResult.Throttled.class, th -> {
            assertThat(th.refusal().lockedOut()).isTrue();
            assertThat(th.refusal().retryAfterSeconds()).isEqualTo(1);
        });
        assertThat(auth.login("alice", Fixtures.ADMIN_PASSWORD.toCharArray(), "10.0.0.7", lockedAt.plusSeconds(599)))
                .as("from another client: per (user, client)").isInstanceOf(Authenticator.LoginResult.Success.class);
        assertThat(auth.login("alice", Fixtures.ADMIN_PASSWORD.toCharArray(), "10.0.0.9", lockedAt.plusSeconds(600)))
                .isInstanceOf(Authenticator.LoginResult.Success.class);
    }

    @Test
    void oneAddress_tryingManyUsers_isSlowedDownByTheAddressKey() {
        for (int i = 0; i < 4; i++) {
            throttle.onFailure("user" + i, "10.0.0.1", T0);
        }
        LoginThrottle.Refusal r = throttle.check("user99", "10.0.0.1", T0);
        assertThat(r.key()).isEqualTo("address 10.0.0.1");
        assertThat(throttle.check("user99", "10.0.0.2", T0)).isNull();
    }

    @Test
    void oneUserLockedOutFromOneAddress_isNotLockedOutFromAnother_norIsAnyoneElse() {
        // per (user, client) and per client, never per user alone (issue 30): a stranger cannot lock alice out
        Instant t = T0;
        for (int i = 0; i < 9; i++) {
            t = t.plus(throttle.onFailure("alice", "10.0.0.1", t).retryAfter());
        }
        assertThat(throttle.onFailure("alice", "10.0.0.1", t).lockouts()).containsExactly("user alice from 10.0.0.1",
                "address 10.0.0.1");
        assertThat(throttle.check("alice", "10.0.0.1", t).lockedOut()).isTrue();
        assertThat(throttle.check("bob", "10.0.0.1", t).key()).isEqualTo("address 10.0.0.1");
        assertThat(throttle.check("alice", "10.9.9.9", t)).isNull();
        assertThat(throttle.check("bob", "10.9.9.9", t)).isNull();
    }

    @Test
    void success_clearsTheUser_butNotTheAddress() {
        for (int i = 0; i < 3; i++) {
            throttle.onFailure("alice", "10.0.0.1", T0);
        }
        throttle.onSuccess("alice", "10.0.0.1", T0);
        LoginThrottle.Failure f = throttle.onFailure("alice", "10.0.0.1", T0);
        assertThat(f.userFailures()).isEqualTo(1);
        assertThat(f.addressFailures()).isEqualTo(4);
    }

    @Test
    void afterALockout_theNextFailureLocksOutAgain_untilForgotten() {
        Instant t = T0;
        for (int i = 0; i < 10; i++) {
            t = t.plus(throttle.onFailure("alice", null, t).retryAfter());
        }
        LoginThrottle.Failure again = throttle.onFailure("alice", null, t);
        assertThat(again.retryAfter()).isEqualTo(Duration.ofMinutes(15));
        assertThat(again.lockouts()).containsExactly("user alice");   // logged again
        Instant quiet = t.plus(Duration.ofMinutes(15)).plus(Duration.ofHours(1));
        assertThat(throttle.onFailure("alice", null, quiet).userFailures()).isEqualTo(1);
    }

    @Test
    void delay_isCappedAtMaxDelay_andLockoutCanBeOff() {
        LoginThrottle t = new LoginThrottle(new ConsoleConfig.Login(0, 1, 5, 0, 60, 3600));
        List<Long> waits = new ArrayList<>();
        Instant now = T0;
        for (int i = 0; i < 100; i++) {
            LoginThrottle.Failure f = t.onFailure("alice", null, now);
            waits.add(f.retryAfter().toSeconds());
            assertThat(f.lockouts()).isEmpty();
            now = now.plus(f.retryAfter());
        }
        assertThat(waits.subList(0, 5)).containsExactly(1L, 2L, 4L, 5L, 5L);
        assertThat(waits).allMatch(w -> w <= 5);
    }

    @Test
    void keys_areBounded_andForgottenOnesGoFirst() {
        LoginThrottle t = new LoginThrottle(DEFAULT, 100);
        for (int i = 0; i < 1_000; i++) {
            t.onFailure("random-" + i, null, T0.plusMillis(i));
        }
        assertThat(t.tracked(T0.plusSeconds(1))).isEqualTo(100);
        assertThat(t.tracked(T0.plus(Duration.ofHours(2)))).isZero();
    }

    @Test
    void anAttackerAsFastAsAllowed_getsThirteenGuessesInTheFirstHour_withTheDefaults() {
        // Hand count: 3 free at 0 s, then 1+2+4+8+16+32 s apart (the 10th, at 63 s, locks out), then one
        // every 15 min at 963 s, 1863 s, 2763 s: 13 before 3600 s (3663 s is past the hour).
        Instant t = T0;
        int checked = 0;
        while (t.isBefore(T0.plus(Duration.ofHours(1)))) {
            LoginThrottle.Refusal r = throttle.check("alice", "10.0.0.1", t);
            if (r != null) {
                t = t.plus(r.retryAfter());
                continue;
            }
            checked++;
            throttle.onFailure("alice", "10.0.0.1", t);
        }
        assertThat(checked).isEqualTo(13);
    }
}
