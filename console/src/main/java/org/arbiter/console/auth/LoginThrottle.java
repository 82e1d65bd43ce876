package org.arbiter.console.auth;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ConsoleConfig;

/*
 * Design note: failed-login throttling.
 *
 * Model. Every password login names a user and comes from a client address (the socket peer, or
 * behind a trusted reverse proxy the client it names in X-Forwarded-For: ClientAddress). Two keys
 * are counted: the pair (user, client) and the client alone; each has a count of failures k and a
 * time until which it is blocked. A failure raises k and
 *   - when lockoutAfter > 0 and k >= lockoutAfter, blocks the key for `lockout` (a lockout);
 *   - else when k > freeFailures, blocks it for min(maxDelay, delay * 2^(k - freeFailures - 1))
 *     (exponential back-off);
 * an attempt on a blocked key (either one) is refused before the password is looked at, with the
 * time left (HTTP 429 + Retry-After), so it neither costs a PBKDF2 check nor counts. A success
 * clears the user's key (not the address's: one valid account must not reset the count of an
 * address guessing another). A key is forgotten `forgetAfter` after its last failure once it is
 * no longer blocked; while it is remembered, a failure after a lockout locks out again at once.
 *
 * Why these keys (issue 30): the pair key slows and locks one client guessing one user's password;
 * the address key stops one client trying many users (names of unknown users are counted like
 * known ones, so the answers do not reveal which users exist). There is no key for a user alone
 * and none for everyone: a stranger's wrong passwords never lock a user out from another address,
 * and behind a proxy one client's guesses never lock out the others. The price: a guesser spread
 * over many addresses gets the free failures and the back-off of each address — PBKDF2, strong
 * passwords and the per-address lockout bound it, not a per-user one.
 *
 * Bounds. At most maxKeys keys; when full, forgotten keys go first, then the least recently
 * failed. User names are cut to 100 characters.
 *
 * Time is passed in (no clock read here). Thread-safe: every method is synchronized; each is
 * O(1) but for the purge when the table is full.
 */

/**
 * Slows down and locks out failed password logins per (user name, client address) and per client address; the
 * pure core of the console's login throttling. See the design note at the top of the source.
 *
 * <p>Thread-safe.
 */
public final class LoginThrottle {

    /** Keys remembered at most by default. */
    public static final int MAX_KEYS = 10_000;
    private static final int MAX_USER_CHARS = 100;

    /** An attempt refused because a key is blocked. */
    public record Refusal(String key, Duration retryAfter, boolean lockedOut, int failures, boolean firstRefusal) {
        /** {@code Retry-After} in whole seconds, at least 1. */
        public long retryAfterSeconds() {
            return Math.max(1, (retryAfter.toMillis() + 999) / 1000);
        }
    }

    /**
     * What a failure did.
     *
     * @param userFailures    failures of the user name now counted
     * @param addressFailures failures of the address now counted (0 without an address)
     * @param retryAfter      how long the next attempt must wait (zero when it need not)
     * @param lockouts        the keys this failure locked out ({@code user alice}, {@code address 10.0.0.1})
     */
    public record Failure(int userFailures, int addressFailures, Duration retryAfter, List<String> lockouts) {
        public Failure {
            lockouts = List.copyOf(lockouts);
        }

        /** {@code Retry-After} in whole seconds, 0 when the next attempt need not wait. */
        public long retryAfterSeconds() {
            return retryAfter.isZero() ? 0 : Math.max(1, (retryAfter.toMillis() + 999) / 1000);
        }
    }

    private static final class Entry {
        int failures;
        Instant lastFailure;
        Instant blockedUntil;
        boolean locked;
        boolean refusalReported;
    }

    private final ConsoleConfig.Login config;
    private final int maxKeys;
    private final Map<String, Entry> keys = new LinkedHashMap<>();  // least recently failed first

    public LoginThrottle(ConsoleConfig.Login config) {
        this(config, MAX_KEYS);
    }

    public LoginThrottle(ConsoleConfig.Login config, int maxKeys) {
        this.config = requireNonNull(config, "config");
        if (maxKeys < 2) {
            throw new IllegalArgumentException("maxKeys: " + maxKeys + " (expected: >= 2)");
        }
        this.maxKeys = maxKeys;
    }

    /** The key of a user name from a client address (null when unknown), as in logs and refusals. */
    public static String userKey(String user, String address) {
        String u = user == null ? "" : user;
        return "user " + (u.length() > MAX_USER_CHARS ? u.substring(0, MAX_USER_CHARS) : u)
                + (address == null ? "" : " from " + address);
    }

