package org.arbiter.grm.control;

import java.time.Instant;
import java.util.Optional;
import org.arbiter.common.message.Epochs;

/*
 * Design note — the GRM's epoch clock (replaces the bare version counter, issue #14).
 *
 * Stamps. Every control record the leader writes carries (epoch, counter): the epoch began when
 * this GRM last gained leadership, the counter counts control ticks within it (all allocations of
 * one tick share it). Records compare lexicographically (Epochs.compare).
 *
 * New epoch. The clock starts a new epoch at the next stamp when (a) this GRM gained leadership,
 * (b) it observed a plausible record newer than its own stamp (another leader, or a forged record a
 * gateway may have accepted: the leader must outrank it, Raft's "higher term seen"), or (c) the
 * counter reached its bound (1000 + ms since the epoch began). The new epoch is
 *   max(now in ms, highest epoch observed + 1, current epoch + 1)
 * so it outranks everything any gateway could have accepted, and stays <= now + maxSkew as long as
 * the records observed were plausible. Nothing here can overflow: epochs are at most
 * Epochs.MAX_MILLIS (year 9999) and counters at most that plus 1000.
 *
 * Skew. A record whose at or epoch is ahead of this GRM's clock by more than maxSkew is refused
 * (counted by the caller). One ahead by at most 2 x maxSkew is still held back (only the newest such):
 * a gateway whose clock runs ahead of ours may have accepted it, so the clock observes it once it
 * becomes plausible here, and the leader then outranks it.
 *
 * Core class: time passed in. Not thread-safe; the GRM's control thread (or the simulator) calls it.
 */

/** Epoch-and-counter stamps for the GRM's control records; see the design note in the source. */
public final class EpochClock {

    /** An (epoch, counter) stamp. */
    public record Stamp(long epoch, long counter) {
        public static final Stamp NONE = new Stamp(0, 0);

        public int compareTo(Stamp o) {
            return Epochs.compare(epoch, counter, o.epoch, o.counter);
        }
    }

    private final long maxSkewMillis;
    private Stamp current = Stamp.NONE;
    private Stamp seen = Stamp.NONE;
    private boolean fresh = true;
    private Deferred deferred;

    private record Deferred(Stamp stamp, long atMillis) {
    }

    /** @param maxSkewMillis {@code control.maxClockSkew} in ms (>= 0) */
    public EpochClock(long maxSkewMillis) {
        if (maxSkewMillis < 0) {
            throw new IllegalArgumentException("maxSkewMillis: " + maxSkewMillis + " (expected: >= 0)");
        }
        this.maxSkewMillis = maxSkewMillis;
    }

    /** With the default skew, 30 s. */
    public EpochClock() {
        this(30_000);
    }

    /**
     * Offers a control record read from the bus (an allocation's (epoch, version), a power order's
     * (epoch, sequence)). A plausible one is observed; returns why it is refused otherwise.
     */
    public Optional<Epochs.Implausible> offer(long epoch, long counter, Instant at, Instant now) {
        long nowMs = Epochs.millis(now);
        long atMs = Epochs.millis(at);
        Optional<Epochs.Implausible> why = Epochs.check(epoch, counter, atMs, nowMs, maxSkewMillis);
        if (why.isEmpty() && observable(epoch, counter, atMs, nowMs)) {
            observe(epoch, counter);
        } else if (why.map(w -> w != Epochs.Implausible.COUNTER).orElse(true)
                && Epochs.check(epoch, counter, atMs, nowMs, twiceSkew()).isEmpty()) {
            Stamp s = new Stamp(epoch, counter);
            if (deferred == null || s.compareTo(deferred.stamp) > 0) {
                deferred = new Deferred(s, atMs);
            }
        }
        return why;
    }

    /**
     * Plausible one millisecond ago: so the epoch this clock then takes (observed + 1) is plausible
     * now to a reader on the same clock; a record at the very edge waits a millisecond (deferred).
     */
    private boolean observable(long epoch, long counter, long atMs, long nowMs) {
        return Epochs.check(epoch, counter, atMs, nowMs == Long.MIN_VALUE ? nowMs : nowMs - 1, maxSkewMillis).isEmpty();
    }

    private long twiceSkew() {
        return maxSkewMillis > Long.MAX_VALUE / 2 ? Long.MAX_VALUE : 2 * maxSkewMillis;
    }

    /** Observes a stamp known to be plausible (tests, and records this GRM trusts). */
    public void observe(long epoch, long counter) {
        Stamp s = new Stamp(epoch, counter);
        if (s.compareTo(seen) > 0) {
            seen = s;
        }
    }

    /** Leadership gained: the next stamp begins a new epoch. */
    public void lead() {
        fresh = true;
    }

    /**
     * Makes sure an epoch is under way that outranks everything observed, and returns the current
     * stamp without counting a tick (for power orders written outside a control tick).
     */
    public Stamp begin(Instant now) {
        long nowMs = Math.max(0, Math.min(Epochs.MAX_MILLIS, Epochs.millis(now)));
        if (deferred != null && observable(deferred.stamp.epoch(), deferred.stamp.counter(), deferred.atMillis, nowMs)) {
            observe(deferred.stamp.epoch(), deferred.stamp.counter());
            deferred = null;
        }
        boolean overtaken = seen.compareTo(current) > 0;
        if (fresh || current.epoch() == 0 || overtaken
                || current.counter() >= Epochs.maxCounter(current.epoch(), nowMs)) {
            long epoch = Math.max(nowMs, Math.min(Epochs.MAX_MILLIS, Math.max(seen.epoch(), current.epoch())) + 1);
            current = new Stamp(Math.min(epoch, Epochs.MAX_MILLIS), 0);
            fresh = false;
        }
        return current;
    }

    /** The stamp of the next control tick: {@link #begin} and one more on the counter. */
    public Stamp next(Instant now) {
        Stamp s = begin(now);
        current = new Stamp(s.epoch(), s.counter() + 1);
        return current;
    }

    /** The last stamp issued ({@link Stamp#NONE} before the first). */
    public Stamp current() {
        return current;
    }

    /** The newest stamp observed on the bus. */
    public Stamp seen() {
        return seen;
    }
}
