package org.arbiter.gateway.netty;

import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelPipeline;
import io.netty.channel.socket.ChannelInputShutdownEvent;
import io.netty.channel.socket.DuplexChannel;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpContent;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpServerUpgradeHandler;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.CleartextHttp2ServerUpgradeHandler;
import io.netty.util.AsciiString;
import io.netty.util.ReferenceCountUtil;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.util.ArrayDeque;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.arbiter.common.config.GatewayHttpConfig;
import org.arbiter.gateway.DropReason;
import org.arbiter.gateway.Ticket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One client connection. Requests are answered one at a time in order (pipelined requests wait in
 * a short per-connection line); each gets exactly one response: the server's, streamed, or one of
 * the gateway's own ({@link Answers}). A connection that does not deliver a complete request within
 * the idle timeout (idle or trickling) is closed. A request that fails {@link RequestChecks} (Host,
 * version, method, target) is answered by the gateway and never forwarded; one that passes is
 * classified and forwarded with its normalised path. A client that half-closes (shuts down its
 * write side) still gets the answers to what it sent, then the connection is closed. Every
 * finished request is written to the {@link AccessLog}. State lives on the data-plane event loop.
 */
final class FrontendHandler extends ChannelInboundHandlerAdapter {

    private static final AsciiString HTTPS = AsciiString.cached("https");
    private static final AsciiString HTTP = AsciiString.cached("http");

    private static final Logger LOG = LoggerFactory.getLogger(FrontendHandler.class);
    private static final Set<HttpMethod> IDEMPOTENT = Set.of(HttpMethod.GET, HttpMethod.HEAD, HttpMethod.PUT,
            HttpMethod.DELETE, HttpMethod.OPTIONS, HttpMethod.TRACE);
    /** Reading pauses once this many pipelined requests wait behind the one being answered. */
    private static final int MAX_PIPELINED = 16;
    /**
     * At most this many are ever held: the pause takes effect after the read under way, whose
     * bytes may hold many more small requests; those beyond are dropped unanswered.
     */
    static final int MAX_HELD = 64;

    private final DataPlane plane;
    private final boolean classHeader;
    private ChannelHandlerContext ctx;
    private Attempt current;
    private final ArrayDeque<FullHttpRequest> pending = new ArrayDeque<>();
    /** Closes the connection once no request has been answered or completed for dispatch.idleTimeout. */
    private IdleDeadline deadline;
    /** A 100 Continue held until every earlier request on the connection is answered. */
    private FullHttpResponse continueLater;
    private boolean closing;
    /** More pipelined requests came than {@link #MAX_HELD}: the rest of what the client sends is dropped. */
    private boolean overflowed;
    private boolean closeAfterResponse;
    private String clientIp;
    /** The client's address: a trusted PROXY header's source, else the peer's; null if unknown. */
    private InetAddress clientAddress;
    private final GatewayHttpConfig http;
    private final AccessLog accessLog;
    /**
     * The client (the peer, or the source of a trusted PROXY header) is in gateway.trustedProxies:
     * its X-Forwarded-* headers are kept and appended to.
     */
    private boolean trustedPeer;
    /** The client shut down its write side: answer what it sent, then close. */
    private boolean inputShutdown;
    /** The client connection is TLS (X-Forwarded-Proto: https). */
    private boolean secure;
    /** This handler serves one HTTP/2 stream (a child channel of the connection). */
    private boolean stream;
    /** The h2c upgrade handler is gone from this connection's pipeline, or was never there. */
    private boolean h2cChecked;
    // the access-log fields of the current request
    private String rawTarget;
    private int responseStatus;
    private long responseBytes;
    private String answerReason;

    FrontendHandler(DataPlane plane) {
        this.plane = plane;
        this.classHeader = plane.dispatch().classHeader();
        this.http = plane.http();
        this.accessLog = plane.accessLog();
    }

    @Override
    public void handlerAdded(ChannelHandlerContext ctx) {
        this.ctx = ctx;
        this.deadline = new IdleDeadline(ctx, plane.dispatch().idleTimeoutSeconds());
    }

