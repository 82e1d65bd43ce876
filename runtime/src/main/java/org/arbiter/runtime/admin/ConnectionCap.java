package org.arbiter.runtime.admin;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts a server's open connections; one over the cap is answered 503 with {@code Retry-After: 1}
 * and closed at once, before any of its bytes is read (and is not counted). First in the pipeline.
 *
 * <p>Thread-safe and {@link ChannelHandler.Sharable}: one instance per server.
 */
@ChannelHandler.Sharable
public final class ConnectionCap extends ChannelInboundHandlerAdapter {

    private final int maxConnections;
    private final byte[] busy;
    private final AtomicInteger open = new AtomicInteger();

    /**
     * @param maxConnections open connections beyond this are refused, ≥ 1
     * @param what           the connections, for the 503's body ({@code admin} gives "too many admin connections")
     */
    public ConnectionCap(int maxConnections, String what) {
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + " (expected: >= 1)");
        }
        this.maxConnections = maxConnections;
        String body = "{\"error\":\"too many " + what + " connections\"}";
        this.busy = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
                + "Connection: close\r\nContent-Length: " + body.length() + "\r\n\r\n" + body)
                .getBytes(StandardCharsets.US_ASCII);
    }

    /** Connections open and served now (at most the cap; refused ones are not counted). */
    public int open() {
        return open.get();
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (open.incrementAndGet() > maxConnections) {
            open.decrementAndGet();
            ctx.channel().config().setAutoRead(false);
            ctx.writeAndFlush(Unpooled.wrappedBuffer(busy)).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
        ctx.fireChannelActive();
    }
}
