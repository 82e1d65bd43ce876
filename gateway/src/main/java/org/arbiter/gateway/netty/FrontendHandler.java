package org.arbiter.gateway.netty;

import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.socket.DuplexChannel;
import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.netty.util.ReferenceCountUtil;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection. Requests are answered one at a time in order (pipelined requests wait in
 * a short per-connection line); each gets exactly one response: the server's, streamed, or one of
 * the gateway's own ({@link Answers}). A connection that does not deliver a complete request within
 * the idle timeout (idle or trickling) is closed. State lives on the data-plane event loop.
 */
final class FrontendHandler extends ChannelInboundHandlerAdapter {

    private static final Logger LOG = LoggerFactory.getLogger(FrontendHandler.class);
    private static final Set<HttpMethod> IDEMPOTENT = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.PUT,
            HttpMethod.DELETE, HttpMethod.OPTIONS, HttpMethod.TRACE);
    private static final int MAX_PIPELINED = 16;

    private final DataPlane plane;
    private final long idleTimeoutNanos;
    private final boolean classHeader;
    private ChannelHandlerContext ctx;
    private Exchange current;
    private final ArrayDeque<FullHttpRequest> pending = new ArrayDeque<>();
    private ScheduledFuture<?> deadline;
    private boolean closing;
    private boolean closeAfterResponse;
    private String clientIp;

    FrontendHandler(DataPlane plane) {
        this.plane = plane;
        this.idleTimeoutNanos = (long) (plane.dispatch().idleTimeoutSeconds() * 1e9);
        this.classHeader = plane.dispatch().classHeader();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        if (ctx.channel().remoteAddress() instanceof InetSocketAddress a) {
            clientIp = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
        }
        armDeadline();
        ctx.fireChannelActive();
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest req) || closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (current != null || !pending.isEmpty()) {
            pending.addLast(req);
            if (pending.size() >= MAX_PIPELINED) {
                ctx.channel().config().setAutoRead(false);
            }
            return;
        }
        start(req);
    }

    private void start(FullHttpRequest req) {
        cancelDeadline();
        if (req.decoderResult().isFailure()) {
            Throwable cause = req.decoderResult().cause();
            req.release();
            if (cause instanceof TooLongHttpHeaderException) {
                refuse(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "headerTooLarge");
            } else if (cause instanceof TooLongHttpLineException) {
                refuse(HttpResponseStatus.REQUEST_URI_TOO_LONG, "requestLineTooLong");
            } else if (cause instanceof TooLongFrameException) {
                refuse(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "bodyTooLarge");
            } else {
                refuse(HttpResponseStatus.BAD_REQUEST, "malformedRequest");
            }
            return;
        }
        String className = plane.classifier().classify(new NettyRequestAttributes(req));
        boolean keepAlive = DataPlane.keepAliveOf(req);
        current = new Exchange(this, req, className, keepAlive, IDEMPOTENT.contains(req.method()),
                HttpMethod.HEAD.equals(req.method()), DataPlane.now());
        plane.submit(current);
    }

    /** A request the gateway cannot read: answer, stop writing, and drain what the client still sends. */
    private void refuse(HttpResponseStatus status, String reason) {
        closing = true;
        releasePending();
        ctx.channel().config().setAutoRead(true);
        ctx.writeAndFlush(Answers.badRequest(status, reason)).addListener((ChannelFutureListener) f -> {
            if (f.channel() instanceof DuplexChannel d && f.isSuccess()) {
                d.shutdownOutput();
                f.channel().eventLoop().schedule(() -> f.channel().close(), 2, TimeUnit.SECONDS);
            } else {
                f.channel().close();
            }
        });
    }

    /** The request being answered, if any (the drain deadline answers it). */
    Exchange current() {
        return current;
    }

    void addForwardedHeaders(HttpHeaders h) {
        if (clientIp != null) {
            String prior = h.get("X-Forwarded-For");
            h.set("X-Forwarded-For", prior == null ? clientIp : prior + ", " + clientIp);
        }
        if (!h.contains("X-Forwarded-Proto")) {
            h.set("X-Forwarded-Proto", "http");
        }
    }

    // ------------------------------------------------------------ from the plane

    void forwardHead(Exchange ex, HttpResponse head) {
        decorate(ex, head);
        ctx.write(head, ctx.voidPromise());
    }

    void forwardContent(Exchange ex, HttpContent content) {
        if (ex.finished) {
            content.release();
            return;
        }
        ctx.write(content, ctx.voidPromise());
    }

    boolean writable() {
        return ctx.channel().isWritable();
    }

    void flush() {
        ctx.flush();
    }

    /** The gateway's own answer for {@code ex} (503, 502, 504). */
    void answer(Exchange ex, FullHttpResponse response, boolean ignored) {
        if (ex.finished || ex != current) {
            response.release();
            return;
        }
        decorate(ex, response);
        ctx.write(response, ctx.voidPromise());
        responseFinished(ex);
    }

    private void decorate(Exchange ex, HttpResponse head) {
        if (classHeader) {
            head.headers().set(Answers.CLASS_HEADER, ex.className);
        }
        if (plane.draining() && (pending.isEmpty() || plane.drainForced())) {
            closeAfterResponse = true; // draining: this connection carries no further request
        }
        if (!ex.keepAlive || closeAfterResponse) {
            head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (ex.request.protocolVersion().equals(HttpVersion.HTTP_1_0)) {
            head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
    }

    /** The last byte of {@code ex}'s response has been written. */
    void responseFinished(Exchange ex) {
        if (ex.finished) {
            return;
        }
        ex.finished = true;
        ex.request.release();
        current = null;
        if (!ex.keepAlive || closeAfterResponse) {
            closing = true;
            releasePending();
            ctx.writeAndFlush(io.netty.buffer.Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.flush();
        FullHttpRequest next = pending.pollFirst();
        if (next != null) {
            ctx.channel().config().setAutoRead(true);
            start(next);
        } else {
            armDeadline();
        }
    }

    /** The response cannot be completed (the backend broke off mid-stream): cut the connection. */
    void abort(Exchange ex) {
        if (ex.finished) {
            return;
        }
        ex.finished = true;
        ex.request.release();
        current = null;
        closing = true;
        releasePending();
        ctx.flush();
        ctx.close();
    }

    // ------------------------------------------------------------ lifecycle

    private void armDeadline() {
        cancelDeadline();
        deadline = ctx.executor().schedule(() -> {
            deadline = null;
            if (current == null) {
                ctx.close();
            }
        }, idleTimeoutNanos, TimeUnit.NANOSECONDS);
    }

    private void cancelDeadline() {
        if (deadline != null) {
            deadline.cancel(false);
            deadline = null;
        }
    }

    private void releasePending() {
        for (FullHttpRequest r; (r = pending.pollFirst()) != null; ) {
            r.release();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Exchange ex = current;
        if (ex != null && ex.backend != null && ctx.channel().isWritable()) {
            ex.backend.config().setAutoRead(true);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        cancelDeadline();
        releasePending();
        Exchange ex = current;
        current = null;
        if (ex != null && !ex.finished) {
            ex.finished = true;
            plane.abandon(ex);
            ex.request.release();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("client connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
