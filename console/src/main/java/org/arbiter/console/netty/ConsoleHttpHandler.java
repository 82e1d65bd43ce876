package org.arbiter.console.netty;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.INTERNAL_SERVER_ERROR;
import static io.netty.handler.codec.http.HttpResponseStatus.METHOD_NOT_ALLOWED;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AttributeKey;
import java.time.Clock;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import org.arbiter.common.bus.Publisher;
import org.arbiter.console.ConsoleFeed;
import org.arbiter.console.ConsoleState;
import org.arbiter.console.auth.Authenticator;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's HTTP router and page, one instance per connection (state lives on the channel's
 * event loop). Routes:
 * <pre>
 * GET    /, /console.js, /console.css, /webjars/**   the page (no credentials needed)
 * POST   /api/login {"user","password"}             session cookie + CSRF token; 429 + Retry-After while throttled
 * POST   /api/logout                                 ends the session (X-CSRF-Token required)
 * GET    /api/session                                who is logged in (200 either way)
 * GET    /api/cluster | allocation | overrides | config
 * GET    /api/stats?since=ISO | /api/decisions?limit=N | /api/events (SSE; 503 + Retry-After over the cap)
 * GET    /metrics                                    Prometheus text (a read: public under publicRead, else a viewer's token)
 * POST   /api/overrides                              pin (admin)
 * DELETE /api/overrides/{id}                         unpin (admin)
 * </pre>
 * Who may call a route is {@link AccessGate}'s; the session routes are {@link SessionEndpoints},
 * the reads {@link ReadEndpoints}, pins {@link OverrideEndpoints}; the wire form (JSON, errors,
 * security headers) is {@link Replies}. Errors are JSON {@code {"status", "error"}} (plus
 * {@code field} and {@code rule} on a 400). Nothing a client sends escapes as an exception: a
 * failure inside a route is a 500 and the connection stays usable. PBKDF2 checks and publishing
 * (which may block on Kafka metadata) run on {@code blocking}, never on the event loop.
 */
