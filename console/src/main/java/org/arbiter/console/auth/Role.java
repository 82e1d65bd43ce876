package org.arbiter.console.auth;

import java.util.Locale;
import org.arbiter.common.config.ConsoleConfig;

/** What a console user or token may do: an admin may write (overrides), a viewer only read. */
public enum Role {
    ADMIN, VIEWER;

    /** The role {@code cluster.yaml} gives a user or token. */
    public static Role of(ConsoleConfig.Role role) {
        return switch (role) {
            case ADMIN -> ADMIN;
            case VIEWER -> VIEWER;
        };
    }

    public boolean mayWrite() {
        return this == ADMIN;
    }

    /** The lower-case name, as in the configuration and the API. */
    public String wireName() {
        return name().toLowerCase(Locale.ROOT);
    }
}
