package org.arbiter.gateway.netty;

import io.netty.buffer.ByteBuf;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.ByteToMessageDecoder;
import io.netty.handler.codec.ProtocolDetectionResult;
import io.netty.handler.codec.haproxy.HAProxyCommand;
import io.netty.handler.codec.haproxy.HAProxyMessage;
import io.netty.handler.codec.haproxy.HAProxyMessageDecoder;
import io.netty.handler.codec.haproxy.HAProxyProtocolException;
import io.netty.handler.codec.haproxy.HAProxyProtocolVersion;
import io.netty.util.NetUtil;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.List;
import org.arbiter.common.config.GatewayHttpConfig;

/*
 * The PROXY protocol gate of a listener with gateways[].proxyProtocol: true.
 *
 * Model:   an L4 switch (HAProxy send-proxy / send-proxy-v2, IPVS with a PROXY-speaking
 *          balancer, a cloud network load balancer) opens each connection with a PROXY header,
 *          v1 (text, "PROXY TCP4 src dst sport dport\r\n") or v2 (binary, 12-byte signature),
 *          that carries the client's address. The header is believed only from a peer in
 *          gateway.trustedProxies; anyone else could claim any address with it.
 * Policy:  the first 12 bytes decide (HAProxyMessageDecoder.detectProtocol):
 *            trusted peer,   header     -> Netty's HAProxyMessageDecoder reads it; the client is
 *                                          its source address (a LOCAL command, the switch's own
 *                                          connection, or an UNKNOWN/unix family keeps the peer)
 *            trusted peer,   no header  -> refused: closed, reason "missing"
 *            other peer,     header     -> refused: closed, reason "untrusted"
 *            other peer,     no header  -> served as a direct client (its own address)
 *            a header that does not parse -> closed, reason "malformed"
 *          A refusal is counted (arbiter.gateway.proxy.refused{reason}) and logged by the plane
 *          (at most one line per reason per minute, with the count since the last line); no
 *          HTTP answer is written, since the peer did not speak the protocol we expect.
 * Output:  a ProxiedClient user event, before any request of the connection, that the
 *          FrontendHandler takes as the client's address (X-Forwarded-For, the access log's
 *          client, match.source) and whose trust decides whether X-Forwarded-* are kept.
 * Threads: one gate per channel, on the channel's event loop.
 */

/** Reads or refuses the PROXY protocol header of a connection; see the design note in the source. */
final class ProxyProtocolGate extends ByteToMessageDecoder {

    /** The client's address as a trusted PROXY header gave it (fired as a user event). */
    record ProxiedClient(InetAddress address, int port) {
    }

    private final DataPlane plane;
    private final GatewayHttpConfig http;

    ProxyProtocolGate(DataPlane plane) {
        this.plane = plane;
        this.http = plane.http();
    }

    @Override
    protected void decode(ChannelHandlerContext ctx, ByteBuf in, List<Object> out) {
        if (!ctx.channel().isActive()) {
            in.skipBytes(in.readableBytes());
            return;
        }
        ProtocolDetectionResult<HAProxyProtocolVersion> r = HAProxyMessageDecoder.detectProtocol(in);
        InetAddress peer = ctx.channel().remoteAddress() instanceof InetSocketAddress a ? a.getAddress() : null;
        boolean trusted = http.trusted(peer);
        switch (r.state()) {
            case NEEDS_MORE_DATA -> {
            }
            case DETECTED -> {
                if (!trusted) {
                    refuse(ctx, in, ProxyRefusal.UNTRUSTED, "a PROXY " + r.detectedProtocol()
                            + " header from a peer outside gateway.trustedProxies");
                    return;
                }
                ctx.pipeline().addAfter(ctx.name(), "proxy-protocol-reader", new Reader(plane));
                // the bytes held here go on to the decoder that takes this handler's place
                ctx.pipeline().replace(this, "proxy-protocol-decoder", new HAProxyMessageDecoder());
            }
            case INVALID -> {
                if (trusted) {
                    refuse(ctx, in, ProxyRefusal.MISSING, "no PROXY header from a trusted peer");
                    return;
                }
                ctx.pipeline().remove(this); // a direct client: the bytes go on to the HTTP codec
            }
        }
    }

    private void refuse(ChannelHandlerContext ctx, ByteBuf in, ProxyRefusal reason, String detail) {
        in.skipBytes(in.readableBytes());
        plane.proxyRefused(reason, ctx.channel().remoteAddress(), detail);
        ctx.close();
    }

    /** Takes the decoded {@link HAProxyMessage}, fires {@link ProxiedClient} and leaves the pipeline. */
    static final class Reader extends ChannelInboundHandlerAdapter {

        private final DataPlane plane;
        /** The decoder failed once already (it fails again on what is left when the channel closes). */
        private boolean failed;

        Reader(DataPlane plane) {
            this.plane = plane;
        }

        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            if (!(msg instanceof HAProxyMessage m)) {
                ctx.fireChannelRead(msg);
                return;
            }
            try {
                InetAddress source = null;
                if (m.command() == HAProxyCommand.PROXY && m.sourceAddress() != null) {
                    switch (m.proxiedProtocol().addressFamily()) {
                        case AF_IPv4, AF_IPv6 -> source = NetUtil.createInetAddressFromIpAddressString(m.sourceAddress());
                        default -> {
                        }
                    }
                }
                if (source != null) {
                    ProxiedClient client = new ProxiedClient(source, m.sourcePort());
                    ctx.channel().attr(ProxyInitializer.PROXIED).set(client); // for HTTP/2 streams, which open later
                    ctx.fireUserEventTriggered(client);
                }
            } finally {
                ReferenceCountUtil.release(m);
                ctx.pipeline().remove(this);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            if (cause instanceof HAProxyProtocolException) {
                if (failed) {
                    return;
                }
                failed = true;
                plane.proxyRefused(ProxyRefusal.MALFORMED, ctx.channel().remoteAddress(), cause.getMessage());
                ctx.close();
                return;
            }
            ctx.fireExceptionCaught(cause);
        }
    }
}
