package org.arbiter.console.netty;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;
import static io.netty.handler.codec.http.HttpResponseStatus.SERVICE_UNAVAILABLE;
import static org.arbiter.console.netty.Replies.clip;
import static org.arbiter.console.netty.Replies.securityHeaders;
import static org.arbiter.console.netty.Replies.send;

import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The read endpoints, all behind a viewer's credentials (or public under {@code publicRead}):
 * {@code /api/cluster}, {@code allocation}, {@code config}, {@code overrides} (GET), {@code stats?since=ISO},
 * {@code decisions?limit=N}, {@code events} (SSE; 503 + Retry-After over the cap) and {@code /metrics}.
 * Each answers from {@link org.arbiter.console.ConsoleState} at the clock's instant; the caller has
 * checked the method and the credentials.
 *
 * <p>Stateless; called on a connection's event loop.
 */
final class ReadEndpoints {

    static final int EVENTS_RETRY_AFTER_SECONDS = 10;
    private static final int MAX_DECISIONS = 1_000;

    private final ConsoleHttpHandler.Shared s;
    private final Replies replies;

    ReadEndpoints(ConsoleHttpHandler.Shared shared, Replies replies) {
        this.s = shared;
        this.replies = replies;
    }

    void cluster(ChannelHandlerContext ctx, FullHttpRequest req) {
        replies.json(ctx, req, OK, s.state().cluster(s.clock().instant()));
    }

    void allocation(ChannelHandlerContext ctx, FullHttpRequest req) {
        replies.json(ctx, req, OK, s.state().allocations());
    }

    void config(ChannelHandlerContext ctx, FullHttpRequest req) {
        replies.json(ctx, req, OK, s.config());
    }

    void overrides(ChannelHandlerContext ctx, FullHttpRequest req) {
        replies.json(ctx, req, OK, Map.of("overrides", new TreeMap<>(s.state().overrides()).values(),
                "status", s.state().pinStatuses()));
    }

    void metrics(ChannelHandlerContext ctx, FullHttpRequest req) {
        FullHttpResponse r = Replies.response(OK, s.metrics().get().getBytes(StandardCharsets.UTF_8),
                "text/plain; version=0.0.4; charset=utf-8");
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        send(ctx, req, r);
    }

    void stats(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder q) {
        Instant since = null;
        List<String> p = q.parameters().get("since");
        if (p != null && !p.isEmpty() && !p.get(0).isEmpty()) {
            try {
                since = Instant.parse(p.get(0));
            } catch (DateTimeParseException e) {
                replies.sendError(ctx, req, BAD_REQUEST, "since: " + clip(p.get(0))
                        + " (expected: an ISO-8601 instant such as 2026-01-01T00:00:00Z)", "since", "an ISO-8601 instant");
                return;
            }
        }
        replies.json(ctx, req, OK, Map.of("stats", s.state().stats(since)));
    }

    void decisions(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder q) {
        int limit = 50;
        List<String> p = q.parameters().get("limit");
        if (p != null && !p.isEmpty()) {
            try {
                limit = Integer.parseInt(p.get(0));
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_DECISIONS) {
                replies.sendError(ctx, req, BAD_REQUEST, "limit: " + clip(p.get(0))
                        + " (expected: a whole number from 1 to " + MAX_DECISIONS + ")", "limit",
                        "a whole number from 1 to " + MAX_DECISIONS);
                return;
            }
        }
        replies.json(ctx, req, OK, Map.of("decisions", s.state().decisions(limit)));
    }

    void events(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (!s.events().reserve(ctx.channel())) {
            // Over the cap: a 503 (EventSource does not retry it by itself; the page backs off), not a 200 that closes.
            FullHttpResponse r = replies.errorResponse(SERVICE_UNAVAILABLE, "event streams: " + s.events().maxClients()
                    + " open (expected: retry after " + EVENTS_RETRY_AFTER_SECONDS + " s)", null, null);
            r.headers().set(HttpHeaderNames.RETRY_AFTER, Integer.toString(EVENTS_RETRY_AFTER_SECONDS));
            send(ctx, req, r);
            return;
        }
        HttpResponse head = new DefaultHttpResponse(HttpVersion.HTTP_1_1, OK);
        head.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/event-stream; charset=utf-8");
        head.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        head.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
        head.headers().set("X-Accel-Buffering", "no");
        securityHeaders(head.headers());
        ctx.channel().attr(ConsoleHttpHandler.STREAMING).set(true);
        ctx.write(head);
        ctx.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer("retry: 2000\n: connected\n\n", StandardCharsets.US_ASCII)));
    }
}
