package org.arbiter.console.auth;

/** What a console user or token may do: an admin may write (overrides), a viewer only read. */
public enum Role {
    ADMIN, VIEWER;

    /** {@code admin} or {@code viewer} as written in {@code cluster.yaml}; anything else is a viewer. */
    public static Role of(String name) {
        return "admin".equalsIgnoreCase(name) ? ADMIN : VIEWER;
    }

    public boolean mayWrite() {
        return this == ADMIN;
    }

    /** The lower-case name, as in the configuration and the API. */
    public String wireName() {
        return name().toLowerCase(java.util.Locale.ROOT);
    }
}
