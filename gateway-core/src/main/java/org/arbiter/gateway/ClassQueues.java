package org.arbiter.gateway;

import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;

/*
 * Design note — GatewayCore's per-class book (docs/gateway.md, Queue; 003 §III-A).
 *
 * Model:   per class c a bounded FIFO (limit K_c = queue.limit, timeout = queue.timeout), the
 *          number of c's requests at servers, and w(g,c) in force (fractional, may be 0). The
 *          book only keeps counts and order; what a full queue or an expired head means (reject,
 *          drop, counts) is GatewayCore's.
 * Order:   each queue stays ordered by arrival (ticket sequence): a requeued ticket goes before
 *          every ticket of its class that arrived after it, so the head is always the next to expire.
 * Threads: none, not thread-safe; confined to the core's thread. The int/double getters may be
 *          read from other threads (gauges), with no guarantee of freshness.
 */

/** Per class: queue, limit, timeout, requests at servers, weight. See the design note. */
final class ClassQueues<R> {

    private final String[] names;
    private final Map<String, Integer> index = new HashMap<>();
    private final int defaultClass;
    private final int[] limits;
    private final long[] timeoutNanos;
    private final ArrayDeque<Ticket<R>>[] queues;
    private final int[] inFlight;
    private final double[] weights;
    /** Requests waiting in all queues. */
    private int queued;
    /** Each queue's length, kept as it changes: the scheduler reads every class's at each release. */
    private final int[] lengths;

    @SuppressWarnings("unchecked")
    ClassQueues(List<ClassConfig> classes) {
        int nc = classes.size();
        names = new String[nc];
        limits = new int[nc];
        timeoutNanos = new long[nc];
        queues = new ArrayDeque[nc];
        inFlight = new int[nc];
        lengths = new int[nc];
        weights = new double[nc];
        for (int c = 0; c < nc; c++) {
            ClassConfig cc = classes.get(c);
            names[c] = cc.name();
            index.put(cc.name(), c);
            limits[c] = cc.queue().limit();
            timeoutNanos[c] = timeoutNanos(cc);
            queues[c] = new ArrayDeque<>();
            weights[c] = cc.weight();
        }
        int def = nc - 1;
        for (int c = 0; c < nc; c++) {
            if (classes.get(c).isDefault()) {
                def = c;
            }
        }
        this.defaultClass = def;
    }

    /** {@code queue.timeout} in ns, as the core compares it. */
    static long timeoutNanos(ClassConfig cc) {
        return (long) (cc.queue().timeoutSeconds() * 1e9);
    }

    // ---------------------------------------------------------------- classes

    int count() {
        return names.length;
    }

    String name(int c) {
        return names[c];
    }

    /** The class names in index order. */
    List<String> names() {
        return List.of(names);
    }

    /** The index of class {@code name}, or -1. */
    int indexOf(String name) {
        Integer c = index.get(name);
        return c == null ? -1 : c;
    }

    int defaultClass() {
        return defaultClass;
    }

    int limit(int c) {
        return limits[c];
    }

    /** A copy of the limits, index order. */
    int[] limits() {
        return limits.clone();
    }

    long timeoutNanos(int c) {
        return timeoutNanos[c];
    }

    /** Whether {@code cc} changes class c's limit or timeout. */
    boolean changes(int c, ClassConfig cc) {
        return limits[c] != cc.queue().limit() || timeoutNanos[c] != timeoutNanos(cc);
    }

    /** Takes class c's limit and timeout from {@code cc} (a lowered limit rejects new arrivals only). */
    void reconfigure(int c, ClassConfig cc) {
        limits[c] = cc.queue().limit();
        timeoutNanos[c] = timeoutNanos(cc);
    }

    // ---------------------------------------------------------------- queues

    /** Requests waiting in class c's queue. */
    int size(int c) {
        return lengths[c];
    }

    /** Requests waiting in all queues. */
    int queued() {
        return queued;
    }

    /** Class c's head, or null. */
    Ticket<R> head(int c) {
        return queues[c].peekFirst();
    }

    /** Removes and returns class c's head (the queue must not be empty). */
    Ticket<R> take(int c) {
        Ticket<R> t = queues[c].pollFirst();
        lengths[c] = queues[c].size();
        queued--;
        return t;
    }

    /** Queues {@code t} at the tail of its class. */
    void add(Ticket<R> t) {
        queues[t.classIndex()].addLast(t);
        lengths[t.classIndex()] = queues[t.classIndex()].size();
        queued++;
    }

    /** Takes a queued {@code t} out of its queue (a cancel). */
    void remove(Ticket<R> t) {
        queues[t.classIndex()].remove(t);
        lengths[t.classIndex()] = queues[t.classIndex()].size();
        queued--;
    }

    /** Queues {@code t} again, before every ticket of its class that arrived after it. */
    void requeue(Ticket<R> t) {
        ArrayDeque<Ticket<R>> q = queues[t.classIndex()];
        if (q.isEmpty() || q.peekFirst().sequence > t.sequence) {
            q.addFirst(t);
        } else {
            ArrayDeque<Ticket<R>> older = new ArrayDeque<>();
            while (!q.isEmpty() && q.peekFirst().sequence < t.sequence) {
                older.addLast(q.pollFirst());
            }
            q.addFirst(t);
            while (!older.isEmpty()) {
                q.addFirst(older.pollLast());
            }
        }
        lengths[t.classIndex()] = q.size();
        queued++;
    }

    /** The queue lengths, index order. */
    int[] sizes() {
        int[] qlen = new int[names.length];
        for (int c = 0; c < qlen.length; c++) {
            qlen[c] = lengths[c];
        }
        return qlen;
    }

    // ---------------------------------------------------------------- at servers

    /** Requests of class c at servers. */
    int inFlight(int c) {
        return inFlight[c];
    }

    /** A copy of the in-flight counts, index order. */
    int[] inFlights() {
        return inFlight.clone();
    }

    int inFlightTotal() {
        int n = 0;
        for (int v : inFlight) {
            n += v;
        }
        return n;
    }

    /** A request of class c went to a server. */
    void dispatched(int c) {
        inFlight[c]++;
    }

    /** A request of class c left its server (done, failed, requeued). */
    void leftServer(int c) {
        inFlight[c]--;
    }

    // ---------------------------------------------------------------- weights

    /** w(g,c) in force. */
    double weight(int c) {
        return weights[c];
    }

    /** A copy of the weights, index order. */
    double[] weights() {
        return weights.clone();
    }

    /** Takes the weights {@code byName} names; classes it does not name keep theirs, unknown names are ignored. */
    void install(Map<String, Double> byName) {
        byName.forEach((name, w) -> {
            Integer c = index.get(name);
            if (c != null) {
                weights[c] = w;
            }
        });
    }
}
