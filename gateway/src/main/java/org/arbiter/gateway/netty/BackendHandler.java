package org.arbiter.gateway.netty;

import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpStatusClass;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.LastHttpContent;
import io.netty.util.ReferenceCountUtil;

/**
 * One backend connection: streams the response of the request ({@link Attempt}) bound to it to
 * that request's client, head first, then each piece of content as it arrives (nothing is aggregated;
 * a head and end that arrive in one read go as one message). Reading
 * from the backend pauses while the client connection is not writable. State lives on the
 * data-plane event loop; each event goes to the {@link Forwarder}.
 */
final class BackendHandler extends ChannelInboundHandlerAdapter {

    /** The forwarder of the bound request (null while none is bound). */
    private Forwarder forwarder;
    private Attempt ex;
    private boolean reusable;
    private boolean skippingInformational;
    /**
     * The response head, ready for the client but not yet written (null: none): if the response's end comes in the
     * same read, the two go as one message ({@link FrontendHandler#forwardWhole}); else it is written on the next
     * piece of content or at the read's end.
     */
    private HttpResponse heldHead;

    /** {@code attempt} is written on this connection: its response goes to {@code forwarder}. */
    void bind(Attempt attempt, Forwarder forwarder) {
        this.forwarder = forwarder;
        this.ex = attempt;
        this.skippingInformational = false;
        this.heldHead = null;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        Attempt e = ex;
        if (e == null || !e.on(ctx.channel())) {
            ReferenceCountUtil.release(msg);
            if (e == null) {
                ctx.close(); // an unsolicited response: the connection is out of step
            }
            return;
        }
        if (msg instanceof HttpResponse r) {
            if (r.decoderResult().isFailure()) {
                ReferenceCountUtil.release(msg);
                ex = null;
                if (e.state() == Attempt.State.STREAMING) {
                    forwarder.failedDuringResponse(e, ctx.channel());
                } else {
                    forwarder.failedBeforeResponse(e, ctx.channel(), r.decoderResult().cause());
                }
                return;
            }
            if (r.status().code() == 101 && e.upgrade != null) {
                ex = null;
                forwarder.upgraded(e, ctx.channel(), r);
                ReferenceCountUtil.release(msg);
                return;
            }
            if (r.status().codeClass() == HttpStatusClass.INFORMATIONAL) {
                skippingInformational = true; // 100 Continue and friends stay on this hop
                ReferenceCountUtil.release(msg);
                return;
            }
            reusable = DataPlane.keepAliveOf(r);
            forwarder.responseStarted(e, r.status().code());
            HttpResponse out;
            if (msg instanceof HttpContent) {
                out = new DefaultHttpResponse(HttpVersion.HTTP_1_1, r.status()); // head and body in one object: split
                out.headers().set(r.headers());
            } else {
                out = r; // the decoder's head, forwarded as it is: no copy of its headers
                out.setProtocolVersion(HttpVersion.HTTP_1_1);
            }
            HopByHop.strip(out.headers());
            int code = r.status().code();
            if (!out.headers().contains(HttpHeaderNames.CONTENT_LENGTH) && !e.head && code != 204 && code != 304) {
                out.headers().set(HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderValues.CHUNKED);
            }
            if (!(msg instanceof HttpContent)) {
                heldHead = out;
                return;
            }
            e.front.forwardHead(e, out);
        }
        if (msg instanceof HttpContent c) {
            if (skippingInformational) {
                if (c instanceof LastHttpContent) {
                    skippingInformational = false;
                }
                c.release();
                return;
            }
            boolean last = c instanceof LastHttpContent;
            HttpResponse head = heldHead;
            heldHead = null;
            if (head != null && last) {
                LastHttpContent end = (LastHttpContent) c;
                e.front.forwardWhole(e, new DefaultFullHttpResponse(head.protocolVersion(), head.status(), end.content(),
                        head.headers(), end.trailingHeaders()));
            } else {
                if (head != null) {
                    e.front.forwardHead(e, head);
                }
                e.front.forwardContent(e, c);
            }
            if (last) {
                ex = null;
                ctx.channel().config().setAutoRead(true);
                forwarder.responseDone(e, ctx.channel(), reusable);
            } else if (!e.front.writable()) {
                ctx.channel().config().setAutoRead(false);
            }
        } else {
            ReferenceCountUtil.release(msg);
        }
    }

    @Override
    public void channelReadComplete(ChannelHandlerContext ctx) {
        Attempt e = ex;
        if (e != null && !e.over()) {
            HttpResponse head = heldHead;
            if (head != null) {
                heldHead = null;
                e.front.forwardHead(e, head); // the body comes in a later read
            }
            forwarder.reportResponded(e);
            e.front.flush();
        }
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        fail(ctx, null);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        fail(ctx, cause);
        ctx.close();
    }

    private void fail(ChannelHandlerContext ctx, Throwable cause) {
        Attempt e = ex;
        ex = null;
        heldHead = null; // never written: the client connection is cut (failedDuringResponse)
        if (e == null || !e.on(ctx.channel())) {
            return;
        }
        if (e.state() == Attempt.State.STREAMING) {
            forwarder.failedDuringResponse(e, ctx.channel());
        } else {
            forwarder.failedBeforeResponse(e, ctx.channel(), cause);
        }
    }
}