    @Override
    public void channelActive(ChannelHandlerContext ctx) {
        Channel connection = ctx.channel().parent() instanceof SocketChannel p
                ? p : ctx.channel();
        stream = connection != ctx.channel();
        secure = Boolean.TRUE.equals(connection.attr(ProxyInitializer.SECURE).get());
        if (connection.remoteAddress() instanceof InetSocketAddress a) {
            clientAddress = a.getAddress();
            clientIp = a.getAddress() != null ? a.getAddress().getHostAddress() : a.getHostString();
            trustedPeer = http.trusted(a.getAddress());
        }
        ProxyProtocolGate.ProxiedClient proxied = connection.attr(ProxyInitializer.PROXIED).get();
        if (proxied != null) {
            clientAddress = proxied.address();
            clientIp = proxied.address().getHostAddress();
            trustedPeer = http.trusted(proxied.address());
        }
        deadline.idle();
        ctx.fireChannelActive();
    }

    /** The connection became HTTP/2 (h2c upgrade or prior knowledge): its streams have handlers of their own. */
    @Override
    public void handlerRemoved(ChannelHandlerContext ctx) {
        deadline.drop();
        releaseContinue();
    }

    /** The client channel (the HTTP/2 stream for a stream). */
    Channel channel() {
        return ctx.channel();
    }

    /** Whether this serves an HTTP/2 stream. */
    boolean stream() {
        return stream;
    }

    @Override
    public void channelRead(ChannelHandlerContext ctx, Object msg) {
        if (!(msg instanceof FullHttpRequest req) || closing) {
            ReferenceCountUtil.release(msg);
            return;
        }
        if (current != null || !pending.isEmpty()) {
            if (pending.size() >= MAX_HELD || overflowed) {
                // dropped unanswered: the held ones are answered, the last with Connection: close, and
                // the connection closes; the client sends the rest again (RFC 9112 §9.3.2)
                overflowed = true;
                inputShutdown = true;
                ctx.channel().config().setAutoRead(false);
                req.release();
                return;
            }
            pending.addLast(req);
            if (pending.size() >= MAX_PIPELINED) {
                ctx.channel().config().setAutoRead(false);
            }
            return;
        }
        start(req);
    }

    private void start(FullHttpRequest req) {
        deadline.busy();
        if (!stream && !h2cChecked) {
            // h2c by Upgrade is for a connection's first request (docs/gateway.md "HTTP/2"): that one was not, so
            // Netty's upgrade handler need not look at every later request (about 2 % of the CPU samples)
            h2cChecked = true;
            HttpServerUpgradeHandler up = ctx.pipeline().get(HttpServerUpgradeHandler.class);
            if (up != null) {
                ctx.pipeline().remove(up);
            }
        }
        if (req.decoderResult().isFailure()) {
            RequestChecks.Refusal no = RequestChecks.ofDecoderFailure(req.decoderResult().cause());
            // the aggregator's refusals carry the request's head; the decoder's placeholder says nothing
            boolean head = no.reason().equals("bodyTooLarge") || no.reason().equals(RequestChecks.BODY_BUDGET)
                    || no.reason().equals("expectationFailed");
            logRefusal(head ? req : null, head ? req.uri() : null, no.status().code(), no.reason());
            req.release();
            refuse(no.status(), no.reason());
            return;
        }
        String target = req.uri();
        RequestChecks.Refusal no = RequestChecks.admit(req);
        if (no != null) {
            logRefusal(req, target, no.status().code(), no.reason());
            req.release();
            refuse(no.status(), no.reason());
            return;
        }
        rawTarget = target;
        responseStatus = 0;
        responseBytes = 0;
        answerReason = null;
        String className = plane.classifier().classify(new NettyRequestAttributes(req, clientAddress));
        boolean keepAlive = DataPlane.keepAliveOf(req);
        String upgrade = Tunnel.upgradeOf(req);
        current = new Attempt(this, req, className, keepAlive && upgrade == null, IDEMPOTENT.contains(req.method()),
                HttpMethod.HEAD.equals(req.method()), DataPlane.now(), stream ? null : upgrade);
        plane.submit(current);
    }

