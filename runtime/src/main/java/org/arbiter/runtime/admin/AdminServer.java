package org.arbiter.runtime.admin;

import static java.util.Objects.requireNonNull;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.concurrent.DefaultThreadFactory;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Supplier;

/**
 * The admin HTTP server every Arbiter process runs (the gateway's admin port, the GRM's
 * {@code /metrics} and {@code /health}), with one set of limits ({@link AdminLimits}): a connection
 * cap ({@link ConnectionCap}: 503 beyond it, before any byte is read), the request-head limit (431),
 * a 64 KiB body limit (413), and the request timeout ({@link RequestDeadline}: a connection that has
 * not delivered a complete request within it is closed, however slowly it trickles). Each process
 * brings its own routes as a per-connection handler of {@link FullHttpRequest}s; a request the
 * decoder could not read reaches it with a failed decoder result ({@link #refuseUnreadable}).
 *
 * <p>One NIO event loop of its own: a scrape or a health check is small and never on a hot path;
 * what may block (a reload) belongs on another thread. Thread-safe; {@link #close()} is idempotent.
 */
public final class AdminServer implements AutoCloseable {

    /** The largest request body an admin port reads (larger: 413). */
    public static final int MAX_BODY_BYTES = 64 * 1024;

    private final EventLoopGroup group;
    private final Channel channel;
    private final ConnectionCap cap;
    private volatile boolean closed;

    private AdminServer(EventLoopGroup group, Channel channel, ConnectionCap cap) {
        this.group = group;
        this.channel = channel;
        this.cap = cap;
    }

    /**
     * Binds {@code host:port} (0 = any free port) and serves.
     *
     * @param name    the process, for the thread's name ({@code gateway-g1}, {@code grm-a})
     * @param handler makes the route handler for each new connection
     * @throws IllegalStateException when the address cannot be bound (the message names it)
     */
    public static AdminServer start(String name, String host, int port, AdminLimits limits,
                                    Supplier<? extends ChannelHandler> handler) {
        requireNonNull(name, "name");
        requireNonNull(host, "host");
        requireNonNull(limits, "limits");
        requireNonNull(handler, "handler");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("port: " + port + " (expected: 0..65535)");
        }
        ConnectionCap cap = new ConnectionCap(limits.maxConnections(), "admin");
        EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, new DefaultThreadFactory(name + "-admin", true),
                NioIoHandler.newFactory());
        try {
            Channel ch = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_BACKLOG, 1024)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel c) {
                            pipeline(c.pipeline(), cap, limits, handler.get());
                        }
                    })
                    .bind(host, port).sync().channel();
            return new AdminServer(group, ch, cap);
        } catch (Exception e) {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            if (e instanceof InterruptedException) {
                Thread.currentThread().interrupt();
            }
            throw new IllegalStateException("cannot bind the admin port " + host + ":" + port + " (" + e.getMessage() + ")", e);
        }
    }

    /** The admin pipeline: cap, codec with the head limit, aggregator, request timeout, then {@code handler}. */
    static void pipeline(ChannelPipeline p, ConnectionCap cap, AdminLimits limits, ChannelHandler handler) {
        HttpDecoderConfig decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(8192)
                .setMaxHeaderSize((int) Math.min(Integer.MAX_VALUE, limits.maxHeaderBytes()))
                .setMaxChunkSize(65536);
        p.addLast(cap, new HttpServerCodec(decoder), new HttpObjectAggregator(MAX_BODY_BYTES),
                new RequestDeadline(limits.requestTimeoutNanos()), handler);
    }

    /**
     * Answers a request the decoder could not read (431 for a head over the limit, else 400) and
     * closes the connection; false (nothing sent) when {@code req} was read.
     */
    public static boolean refuseUnreadable(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (!req.decoderResult().isFailure()) {
            return false;
        }
        Throwable cause = req.decoderResult().cause();
        boolean tooLarge = cause instanceof TooLongHttpHeaderException || cause instanceof TooLongHttpLineException;
        reply(ctx, false, tooLarge ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE : HttpResponseStatus.BAD_REQUEST,
                "application/json", "{\"error\":\"" + (tooLarge ? "headerTooLarge" : "malformedRequest") + "\"}", h -> { });
        return true;
    }

    /** Writes a complete answer ({@code Cache-Control: no-store}); closes the connection after it unless {@code keepAlive}. */
    public static ChannelFuture reply(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String type,
                                      String body) {
        return reply(ctx, keepAlive, status, type, body, h -> { });
    }

    /** As {@link #reply(ChannelHandlerContext, boolean, HttpResponseStatus, String, String)}, with headers of its own. */
    public static ChannelFuture reply(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String type,
                                      String body, Consumer<HttpHeaders> headers) {
        ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        headers.accept(r.headers());
        HttpUtil.setKeepAlive(r, keepAlive);
        ChannelFuture f = ctx.writeAndFlush(r);
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
        return f;
    }

    /** The bound port. */
    public int port() {
        return ((InetSocketAddress) channel.localAddress()).getPort();
    }

    /** The bound host address. */
    public String host() {
        return ((InetSocketAddress) channel.localAddress()).getAddress().getHostAddress();
    }

    /** Connections open and served now (at most {@link AdminLimits#maxConnections()}). */
    public int openConnections() {
        return cap.open();
    }

    /** Stops listening, closes the open connections and the event loop. */
    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        channel.close().syncUninterruptibly();
        group.shutdownGracefully(0, 2, TimeUnit.SECONDS).syncUninterruptibly();
    }
}