final class ConsoleHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(ConsoleHttpHandler.class);
    /** Set on a channel that carries an event stream: it gets heartbeats, so idleness does not close it. */
    static final AttributeKey<Boolean> STREAMING = AttributeKey.valueOf("arbiter.console.sse");
    private static final String CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

    /** What every connection's handler shares. */
    record Shared(ConsoleState state, ConsoleFeed feed, Authenticator auth, Publisher overrides, Clock clock,
                  Executor blocking, EventStream events, StaticFiles files, ObjectMapper mapper, Map<String, Object> config,
                  AtomicInteger loginsInFlight, Supplier<String> metrics) {
    }

    private final Shared s;
    private final Replies replies;
    private final AccessGate gate;
    private final SessionEndpoints sessions;
    private final ReadEndpoints reads;
    private final OverrideEndpoints pins;

    ConsoleHttpHandler(Shared shared) {
        this.s = shared;
        this.replies = new Replies(shared.mapper());
        this.gate = new AccessGate(shared.auth(), shared.clock(), replies);
        this.sessions = new SessionEndpoints(shared, replies);
        this.reads = new ReadEndpoints(shared, replies);
        this.pins = new OverrideEndpoints(shared, replies);
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (!req.decoderResult().isSuccess()) {
            replies.sendError(ctx, req, BAD_REQUEST, "malformed HTTP request", true);
            return;
        }
        try {
            route(ctx, req);
        } catch (RuntimeException e) {
            LOG.warn("{} {} failed", req.method(), req.uri(), e);
            replies.sendError(ctx, req, INTERNAL_SERVER_ERROR, "internal error: " + e.getClass().getSimpleName(), false);
        }
    }

    private void route(ChannelHandlerContext ctx, FullHttpRequest req) {
        QueryStringDecoder q = new QueryStringDecoder(req.uri());
        String path = q.path();
        HttpMethod m = req.method();
        if (path.equals("/metrics")) {
            gate.read(ctx, req, p -> reads.metrics(ctx, req));
            return;
        }
        if (!path.startsWith("/api/")) {
            page(ctx, req, path);
            return;
        }
        switch (path) {
            case "/api/login" -> {
                if (gate.expect(ctx, req, HttpMethod.POST)) {
                    sessions.login(ctx, req);
                }
            }
            case "/api/logout" -> {
                if (gate.expect(ctx, req, HttpMethod.POST)) {
                    sessions.logout(ctx, req);
                }
            }
            case "/api/session" -> {
                if (gate.expect(ctx, req, HttpMethod.GET)) {
                    sessions.session(ctx, req);
                }
            }
            case "/api/cluster" -> gate.read(ctx, req, p -> reads.cluster(ctx, req));
            case "/api/allocation" -> gate.read(ctx, req, p -> reads.allocation(ctx, req));
            case "/api/config" -> gate.read(ctx, req, p -> reads.config(ctx, req));
            case "/api/stats" -> gate.read(ctx, req, p -> reads.stats(ctx, req, q));
            case "/api/decisions" -> gate.read(ctx, req, p -> reads.decisions(ctx, req, q));
            case "/api/events" -> gate.read(ctx, req, p -> reads.events(ctx, req));
            case "/api/overrides" -> {
                if (m.equals(HttpMethod.GET)) {
                    gate.read(ctx, req, p -> reads.overrides(ctx, req));
                } else if (m.equals(HttpMethod.POST)) {
                    gate.write(ctx, req, p -> pins.pin(ctx, req, p));
                } else {
                    replies.sendError(ctx, req, METHOD_NOT_ALLOWED, m + " " + path + " (expected: GET or POST)", false);
                }
            }
            default -> {
                if (path.startsWith("/api/overrides/") && path.length() > "/api/overrides/".length()) {
                    if (gate.expect(ctx, req, HttpMethod.DELETE)) {
                        gate.write(ctx, req, p -> pins.unpin(ctx, req, p, path.substring("/api/overrides/".length())));
                    }
                } else {
                    replies.sendError(ctx, req, NOT_FOUND, path + ": no such endpoint", false);
                }
            }
        }
    }

    /** The page and its assets: no credentials, GET or HEAD, a CSP on the HTML, webjars cached a day. */
    private void page(ChannelHandlerContext ctx, FullHttpRequest req, String path) {
        HttpMethod m = req.method();
        if (!m.equals(HttpMethod.GET) && !m.equals(HttpMethod.HEAD)) {
            replies.sendError(ctx, req, METHOD_NOT_ALLOWED, m + " " + path + " (expected: GET)", false);
            return;
        }
        Optional<StaticFiles.File> f = s.files().get(path);
        if (f.isEmpty()) {
            replies.sendError(ctx, req, NOT_FOUND, path + ": not found", false);
            return;
        }
        FullHttpResponse r = Replies.response(OK, f.get().bytes(), f.get().contentType());
        if (f.get().contentType().startsWith("text/html")) {
            r.headers().set("Content-Security-Policy", CSP);
            r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
        } else {
            r.headers().set(HttpHeaderNames.CACHE_CONTROL, path.startsWith("/webjars/") ? "max-age=86400" : "no-cache");
        }
        Replies.send(ctx, req, r);
    }

    @Override
    public void userEventTriggered(ChannelHandlerContext ctx, Object evt) throws Exception {
        if (evt instanceof IdleStateEvent && !Boolean.TRUE.equals(ctx.channel().attr(STREAMING).get())) {
            ctx.close();  // an idle keep-alive or a trickling client; streams get heartbeats instead
            return;
        }
        super.userEventTriggered(ctx, evt);
    }

    @Override
    public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
        LOG.debug("connection {} failed: {}", ctx.channel().remoteAddress(), cause.toString());
        ctx.close();
    }
}
