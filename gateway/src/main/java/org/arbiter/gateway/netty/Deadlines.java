package org.arbiter.gateway.netty;

import io.netty.channel.EventLoop;
import java.util.concurrent.TimeUnit;

/**
 * The backend timeouts of one event loop's requests: arming and cancelling one is O(1) with no allocation,
 * where a task scheduled on the loop per request cost a priority-queue insert and removal each (about 4 % of
 * the gateway's CPU samples at 40 000 requests/s, docs/performance.md).
 *
 * <p>The armed attempts form one list in deadline order, linked through the attempts themselves. Every request
 * on a plane gets the same {@code dispatch.backendTimeout}, so a new deadline is almost always the latest and
 * goes at the tail; after a reload that shortened the timeout it is walked into place from the tail. One task
 * is scheduled at a time, for the head's deadline: when it runs it fires every expired attempt, then schedules
 * itself for the new head. A cancelled head leaves that task in place; it finds nothing due and moves on, so a
 * busy loop wakes about once per backend timeout for this, not once per request.
 *
 * <p>Confined to its loop.
 */
final class Deadlines {

    /** What can be armed: the list's links and the deadline live in the armed object (no node per arm). */
    abstract static class Armed {
        private Deadlines deadlines;
        private Runnable onTimeout;
        private long deadlineNanos;
        private boolean armed;
        private Armed prev;
        private Armed next;

        /** Arms this on {@code d}: {@code onTimeout} runs on d's loop in {@code nanos} unless cancelled first. */
        final void armTimeout(Deadlines d, Runnable onTimeout, long nanos) {
            cancelTimeout();
            this.deadlines = d;
            this.onTimeout = onTimeout;
            d.arm(this, nanos);
        }

        /** Disarms it (nothing if it is not armed). */
        final void cancelTimeout() {
            if (deadlines != null) {
                deadlines.cancel(this);
            }
        }

        private void fire() {
            Runnable r = onTimeout;
            onTimeout = null;
            if (r != null) {
                r.run();
            }
        }
    }

    private final EventLoop loop;
    private Armed head;
    private Armed tail;
    /** When the scheduled sweep runs (nanos of {@link DataPlane#now}); {@code Long.MAX_VALUE}: none scheduled. */
    private long sweepAt = Long.MAX_VALUE;
    private final Runnable sweep = this::sweep;

    Deadlines(EventLoop loop) {
        this.loop = loop;
    }

    private void arm(Armed a, long nanos) {
        long at = DataPlane.now() + nanos;
        a.deadlineNanos = at;
        a.armed = true;
        Armed after = tail;
        while (after != null && after.deadlineNanos > at) {
            after = after.prev;
        }
        a.prev = after;
        a.next = after == null ? head : after.next;
        if (a.next != null) {
            a.next.prev = a;
        } else {
            tail = a;
        }
        if (after != null) {
            after.next = a;
        } else {
            head = a;
        }
        if (at < sweepAt) {
            schedule(at);
        }
    }

    private void cancel(Armed a) {
        if (!a.armed) {
            return;
        }
        a.armed = false;
        Armed p = a.prev;
        Armed n = a.next;
        if (p != null) {
            p.next = n;
        } else {
            head = n;
        }
        if (n != null) {
            n.prev = p;
        } else {
            tail = p;
        }
        a.prev = null;
        a.next = null;
    }

    /** How many timeouts are armed (for tests; walks the list). */
    int armed() {
        int n = 0;
        for (Armed a = head; a != null; a = a.next) {
            n++;
        }
        return n;
    }

    private void schedule(long at) {
        sweepAt = at;
        loop.schedule(sweep, Math.max(0, at - DataPlane.now()), TimeUnit.NANOSECONDS);
    }

    private void sweep() {
        long now = DataPlane.now();
        if (now < sweepAt) {
            return; // an earlier sweep was scheduled since: this one is stale
        }
        sweepAt = Long.MAX_VALUE;
        while (head != null && head.deadlineNanos <= now) {
            Armed a = head;
            cancel(a);
            a.fire();
        }
        if (head != null) {
            schedule(head.deadlineNanos);
        }
    }
}
