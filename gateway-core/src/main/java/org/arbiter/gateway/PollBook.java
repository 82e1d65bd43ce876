package org.arbiter.gateway;

import java.util.Arrays;

/*
 * Design note — what a gateway knows from load polls (002 §3).
 *
 * Model:   random polling asks d servers for their active + queued requests and sends to the least
 *          loaded. A poll not answered within dispatch.poll.deadline is discarded (missed). A server
 *          that misses MISS_LIMIT polls in a row is skipped, that is not polled nor chosen, for
 *          SKIP_SECONDS; after that it is polled again, and one more miss skips it again. Any answer
 *          in time resets its streak. This is how 002's "nodes that do not respond within a deadline
 *          are discarded … this strategy also helps exclude faulty nodes" is kept across requests.
 * Load:    an answer counts for ANSWER_TTL_SECONDS; meanwhile the server's load is the answer plus the
 *          requests this gateway sent it since (so one answer does not draw a herd). Without a fresh
 *          answer the caller uses its own counters.
 * Time:    passed in (nowNanos). Threads: none; confine to one thread (the core's).
 */

/** Per server: the latest poll answer, the misses in a row, and until when it is skipped. See the design note. */
public final class PollBook {

    /** Misses in a row that get a server skipped. */
    public static final int MISS_LIMIT = 3;
    /** How long a server that keeps missing polls is skipped. */
    public static final double SKIP_SECONDS = 1;
    /** How long an answer stands for the server's load. */
    public static final double ANSWER_TTL_SECONDS = 1;

    private long[] answeredAt;
    private int[] answeredLoad;
    private int[] sentSince;
    private int[] misses;
    private long[] skipUntil;
    private boolean[] answered;
    /** Some server has answered a poll (until then a send counts nowhere: see {@link #sent}). */
    private boolean anyAnswered;

    public PollBook(int servers) {
        answeredAt = new long[servers];
        answeredLoad = new int[servers];
        sentSince = new int[servers];
        misses = new int[servers];
        skipUntil = new long[servers];
        answered = new boolean[servers];
        Arrays.fill(skipUntil, Long.MIN_VALUE);
    }

    /** One more server (a reload added it), at index {@link #size()}: no answer yet, not skipped. */
    public void addServer() {
        int n = answeredAt.length + 1;
        answeredAt = Arrays.copyOf(answeredAt, n);
        answeredLoad = Arrays.copyOf(answeredLoad, n);
        sentSince = Arrays.copyOf(sentSince, n);
        misses = Arrays.copyOf(misses, n);
        skipUntil = Arrays.copyOf(skipUntil, n);
        skipUntil[n - 1] = Long.MIN_VALUE;
        answered = Arrays.copyOf(answered, n);
    }

    /** The servers it tracks. */
    public int size() {
        return answeredAt.length;
    }

    /** Server s answered a poll in time with {@code active + queued} requests. */
    public void answered(int s, int load, long nowNanos) {
        if (load < 0) {
            throw new IllegalArgumentException("load: " + load + " (expected: >= 0)");
        }
        answered[s] = true;
        anyAnswered = true;
        answeredAt[s] = nowNanos;
        answeredLoad[s] = load;
        sentSince[s] = 0;
        misses[s] = 0;
        skipUntil[s] = Long.MIN_VALUE;
    }

    /** A poll of server s was not answered within its deadline: discarded; the MISS_LIMIT-th miss in a row skips it. */
    public void missed(int s, long nowNanos) {
        misses[s]++;
        if (misses[s] >= MISS_LIMIT) {
            skipUntil[s] = nowNanos + (long) (SKIP_SECONDS * 1e9);
        }
    }

    /** A request was sent to server s (counted on top of its latest answer). */
    public void sent(int s) {
        // counted only on top of an answer (an answer starts the count at 0): a server never answered,
        // or a gateway that polls none, is not touched on every dispatch
        if (anyAnswered && answered[s]) {
            sentSince[s]++;
        }
    }

    /** Whether server s is skipped now (missed MISS_LIMIT polls in a row within the last SKIP_SECONDS). */
    public boolean skipped(int s, long nowNanos) {
        return nowNanos < skipUntil[s];
    }

    /** Misses in a row of server s. */
    public int misses(int s) {
        return misses[s];
    }

    /** Server s's load from its latest answer (plus what was sent since), or -1 when it has no answer younger than the TTL. */
    public int load(int s, long nowNanos) {
        if (!answered[s] || nowNanos - answeredAt[s] > (long) (ANSWER_TTL_SECONDS * 1e9)) {
            return -1;
        }
        return answeredLoad[s] + sentSince[s];
    }
}
