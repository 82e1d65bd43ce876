package org.arbiter.console.auth;

import static java.util.Objects.requireNonNull;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import org.arbiter.common.config.ConsoleConfig;

/**
 * The console's authentication and authorisation, without any HTTP in it.
 *
 * <p>Two kinds of credentials, both from {@code console:} in {@code cluster.yaml}:
 * <ul>
 *   <li>users with PBKDF2 password hashes log in ({@link #login}) and get a session: a random
 *       id for an HttpOnly cookie and a CSRF token the page sends back in a header on every
 *       write. Sessions end after {@code idleTimeout} without use or {@code maxAge} after login;</li>
 *   <li>bearer tokens for scripts, stored as the SHA-256 of the token; the digest of the presented
 *       token is compared with every configured digest in constant time.</li>
 * </ul>
 * Rules ({@link #authorize}): a write needs an admin; a read needs any principal, unless
 * {@code publicRead}. No or wrong credentials: 401; a viewer writing, or a session write without
 * the right CSRF token: 403.
 *
 * <p>Failed password logins are throttled per (user name, client address) and per client address
 * ({@link LoginThrottle}, configured by {@code console.login}): a blocked attempt is refused
 * before its password is checked. Bearer tokens are not throttled.
 *
 * <p>Time is passed in. Thread-safe: sessions live in a concurrent map, the throttle is
 * synchronized; everything else is immutable. {@link #login} is slow on purpose (PBKDF2): call
 * it off an event loop.
 */
public final class Authenticator {

    /** Default idle timeout of a session. */
    public static final Duration IDLE_TIMEOUT = Duration.ofMinutes(30);
    /** Default longest life of a session. */
    public static final Duration MAX_AGE = Duration.ofHours(12);
    /** Sessions kept at most; the least recently used goes first. */
    static final int MAX_SESSIONS = 1_000;

    private static final HexFormat HEX = HexFormat.of();

    /** The credentials a request carries; any may be null. */
    public record Credentials(String authorization, String sessionId, String csrfToken) {
        public static final Credentials NONE = new Credentials(null, null, null);
    }

    /** A logged-in user's session, as handed to the page. */
    public record Session(String id, String csrfToken, Principal principal, Instant expires) {
    }

    /** The answer to "may this request go ahead". */
    public sealed interface Outcome {
        /** Allowed; {@code session} is present when a session cookie carried it. */
        record Allowed(Principal principal, Optional<Session> session) implements Outcome {
        }

        /** Refused with HTTP {@code status} (401 or 403) for {@code reason}. */
        record Denied(int status, String reason) implements Outcome {
        }
    }

    /** The answer to a password login. */
    public sealed interface LoginResult {
        /** Right user and password: a new session. */
        record Success(Session session) implements LoginResult {
        }

        /** Wrong user or password; {@code failure} says the counts and the wait it caused. */
        record Failure(LoginThrottle.Failure failure) implements LoginResult {
        }

        /** Refused unchecked: the user or the address is blocked. */
        record Throttled(LoginThrottle.Refusal refusal) implements LoginResult {
        }
    }

    private record TokenEntry(String name, byte[] digest, Role role) {
    }

    private static final class SessionEntry {
        final String id;
        final String csrf;
        final Principal principal;
        final Instant created;
        volatile Instant lastUsed;

        SessionEntry(String id, String csrf, Principal principal, Instant created) {
            this.id = id;
            this.csrf = csrf;
            this.principal = principal;
            this.created = created;
            this.lastUsed = created;
        }
    }

    private final ConsoleConfig config;
    private final Duration idleTimeout;
    private final Duration maxAge;
    private final SecureRandom random;
    private final List<TokenEntry> tokens = new ArrayList<>();
    private final String dummyHash;
    private final Map<String, SessionEntry> sessions = new ConcurrentHashMap<>();
    private final LoginThrottle throttle;

    public Authenticator(ConsoleConfig config) {
        this(config, IDLE_TIMEOUT, MAX_AGE, new SecureRandom());
    }

    /** {@code console.trustedProxies}: the peers whose forwarded headers name the client ({@link ClientAddress}). */
    public List<org.arbiter.common.config.Cidr> trustedProxies() {
        return config.trustedProxies();
    }

