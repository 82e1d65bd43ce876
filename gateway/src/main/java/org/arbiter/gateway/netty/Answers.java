package org.arbiter.gateway.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import java.nio.charset.StandardCharsets;

/** The responses the gateway gives itself: small JSON bodies naming what happened. Stateless. */
final class Answers {

    static final String CLASS_HEADER = "X-Arbiter-Class";

    private Answers() {
    }

    /** 503 for queueFull / queueTimeout, with Retry-After. */
    static FullHttpResponse unavailable(String className, String reason, int retryAfterSeconds) {
        FullHttpResponse r = json(HttpResponseStatus.SERVICE_UNAVAILABLE,
                "{\"status\":503,\"class\":\"" + className + "\",\"reason\":\"" + reason + "\"}");
        r.headers().set(HttpHeaderNames.RETRY_AFTER, Integer.toString(retryAfterSeconds));
        return r;
    }

    /** 502 / 504 after a backend failure. */
    static FullHttpResponse backend(HttpResponseStatus status, String className, String reason) {
        return json(status, "{\"status\":" + status.code() + ",\"class\":\"" + className + "\",\"reason\":\"" + reason + "\"}");
    }

    /** 400 / 413 / 431 for requests the gateway cannot read. */
    static FullHttpResponse badRequest(HttpResponseStatus status, String reason) {
        FullHttpResponse r = json(status, "{\"status\":" + status.code() + ",\"reason\":\"" + reason + "\"}");
        r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        return r;
    }

    static FullHttpResponse json(HttpResponseStatus status, String body) {
        ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, content);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON);
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
        return r;
    }
}
