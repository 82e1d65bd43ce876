package org.arbiter.grm.control;

/**
 * Allocation versions that only grow, also across a change of GRM leader: every GRM reads the
 * compacted allocation topic and {@link #observe observes} each version it sees there; the leader
 * numbers its next allocations {@link #next()} = (highest seen or issued) + 1.
 *
 * <p>Core class. Not thread-safe; the GRM service calls it from one thread.
 */
public final class VersionClock {

    private long highest;

    public void observe(long version) {
        highest = Math.max(highest, version);
    }

    public long next() {
        return ++highest;
    }

    public long highest() {
        return highest;
    }
}
