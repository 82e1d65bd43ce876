package org.arbiter.console.netty;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.io.InputStream;
import java.util.LinkedHashMap;
import java.util.Locale;
import java.util.Map;

/**
 * The console's HTTP wire form: JSON bodies in and out, the error shape {@code {"status", "error"}}
 * (plus {@code field} and {@code rule} on a 400), the security headers every response carries, and
 * keep-alive on send (a HEAD gets the headers only).
 *
 * <p>Stateless apart from the mapper; called on a connection's event loop.
 */
final class Replies {

    private final ObjectMapper mapper;

    Replies(ObjectMapper mapper) {
        this.mapper = mapper;
    }

    void json(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, Object body) {
        send(ctx, req, jsonResponse(status, body));
    }

    FullHttpResponse jsonResponse(HttpResponseStatus status, Object body) {
        byte[] bytes;
        try {
            bytes = mapper.writeValueAsBytes(body);
        } catch (IOException e) {
            throw new IllegalStateException("cannot serialise a response", e);
        }
        FullHttpResponse r = response(status, bytes, "application/json");
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        return r;
    }

    FullHttpResponse errorResponse(HttpResponseStatus status, String error, String field, String rule) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status.code());
        body.put("error", error);
        if (field != null) {
            body.put("field", field);
            body.put("rule", rule);
        }
        return jsonResponse(status, body);
    }

    void sendError(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, String error,
                   String field, String rule) {
        send(ctx, req, errorResponse(status, error, field, rule));
    }

    void sendError(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, String error,
                   boolean close) {
        FullHttpResponse r = errorResponse(status, error, null, null);
        if (close) {
            HttpUtil.setKeepAlive(r, false);
        }
        send(ctx, req, r);
    }

    /** The request's body as a JSON object, or null after answering 415 (not JSON) or 400 (not an object). */
    JsonNode jsonBody(ChannelHandlerContext ctx, FullHttpRequest req) {
        String type = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
        if (type == null || !type.toLowerCase(Locale.ROOT).startsWith("application/json")) {
            sendError(ctx, req, UNSUPPORTED_MEDIA_TYPE, "Content-Type: " + clip(String.valueOf(type))
                    + " (expected: application/json)", false);
            return null;
        }
        try (ByteBufInputStream in = new ByteBufInputStream(req.content().duplicate())) {
            JsonNode n = mapper.readTree((InputStream) in);
            if (n != null && n.isObject()) {
                return n;
            }
            sendError(ctx, req, BAD_REQUEST, "body: " + (n == null || n.isMissingNode() ? "empty" : n.getNodeType().toString()
                    .toLowerCase(Locale.ROOT)) + " (expected: a JSON object)", "body", "a JSON object");
        } catch (IOException | RuntimeException e) {
            sendError(ctx, req, BAD_REQUEST, "body: not JSON (expected: a JSON object)", "body", "a JSON object");
        }
        return null;
    }

    static FullHttpResponse response(HttpResponseStatus status, byte[] body, String contentType) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        if (contentType != null) {
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        HttpUtil.setContentLength(r, body.length);
        securityHeaders(r.headers());
        return r;
    }

    static void securityHeaders(HttpHeaders h) {
        h.set("X-Content-Type-Options", "nosniff");
        h.set("X-Frame-Options", "DENY");
        h.set("Referrer-Policy", "no-referrer");
    }

    static void send(ChannelHandlerContext ctx, FullHttpRequest req, FullHttpResponse r) {
        boolean keepAlive = HttpUtil.isKeepAlive(req) && HttpUtil.isKeepAlive(r);
        if (req.method().equals(HttpMethod.HEAD)) {
            r.content().clear();
        }
        HttpUtil.setKeepAlive(r, keepAlive);
        var f = ctx.writeAndFlush(r);
        if (!keepAlive) {
            f.addListener(ChannelFutureListener.CLOSE);
        }
    }

    /** A client-sent value cut to 80 characters for an error message. */
    static String clip(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
    }
}