    public Authenticator(ConsoleConfig config, Duration idleTimeout, Duration maxAge, SecureRandom random) {
        this.config = requireNonNull(config, "config");
        this.idleTimeout = requireNonNull(idleTimeout, "idleTimeout");
        this.maxAge = requireNonNull(maxAge, "maxAge");
        this.random = requireNonNull(random, "random");
        this.throttle = new LoginThrottle(config.login());
        for (ConsoleConfig.Token t : config.tokens()) {
            if (t.sha256() != null && t.sha256().matches("[0-9a-fA-F]{64}")) {
                tokens.add(new TokenEntry(t.name(), HEX.parseHex(t.sha256()), Role.of(t.role())));
            }
        }
        // Unknown users are checked against a hash as slow as a real one, so timing tells nothing.
        int iterations = config.users().stream().map(u -> Pbkdf2.iterationsOf(u.passwordHash(), 0))
                .filter(i -> i > 0).max(Integer::compare).orElse(1_000);
        this.dummyHash = Pbkdf2.hash("not a password".toCharArray(), iterations, new byte[16]);
    }

    /** True when reads need no credentials. */
    public boolean publicRead() {
        return config.publicRead();
    }

    /** True when any user can log in with a password. */
    public boolean hasUsers() {
        return !config.users().isEmpty();
    }

    /**
     * Checks a user's password, throttled per user only; on success opens a session. Slow (PBKDF2).
     *
     * @return the new session, or empty for an unknown user, a wrong password or a blocked user
     */
    public Optional<Session> login(String user, char[] password, Instant now) {
        return login(user, password, null, now) instanceof LoginResult.Success s ? Optional.of(s.session()) : Optional.empty();
    }

    /**
     * Checks a user's password from a client {@code address} (null when unknown): refused unchecked
     * while the user or the address is blocked, counted when wrong. Slow (PBKDF2) unless refused.
     */
    public LoginResult login(String user, char[] password, String address, Instant now) {
        requireNonNull(now, "now");
        LoginThrottle.Refusal refusal = throttle.check(user, address, now);
        if (refusal != null) {
            return new LoginResult.Throttled(refusal);
        }
        Optional<Session> s = verify(user, password, now);
        if (s.isEmpty()) {
            return new LoginResult.Failure(throttle.onFailure(user, address, now));
        }
        throttle.onSuccess(user, address, now);
        return new LoginResult.Success(s.get());
    }

    /**
     * Whether a login for {@code user} from {@code address} would be refused now, without
     * checking anything (cheap: for the event loop, before handing the check to a worker).
     */
    public Optional<LoginThrottle.Refusal> throttled(String user, String address, Instant now) {
        return Optional.ofNullable(throttle.check(user, address, now));
    }

    private Optional<Session> verify(String user, char[] password, Instant now) {
        if (user == null || password == null) {
            return Optional.empty();
        }
        ConsoleConfig.User found = null;
        for (ConsoleConfig.User u : config.users()) {
            if (u.name() != null && u.name().equals(user)) {
                found = u;
            }
        }
        boolean ok = Pbkdf2.verify(password, found != null ? found.passwordHash() : dummyHash) && found != null;
        if (!ok) {
            return Optional.empty();
        }
        purge(now);
        if (sessions.size() >= MAX_SESSIONS) {
            sessions.values().stream().min(Comparator.comparing(s -> s.lastUsed))
                    .ifPresent(s -> sessions.remove(digestKey(s.id)));
        }
        Principal p = new Principal(found.name(), Role.of(found.role()), "password");
        SessionEntry e = new SessionEntry(randomToken(), randomToken(), p, now);
        sessions.put(digestKey(e.id), e);
        return Optional.of(snapshot(e));
    }

    /** Ends a session unconditionally; unknown ids are ignored. */
    public void logout(String sessionId) {
        if (sessionId != null) {
            sessions.remove(digestKey(sessionId));
        }
    }

    /**
     * Ends a session on the user's request: the session's CSRF token must come with it, so another
     * site cannot log a user out.
     *
     * @return false (and the session stays) when the session is live and the token missing or
     *         wrong; true otherwise (an unknown or expired session has nothing to end)
     */
    public boolean logout(String sessionId, String csrfToken, Instant now) {
        Optional<Session> s = session(sessionId, now);
        if (s.isEmpty()) {
            return true;
        }
        if (!constantTimeEquals(s.get().csrfToken(), csrfToken)) {
            return false;
        }
        logout(sessionId);
        return true;
    }

