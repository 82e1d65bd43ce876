package org.arbiter.common.message;

import java.time.Instant;
import java.util.Optional;

/*
 * Design note — control records: epochs and bounds.
 *
 * Order. Every control record (Allocation, PowerOrder, Decision) carries the epoch of the leader
 * that wrote it and a counter within that epoch. Records compare by (epoch, counter),
 * lexicographically: a new leader's first record outranks every record of an older epoch, however
 * high that epoch's counter went. A GRM that gains leadership takes epoch = max(the wall-clock
 * millisecond it gained it, highest plausible epoch it has seen + 1), and restarts the counter at 1.
 *
 * Bounds. A reader refuses what no honest GRM could have written (a record it cannot place in time):
 *   at      <= now + maxSkew                    (a record from the future)
 *   epoch   <= now + maxSkew                    (an epoch that has not begun yet)
 *   0 <= counter <= 1000 + max(0, at - epoch)   (at most one tick per millisecond of the epoch, plus
 *                                                1000 of slack; the record's own fields, so its
 *                                                constructor checks it)
 * all in milliseconds. Legacy records (no epoch) are epoch 0, counter = version, under the same
 * bounds: version 9223372036854775807 is refused. Arithmetic saturates: no long overflows for any
 * input.
 *
 * Thread-safety: stateless.
 */

/**
 * The ordering and plausibility rule of control records, shared by gateways and GRMs (see the
 * design note in the source). Pure functions; time is passed in.
 */
public final class Epochs {

    /** Ticks a counter may run ahead of the milliseconds its epoch has lasted. */
    public static final long COUNTER_SLACK = 1000;
    /** The last millisecond an epoch or an {@code at} may name: 9999-12-31T23:59:59.999Z. */
    public static final long MAX_MILLIS = 253_402_300_799_999L;
    /** The latest instant a message may carry. */
    public static final Instant MAX_AT = Instant.ofEpochMilli(MAX_MILLIS);

    /** Why a record cannot have been written by an honest GRM. */
    public enum Implausible {
        /** {@code at} is later than now + maxSkew. */
        FUTURE_AT("implausible-at"),
        /** {@code epoch} is later than now + maxSkew. */
        FUTURE_EPOCH("implausible-epoch"),
        /** the counter is negative or above {@link #maxCounter}. */
        COUNTER("implausible-counter");

        private final String tag;

        Implausible(String tag) {
            this.tag = tag;
        }

        /** The {@code reason} tag of {@code arbiter.bus.refused}. */
        public String tag() {
            return tag;
        }
    }

    private Epochs() {
    }

    /** Orders (epoch, counter) pairs lexicographically; negative when the first is older. */
    public static int compare(long epoch1, long counter1, long epoch2, long counter2) {
        int e = Long.compare(epoch1, epoch2);
        return e != 0 ? e : Long.compare(counter1, counter2);
    }

    /** The highest counter a record of {@code epoch} stamped {@code atMillis} may carry; never overflows. */
    public static long maxCounter(long epoch, long atMillis) {
        return saturatedAdd(COUNTER_SLACK, Math.max(0, saturatedSub(atMillis, epoch)));
    }

    /**
     * Checks a record against the bounds above.
     *
     * @param epoch         the record's epoch
     * @param counter       its counter within the epoch
     * @param atMillis      its {@code at}, ms since 1970
     * @param nowMillis     the reader's clock
     * @param maxSkewMillis how far a writer's clock may run ahead of the reader's (>= 0)
     * @return why it is implausible, or empty
     */
    public static Optional<Implausible> check(long epoch, long counter, long atMillis, long nowMillis,
                                              long maxSkewMillis) {
        long limit = saturatedAdd(nowMillis, Math.max(0, maxSkewMillis));
        if (atMillis > limit) {
            return Optional.of(Implausible.FUTURE_AT);
        }
        if (epoch > limit) {
            return Optional.of(Implausible.FUTURE_EPOCH);
        }
        if (counter < 0 || epoch < 0 || counter > maxCounter(epoch, atMillis)) {
            return Optional.of(Implausible.COUNTER);
        }
        return Optional.empty();
    }

    /** {@link #check(long, long, long, long, long)} for a record stamped {@code at}, read at {@code now}. */
    public static Optional<Implausible> check(long epoch, long counter, Instant at, Instant now, long maxSkewMillis) {
        return check(epoch, counter, millis(at), millis(now), maxSkewMillis);
    }

    /** Milliseconds since 1970, saturated to the long range instead of throwing. */
    public static long millis(Instant t) {
        try {
            return t.toEpochMilli();
        } catch (ArithmeticException e) {
            return t.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
    }

    /** Checks a record's own stamp (its constructor): epoch and counter within the static bounds. */
    static void checkStamp(String counterField, long epoch, long counter, Instant at) {
        if (epoch < 0 || epoch > MAX_MILLIS) {
            throw new IllegalArgumentException("epoch: " + epoch + " (expected: 0.." + MAX_MILLIS
                    + ", ms since 1970; 0 = legacy record without an epoch)");
        }
        long max = maxCounter(epoch, millis(at));
        if (counter < 0 || counter > max) {
            throw new IllegalArgumentException(counterField + ": " + counter + " (expected: 0.." + max
                    + " = 1000 + ms from epoch " + epoch + " to at)");
        }
    }

    static long saturatedAdd(long a, long b) {
        long r = a + b;
        if (((a ^ r) & (b ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }

    static long saturatedSub(long a, long b) {
        long r = a - b;
        if (((a ^ b) & (a ^ r)) < 0) {
            return a < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
        }
        return r;
    }
}
