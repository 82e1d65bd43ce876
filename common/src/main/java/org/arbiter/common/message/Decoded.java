package org.arbiter.common.message;

import static java.util.Objects.requireNonNull;

/**
 * The outcome of decoding one record: the message, or why it could not be read. Decoding never
 * throws; a consumer loop skips and counts failures.
 *
 * @param <T> the message type
 */
public sealed interface Decoded<T> {

    /** A message that decoded and validated. */
    record Ok<T>(T value) implements Decoded<T> {
        public Ok {
            requireNonNull(value, "value");
        }
    }

    /** A record that could not be read; {@code reason} names the field and the rule. */
    record Failure<T>(String reason) implements Decoded<T> {
        public Failure {
            requireNonNull(reason, "reason");
        }
    }
}
