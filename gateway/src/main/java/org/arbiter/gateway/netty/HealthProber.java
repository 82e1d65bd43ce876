package org.arbiter.gateway.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufAllocator;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandler;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.URI;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.gateway.GatewayCore;

/**
 * Active health checks ({@code servers[].health}): every interval, {@code GET path} to the server
 * on a connection of its own (outside the N(g,s) pool, closed after the answer). A 2xx or 3xx
 * within the timeout passes; anything else (refused, reset, timeout, 4xx, 5xx) fails. The verdict
 * goes to the core through {@code verdict} on the loop. Confined to the data-plane event loop;
 * {@link #close} may be called from any thread.
 */
final class HealthProber {

    /** Told of each probe's verdict, on the loop. */
    interface Verdict {
        void probed(int server, boolean ok);
    }

    private final List<ScheduledFuture<?>> timers = new ArrayList<>();

    /** Makes the TLS handler of a probe to an https:// server (allocator, host, port). */
    interface TlsHandlers {
        ChannelHandler newHandler(ByteBufAllocator alloc, String host, int port);
    }

    /**
     * @param tls null when no server is https://
     */
    HealthProber(EventLoop loop, Class<? extends SocketChannel> channelClass, ClusterConfig cluster, GatewayCore<?> core,
                 TlsHandlers tls, Verdict verdict) {
        for (int s = 0; s < core.serverCount(); s++) {
            Optional<ServerConfig> found = cluster.server(core.serverId(s));
            if (found.isEmpty()) {
                continue; // removed by a reload
            }
            ServerConfig sc = found.get();
            ServerConfig.HealthCheck h = sc.health();
            if (!h.enabled()) {
                continue;
            }
            final int server = s;
            long intervalNanos = (long) (h.intervalSeconds() * 1e9);
            timers.add(loop.scheduleAtFixedRate(() -> probe(loop, channelClass, server, sc.url(), h, tls, verdict), intervalNanos,
                    intervalNanos, TimeUnit.NANOSECONDS));
        }
    }

    private static void probe(EventLoop loop, Class<? extends SocketChannel> channelClass, int server, URI url, ServerConfig.HealthCheck h, TlsHandlers tls,
                              Verdict verdict) {
        boolean https = "https".equals(url.getScheme());
        int port = url.getPort() > 0 ? url.getPort() : https ? 443 : 80;
        boolean[] done = new boolean[1];
        Runnable[] cancelTimer = new Runnable[1];
        BiConsumer<Channel, Boolean> finish = (ch, ok) -> {
            if (done[0]) {
                return;
            }
            done[0] = true;
            if (cancelTimer[0] != null) {
                cancelTimer[0].run();
            }
            if (ch != null) {
                ch.close();
            }
            try {
                verdict.probed(server, ok);
            } catch (RuntimeException e) {
                // a verdict that throws must not stop the probes
            }
        };
        int timeoutMillis = (int) Math.max(1, h.timeoutSeconds() * 1000);
        Bootstrap b = new Bootstrap().group(loop).channel(channelClass)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, timeoutMillis)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (https && tls != null) {
                            ch.pipeline().addLast(tls.newHandler(ch.alloc(), url.getHost(), port));
                        }
                        ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(64 << 10),
                                new SimpleChannelInboundHandler<FullHttpResponse>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse r) {
                                        int code = r.status().code();
                                        finish.accept(ctx.channel(), !r.decoderResult().isFailure()
                                                && code >= 200 && code < 400);
                                    }

                                    @Override
                                    public void channelInactive(ChannelHandlerContext ctx) {
                                        finish.accept(null, false);
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        finish.accept(ctx.channel(), false);
                                    }
                                });
                    }
                });
        ChannelFuture f = b.connect(url.getHost(), port);
        ScheduledFuture<?> timer = loop.schedule(() -> finish.accept(f.channel(), false), timeoutMillis,
                TimeUnit.MILLISECONDS);
        cancelTimer[0] = () -> timer.cancel(false);
        f.addListener(x -> {
            if (!x.isSuccess()) {
                finish.accept(f.channel(), false);
                return;
            }
            FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, h.path());
            req.headers().set(HttpHeaderNames.HOST, url.getHost() + ":" + port);
            req.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            req.headers().set(HttpHeaderNames.USER_AGENT, "arbiter-gateway-health");
            f.channel().writeAndFlush(req);
        });
    }

    /** Stops the probes (thread-safe). */
    void close() {
        for (ScheduledFuture<?> t : timers) {
            t.cancel(false);
        }
    }
}