    /** The key of a client address. */
    public static String addressKey(String address) {
        return "address " + address;
    }

    /**
     * Whether an attempt for {@code user} from {@code address} (null when unknown) must wait.
     *
     * @return the refusal for the key blocked longest, or null when the attempt may go ahead
     */
    public synchronized Refusal check(String user, String address, Instant now) {
        requireNonNull(now, "now");
        Refusal worst = null;
        for (String key : keysOf(user, address)) {
            Entry e = live(key, now);
            if (e == null || !now.isBefore(e.blockedUntil)) {
                continue;
            }
            Duration left = Duration.between(now, e.blockedUntil);
            if (worst == null || left.compareTo(worst.retryAfter()) > 0) {
                worst = new Refusal(key, left, e.locked, e.failures, !e.refusalReported);
            }
        }
        if (worst != null) {
            keys.get(worst.key()).refusalReported = true;
        }
        return worst;
    }

    /** Counts a wrong user or password. */
    public synchronized Failure onFailure(String user, String address, Instant now) {
        requireNonNull(now, "now");
        int userFailures = 0;
        int addressFailures = 0;
        Duration wait = Duration.ZERO;
        List<String> lockouts = new ArrayList<>();
        for (String key : keysOf(user, address)) {
            Entry e = live(key, now);
            if (e == null) {
                makeRoom(now);
                e = new Entry();
            } else {
                keys.remove(key);  // re-inserted below: the map stays ordered by last failure
            }
            keys.put(key, e);
            e.failures = e.failures == Integer.MAX_VALUE ? e.failures : e.failures + 1;
            e.lastFailure = now;
            Duration block = Duration.ZERO;
            boolean wasLocked = e.locked && e.blockedUntil != null && now.isBefore(e.blockedUntil);
            e.locked = false;
            if (config.lockoutAfter() > 0 && e.failures >= config.lockoutAfter()) {
                block = seconds(config.lockoutSeconds());
                e.locked = true;
                if (!wasLocked) {
                    lockouts.add(key);
                }
            } else if (e.failures > config.freeFailures()) {
                int k = e.failures - config.freeFailures() - 1;
                double s = k >= 62 ? config.maxDelaySeconds() : Math.min(config.maxDelaySeconds(),
                        config.delaySeconds() * Math.pow(2, k));
                block = seconds(s);
            }
            Instant until = now.plus(block);
            if (e.blockedUntil == null || until.isAfter(e.blockedUntil)) {
                e.blockedUntil = until;
                e.refusalReported = false;
            }
            Duration left = Duration.between(now, e.blockedUntil);
            if (left.compareTo(wait) > 0) {
                wait = left;
            }
            if (key.startsWith("user ")) {
                userFailures = e.failures;
            } else {
                addressFailures = e.failures;
            }
        }
        return new Failure(userFailures, addressFailures, wait, lockouts);
    }

    /** A right password: the count of the user from this address is cleared (the address's is kept). */
    public synchronized void onSuccess(String user, String address, Instant now) {
        keys.remove(userKey(user, address));
    }

    /** Keys remembered now (forgotten ones are dropped first). */
    public synchronized int tracked(Instant now) {
        keys.values().removeIf(e -> forgotten(e, now));
        return keys.size();
    }

    private static List<String> keysOf(String user, String address) {
        return address == null ? List.of(userKey(user, null)) : List.of(userKey(user, address), addressKey(address));
    }

    /** The key's entry, or null when absent or forgotten (then dropped). */
    private Entry live(String key, Instant now) {
        Entry e = keys.get(key);
        if (e != null && forgotten(e, now)) {
            keys.remove(key);
            return null;
        }
        return e;
    }

    private boolean forgotten(Entry e, Instant now) {
        return !now.isBefore(e.blockedUntil) && !now.isBefore(e.lastFailure.plus(seconds(config.forgetAfterSeconds())));
    }

    private void makeRoom(Instant now) {
        if (keys.size() < maxKeys) {
            return;
        }
        keys.values().removeIf(e -> forgotten(e, now));
        Iterator<Entry> it = keys.values().iterator();
        while (keys.size() >= maxKeys && it.hasNext()) {
            it.next();
            it.remove();  // the least recently failed
        }
    }

    private static Duration seconds(double s) {
        return Duration.ofNanos(Math.round(s * 1e9));
    }
}
