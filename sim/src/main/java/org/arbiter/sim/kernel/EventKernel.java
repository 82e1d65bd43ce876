package org.arbiter.sim.kernel;

import static java.util.Objects.requireNonNull;

import java.util.Arrays;

/*
 * Design note — the one event kernel.
 *
 * A queue of timed actions and a virtual clock, shared by every simulator here: the cluster
 * simulator (sim/Simulator), 002's Neptune cluster (neptune/ClusterSim) and 004's closed-loop
 * testbed (experiment/ClosedLoop).
 *
 * Order: events run by time, then by rank, then by the order they were scheduled in. Simulators
 * that schedule everything at rank 0 get plain (time, insertion) order, which is what the cluster
 * and Neptune simulators have always used; the closed-loop testbed gives each kind of event its
 * own rank so that, at one instant, the server's completions come before the control step, the
 * control step before a segment change, and client wake-ups in client order.
 *
 * Time: now() is the time of the event being run (0 before the first); it is the one place
 * virtual time moves. An event scheduled earlier than now() still runs next in queue order (the
 * simulators never do that; the kernel does not clamp, so their arithmetic stays their own).
 *
 * Deterministic: no clock is read, no thread is used. Not thread-safe (runs on the caller's thread).
 */

/** A virtual clock and a queue of timed actions. See the design note. */
public final class EventKernel {

    // A binary heap over parallel primitive arrays, ordered by (time, rank, seq): no Event object
    // and no comparator call per event (the scale run schedules tens of millions). The order is a
    // total order, so the events run in exactly the order a PriorityQueue of records gave.
    private double[] times = new double[1024];
    private long[] ranks = new long[1024];
    private long[] seqs = new long[1024];
    private Runnable[] actions = new Runnable[1024];
    private int size;
    private long sequence;
    private double now;
    private boolean stopped;

    /** The virtual time of the event being run, in seconds (0 before the first). */
    public double now() {
        return now;
    }

    /** Runs {@code action} at {@code timeSeconds}, after the actions already scheduled for that time. */
    public void schedule(double timeSeconds, Runnable action) {
        schedule(timeSeconds, 0, action);
    }

    /** Runs {@code action} at {@code timeSeconds}, before every action of that time with a higher rank. */
    public void schedule(double timeSeconds, long rank, Runnable action) {
        requireNonNull(action, "action");
        if (size == times.length) {
            int n = size * 2;
            times = Arrays.copyOf(times, n);
            ranks = Arrays.copyOf(ranks, n);
            seqs = Arrays.copyOf(seqs, n);
            actions = Arrays.copyOf(actions, n);
        }
        long seq = sequence++;
        int i = size++;
        while (i > 0) { // sift up
            int parent = (i - 1) >>> 1;
            if (!before(timeSeconds, rank, seq, parent)) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        put(i, timeSeconds, rank, seq, action);
    }

    /** Runs events in order while the next is due at or before {@code endSeconds} and {@link #stop()} was not called. */
    public void runUntil(double endSeconds) {
        while (!stopped && size > 0 && times[0] <= endSeconds) {
            now = times[0];
            Runnable action = actions[0];
            removeTop();
            action.run();
        }
    }

    /** Ends {@link #runUntil} after the event being run. */
    public void stop() {
        stopped = true;
    }

    /** Events still queued. */
    public int pending() {
        return size;
    }

    private void removeTop() {
        int last = --size;
        double t = times[last];
        long r = ranks[last];
        long q = seqs[last];
        Runnable a = actions[last];
        actions[last] = null;
        if (last == 0) {
            return;
        }
        int i = 0;
        while (true) { // sift the last event down from the root
            int child = 2 * i + 1;
            if (child >= last) {
                break;
            }
            if (child + 1 < last && before(times[child + 1], ranks[child + 1], seqs[child + 1], child)) {
                child++;
            }
            if (!before(times[child], ranks[child], seqs[child], t, r, q)) {
                break;
            }
            move(child, i);
            i = child;
        }
        put(i, t, r, q, a);
    }

    /** (t, r, q) comes before the event at slot j. */
    private boolean before(double t, long r, long q, int j) {
        return before(t, r, q, times[j], ranks[j], seqs[j]);
    }

    private static boolean before(double t, long r, long q, double t2, long r2, long q2) {
        int c = Double.compare(t, t2);
        if (c != 0) {
            return c < 0;
        }
        if (r != r2) {
            return r < r2;
        }
        return q < q2;
    }

    private void move(int from, int to) {
        times[to] = times[from];
        ranks[to] = ranks[from];
        seqs[to] = seqs[from];
        actions[to] = actions[from];
    }

    private void put(int i, double t, long r, long q, Runnable a) {
        times[i] = t;
        ranks[i] = r;
        seqs[i] = q;
        actions[i] = a;
    }
}
