package org.arbiter.gateway.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * A connection's (or an HTTP/2 stream's, or an HTTP/2 connection's) idle deadline: the channel
 * closes once it has been idle for the timeout. One timer at a time, not one per request: {@link
 * #idle} records when the idle spell began and schedules a check only if none is pending; a check
 * that finds the channel busy, or idle for less than the timeout, waits for the rest. Confined to
 * the channel's event loop.
 */
final class IdleDeadline {

    private final ChannelHandlerContext ctx;
    private final long timeoutNanos;
    private ScheduledFuture<?> check;
    /** When the current idle spell began (System.nanoTime), or -1 while busy. */
    private long idleSinceNanos = -1;
    /** Dropped for good (the handler left, the channel closed). */
    private boolean dropped;

    IdleDeadline(ChannelHandlerContext ctx, double timeoutSeconds) {
        this.ctx = ctx;
        this.timeoutNanos = (long) (timeoutSeconds * 1e9);
    }

    /** An idle spell begins now. */
    void idle() {
        idleSinceNanos = System.nanoTime();
        if (check == null && !dropped) {
            schedule(timeoutNanos);
        }
    }

    /** The channel is busy: a pending check finds it so and lapses. */
    void busy() {
        idleSinceNanos = -1;
    }

    /** No more checks; the pending one, if any, is cancelled. */
    void drop() {
        dropped = true;
        idleSinceNanos = -1;
        if (check != null) {
            check.cancel(false);
            check = null;
        }
    }

    boolean dropped() {
        return dropped;
    }

    private void schedule(long delayNanos) {
        check = ctx.executor().schedule(this::check, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void check() {
        check = null;
        if (dropped || idleSinceNanos < 0) {
            return; // busy (or gone): the next idle spell arms it again
        }
        long left = idleSinceNanos + timeoutNanos - System.nanoTime();
        if (left > 0) {
            schedule(left);
        } else {
            ctx.close();
        }
    }
}
