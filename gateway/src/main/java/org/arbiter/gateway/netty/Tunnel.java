package org.arbiter.gateway.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufHolder;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.ReferenceCountUtil;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.handler.timeout.IdleStateHandler;
import java.util.concurrent.TimeUnit;
import org.arbiter.gateway.classify.UpgradeHeader;

/**
 * The bytes of an upgraded connection (WebSocket and any other {@code Upgrade} the server accepted
 * with 101), spliced both ways between the client and the server once the HTTP handlers have left
 * both pipelines. Reading from one side pauses while the other cannot take more. When either side
 * closes (or shuts its input), both are closed and {@code onClose} runs once. A tunnel with no byte
 * either way for {@code dispatch.tunnelIdleTimeout} is closed the same way (its server slot is
 * freed by {@code onClose}). Confined to the data-plane event loop.
 */
final class Tunnel extends ChannelInboundHandlerAdapter {

    private final Channel peer;
    private final Runnable onClose;

    private Tunnel(Channel peer, Runnable onClose) {
        this.peer = peer;
        this.onClose = onClose;
    }

    /**
     * The protocol an HTTP/1.1 request asks to switch to ({@code Upgrade}, with {@code upgrade} among
     * the {@code Connection} tokens), or null. The header is a list ({@link UpgradeHeader}); h2c is the
     * gateway's own (HTTP/2 to the gateway), never passed through.
     */
    static String upgradeOf(HttpRequest req) {
        String upgrade = req.headers().get(HttpHeaderNames.UPGRADE);
        if (upgrade == null || upgrade.isBlank() || !req.protocolVersion().equals(HttpVersion.HTTP_1_1)) {
            return null;
        }
        boolean named = false;
        for (String v : req.headers().getAll(HttpHeaderNames.CONNECTION)) {
            for (String t : v.split(",")) {
                named |= t.trim().equalsIgnoreCase("upgrade");
            }
        }
        // a list: "websocket, h2c" passes websocket only; h2c alone, or anything malformed, is no upgrade
        return named ? UpgradeHeader.passThrough(upgrade) : null;
    }

    /**
     * Adds the two ends: {@code client} reads into {@code server} and back; {@code onClose} runs
     * once; after {@code idleSeconds} with nothing read or written on the client side (so nothing
     * either way), both close.
     */
    static void splice(Channel client, Channel server, double idleSeconds, Runnable onClose) {
        boolean[] once = new boolean[1];
        Runnable closeOnce = () -> {
            if (!once[0]) {
                once[0] = true;
                onClose.run();
            }
        };
        client.pipeline().addLast("tunnel-idle", new IdleStateHandler(0, 0, (long) (idleSeconds * 1e9), TimeUnit.NANOSECONDS));
        client.pipeline().addLast("tunnel", new Tunnel(server, closeOnce));
        server.pipeline().addLast("tunnel", new Tunnel(client, closeOnce));
        client.config().setAutoRead(true);
        server.config().setAutoRead(true);
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (msg instanceof ByteBufHolder h && !(msg instanceof ByteBuf)) {
            // the end of the HTTP message the codec emitted before it left (an empty last content): its bytes, if any
            ByteBuf b = h.content().retain();
            h.release();
            msg = b;
        }
        if (!(msg instanceof ByteBuf) || !peer.isActive()) {
            ReferenceCountUtil.release(msg);
            return;
        }
        peer.writeAndFlush(msg).addListener((ChannelFutureListener) f -> {
            if (!f.isSuccess()) {
                f.channel().close();
                ctx.close();
            }
        });
        if (!peer.isWritable()) {
            ctx.channel().config().setAutoRead(false);
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        peer.config().setAutoRead(ctx.channel().isWritable());
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ChannelInputShutdownEvent || evt instanceof IdleStateEvent) {
            ctx.close(); // one side is done, or both have been silent for tunnelIdleTimeout: the tunnel is
        }
        ReferenceCountUtil.release(evt);
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        peer.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
        onClose.run();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