    /**
     * A request the gateway cannot read or will not forward: answer, stop writing, and drain what
     * the client still sends.
     */
    private void refuse(HttpResponseStatus status, String reason) {
        closing = true;
        releasePending();
        ctx.channel().config().setAutoRead(true);
        FullHttpResponse answer = Answers.badRequest(status, reason);
        if (status.equals(HttpResponseStatus.METHOD_NOT_ALLOWED)) {
            answer.headers().set(HttpHeaderNames.ALLOW, RequestChecks.ALLOW);
        } else if (status.equals(HttpResponseStatus.SERVICE_UNAVAILABLE)) {
            answer.headers().set(HttpHeaderNames.RETRY_AFTER, "1"); // bodyBudget: the bytes free up as requests finish
        }
        ctx.writeAndFlush(answer).addListener((ChannelFutureListener) f -> {
            if (f.channel() instanceof DuplexChannel d && f.isSuccess()) {
                d.shutdownOutput();
                f.channel().eventLoop().schedule(() -> f.channel().close(), 2, TimeUnit.SECONDS);
            } else if (stream && f.isSuccess()) {
                // the answer ended the stream on our side; the client may still be sending its body:
                // let it finish (the stream then closes) rather than reset it mid-body
                f.channel().eventLoop().schedule(() -> f.channel().close(), 2, TimeUnit.SECONDS);
            } else {
                f.channel().close();
            }
        });
    }

    /** The request being answered, if any (the drain deadline answers it). */
    Attempt current() {
        return current;
    }

    /**
     * At the start of a drain, on this connection's loop: an idle keep-alive connection (no request
     * being answered, none read and waiting) is closed now, so that no client sends it a request the
     * drain would have to refuse once it is over; a busy one closes after its response (see
     * {@link #decorate}). A request a client sends at the very moment of the close meets a closed
     * connection before any answer byte, which HTTP/1.1 clients retry (RFC 9112 §9.3.1). HTTP/2
     * streams are left alone (their connection is closed when the drain ends).
     *
     * @return whether the connection was closed
     */
    boolean closeIfIdleForDrain(ChannelHandlerContext ctx) {
        if (stream || deadline.dropped() || closing || current != null || !pending.isEmpty()) {
            return false;
        }
        closing = true;
        deadline.busy();
        ctx.close();
        return true;
    }

    /**
     * X-Forwarded-For / -Proto / -Host of a forwarded request. From a peer in
     * gateway.trustedProxies, the client's address is appended to X-Forwarded-For and -Proto /
     * -Host are kept when present; from any other peer all three (and RFC 7239 Forwarded) are
     * replaced, so a client cannot claim https or another address.
     */
    void addForwardedHeaders(HttpHeaders h, boolean listed) {
        String host = h.get(HttpHeaderNames.HOST);
        if (trustedPeer) {
            List<String> prior = h.getAll(HopByHop.X_FORWARDED_FOR);
            String chain = prior.isEmpty() ? null : String.join(", ", prior);
            if (clientIp != null) {
                h.set(HopByHop.X_FORWARDED_FOR, chain == null ? clientIp : chain + ", " + clientIp);
            }
            if (!h.contains(HopByHop.X_FORWARDED_PROTO)) {
                h.set(HopByHop.X_FORWARDED_PROTO, secure ? HTTPS : HTTP);
            }
            if (!h.contains(HopByHop.X_FORWARDED_HOST) && host != null) {
                h.set(HopByHop.X_FORWARDED_HOST, host);
            }
            return;
        }
        if (listed) { // else none of them is there: added, not replaced (no lookups)
            h.remove(HopByHop.FORWARDED);
            h.remove(HopByHop.X_FORWARDED_FOR);
            h.remove(HopByHop.X_FORWARDED_HOST);
            h.remove(HopByHop.X_FORWARDED_PROTO);
        }
        if (clientIp != null) {
            h.add(HopByHop.X_FORWARDED_FOR, clientIp);
        }
        h.add(HopByHop.X_FORWARDED_PROTO, secure ? HTTPS : HTTP);
        if (host != null) {
            h.add(HopByHop.X_FORWARDED_HOST, host);
        }
    }

    // ------------------------------------------------------------ from the plane

    void forwardHead(Attempt ex, HttpResponse head) {
        decorate(ex, head);
        responseStatus = head.status().code();
        ctx.write(head, ctx.voidPromise());
    }

    void forwardContent(Attempt ex, HttpContent content) {
        if (ex.over()) {
            content.release();
            return;
        }
        responseBytes += content.content().readableBytes();
        ctx.write(content, ctx.voidPromise());
    }

    /**
     * A whole response from the server (its head and its end came in one read): one write, in which Netty's encoder
     * puts a small body into the head's buffer, so the client gets it in one send.
     */
    void forwardWhole(Attempt ex, FullHttpResponse whole) {
        if (ex.over()) {
            whole.release();
            return;
        }
        decorate(ex, whole);
        responseStatus = whole.status().code();
        responseBytes += whole.content().readableBytes();
        ctx.write(whole, ctx.voidPromise());
    }

    boolean writable() {
        return ctx.channel().isWritable();
    }

