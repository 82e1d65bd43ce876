package org.arbiter.common.bus;

/**
 * Receives decoded messages on a subscriber's thread. A handler that throws is logged and
 * counted; the loop goes on.
 *
 * @param <T> message type
 */
@FunctionalInterface
public interface MessageHandler<T> {

    /**
     * @param key   the record key
     * @param value the decoded message, or null for a tombstone on a compacted topic
     */
    void onMessage(String key, T value);
}
