package org.arbiter.gateway.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.util.concurrent.Future;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.Lifecycle;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The admin port's request timeout on an EmbeddedChannel with its ticker frozen and advanced: the
 * verdict is on the channel's time, not the wall clock (AdminLimitsSocketTest floods real sockets
 * and counts).
 */
final class AdminHandlerTest {

    private static final long TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(5);

    private final EmbeddedChannel channel = new EmbeddedChannel();

    private static final AdminHandler.Api API = new AdminHandler.Api() {
        @Override
        public Lifecycle.Readiness readiness() {
            return new Lifecycle.Readiness(Optional.empty(), "ready");
        }

        @Override
        public boolean drain() {
            return false;
        }

        @Override
        public Allocation allocation() {
            throw new UnsupportedOperationException();
        }

        @Override
        public Future<GatewayStats> stats() {
            throw new UnsupportedOperationException();
        }

        @Override
        public String prometheus() {
            return "";
        }
    };

    private void start() {
        channel.freezeTime();
        channel.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(65536),
                new AdminHandler(API, TIMEOUT_NANOS));
        channel.pipeline().fireChannelActive(); // the handler arms its timeout when the connection opens
    }

    @AfterEach
    void tearDown() {
        channel.finishAndReleaseAll();
    }

    private void write(String s) {
        channel.writeInbound(Unpooled.copiedBuffer(s, StandardCharsets.US_ASCII));
    }

    @Test
    void aHalfRequest_isClosedAtTheRequestTimeout_notBefore() {
        start();
        write("GET /ready HTTP/1.1\r\nHost: x\r\n"); // the head never ends
        channel.advanceTimeBy(TIMEOUT_NANOS - 1, TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("one nanosecond before the timeout").isTrue();
        channel.advanceTimeBy(1, TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("at the timeout").isFalse();
    }

    @Test
    void theTimeout_restartsAfterEveryAnswer() {
        start();
        channel.advanceTimeBy(TIMEOUT_NANOS - 1, TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
        write("GET /health HTTP/1.1\r\nHost: x\r\n\r\n");
        Object answer = channel.readOutbound();
        assertThat(answer).isNotNull();
        io.netty.util.ReferenceCountUtil.release(answer);
        channel.advanceTimeBy(TIMEOUT_NANOS - 1, TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).as("idle for less than the timeout since the answer").isTrue();
        channel.advanceTimeBy(1, TimeUnit.NANOSECONDS);
        channel.runScheduledPendingTasks();
        assertThat(channel.isOpen()).isFalse();
    }
}
