package org.arbiter.runtime.admin;

import io.netty.channel.ChannelDuplexHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPromise;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

/**
 * Closes a connection that does not deliver a complete request within the timeout: from when it
 * opens, and again from the end of each answer. Unlike a reader-idle timer it is not reset by
 * bytes, so a client that trickles a request line (a byte a second) is closed as surely as an idle
 * one. While a request is being answered (from the complete request to the answer's last byte;
 * an event stream never ends its answer; with pipelined requests, until the last one's answer)
 * the connection is not timed.
 *
 * <p>Sits after the HTTP aggregator, so that only complete requests stop the timer. Not
 * thread-safe: one instance per connection, used on its event loop; the time is the channel's
 * executor's (an {@code EmbeddedChannel}'s frozen ticker in tests).
 */
public final class RequestDeadline extends ChannelDuplexHandler {

    private final long timeoutNanos;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> deadline;
    private int answering;

    /** @param timeoutNanos a connection without a complete request this long is closed, > 0 */
    public RequestDeadline(long timeoutNanos) {
        if (timeoutNanos <= 0) {
            throw new IllegalArgumentException("timeoutNanos: " + timeoutNanos + " (expected: > 0)");
        }
        this.timeoutNanos = timeoutNanos;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        if (ctx.channel().isActive()) {
            arm();
        }
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        arm();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancel();
        ctx.fireChannelInactive();
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        cancel();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof HttpRequest) {
            answering++;
            cancel(); // answering: not timed until the answer's end
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void write(ChannelHandlerContext ctx, Object msg, ChannelPromise promise) {
        if (msg instanceof LastHttpContent) {
            ctx.write(msg, promise.unvoid()).addListener(f -> {
                answering = Math.max(0, answering - 1);
                if (answering == 0 && ctx.channel().isActive()) {
                    arm();
                }
            });
            return;
        }
        ctx.write(msg, promise);
    }

    private void arm() {
        cancel();
        deadline = ctx.executor().schedule(() -> {
            deadline = null;
            ctx.close();
        }, timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void cancel() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }
}
