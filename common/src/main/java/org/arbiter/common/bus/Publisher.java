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

    /**
     * Sends the message under {@code key} to partition {@code partition} of the topic: a gateway's statistics
     * for one pool go to that pool's partition ({@link Topics#stats()}). A bus without partitions
     * ({@link InMemoryBus}) sends it under the key. The future fails, without blocking, when the topic does
     * not have the partition.
     */
    default CompletableFuture<Void> publish(Message message, String key, int partition) {
        return publish(message);
    }

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
