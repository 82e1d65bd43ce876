package org.arbiter.gateway.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.Future;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.MessageCodec;

/**
 * The admin port: {@code GET /health}, {@code /ready}, {@code /allocation}, {@code /stats},
 * {@code /metrics} (Prometheus text). One instance per connection.
 */
public final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    /** What the admin API shows. Implementations are thread-safe. */
    public interface Api {
        boolean ready();

        Allocation allocation();

        Future<GatewayStats> stats();

        String prometheus();

        /** Allocations refused so far, by reason tag. */
        default Map<String, Long> refused() {
            return Map.of();
        }
    }

    private final Api api;

    public AdminHandler(Api api) {
        this.api = api;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) throws Exception {
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        String path = req.uri().split("\\?", 2)[0];
        if (!req.method().equals(HttpMethod.GET) && !req.method().equals(HttpMethod.HEAD)) {
            send(ctx, keepAlive, HttpResponseStatus.METHOD_NOT_ALLOWED, "application/json", "{\"error\":\"GET only\"}");
            return;
        }
        switch (path) {
            case "/health" -> send(ctx, keepAlive, HttpResponseStatus.OK, "application/json", "{\"status\":\"up\"}");
            case "/ready" -> {
                boolean ready = api.ready();
                send(ctx, keepAlive, ready ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                        "application/json", "{\"ready\":" + ready + "}");
            }
            case "/allocation" -> {
                Allocation a = api.allocation();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("epoch", a.epoch());
                m.put("version", a.version());
                m.put("at", a.at().toString());
                m.put("source", a.source());
                m.put("weights", a.weights());
                m.put("serverCaps", a.serverCaps());
                m.put("refused", api.refused());
                send(ctx, keepAlive, HttpResponseStatus.OK, "application/json",
                        MessageCodec.mapper().writeValueAsString(m));
            }
            case "/stats" -> api.stats().addListener(f -> {
                if (f.isSuccess()) {
                    send(ctx, keepAlive, HttpResponseStatus.OK, "application/json",
                            MessageCodec.encodeToString((GatewayStats) f.getNow()));
                } else {
                    send(ctx, keepAlive, HttpResponseStatus.SERVICE_UNAVAILABLE, "application/json",
                            "{\"error\":\"stats unavailable\"}");
                }
            });
            case "/metrics" -> send(ctx, keepAlive, HttpResponseStatus.OK, "text/plain; version=0.0.4; charset=utf-8",
                    api.prometheus());
            default -> send(ctx, keepAlive, HttpResponseStatus.NOT_FOUND, "application/json",
                    "{\"error\":\"not found\",\"paths\":[\"/health\",\"/ready\",\"/allocation\",\"/stats\",\"/metrics\"]}");
        }
    }

    private static void send(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String type,
                             String body) {
        ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, type);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        HttpUtil.setKeepAlive(r, keepAlive);
        var f = ctx.writeAndFlush(r);
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        ctx.close();
    }
}
