package org.arbiter.common.message;

import java.time.Instant;

/**
 * A record carried on the bus. Every message carries the schema version {@code v} (1 here) and the
 * instant {@code at} it describes. Units are seconds and requests per second, as doubles.
 */
public sealed interface Message permits GatewayStats, Allocation, PowerOrder, OperatorOverride, Decision {

    /** The schema version this code writes and reads. */
    int VERSION = 1;

    int v();

    Instant at();

    /** The Kafka key: the gateway, server or override id the message is about. */
    String key();

    static void checkVersion(int v) {
        if (v != VERSION) {
            throw new IllegalArgumentException("v: " + v + " (expected: " + VERSION + ")");
        }
    }

    static void checkAt(Instant at) {
        if (at == null) {
            throw new IllegalArgumentException("at: missing (expected: an ISO-8601 instant)");
        }
        if (at.isBefore(Instant.EPOCH) || at.isAfter(Epochs.MAX_AT)) {
            throw new IllegalArgumentException("at: " + at + " (expected: 1970-01-01T00:00:00Z.." + Epochs.MAX_AT + ")");
        }
    }

    /** A count or an id number: {@code >= 0}. */
    static long checkNonNegative(String field, long value) {
        if (value < 0) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: >= 0)");
        }
        return value;
    }

    /** A finite number; NaN and infinities are refused. */
    static double checkFinite(String field, double value) {
        if (!Double.isFinite(value)) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: a finite number)");
        }
        return value;
    }

    /** A finite number, or NaN where the record documents NaN as "none" (never an infinity). */
    static double checkFiniteOrNone(String field, double value) {
        if (Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: a finite number, or NaN for none)");
        }
        return value;
    }

    static String checkId(String field, String value) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException(field + ": missing (expected: a non-empty id)");
        }
        return value;
    }

    static double checkNonNegative(String field, double value) {
        if (!(value >= 0) || Double.isInfinite(value)) {
            throw new IllegalArgumentException(field + ": " + value + " (expected: >= 0, finite)");
        }
        return value;
    }
}
