package org.arbiter.common.message;

import static org.arbiter.common.message.Message.checkAt;
import static org.arbiter.common.message.Message.checkId;
import static org.arbiter.common.message.Message.checkVersion;

import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.time.Instant;

/**
 * An order to move a server to a power state, and the state it is in. Topic {@code power}
 * (compacted), key: the server id. The GRM publishes the order; the state field follows what the
 * server actually does, never what was ordered.
 *
 * @param target  the state ordered: ON or OFF
 * @param state   the state observed now
 * @param reason  why, for the operator
 * @param sequence grows with every order for this server: the counter within {@code epoch}
 *                 (0..1000 + ms from {@code epoch} to {@code at}, see {@link Epochs})
 * @param epoch    the epoch of the GRM leader that wrote it (0..{@link Epochs#MAX_MILLIS}; 0 = legacy)
 */
public record PowerOrder(int v, Instant at, String server, ServerState target, ServerState state, String reason,
                         long sequence, @JsonSetter(nulls = Nulls.AS_EMPTY) long epoch) implements Message {

    /** A legacy order without an epoch (epoch 0). */
    public PowerOrder(int v, Instant at, String server, ServerState target, ServerState state, String reason,
                      long sequence) {
        this(v, at, server, target, state, reason, sequence, 0);
    }

    public PowerOrder {
        checkVersion(v);
        checkAt(at);
        checkId("server", server);
        Epochs.checkStamp("sequence", epoch, sequence, at);
        if (target != ServerState.ON && target != ServerState.OFF) {
            throw new IllegalArgumentException("target: " + target + " (expected: ON or OFF)");
        }
        if (state == null) {
            throw new IllegalArgumentException("state: missing (expected: OFF, BOOTING, ON or DRAINING)");
        }
        reason = reason == null ? "" : reason;
    }

    @Override
    public String key() {
        return server;
    }
}
