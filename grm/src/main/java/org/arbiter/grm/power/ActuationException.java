package org.arbiter.grm.power;

import static java.util.Objects.requireNonNull;

/** A power action that failed; {@link #seen()} is what the actuator saw of the server, if anything. */
public final class ActuationException extends Exception {

    private static final long serialVersionUID = 1L;

    private final transient PowerActuator.Seen seen;

    public ActuationException(String message, PowerActuator.Seen seen) {
        super(requireNonNull(message, "message"));
        this.seen = requireNonNull(seen, "seen");
    }

    public PowerActuator.Seen seen() {
        return seen;
    }
}