    void flush() {
        ctx.flush();
    }

    /** The gateway's own answer for {@code ex} (503, 502, 504). */
    void answer(Attempt ex, FullHttpResponse response) {
        if (ex.over() || ex != current) {
            response.release();
            return;
        }
        decorate(ex, response);
        responseStatus = response.status().code();
        responseBytes = response.content().readableBytes();
        DropReason why = ex.ticket() == null ? null : ex.ticket().dropReason();
        answerReason = why != null ? why.wireName() : "gateway";
        ctx.write(response, ctx.voidPromise());
        responseFinished(ex);
    }

    private void decorate(Attempt ex, HttpResponse head) {
        if (classHeader) {
            head.headers().set(Answers.CLASS_HEADER, ex.className);
        }
        if (plane.draining() && (pending.isEmpty() || plane.drainForced())) {
            closeAfterResponse = true; // draining: this connection carries no further request
        }
        if (!ex.keepAlive || closeAfterResponse || inputShutdown && pending.isEmpty()) {
            head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        } else if (ex.clientVersion.equals(HttpVersion.HTTP_1_0)) {
            head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        }
    }

    /** The last byte of {@code ex}'s response has been written. */
    void responseFinished(Attempt ex) {
        if (ex.over()) {
            return;
        }
        ex.done();
        plane.sent(ex, responseStatus);
        logAttempt(ex, answerReason);
        ex.request.release();
        current = null;
        if (stream) {
            closing = true; // one request per HTTP/2 stream; the stream ends with the response
            ctx.flush();
            return;
        }
        if (!ex.keepAlive || closeAfterResponse || inputShutdown && pending.isEmpty()) {
            closing = true;
            releasePending();
            ctx.writeAndFlush(Unpooled.EMPTY_BUFFER).addListener(ChannelFutureListener.CLOSE);
            return;
        }
        ctx.flush();
        FullHttpRequest next = pending.pollFirst();
        if (next != null) {
            ctx.channel().config().setAutoRead(!overflowed);
            start(next);
        } else {
            deadline.idle();
            if (continueLater != null) {
                ctx.writeAndFlush(continueLater); // its request comes next: now its 100 is in order
                continueLater = null;
            }
        }
    }

    /** Nothing is being answered or waiting on this connection: an answer written now is in request order. */
    boolean answeredAll() {
        return current == null && pending.isEmpty();
    }

    /**
     * The 100 Continue of the request being read, when earlier requests are still to be answered:
     * written once they are (the client waits for it, or sends its body after its own timeout).
     */
    void continueLater(FullHttpResponse hundred) {
        releaseContinue();
        continueLater = hundred;
    }

    private void releaseContinue() {
        if (continueLater != null) {
            continueLater.release();
            continueLater = null;
        }
    }

    /**
     * The server answered 101 to {@code ex}'s {@code Upgrade}: the 101 goes to the client, then the
     * HTTP handlers leave this pipeline and the bytes are spliced to {@code backend}. False (and
     * nothing written) when the request is over already.
     */
    boolean switchProtocols(Attempt ex, FullHttpResponse head, Channel backend, Runnable onClose) {
        if (ex.over() || ex != current || closing) {
            head.release();
            return false;
        }
        if (classHeader) {
            head.headers().set(Answers.CLASS_HEADER, ex.className);
        }
        responseStatus = head.status().code();
        deadline.busy();
        releasePending();
        ctx.writeAndFlush(head); // encoded now, by the codec still in place
        ChannelPipeline p = ctx.pipeline();
        Tunnel.splice(ctx.channel(), backend, plane.dispatch().tunnelIdleTimeoutSeconds(), onClose);
        RequestAggregator agg = p.get(RequestAggregator.class);
        if (agg != null) {
            p.remove(agg);
        }
        HttpServerUpgradeHandler up = p.get(HttpServerUpgradeHandler.class);
        if (up != null) {
            p.remove(up);
        }
        p.remove(this);
        HttpServerCodec codec = p.get(HttpServerCodec.class);
        if (codec != null) {
            p.remove(codec); // what the client sent after its request goes to the tunnel
        }
        return true;
    }

    /** The tunnel of an upgraded request closed: the request ends (access log). */
    void tunnelClosed(Attempt ex) {
        if (ex.over()) {
            return;
        }
        ex.done();
        logAttempt(ex, "upgraded");
        ex.request.release();
        current = null;
    }

