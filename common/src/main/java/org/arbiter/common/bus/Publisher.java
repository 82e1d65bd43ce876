package org.arbiter.common.bus;

import java.util.concurrent.CompletableFuture;
import org.arbiter.common.message.Message;

/**
 * Publishes messages to one topic, keyed by {@link Message#key()}. Implementations are
 * thread-safe; {@link #publish} never blocks on the broker.
 */
public interface Publisher {

    /** Sends the message; the future completes when the broker acknowledged it (or failed). */
    CompletableFuture<Void> publish(Message message);

    /** Writes a tombstone for {@code key} (compacted topics: forget it). */
    CompletableFuture<Void> delete(String key);

    /** A publisher that drops everything, for components running without a bus. */
    static Publisher noop() {
        return new Publisher() {
            @Override
            public CompletableFuture<Void> publish(Message message) {
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletableFuture<Void> delete(String key) {
                return CompletableFuture.completedFuture(null);
            }
        };
    }
}
