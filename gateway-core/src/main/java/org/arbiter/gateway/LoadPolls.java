package org.arbiter.gateway;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * GatewayCore's side of load polling (002 §3): the {@link PollBook} (answers, misses, skips) and
 * the outbox of polls the balancer asked for, each server at most once until its poll is answered
 * or missed, and only servers with a {@code loadUrl}. The adapter drains the outbox, polls, and
 * reports back. Time passed in; not thread-safe, confined to the core's thread.
 */
final class LoadPolls {

    private final PollBook book;
    private boolean[] pollable;
    private boolean[] wanted;
    private final ArrayDeque<Integer> outbox = new ArrayDeque<>();

    /** @param pollable per server, whether it has a loadUrl */
    LoadPolls(boolean[] pollable) {
        this.book = new PollBook(pollable.length);
        this.pollable = pollable.clone();
        this.wanted = new boolean[pollable.length];
    }

    PollBook book() {
        return book;
    }

    /** Server s's load from a fresh answer, or -1. */
    int load(int s, long nowNanos) {
        return book.load(s, nowNanos);
    }

    boolean skipped(int s, long nowNanos) {
        return book.skipped(s, nowNanos);
    }

    /** A request was sent to server s (counted on top of its last answer). */
    void sent(int s) {
        book.sent(s);
    }

    /** The balancer sampled server s: poll it, if it has a loadUrl and no poll of it is pending. */
    void want(int s) {
        if (pollable[s] && !wanted[s]) {
            wanted[s] = true;
            outbox.addLast(s);
        }
    }

    /** The polls wanted since the last call, in order. */
    List<Integer> drain() {
        if (outbox.isEmpty()) {
            return List.of();
        }
        List<Integer> out = new ArrayList<>(outbox);
        outbox.clear();
        return out;
    }

    /** Server s answered with {@code load}: ends its pending poll. */
    void answered(int s, int load, long nowNanos) {
        wanted[s] = false;
        book.answered(s, load, nowNanos);
    }

    /** Server s's poll was not answered in time: ends its pending poll, counts toward a skip. */
    void missed(int s, long nowNanos) {
        wanted[s] = false;
        book.missed(s, nowNanos);
    }

    /** A server joined at the next index. */
    void addServer(boolean hasLoadUrl) {
        book.addServer();
        int n = pollable.length + 1;
        pollable = Arrays.copyOf(pollable, n);
        wanted = Arrays.copyOf(wanted, n);
        pollable[n - 1] = hasLoadUrl;
    }

    /** Server s has (or no longer has) a loadUrl. */
    void pollable(int s, boolean hasLoadUrl) {
        pollable[s] = hasLoadUrl;
    }
}