    /** The live session with this id, touching it; empty when unknown or expired. */
    public Optional<Session> session(String sessionId, Instant now) {
        if (sessionId == null || sessionId.isEmpty() || sessionId.length() > 200) {
            return Optional.empty();
        }
        String key = digestKey(sessionId);
        SessionEntry e = sessions.get(key);
        if (e == null) {
            return Optional.empty();
        }
        if (expired(e, now)) {
            sessions.remove(key);
            return Optional.empty();
        }
        e.lastUsed = now;
        return Optional.of(snapshot(e));
    }

    /** Sessions open now (expired ones are dropped first). */
    public int openSessions(Instant now) {
        purge(now);
        return sessions.size();
    }

    /**
     * Decides whether a request may go ahead.
     *
     * @param write true for anything that changes state (POST, DELETE)
     */
    public Outcome authorize(Credentials credentials, boolean write, Instant now) {
        requireNonNull(credentials, "credentials");
        requireNonNull(now, "now");
        Principal principal = null;
        Optional<Session> session = Optional.empty();
        String auth = credentials.authorization();
        if (auth != null && !auth.isBlank()) {
            Optional<Principal> p = bearer(auth);
            if (p.isEmpty()) {
                return new Outcome.Denied(401, "invalid credentials (expected: Authorization: Bearer <a configured token>)");
            }
            principal = p.get();
        } else if (credentials.sessionId() != null) {
            session = session(credentials.sessionId(), now);
            if (session.isPresent()) {
                principal = session.get().principal();
                if (write && !constantTimeEquals(session.get().csrfToken(), credentials.csrfToken())) {
                    return new Outcome.Denied(403, "CSRF token missing or wrong (expected: X-CSRF-Token from /api/session)");
                }
            }
        }
        if (principal == null) {
            if (!write && config.publicRead()) {
                return new Outcome.Allowed(Principal.ANONYMOUS, Optional.empty());
            }
            return new Outcome.Denied(401, "authentication required (expected: a session cookie from /api/login or "
                    + "Authorization: Bearer <token>)");
        }
        if (write && !principal.role().mayWrite()) {
            return new Outcome.Denied(403, principal.name() + " is a viewer (expected: role admin to write)");
        }
        return new Outcome.Allowed(principal, session);
    }

    private Optional<Principal> bearer(String authorization) {
        String a = authorization.strip();
        if (a.length() < 8 || !a.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return Optional.empty();
        }
        byte[] digest = sha256(a.substring(7).strip());
        TokenEntry match = null;
        for (TokenEntry t : tokens) {  // every entry is compared, matching or not
            if (MessageDigest.isEqual(t.digest(), digest)) {
                match = t;
            }
        }
        return match == null ? Optional.empty() : Optional.of(new Principal(match.name(), match.role(), "token"));
    }

    /** Hex SHA-256 of a token, as written into {@code console.tokens[].sha256}. */
    public static String sha256Hex(String token) {
        return HEX.formatHex(sha256(token));
    }

    private static byte[] sha256(String s) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 unavailable", e);
        }
    }

    private static boolean constantTimeEquals(String expected, String actual) {
        if (actual == null) {
            return false;
        }
        return MessageDigest.isEqual(sha256(expected), sha256(actual));
    }

    private boolean expired(SessionEntry e, Instant now) {
        return !now.isBefore(e.lastUsed.plus(idleTimeout)) || !now.isBefore(e.created.plus(maxAge));
    }

    private void purge(Instant now) {
        sessions.values().removeIf(e -> expired(e, now));
    }

    private Session snapshot(SessionEntry e) {
        Instant idleEnd = e.lastUsed.plus(idleTimeout);
        Instant hardEnd = e.created.plus(maxAge);
        return new Session(e.id, e.csrf, e.principal, idleEnd.isBefore(hardEnd) ? idleEnd : hardEnd);
    }

    private static String digestKey(String id) {
        return HEX.formatHex(sha256(id));
    }

    private String randomToken() {
        byte[] b = new byte[32];
        random.nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }
}
