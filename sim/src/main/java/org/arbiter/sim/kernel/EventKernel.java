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

    // A four-ary heap (half the levels of a binary one; a node's four children's keys are 12 longs side
    // by side) ordered by (time, rank, seq), every node's key in one array: keys[3i] the time as
    // a long that orders as Double.compare orders the times, keys[3i + 1] the rank, keys[3i + 2] the
    // sequence. A node names its action by a slot in `actions`, so sifting moves primitives only (no
    // reference store, no GC barrier, per level) and a node's key is 24 bytes in a row. No Event object
    // and no comparator call per event (the scale run schedules tens of millions). The order is a total
    // order, so the events run in exactly the order a PriorityQueue of records gave.
    private long[] keys = new long[3 * 1024];
    private int[] slots = new int[1024];
    private Runnable[] actions = new Runnable[1024];
    /** Per slot in use: its node's index in the heap (kept by every move), for {@link #reschedule}. */
    private int[] position = new int[1024];
    /** Per slot: how many times it was freed, so that a stale handle is told from a live one. */
    private int[] generation = new int[1024];
    /** Slots of {@link #actions} not in use: a stack. */
    private int[] free = new int[1024];
    private int freeCount;
    private int size;
    private long sequence;
    private double now;
    private boolean stopped;

    public EventKernel() {
        for (int i = 0; i < free.length; i++) {
            free[i] = free.length - 1 - i;
        }
        freeCount = free.length;
    }

    public double now() {
        return now;
    }

    public void schedule(double timeSeconds, Runnable action) {
        schedule(timeSeconds, 0, action);
    }

    public void schedule(double timeSeconds, long rank, Runnable action) {
        scheduleHandle(timeSeconds, rank, action);
    }

    /**
     * As {@link #schedule(double, long, Runnable)}, and returns a handle on the event for
     * {@link #reschedule} while it has not run.
     */
    public long scheduleHandle(double timeSeconds, long rank, Runnable action) {
        requireNonNull(action, "action");
        if (size == slots.length) {
            grow();
        }
        int slot = free[--freeCount];
        actions[slot] = action;
        long t = order(timeSeconds);
        long seq = sequence++;
        int i = size++;
        siftUp(i, t, rank, seq, slot);
        return (long) generation[slot] << 32 | slot;
    }

    /**
     * Moves the event of {@code handle}, if it has not run yet, to {@code timeSeconds}: exactly as if it
     * were taken out and its action scheduled now (same rank, the next sequence number), so the order
     * of every event is what scheduling anew and letting the old event do nothing gave, without the
     * old event. Returns false (and does nothing) when the event has run.
     */
    public boolean reschedule(long handle, double timeSeconds) {
        int slot = (int) handle;
        if (slot < 0 || slot >= generation.length || generation[slot] != (int) (handle >>> 32)
                || actions[slot] == null) {
            return false;
        }
        int i = position[slot];
        long t = order(timeSeconds);
        long r = keys[3 * i + 1];
        long seq = sequence++;
        // the new key is later than the old one at equal time (a larger sequence): down, unless earlier
        if (i > 0 && before(t, r, seq, (i - 1) >>> 2)) {
            siftUp(i, t, r, seq, slot);
        } else {
            siftDown(i, size, t, r, seq, slot);
        }
        return true;
    }

    private void siftUp(int i, long t, long rank, long seq, int slot) {
        while (i > 0) {
            int parent = (i - 1) >>> 2;
            if (!before(t, rank, seq, parent)) {
                break;
            }
            move(parent, i);
            i = parent;
        }
        put(i, t, rank, seq, slot);
    }

    private void grow() {
        int old = slots.length;
        int n = old * 2;
        keys = Arrays.copyOf(keys, 3 * n);
        slots = Arrays.copyOf(slots, n);
        actions = Arrays.copyOf(actions, n);
        position = Arrays.copyOf(position, n);
        generation = Arrays.copyOf(generation, n);
        int[] f = new int[n];
        System.arraycopy(free, 0, f, 0, freeCount);
        for (int s = n - 1; s >= old; s--) { // the new slots (every old one is in use: the heap is full)
            f[freeCount++] = s;
        }
        free = f;
    }

    public void runUntil(double endSeconds) {
        while (!stopped && size > 0) {
            double t = time(keys[0]);
            if (!(t <= endSeconds)) {
                break;
            }
            now = t;
            int slot = slots[0];
            Runnable action = actions[slot];
            actions[slot] = null;
            generation[slot]++;
            free[freeCount++] = slot;
            removeTop();
            action.run();
        }
    }

    public void stop() {
        stopped = true;
    }

    public int pending() {
        return size;
    }

    /** A long whose signed order is Double.compare's order of {@code t} (−0.0 before 0.0, NaN last). */
    private static long order(double t) {
        long bits = Double.doubleToLongBits(t);
        return bits ^ ((bits >> 63) & Long.MAX_VALUE);
    }

    private static double time(long order) {
        return Double.longBitsToDouble(order ^ ((order >> 63) & Long.MAX_VALUE));
    }

    private void removeTop() {
        int last = --size;
        long t = keys[3 * last];
        long r = keys[3 * last + 1];
        long q = keys[3 * last + 2];
        int a = slots[last];
        if (last == 0) {
            return;
        }
        siftDown(0, last, t, r, q, a); // the last event, down from the root
    }

    /** Puts (t, r, q, a) at node i of a heap of n nodes, or below it: the earliest of up to four children up. */
    private void siftDown(int i, int n, long t, long r, long q, int a) {
        while (true) {
            int first = 4 * i + 1;
            if (first >= n) {
                break;
            }
            int child = first;
            for (int k = first + 1, end = Math.min(first + 4, n); k < end; k++) {
                if (before(keys[3 * k], keys[3 * k + 1], keys[3 * k + 2], child)) {
                    child = k;
                }
            }
            if (!before(keys[3 * child], keys[3 * child + 1], keys[3 * child + 2], t, r, q)) {
                break;
            }
            move(child, i);
            i = child;
        }
        put(i, t, r, q, a);
    }

    private boolean before(long t, long r, long q, int j) {
        return before(t, r, q, keys[3 * j], keys[3 * j + 1], keys[3 * j + 2]);
    }

    private static boolean before(long t, long r, long q, long t2, long r2, long q2) {
        if (t != t2) {
            return t < t2;
        }
        if (r != r2) {
            return r < r2;
        }
        return q < q2;
    }

    private void move(int from, int to) {
        keys[3 * to] = keys[3 * from];
        keys[3 * to + 1] = keys[3 * from + 1];
        keys[3 * to + 2] = keys[3 * from + 2];
        slots[to] = slots[from];
        position[slots[to]] = to;
    }

    private void put(int i, long t, long r, long q, int slot) {
        keys[3 * i] = t;
        keys[3 * i + 1] = r;
        keys[3 * i + 2] = q;
        slots[i] = slot;
        position[slot] = i;
    }
}
