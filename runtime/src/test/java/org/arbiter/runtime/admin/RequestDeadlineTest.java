package org.arbiter.runtime.admin;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admin request timeout on an EmbeddedChannel with its ticker frozen and advanced: the verdict
 * is on the channel's time, not the wall clock (AdminServerSocketTest checks it on real sockets).
 */
final class RequestDeadlineTest {

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final EmbeddedChannel channel = new EmbeddedChannel();
    private ChannelHandlerContext held;

    /** Answers at once, except {@code /slow}, which it holds until {@link #answerHeld()}. */
    private final class Routes extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            if (req.uri().equals("/slow")) {
                held = ctx;
                return;
            }
            AdminServer.reply(ctx, true, HttpResponseStatus.OK, "text/plain", "ok");
        }
    }

    private void start() {
        channel.freezeTime();
        channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                new RequestDeadline(TIMEOUT_NANOS), new Routes());
    }

    private void answerHeld() {
        AdminServer.reply(held, true, HttpResponseStatus.OK, "text/plain", "late");
    }

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
    }

    private void write(String s) {
        channel.writeInbound(Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII));
    }

    private void advance(long nanos) {
        channel.advanceTimeBy(nanos, TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
    }

    private void drainOutbound() {
        Object o;
        while ((o = channel.readOutbound()) != null) {
            ReferenceCountUtil.release(o);
        }
    }

    @Test
    void aHalfRequest_isClosedAtTheRequestTimeout_notBefore() {
        start();
        write("GET /ready HTTP/1.1\r\nHost: x\r\n"); // the head never ends
        advance(TIMEOUT_NANOS - 1);
        assertThat(channel.isOpen()).as("one nanosecond before the timeout").isTrue();
        advance(1);
        assertThat(channel.isOpen()).as("at the timeout").isFalse();
    }

    @Test
    void aTrickledRequest_doesNotResetTheTimeout() {
        start();
        long elapsed = 0;
        for (char c : "GET /ready HTTP/1.1\r\nHost: x\r\n".toCharArray()) {
            write(String.valueOf(c));
            advance(TIMEOUT_NANOS / 40);
            elapsed += TIMEOUT_NANOS / 40;
        }
        assertThat(channel.isOpen()).isTrue();
        advance(TIMEOUT_NANOS - elapsed);
        assertThat(channel.isOpen()).as("at the timeout, counted from the connection's start").isFalse();
    }

    @Test
    void theTimeout_restartsAfterEveryAnswer() {
        start();
        advance(TIMEOUT_NANOS - 1);
        write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        assertThat((Object) channel.readOutbound()).isNotNull();
        drainOutbound();
        advance(TIMEOUT_NANOS - 1);
        assertThat(channel.isOpen()).as("idle for less than the timeout since the answer").isTrue();
        advance(1);
        assertThat(channel.isOpen()).isFalse();
    }

    @Test
    void aRequestBeingAnswered_isNotTimed_andPipelinedOnesWaitForTheLastAnswer() {
        start();
        write("GET /slow HTTP/1.1\r\nHost: x\r\n\r\nGET /slow HTTP/1.1\r\nHost: x\r\n\r\n");
        advance(3 * TIMEOUT_NANOS);
        assertThat(channel.isOpen()).as("answering").isTrue();
        answerHeld(); // the first answer; the second request is still being answered
        advance(3 * TIMEOUT_NANOS);
        assertThat(channel.isOpen()).as("still answering the second").isTrue();
        answerHeld();
        drainOutbound();
        advance(TIMEOUT_NANOS - 1);
        assertThat(channel.isOpen()).isTrue();
        advance(1);
        assertThat(channel.isOpen()).as("timed again from the last answer").isFalse();
    }
}
