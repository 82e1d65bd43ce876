package org.arbiter.gateway.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http2.DefaultHttp2GoAwayFrame;
import io.netty.handler.codec.http2.Http2ConnectionAdapter;
import io.netty.handler.codec.http2.Http2Error;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2Stream;

/**
 * The lifetime of an HTTP/2 connection (h2c by prior knowledge or upgrade, h2 by ALPN), on its
 * parent channel behind the frame codec and the multiplexer. The HTTP/1.1 handler and its idle
 * timer are gone from such a connection, and frames that open no stream (the preface, SETTINGS,
 * PING) are no request; so the connection closes (GOAWAY, then close) once it has had no open
 * stream for {@code dispatch.idleTimeout}. Each stream's own request is timed by its
 * {@link FrontendHandler}. A drain sends GOAWAY at its start ({@link #goAway}), so the client opens
 * no new stream, and closes the connection when no stream is open ({@link #closeIfIdleForDrain}).
 *
 * <p>Confined to the connection's event loop.
 */
final class Http2Lifetime extends ChannelInboundHandlerAdapter {

    private final Http2FrameCodec codec;
    private final double idleTimeoutSeconds;
    private IdleDeadline deadline;

    Http2Lifetime(Http2FrameCodec codec, double idleTimeoutSeconds) {
        this.codec = codec;
        this.idleTimeoutSeconds = idleTimeoutSeconds;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        deadline = new IdleDeadline(ctx, idleTimeoutSeconds);
        codec.connection().addListener(new Http2ConnectionAdapter() {
            @Override
            public void onStreamActive(Http2Stream stream) {
                deadline.busy();
            }

            @Override
            public void onStreamClosed(Http2Stream stream) {
                if (codec.connection().numActiveStreams() == 0) {
                    deadline.idle();
                }
            }
        });
        if (codec.connection().numActiveStreams() == 0) {
            deadline.idle();
        }
    }

    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        deadline.drop();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        deadline.drop();
        ctx.fireChannelInactive();
    }

    /** On the connection's loop: GOAWAY (NO_ERROR, the last stream the client opened), once. */
    static void goAway(Channel ch) {
        Http2Lifetime h = ch.pipeline().get(Http2Lifetime.class);
        if (h != null && !h.codec.connection().goAwaySent()) {
            ch.writeAndFlush(new DefaultHttp2GoAwayFrame(Http2Error.NO_ERROR));
        }
    }

    /** On the connection's loop: closes an HTTP/2 connection with no open stream; whether it did. */
    static boolean closeIfIdleForDrain(Channel ch) {
        Http2Lifetime h = ch.pipeline().get(Http2Lifetime.class);
        if (h == null || h.codec.connection().numActiveStreams() > 0) {
            return false;
        }
        ch.close();
        return true;
    }
}
