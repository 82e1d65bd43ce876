package org.arbiter.grm.power;

import org.arbiter.grm.control.GrmCore.Seen;

import static java.util.Objects.requireNonNull;

/** A power action that failed; {@link #seen()} is what the actuator saw of the server, if anything. */
public final class ActuationException extends Exception {

    private static final long serialVersionUID = 1L;

    private final transient Seen seen;

    public ActuationException(String message, Seen seen) {
        super(requireNonNull(message, "message"));
        this.seen = requireNonNull(seen, "seen");
    }

    public Seen seen() {
        return seen;
    }
}
