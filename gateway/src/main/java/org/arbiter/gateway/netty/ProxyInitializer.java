package org.arbiter.gateway.netty;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;

/** The client-side pipeline: HTTP/1.1 codec (head limits), body aggregation (413), the frontend handler. */
public final class ProxyInitializer extends ChannelInitializer<SocketChannel> {

    private final DataPlane plane;

    public ProxyInitializer(DataPlane plane) {
        this.plane = plane;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        var d = plane.dispatch();
        HttpDecoderConfig decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(8192)
                .setMaxHeaderSize((int) Math.min(Integer.MAX_VALUE, d.maxHeaderBytes()))
                .setMaxChunkSize(65536);
        ch.pipeline().addLast(new HttpServerCodec(decoder), new RequestAggregator(d.maxBodyBytes()),
                new FrontendHandler(plane));
    }
}
