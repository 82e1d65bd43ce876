package org.arbiter.gateway.netty;

import io.netty.buffer.ByteBuf;
import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.CompositeByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelPipeline;
import io.netty.handler.codec.DecoderResult;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.EmptyHttpHeaders;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpMessage;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.LastHttpContent;

/**
 * Buffers a request body up to maxBodyBytes while the request is queued, within the gateway's
 * {@link BodyBudget}. The aggregator never writes an answer itself, so that every answer on a
 * connection goes out in request order:
 * <ul>
 *   <li>a body over maxBodyBytes (declared or found mid-body) becomes a failed placeholder request
 *       that the {@link FrontendHandler} answers 413 in its turn (the rest of the body is discarded);
 *   <li>a chunk the budget cannot take ends the body at once as a failed request answered 503
 *       {@code bodyBudget} with Retry-After; the rest of the body is discarded;
 *   <li>an unknown {@code Expect} is answered 417 in its turn; a 100 Continue is written at once when
 *       nothing earlier on the connection is unanswered, else once it all is
 *       ({@link FrontendHandler#continueLater}).
 * </ul>
 * Confined to the channel's event loop.
 */
final class RequestAggregator extends HttpObjectAggregator {

    /** The body budget was spent while this body arrived (no stack: a refusal, not a bug). */
    static final class BudgetSpent extends Exception {
        BudgetSpent() {
            super("gateway.bodyBudget spent", null, false, false);
        }
    }

    /** The request's {@code Expect} is not 100-continue. */
    static final class ExpectationFailed extends Exception {
        ExpectationFailed() {
            super("Expect: not 100-continue", null, false, false);
        }
    }

    private final BodyBudget budget;
    /** A request's head that declared no body, waiting for the decoder's end of it (the next message). */
    private HttpRequest bodyless;

    RequestAggregator(long maxBodyBytes, BodyBudget budget) {
        super((int) Math.min(Integer.MAX_VALUE, maxBodyBytes));
        this.budget = budget;
    }

    /**
     * The fast path of a request without a body (most GETs): its head and the decoder's empty end become one
     * {@link DefaultFullHttpRequest} sharing the head's headers, without the aggregation's two composite
     * buffers and the Content-Length it adds (about 2 % of the gateway's CPU samples). A head with any
     * Content-Length, Transfer-Encoding or Expect, or a failed one, takes the aggregator's path, and so does a
     * head whose next message is not an empty end.
     */
    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) throws Exception {
        HttpRequest head = bodyless;
        if (head != null) {
            bodyless = null;
            if (msg instanceof LastHttpContent end && !end.content().isReadable() && end.trailingHeaders().isEmpty()
                    && end.decoderResult().isSuccess()) {
                end.release();
                ctx.fireChannelRead(new DefaultFullHttpRequest(head.protocolVersion(), head.method(), head.uri(),
                        Unpooled.EMPTY_BUFFER, head.headers(), EmptyHttpHeaders.INSTANCE));
                return;
            }
            super.channelRead(ctx, head);
        } else if (msg instanceof HttpRequest r && !(msg instanceof FullHttpRequest) && r.decoderResult().isSuccess()
                && declaresNoBody(r.headers())) {
            bodyless = r;
            return;
        }
        super.channelRead(ctx, msg);
    }

    private static boolean declaresNoBody(HttpHeaders h) {
        return !h.contains(HttpHeaderNames.CONTENT_LENGTH) && !h.contains(HttpHeaderNames.TRANSFER_ENCODING)
                && !h.contains(HttpHeaderNames.EXPECT);
    }

    @Override
    protected Object newContinueResponse(HttpMessage start, int maxContentLength, ChannelPipeline pipeline) {
        Object r = super.newContinueResponse(start, maxContentLength, pipeline);
        if (!(r instanceof FullHttpResponse answer)) {
            return r;
        }
        if (answer.status().equals(HttpResponseStatus.CONTINUE)) {
            FrontendHandler front = pipeline.get(FrontendHandler.class);
            if (front == null || front.answeredAll()) {
                return answer;
            }
            front.continueLater(answer);
            return null;
        }
        answer.release();
        if (answer.status().equals(HttpResponseStatus.EXPECTATION_FAILED)) {
            start.setDecoderResult(DecoderResult.failure(new ExpectationFailed())); // emitted at once, answered in turn
        }
        return null; // 413: the length check that follows hands it to handleOversizedMessage
    }

    @Override
    protected FullHttpMessage beginAggregation(HttpMessage start, ByteBuf content) throws Exception {
        if (content instanceof CompositeByteBuf c) {
            Reserved body = new Reserved(c.alloc(), budget);
            if (c.isReadable()) {
                body.reserve(c.readableBytes());
                body.addComponent(true, c);
            } else {
                c.release();
            }
            content = body;
        }
        return super.beginAggregation(start, content);
    }

    @Override
    protected void aggregate(FullHttpMessage aggregated, HttpContent content) throws Exception {
        super.aggregate(aggregated, content);
        int n = content.content().readableBytes();
        if (n > 0 && aggregated.content() instanceof Reserved body && !body.reserve(n)) {
            budget.refused();
            content.setDecoderResult(DecoderResult.failure(new BudgetSpent())); // the aggregator ends the body here
        }
    }

    @Override
    protected void handleOversizedMessage(ChannelHandlerContext ctx, HttpMessage oversized) {
        if (!(oversized instanceof HttpRequest req)) {
            ctx.close();
            return;
        }
        // a copy of the head: the aggregator releases the message after this returns
        var placeholder = new DefaultFullHttpRequest(req.protocolVersion(), req.method(), req.uri(), Unpooled.EMPTY_BUFFER);
        placeholder.headers().set(req.headers());
        placeholder.setDecoderResult(DecoderResult.failure(new TooLongFrameException("bodyTooLarge")));
        ctx.fireChannelRead(placeholder);
    }

    /**
     * A body's buffer that holds its bytes' reservation in the budget and gives it back when it is
     * freed, whichever path frees it.
     */
    static final class Reserved extends CompositeByteBuf {
        private final BodyBudget budget;
        private long reserved;

        Reserved(ByteBufAllocator alloc, BodyBudget budget) {
            super(alloc, false, 1024);
            this.budget = budget;
        }

        boolean reserve(long n) {
            if (!budget.tryReserve(n)) {
                return false;
            }
            reserved += n;
            return true;
        }

        @Override
        protected void deallocate() {
            try {
                super.deallocate();
            } finally {
                budget.release(reserved);
                reserved = 0;
            }
        }
    }
}
