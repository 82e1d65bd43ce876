package org.arbiter.gateway.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpDecoderConfig;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.handler.codec.http2.Http2CodecUtil;
import io.netty.handler.codec.http2.Http2FrameCodec;
import io.netty.handler.codec.http2.Http2FrameCodecBuilder;
import io.netty.handler.codec.http2.Http2MultiplexHandler;
import io.netty.handler.codec.http2.Http2ServerUpgradeCodec;
import io.netty.handler.codec.http2.Http2Settings;
import io.netty.handler.codec.http2.Http2StreamChannel;
import io.netty.handler.codec.http2.Http2StreamFrameToHttpObjectCodec;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.ApplicationProtocolNegotiationHandler;
import io.netty.util.AsciiString;
import io.netty.util.AttributeKey;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The client-side pipeline: the PROXY protocol gate (when the listener has one), TLS (SNI, then
 * ALPN: h2 or http/1.1) when the port has {@code tls}, then either HTTP/1.1 — codec (head limits),
 * body aggregation (413), the frontend handler — or HTTP/2: a frame codec and a multiplexer that
 * gives every stream a child channel with the same handlers behind {@link
 * Http2StreamFrameToHttpObjectCodec}, so each stream is one request through the same
 * classification, queues and caps. Without TLS and with {@code http2}, a connection that opens with
 * the HTTP/2 preface (prior knowledge) or asks {@code Upgrade: h2c} becomes HTTP/2. Half-closure is
 * allowed, so a client's FIN after its request does not close the channel.
 *
 * <p>The TLS contexts can be swapped while the port listens ({@link #tls(ServerTls)}): new
 * connections take the new certificates, open ones keep theirs. Thread-safe.
 */
public final class ProxyInitializer extends ChannelInitializer<SocketChannel> {

    private static final Logger LOG = LoggerFactory.getLogger(ProxyInitializer.class);
    /** Set on a client connection that is TLS. */
    static final AttributeKey<Boolean> SECURE = AttributeKey.valueOf("arbiter.secure");
    /** The client a trusted PROXY header named, on the connection (read by its HTTP/2 streams). */
    static final AttributeKey<ProxyProtocolGate.ProxiedClient> PROXIED = AttributeKey.valueOf("arbiter.proxied");
    /** At most this many concurrent streams per HTTP/2 connection (SETTINGS_MAX_CONCURRENT_STREAMS). */
    static final int MAX_CONCURRENT_STREAMS = 256;
    /** The largest body of a request that asks {@code Upgrade: h2c} (buffered by Netty's upgrade handler). */
    static final int MAX_UPGRADE_BODY_BYTES = 64 << 10;

    private final DataPlane plane;
    private final ChannelGroup clients;
    private final boolean proxyProtocol;
    private final boolean http2;
    private volatile ServerTls tls;

    /**
     * @param clients       every client connection (and HTTP/2 stream) is added here (closed with the gateway)
     * @param proxyProtocol a {@link ProxyProtocolGate} reads the PROXY header first ({@code gateways[].proxyProtocol})
     */
    public ProxyInitializer(DataPlane plane, ChannelGroup clients, boolean proxyProtocol) {
        this(plane, clients, proxyProtocol, null, false);
    }

    /**
     * @param tls   TLS termination, or null for plain HTTP
     * @param http2 offer h2 by ALPN (with TLS), h2c by prior knowledge and upgrade (without)
     */
    public ProxyInitializer(DataPlane plane, ChannelGroup clients, boolean proxyProtocol,
                            ServerTls tls, boolean http2) {
        this.plane = plane;
        this.clients = clients;
        this.proxyProtocol = proxyProtocol;
        this.tls = tls;
        this.http2 = http2;
    }

    /** New connections use {@code next} (null: plain HTTP); open ones keep what they have. */
    public void tls(ServerTls next) {
        this.tls = next;
    }

    /** The TLS in use for new connections, or null. */
    public ServerTls tls() {
        return tls;
    }

    @Override
    protected void initChannel(SocketChannel ch) {
        if (!plane.connections().admit(ch)) {
            return; // over gateway.maxConnections: closed before any byte is read
        }
        clients.add(ch);
        // a client that shuts down its write side after its request still gets the response
        ch.config().setOption(ChannelOption.ALLOW_HALF_CLOSURE, true);
        if (proxyProtocol) {
            ch.pipeline().addLast("proxy-protocol", new ProxyProtocolGate(plane));
        }
        ServerTls t = tls;
        if (t != null) {
            ch.attr(SECURE).set(true);
            // the hello and handshake get the idle timeout, at least 10 s (a slow handshake is no idle client)
            long handshakeMillis = Math.max(10_000, (long) (plane.dispatch().idleTimeoutSeconds() * 1000));
            ch.pipeline().addLast("tls", t.newHandler(handshakeMillis));
            ch.pipeline().addLast("alpn", new ApplicationProtocolNegotiationHandler(ApplicationProtocolNames.HTTP_1_1) {
                @Override
                protected void configurePipeline(ChannelHandlerContext ctx, String protocol) {
                    if (ApplicationProtocolNames.HTTP_2.equals(protocol) && t.http2()) {
                        addHttp2(ctx.pipeline());
                    } else {
                        addHttp1(ctx.pipeline());
                        // the frontend handler was added after the connection became active: tell it alone
                        ctx.pipeline().context(RequestAggregator.class).fireChannelActive();
                    }
                }

                @Override
                protected void handshakeFailure(ChannelHandlerContext ctx, Throwable cause) {
                    LOG.debug("TLS handshake with {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
                    ctx.close();
                }
            });
            return;
        }
        if (http2) {
            HttpServerCodec codec = httpCodec();
            // the body of an Upgrade: h2c request is buffered here, outside the body budget: kept small
            HttpServerUpgradeHandler upgrade = new HttpServerUpgradeHandler(codec, protocol ->
                    AsciiString.contentEquals(Http2CodecUtil.HTTP_UPGRADE_PROTOCOL_NAME, protocol)
                            ? upgradeCodec() : null,
                    (int) Math.min(MAX_UPGRADE_BODY_BYTES, plane.dispatch().maxBodyBytes()));
            ch.pipeline().addLast("h2c", new CleartextHttp2ServerUpgradeHandler(codec, upgrade,
                    new ChannelInitializer<Channel>() {
                        @Override
                        protected void initChannel(Channel c) {
                            addHttp2(c.pipeline());
                        }
                    }));
            ch.pipeline().addLast(aggregator(), new FrontendHandler(plane));
            return;
        }
        addHttp1(ch.pipeline());
    }

    /**
     * The HTTP/1.1 codec. Its own pipelining bound (Netty's maxPipelineDepth, 128 by default) would
     * close the connection after the next answer, dropping the answers to the requests held before
     * it; the bound is the {@link FrontendHandler}'s instead (at most {@code MAX_HELD} held, the rest
     * dropped unanswered and the connection closed after the held ones), so the codec's is off.
     */
    private HttpServerCodec httpCodec() {
        return new HttpServerCodec(decoderConfig(), Integer.MAX_VALUE);
    }

    private HttpDecoderConfig decoderConfig() {
        return new HttpDecoderConfig()
                .setMaxInitialLineLength(8192)
                .setMaxHeaderSize((int) Math.min(Integer.MAX_VALUE, plane.dispatch().maxHeaderBytes()))
                .setMaxChunkSize(65536);
    }

    private void addHttp1(ChannelPipeline p) {
        p.addLast(httpCodec(), aggregator(), new FrontendHandler(plane));
    }

    private RequestAggregator aggregator() {
        return new RequestAggregator(plane.dispatch().maxBodyBytes(), plane.bodyBudget());
    }

    /** HTTP/2 by ALPN or prior knowledge: the frame codec, the multiplexer and the connection's idle timer. */
    private void addHttp2(ChannelPipeline p) {
        Http2FrameCodec codec = frameCodec();
        p.addLast(codec, multiplexer(), new Http2Lifetime(codec, plane.dispatch().idleTimeoutSeconds()));
    }

    private Http2ServerUpgradeCodec upgradeCodec() {
        Http2FrameCodec codec = frameCodec();
        return new Http2ServerUpgradeCodec(codec, multiplexer(),
                new Http2Lifetime(codec, plane.dispatch().idleTimeoutSeconds()));
    }

    private Http2FrameCodec frameCodec() {
        Http2Settings settings = Http2Settings.defaultSettings()
                .maxConcurrentStreams(MAX_CONCURRENT_STREAMS)
                .maxHeaderListSize(Math.min(0xFFFFFFFFL, Math.max(1024, plane.dispatch().maxHeaderBytes())));
        return Http2FrameCodecBuilder.forServer().initialSettings(settings).validateHeaders(true).build();
    }

    private Http2MultiplexHandler multiplexer() {
        return new Http2MultiplexHandler(new ChannelInitializer<Http2StreamChannel>() {
            @Override
            protected void initChannel(Http2StreamChannel stream) {
                clients.add(stream);
                stream.pipeline().addLast(new Http2StreamFrameToHttpObjectCodec(true),
                        aggregator(), new FrontendHandler(plane));
            }
        });
    }
}
