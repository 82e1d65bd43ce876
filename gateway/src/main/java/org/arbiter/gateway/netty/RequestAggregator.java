package org.arbiter.gateway.netty;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;

/**
 * Buffers a request body up to maxBodyBytes while the request is queued; a larger body gets the
 * gateway's 413. When the declared Content-Length is too large and the client keeps the
 * connection, the body is read and discarded and the connection stays usable; when the excess is
 * found mid-body, the connection is closed after the 413.
 */
final class RequestAggregator extends HttpObjectAggregator {

    RequestAggregator(long maxBodyBytes) {
        super((int) Math.min(Integer.MAX_VALUE, maxBodyBytes));
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        var answer = Answers.json(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE,
                "{\"status\":413,\"reason\":\"bodyTooLarge\"}");
        FrontendHandler front = ctx.pipeline().get(FrontendHandler.class);
        if (front != null && oversized instanceof HttpRequest req) {
            front.logRefusal(req, req.uri(), 413, "bodyTooLarge");
        }
        if (oversized instanceof FullHttpMessage
                || !HttpUtil.is100ContinueExpected(oversized) && !HttpUtil.isKeepAlive(oversized)) {
            answer.headers().set("connection", "close");
            ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE);
        } else {
            ctx.writeAndFlush(answer).addListener(ChannelFutureListener.CLOSE_ON_FAILURE);
        }
    }
}
