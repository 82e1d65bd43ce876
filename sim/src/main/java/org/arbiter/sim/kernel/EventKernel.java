package org.arbiter.sim.kernel;

import static java.util.Objects.requireNonNull;

import java.util.PriorityQueue;

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

    private record Event(double time, long rank, long seq, Runnable action) implements Comparable<Event> {
        @Override
        public int compareTo(Event o) {
            int c = Double.compare(time, o.time);
            if (c != 0) {
                return c;
            }
            c = Long.compare(rank, o.rank);
            return c != 0 ? c : Long.compare(seq, o.seq);
        }
    }

    private final PriorityQueue<Event> events = new PriorityQueue<>();
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
        events.add(new Event(timeSeconds, rank, sequence++, requireNonNull(action, "action")));
    }

    /** Runs events in order while the next is due at or before {@code endSeconds} and {@link #stop()} was not called. */
    public void runUntil(double endSeconds) {
        while (!stopped && !events.isEmpty() && events.peek().time() <= endSeconds) {
            Event e = events.poll();
            now = e.time();
            e.action().run();
        }
    }

    /** Ends {@link #runUntil} after the event being run. */
    public void stop() {
        stopped = true;
    }

    /** Events still queued. */
    public int pending() {
        return events.size();
    }
}
