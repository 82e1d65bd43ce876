package org.arbiter.runtime.admin;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.util.AttributeKey;
import io.netty.util.ReferenceCountUtil;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Counts a server's open connections; one over the cap is answered 503 with {@code Retry-After: 1}
 * and is not counted. Its bytes are read and dropped, never parsed; after the 503 the gateway
 * half-closes it and closes it when the client does or {@link #LINGER_MILLIS} later. (Closing at
 * once, with the client's request still unread, makes the kernel send a reset, which can discard
 * the 503 before the client reads it: on a loaded machine clients then saw a reset, not the 503.)
 * First in the pipeline.
 *
 * <p>Thread-safe and {@link ChannelHandler.Sharable}: one instance per server.
 */
@ChannelHandler.Sharable
public final class ConnectionCap extends ChannelInboundHandlerAdapter {

    /** How long a refused connection may stay half-closed, waiting for the client to close. */
    static final long LINGER_MILLIS = 1000;
    private static final AttributeKey<Boolean> REFUSED = AttributeKey.valueOf(ConnectionCap.class, "refused");

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
            ctx.channel().attr(REFUSED).set(Boolean.TRUE);
            ctx.writeAndFlush(Unpooled.wrappedBuffer(busy)).addListener((ChannelFutureListener) f -> {
                if (f.isSuccess() && f.channel() instanceof DuplexChannel d) {
                    d.shutdownOutput();
                    f.channel().eventLoop().schedule(() -> f.channel().close(), LINGER_MILLIS, TimeUnit.MILLISECONDS);
                } else {
                    f.channel().close();
                }
            });
            return;
        }
        ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (Boolean.TRUE.equals(ctx.channel().attr(REFUSED).get())) {
            ReferenceCountUtil.release(msg); // a refused connection's bytes are dropped unread
            return;
        }
        ctx.fireChannelRead(msg);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (Boolean.TRUE.equals(ctx.channel().attr(REFUSED).get())) {
            if (evt instanceof io.netty.channel.socket.ChannelInputShutdownEvent) {
                ctx.close(); // the client closed its side: done
            }
            return;
        }
        ctx.fireUserEventTriggered(evt);
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        if (!Boolean.TRUE.equals(ctx.channel().attr(REFUSED).get())) {
            ctx.fireChannelReadComplete();
        }
    }
}
