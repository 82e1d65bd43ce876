package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The web console.
 *
 * @param port       HTTP port
 * @param publicRead reads without credentials
 * @param users      users with PBKDF2 password hashes
 * @param tokens     bearer tokens, stored as SHA-256 hex
 * @param login      how failed password logins are slowed down and locked out
 * @param trustedProxies reverse proxies whose {@code X-Forwarded-For} / {@code X-Forwarded-Proto}
 *                   name the client and its scheme (empty: the socket peer is the client)
 */
public record ConsoleConfig(int port, boolean publicRead, List<User> users, List<Token> tokens, Login login,
                            List<Cidr> trustedProxies) {
    public ConsoleConfig {
        users = List.copyOf(requireNonNull(users, "users"));
        tokens = List.copyOf(requireNonNull(tokens, "tokens"));
        requireNonNull(login, "login");
        trustedProxies = List.copyOf(requireNonNull(trustedProxies, "trustedProxies"));
    }

    /** A console reached directly (no trusted proxies). */
    public ConsoleConfig(int port, boolean publicRead, List<User> users, List<Token> tokens, Login login) {
        this(port, publicRead, users, tokens, login, List.of());
    }

    /** A console with the default login throttling. */
    public ConsoleConfig(int port, boolean publicRead, List<User> users, List<Token> tokens) {
        this(port, publicRead, users, tokens, Login.DEFAULT);
    }

    /** A user; {@code passwordHash} is {@code pbkdf2:<iterations>:<salt hex>:<hash hex>}. */
    public record User(String name, String passwordHash, Role role) {
    }

    /** A bearer token for scripts. */
    public record Token(String name, String sha256, Role role) {
    }

    /**
     * Failed-login throttling ({@code console.login}), counted per user name and per client
     * address: after {@code freeFailures} failures each further one makes the next attempt wait
     * {@code delay · 2^(k-1)} (k = failures beyond the free ones), at most {@code maxDelay}; at
     * {@code lockoutAfter} failures the user or address is locked out for {@code lockout}. A
     * success clears the user's count; the counts are forgotten {@code forgetAfter} after the last
     * failure.
     *
     * @param freeFailures       failures before any delay, >= 0
     * @param delaySeconds       the first delay, > 0
     * @param maxDelaySeconds    the longest delay, >= delaySeconds
     * @param lockoutAfter       failures that lock out, 0 = never, else > freeFailures
     * @param lockoutSeconds     how long a lockout lasts, > 0
     * @param forgetAfterSeconds quiet time after which failures are forgotten, > 0
     */
    public record Login(int freeFailures, double delaySeconds, double maxDelaySeconds, int lockoutAfter,
                        double lockoutSeconds, double forgetAfterSeconds) {

        /** 3 free failures, then 1 s doubling up to 60 s; locked out for 15 min at 10; forgotten after 1 h. */
        public static final Login DEFAULT = ConsoleSection.defaultLogin();

        public Login {
            if (freeFailures < 0) {
                throw new IllegalArgumentException("freeFailures: " + freeFailures + " (expected: >= 0)");
            }
            if (!(delaySeconds > 0) || !Double.isFinite(delaySeconds)) {
                throw new IllegalArgumentException("delay: " + delaySeconds + " (expected: > 0)");
            }
            if (!(maxDelaySeconds >= delaySeconds) || !Double.isFinite(maxDelaySeconds)) {
                throw new IllegalArgumentException("maxDelay: " + maxDelaySeconds + " (expected: >= delay, " + delaySeconds + ")");
            }
            if (lockoutAfter < 0 || lockoutAfter > 0 && lockoutAfter <= freeFailures) {
                throw new IllegalArgumentException("lockoutAfter: " + lockoutAfter + " (expected: 0, or > freeFailures, "
                        + freeFailures + ")");
            }
            if (!(lockoutSeconds > 0) || !Double.isFinite(lockoutSeconds)) {
                throw new IllegalArgumentException("lockout: " + lockoutSeconds + " (expected: > 0)");
            }
            if (!(forgetAfterSeconds > 0) || !Double.isFinite(forgetAfterSeconds)) {
                throw new IllegalArgumentException("forgetAfter: " + forgetAfterSeconds + " (expected: > 0)");
            }
        }
    }

    /** What a console user or token may do: admin writes overrides, viewer only reads. */
    public enum Role implements Choice {
        ADMIN("admin"), VIEWER("viewer");

        private final String wireName;

        Role(String wireName) {
            this.wireName = wireName;
        }

        @JsonValue
        @Override
        public String wireName() {
            return wireName;
        }

        @Override
        public String toString() {
            return wireName;
        }
    }

    /**
     * Every default, as {@link ConfigLoader} applies them: port 8090, no public reads, no users or tokens, the
     * default login throttling.
     */
    public static final ConsoleConfig DEFAULT = builder().build();

    /** A builder starting from the defaults (see {@link Builder}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().port(port).publicRead(publicRead).users(users).tokens(tokens).login(login)
                .trustedProxies(trustedProxies);
    }

    /**
     * Builds a {@link ConsoleConfig}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
     * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
     */
    public static final class Builder {
        private int port = ConsoleSection.PORT.defaultValue();
        private boolean publicRead = ConsoleSection.PUBLIC_READ.defaultValue();
        private List<User> users = List.of();
        private List<Token> tokens = List.of();
        private Login login = Login.DEFAULT;

        private List<Cidr> trustedProxies = List.of();

        private Builder() {
        }

        /** {@code port}; default 8090. */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** {@code publicRead}; default false. */
        public Builder publicRead(boolean publicRead) {
            this.publicRead = publicRead;
            return this;
        }

        /** {@code users}; default none. */
        public Builder users(List<User> users) {
            this.users = users;
            return this;
        }

        /** {@code tokens}; default none. */
        public Builder tokens(List<Token> tokens) {
            this.tokens = tokens;
            return this;
        }

        /** {@code login}; default {@link Login#DEFAULT}. */
        public Builder login(Login login) {
            this.login = login;
            return this;
        }

        /** {@code trustedProxies}; default none. */
        public Builder trustedProxies(List<Cidr> trustedProxies) {
            this.trustedProxies = trustedProxies;
            return this;
        }

        public ConsoleConfig build() {
            return new ConsoleConfig(port, publicRead, users, tokens, login, trustedProxies);
        }
    }
}
