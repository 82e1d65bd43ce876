package org.arbiter.gateway.netty;

import static java.util.Objects.requireNonNull;

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
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.concurrent.ScheduledFuture;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.TimeUnit;
import java.util.LinkedHashMap;
import java.util.Map;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.gateway.Lifecycle;

/**
 * The admin port: {@code GET /health}, {@code /ready}, {@code /allocation}, {@code /stats},
 * {@code /metrics} (Prometheus text), and {@code POST /drain}. One instance per connection, on
 * the admin event loop. A connection that does not deliver a complete request within the request
 * timeout (idle, or trickling a request) is closed, as on the data port; a request the decoder
 * cannot read (head over the limit, malformed) gets 431 / 400 and the connection is closed.
 */
public final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    /** What the admin API shows and does. Implementations are thread-safe. */
    public interface Api {
        /** Liveness is the port answering; readiness is this. */
        Lifecycle.Readiness readiness();

        /** Starts a graceful drain; true if this call started it, false if one was under way. */
        boolean drain();

        Allocation allocation();

        Future<GatewayStats> stats();

        String prometheus();

        /** Allocations refused so far, by reason tag. */
        default Map<String, Long> refused() {
            return Map.of();
        }

        /** The configuration version in force. */
        default DataPlane.ConfigVersion configVersion() {
            return new DataPlane.ConfigVersion(0, "", Instant.EPOCH);
        }

        /** Reloads the configuration file; fails with the file's errors, or when there is no file. */
        default CompletableFuture<ReloadReport> reload() {
            return CompletableFuture.failedFuture(new IllegalStateException("reload not supported"));
        }
    }

    private final Api api;
    private final long requestTimeoutNanos;
    private ChannelHandlerContext ctx;
    private ScheduledFuture<?> deadline;
    private boolean busy;

    /**
     * @param requestTimeoutNanos a connection that has not delivered a complete request this long
     *                            after opening or after its last response is closed
     */
    public AdminHandler(Api api, long requestTimeoutNanos) {
        this.api = requireNonNull(api, "api");
        if (requestTimeoutNanos <= 0) {
            throw new IllegalArgumentException("requestTimeoutNanos: " + requestTimeoutNanos + " (expected: > 0)");
        }
        this.requestTimeoutNanos = requestTimeoutNanos;
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        armDeadline();
        ctx.fireChannelActive();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        cancelDeadline();
        ctx.fireChannelInactive();
    }

    private void armDeadline() {
        cancelDeadline();
        deadline = ctx.executor().schedule(() -> {
            deadline = null;
            if (!busy) {
                ctx.close();
            }
        }, requestTimeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) throws Exception {
        cancelDeadline();
        busy = true;
        if (req.decoderResult().isFailure()) {
            Throwable cause = req.decoderResult().cause();
            boolean tooLarge = cause instanceof TooLongHttpHeaderException || cause instanceof TooLongHttpLineException;
            send(ctx, false, tooLarge ? HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE : HttpResponseStatus.BAD_REQUEST,
                    "application/json", "{\"error\":\"" + (tooLarge ? "headerTooLarge" : "malformedRequest") + "\"}");
            return;
        }
        boolean keepAlive = HttpUtil.isKeepAlive(req);
        String path = req.uri().split("\\?", 2)[0];
        if (req.method().equals(HttpMethod.POST) && path.equals("/drain")) {
            boolean started = api.drain();
            send(ctx, keepAlive, HttpResponseStatus.ACCEPTED, "application/json",
                    "{\"draining\":true,\"started\":" + started + "}");
            return;
        }
        if (req.method().equals(HttpMethod.POST) && path.equals("/reload")) {
            api.reload().whenComplete((r, e) -> ctx.executor().execute(() -> {
                Map<String, Object> m = new LinkedHashMap<>();
                try {
                    if (e != null) {
                        Throwable cause = e instanceof CompletionException && e.getCause() != null
                                ? e.getCause() : e;
                        m.put("reloaded", false);
                        m.put("errors", cause instanceof ConfigException ce ? ce.errors()
                                : List.of(String.valueOf(cause.getMessage())));
                        send(ctx, keepAlive, HttpResponseStatus.UNPROCESSABLE_ENTITY, "application/json",
                                MessageCodec.mapper().writeValueAsString(m));
                        return;
                    }
                    m.put("reloaded", true);
                    m.put("version", r.version());
                    m.put("hash", r.hash());
                    m.put("applied", r.applied());
                    m.put("notApplied", r.notApplied());
                    send(ctx, keepAlive, HttpResponseStatus.OK, "application/json",
                            MessageCodec.mapper().writeValueAsString(m));
                } catch (Exception x) {
                    send(ctx, false, HttpResponseStatus.INTERNAL_SERVER_ERROR, "application/json", "{\"error\":\"reload\"}");
                }
            }));
            return;
        }
        if (!req.method().equals(HttpMethod.GET) && !req.method().equals(HttpMethod.HEAD)) {
            send(ctx, keepAlive, HttpResponseStatus.METHOD_NOT_ALLOWED, "application/json",
                    "{\"error\":\"GET only (POST /drain, POST /reload)\"}");
            return;
        }
        switch (path) {
            case "/health" -> send(ctx, keepAlive, HttpResponseStatus.OK, "application/json", "{\"status\":\"up\"}");
            case "/ready" -> {
                Lifecycle.Readiness r = api.readiness();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("ready", r.ready());
                r.reason().ifPresent(reason -> m.put("reason", reason.wireName()));
                m.put("detail", r.detail());
                send(ctx, keepAlive, r.ready() ? HttpResponseStatus.OK : HttpResponseStatus.SERVICE_UNAVAILABLE,
                        "application/json", MessageCodec.mapper().writeValueAsString(m));
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
                DataPlane.ConfigVersion v = api.configVersion();
                m.put("config", Map.of("version", v.counter(), "hash", v.hash(), "at", v.at().toString()));
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
                    "{\"error\":\"not found\",\"paths\":[\"/health\",\"/ready\",\"/allocation\",\"/stats\",\"/metrics\",\"POST /drain\",\"POST /reload\"]}");
        }
    }

    private void send(ChannelHandlerContext ctx, boolean keepAlive, HttpResponseStatus status, String type,
                      String body) {
        busy = false;
        if (keepAlive && ctx.channel().isActive()) {
            armDeadline();
        }
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