    /** The response cannot be completed (the backend broke off mid-stream): cut the connection. */
    void abort(Attempt ex) {
        if (ex.over()) {
            return;
        }
        ex.failed();
        DropReason why = ex.ticket() == null ? null : ex.ticket().dropReason();
        logAttempt(ex, why != null ? why.wireName() : "aborted");
        ex.request.release();
        current = null;
        closing = true;
        releasePending();
        ctx.flush();
        ctx.close();
    }

    // ------------------------------------------------------------ lifecycle

    private void releasePending() {
        for (FullHttpRequest r; (r = pending.pollFirst()) != null; ) {
            r.release();
        }
    }

    @Override
    public void channelWritabilityChanged(ChannelHandlerContext ctx) {
        Attempt ex = current;
        if (ex != null && ex.backend != null && ctx.channel().isWritable()) {
            ex.backend.config().setAutoRead(true);
        }
        ctx.fireChannelWritabilityChanged();
    }

    @Override
    public void channelInactive(ChannelHandlerContext ctx) {
        closing = true;
        deadline.drop();
        releaseContinue();
        releasePending();
        Attempt ex = current;
        current = null;
        if (ex != null && !ex.over()) {
            ex.failed();
            responseStatus = 499;
            logAttempt(ex, "clientClosed");
            plane.abandon(ex);
            ex.request.release();
        }
        ctx.fireChannelInactive();
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) {
        if (evt instanceof ProxyProtocolGate.ProxiedClient p) {
            // The switch's PROXY header names the client: it is the client from now on, and its
            // own X-Forwarded-* are kept only if it is itself a trusted proxy.
            clientAddress = p.address();
            clientIp = p.address().getHostAddress();
            trustedPeer = http.trusted(p.address());
            return;
        }
        if (evt instanceof HttpServerUpgradeHandler.UpgradeEvent
                || evt instanceof CleartextHttp2ServerUpgradeHandler.PriorKnowledgeUpgradeEvent) {
            // h2c: the connection's requests now arrive on HTTP/2 streams, each with its own handler
            ctx.fireUserEventTriggered(evt);
            RequestAggregator agg = ctx.pipeline().get(RequestAggregator.class);
            if (agg != null) {
                ctx.pipeline().remove(agg);
            }
            ctx.pipeline().remove(this);
            return;
        }
        if (evt instanceof ChannelInputShutdownEvent) {
            // The client will send nothing more (a half-close, or a close we cannot tell apart
            // from one): answer what it sent, then close; with nothing outstanding, close now.
            inputShutdown = true;
            if (current == null && pending.isEmpty() && !closing) {
                closing = true;
                ctx.close();
            }
        }
        ctx.fireUserEventTriggered(evt);
    }

    // ------------------------------------------------------------ access log

    private void logAttempt(Attempt ex, String reason) {
        if (!accessLog.enabled()) {
            return;
        }
        long now = DataPlane.now();
        Ticket<Attempt> t = ex.ticket();
        boolean dispatched = t != null && t.server() >= 0;
        double queueMs = dispatched ? (t.dispatchNanos() - ex.arrivalNanos) / 1e6 : -1;
        double backendMs = dispatched ? (now - t.dispatchNanos()) / 1e6 : -1;
        HttpHeaders h = ex.request.headers();
        accessLog.record(new AccessLog.Entry(System.currentTimeMillis(), clientIp, ex.request.method().name(),
                rawTarget, ex.request.uri(), ex.clientVersion.text(), responseStatus, responseBytes,
                h.get(HttpHeaderNames.REFERER), h.get(HttpHeaderNames.USER_AGENT), ex.className,
                dispatched ? t.serverId() : null, queueMs, backendMs, (now - ex.arrivalNanos) / 1e6, reason));
    }

    /**
     * A request answered before classification (strictness, or a body over maxBodyBytes);
     * {@code req} null when it could not be decoded.
     */
    void logRefusal(HttpRequest req, String target, int status, String reason) {
        if (!accessLog.enabled()) {
            return;
        }
        HttpHeaders h = req == null ? null : req.headers();
        accessLog.record(new AccessLog.Entry(System.currentTimeMillis(), clientIp, req == null ? null : req.method().name(),
                target, null, req == null ? null : req.protocolVersion().text(), status, 0,
                h == null ? null : h.get(HttpHeaderNames.REFERER), h == null ? null : h.get(HttpHeaderNames.USER_AGENT),
                null, null, -1, -1, -1, reason));
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("client connection {}: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
