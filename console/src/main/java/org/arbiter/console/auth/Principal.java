package org.arbiter.console.auth;

import static java.util.Objects.requireNonNull;

/**
 * Who is asking.
 *
 * @param name the user or token name ({@code anonymous} for public reads)
 * @param role what it may do
 * @param via  {@code password} (session cookie), {@code token} (bearer) or {@code public}
 */
public record Principal(String name, Role role, String via) {
    public Principal {
        requireNonNull(name, "name");
        requireNonNull(role, "role");
        requireNonNull(via, "via");
    }

    static final Principal ANONYMOUS = new Principal("anonymous", Role.VIEWER, "public");
}
