package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * The web console.
 *
 * @param port       HTTP port
 * @param publicRead reads without credentials
 * @param users      users with PBKDF2 password hashes
 * @param tokens     bearer tokens, stored as SHA-256 hex
 */
public record ConsoleConfig(int port, boolean publicRead, List<User> users, List<Token> tokens) {
    public ConsoleConfig {
        users = List.copyOf(requireNonNull(users, "users"));
        tokens = List.copyOf(requireNonNull(tokens, "tokens"));
    }

    /** A user; {@code passwordHash} is {@code pbkdf2:<iterations>:<salt hex>:<hash hex>}. */
    public record User(String name, String passwordHash, String role) {
    }

    /** A bearer token for scripts. */
    public record Token(String name, String sha256, String role) {
    }
}
