package org.arbiter.gateway.netty;

import io.netty.channel.ChannelInitializer;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;

/**
 * The client-side pipeline: the PROXY protocol gate (when the listener has one), HTTP/1.1 codec (head limits), body aggregation (413), the frontend
 * handler. Half-closure is allowed, so a client's FIN after its request does not close the channel.
 */
public final class ProxyInitializer extends ChannelInitializer<SocketChannel> {

    private final DataPlane plane;
    private final io.netty.channel.group.ChannelGroup clients;
    private final boolean proxyProtocol;

    /**
     * @param clients       every client connection is added here (closed with the gateway)
     * @param proxyProtocol a {@link ProxyProtocolGate} reads the PROXY header first ({@code gateways[].proxyProtocol})
     */
    public ProxyInitializer(DataPlane plane, io.netty.channel.group.ChannelGroup clients, boolean proxyProtocol) {
        this.plane = plane;
        this.clients = clients;
        this.proxyProtocol = proxyProtocol;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        clients.add(ch);
        // a client that shuts down its write side after its request still gets the response
        ch.config().setOption(io.netty.channel.ChannelOption.ALLOW_HALF_CLOSURE, true);
        var d = plane.dispatch();
        HttpDecoderConfig decoder = new HttpDecoderConfig()
                .setMaxInitialLineLength(8192)
                .setMaxHeaderSize((int) Math.min(Integer.MAX_VALUE, d.maxHeaderBytes()))
                .setMaxChunkSize(65536);
        if (proxyProtocol) {
            ch.pipeline().addLast("proxy-protocol", new ProxyProtocolGate(plane));
        }
        ch.pipeline().addLast(new HttpServerCodec(decoder), new RequestAggregator(d.maxBodyBytes()),
                new FrontendHandler(plane));
    }
}
