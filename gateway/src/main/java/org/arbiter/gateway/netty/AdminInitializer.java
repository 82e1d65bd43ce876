package org.arbiter.gateway.netty;

import static java.util.Objects.requireNonNull;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpServerCodec;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The admin port's pipeline, with the data port's limits: a connection cap (connections beyond it
 * get a 503 and are closed before any byte is read), the request-head size limit (431), a 64 KiB
 * body limit, and the request timeout (a connection without a complete request within it is
 * closed). Without these, idle half-requests to the admin port once used up the process's file
 * descriptors and the data port stopped answering.
 *
 * <p>Thread-safe (the connection count is atomic); one instance per admin server.
 */
public final class AdminInitializer extends ChannelInitializer<SocketChannel> {

    private static final byte[] BUSY = ("HTTP/1.1 503 Service Unavailable\r\n"
            + "Content-Type: application/json\r\nRetry-After: 1\r\nConnection: close\r\nContent-Length: 38\r\n\r\n"
            + "{\"error\":\"too many admin connections\"}").getBytes(StandardCharsets.US_ASCII);

    private final AdminHandler.Api api;
    private final int maxConnections;
    private final int maxHeaderBytes;
    private final long requestTimeoutNanos;
    private final AtomicInteger open = new AtomicInteger();
    private final ChannelHandler limiter = new Limiter();

    /**
     * @param maxConnections      open connections beyond this get 503 and are closed, ≥ 1
     * @param maxHeaderBytes      larger request heads get 431, ≥ 256
     * @param requestTimeoutNanos a connection without a complete request this long is closed, > 0
     */
    public AdminInitializer(AdminHandler.Api api, int maxConnections, long maxHeaderBytes, long requestTimeoutNanos) {
        this.api = requireNonNull(api, "api");
        if (maxConnections < 1) {
            throw new IllegalArgumentException("maxConnections: " + maxConnections + " (expected: >= 1)");
        }
        if (maxHeaderBytes < 256) {
            throw new IllegalArgumentException("maxHeaderBytes: " + maxHeaderBytes + " (expected: >= 256)");
        }
        if (requestTimeoutNanos <= 0) {
            throw new IllegalArgumentException("requestTimeoutNanos: " + requestTimeoutNanos + " (expected: > 0)");
        }
        this.maxConnections = maxConnections;
        this.maxHeaderBytes = (int) Math.min(Integer.MAX_VALUE, maxHeaderBytes);
        this.requestTimeoutNanos = requestTimeoutNanos;
    }

    /** Admin connections open and served now (at most the cap; refused ones are not counted). */
    public int openConnections() {
        return open.get();
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        HttpDecoderConfig decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(8192)
                .setMaxHeaderSize(maxHeaderBytes)
                .setMaxChunkSize(65536);
        ch.pipeline().addLast(limiter, new HttpServerCodec(decoder), new HttpObjectAggregator(65536),
                new AdminHandler(api, requestTimeoutNanos));
    }

    /** Counts connections; one over the cap is answered 503 and closed at once (and not counted). */
    @ChannelHandler.Sharable
    private final class Limiter extends ChannelInboundHandlerAdapter {
        @Override
        public void channelActive(ChannelHandlerContext ctx) {
            if (open.incrementAndGet() > maxConnections) {
                open.decrementAndGet();
                ctx.channel().config().setAutoRead(false);
                ctx.writeAndFlush(Unpooled.wrappedBuffer(BUSY)).addListener(ChannelFutureListener.CLOSE);
                return;
            }
            ctx.channel().closeFuture().addListener(f -> open.decrementAndGet());
            ctx.fireChannelActive();
        }
    }
}
