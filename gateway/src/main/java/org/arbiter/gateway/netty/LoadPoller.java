package org.arbiter.gateway.netty;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.bootstrap.Bootstrap;
import io.netty.buffer.ByteBufInputStream;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
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
import java.io.IOException;
import java.net.URI;
import java.util.concurrent.TimeUnit;
import java.util.function.BiConsumer;

/**
 * Load polls for random-poll (002 §3, {@code servers[].loadUrl}, {@code dispatch.poll}): {@code GET loadUrl}
 * on a connection of its own, closed after the answer; an answer {@code {"active": n, "queued": m}} within
 * the deadline is reported with {@code answered}, anything else (late, refused, not 2xx, not that JSON)
 * with {@code missed} — at the deadline at the latest, never both, and a late answer is discarded. Never
 * blocks: connect, write and read are the loop's, the deadline is a loop timer. Confined to the data-plane
 * event loop.
 */
final class LoadPoller {

    private static final ObjectMapper JSON = new ObjectMapper();

    /** Told of each poll's outcome, on the loop. */
    interface Outcome {
        void answered(int server, int active, int queued);

        void missed(int server);
    }

    private final EventLoop loop;
    private final long deadlineNanos;
    private final Outcome outcome;

    private final Class<? extends SocketChannel> channelClass;

    LoadPoller(EventLoop loop, Class<? extends SocketChannel> channelClass, double deadlineSeconds, Outcome outcome) {
        this.loop = loop;
        this.channelClass = channelClass;
        this.deadlineNanos = Math.max(1_000_000L, (long) (deadlineSeconds * 1e9));
        this.outcome = outcome;
    }

    /** Polls {@code server} at {@code url}. */
    void poll(int server, URI url) {
        boolean[] done = new boolean[1];
        ScheduledFuture<?>[] timer = new ScheduledFuture<?>[1];
        // answered: active, queued; missed: null
        BiConsumer<Channel, int[]> finish = (ch, load) -> {
            if (done[0]) {
                return;
            }
            done[0] = true;
            if (timer[0] != null) {
                timer[0].cancel(false);
            }
            if (ch != null) {
                ch.close();
            }
            try {
                if (load == null) {
                    outcome.missed(server);
                } else {
                    outcome.answered(server, load[0], load[1]);
                }
            } catch (RuntimeException e) {
                // an outcome that throws must not break the loop
            }
        };
        int port = url.getPort() > 0 ? url.getPort() : 80;
        Bootstrap b = new Bootstrap().group(loop).channel(channelClass)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, deadlineNanos / 1_000_000))
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpClientCodec(), new HttpObjectAggregator(16 << 10),
                                new SimpleChannelInboundHandler<FullHttpResponse>() {
                                    @Override
                                    protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse r) {
                                        finish.accept(ctx.channel(), parse(r));
                                    }

                                    @Override
                                    public void channelInactive(ChannelHandlerContext ctx) {
                                        finish.accept(null, null);
                                    }

                                    @Override
                                    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
                                        finish.accept(ctx.channel(), null);
                                    }
                                });
                    }
                });
        ChannelFuture f = b.connect(url.getHost(), port);
        timer[0] = loop.schedule(() -> finish.accept(f.channel(), null), deadlineNanos, TimeUnit.NANOSECONDS);
        f.addListener(x -> {
            if (!x.isSuccess()) {
                finish.accept(f.channel(), null);
                return;
            }
            String path = url.getRawPath() == null || url.getRawPath().isEmpty() ? "/" : url.getRawPath();
            if (url.getRawQuery() != null) {
                path += "?" + url.getRawQuery();
            }
            FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.GET, path);
            req.headers().set(HttpHeaderNames.HOST, url.getHost() + ":" + port);
            req.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            req.headers().set(HttpHeaderNames.USER_AGENT, "arbiter-gateway-poll");
            f.channel().writeAndFlush(req);
        });
    }

    /** {active, queued} from a 2xx JSON answer, or null. */
    static int[] parse(FullHttpResponse r) {
        int code = r.status().code();
        if (r.decoderResult().isFailure() || code < 200 || code >= 300) {
            return null;
        }
        try {
            JsonNode n = JSON.readTree(new ByteBufInputStream(r.content().duplicate()));
            JsonNode a = n.get("active");
            JsonNode q = n.get("queued");
            if (a == null || !a.canConvertToInt() || a.asInt() < 0 || q != null && (!q.canConvertToInt() || q.asInt() < 0)) {
                return null;
            }
            return new int[] {a.asInt(), q == null ? 0 : q.asInt()};
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }
}
