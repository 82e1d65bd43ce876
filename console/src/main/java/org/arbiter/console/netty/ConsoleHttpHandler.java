package org.arbiter.console.netty;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.CREATED;
import static io.netty.handler.codec.http.HttpResponseStatus.FORBIDDEN;
import static io.netty.handler.codec.http.HttpResponseStatus.INTERNAL_SERVER_ERROR;
import static io.netty.handler.codec.http.HttpResponseStatus.METHOD_NOT_ALLOWED;
import static io.netty.handler.codec.http.HttpResponseStatus.NOT_FOUND;
import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;
import static io.netty.handler.codec.http.HttpResponseStatus.SERVICE_UNAVAILABLE;
import static io.netty.handler.codec.http.HttpResponseStatus.TOO_MANY_REQUESTS;
import static io.netty.handler.codec.http.HttpResponseStatus.UNAUTHORIZED;
import static io.netty.handler.codec.http.HttpResponseStatus.UNSUPPORTED_MEDIA_TYPE;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.ByteBufInputStream;
import io.netty.buffer.Unpooled;
import io.netty.channel.ChannelFutureListener;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.handler.codec.http.DefaultHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.DefaultCookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import io.netty.handler.codec.http.cookie.ServerCookieEncoder;
import io.netty.handler.timeout.IdleStateEvent;
import io.netty.util.AttributeKey;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.arbiter.common.bus.Publisher;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.console.ConsoleFeed;
import org.arbiter.console.ConsoleState;
import org.arbiter.console.OverrideRequest;
import org.arbiter.console.auth.Authenticator;
import org.arbiter.console.auth.LoginThrottle;
import org.arbiter.console.auth.Principal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The console's HTTP API and page, one instance per connection (state lives on the channel's event
 * loop). Routes:
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
 * Errors are JSON {@code {"status", "error"}} (plus {@code field} and {@code rule} on a 400).
 * Nothing a client sends escapes as an exception: a failure inside a route is a 500 and the
 * connection stays usable. PBKDF2 checks and publishing (which may block on Kafka metadata) run
 * on {@code blocking}, never on the event loop.
 */
final class ConsoleHttpHandler extends SimpleChannelInboundHandler<FullHttpRequest> {

    private static final Logger LOG = LoggerFactory.getLogger(ConsoleHttpHandler.class);
    static final String SESSION_COOKIE = "arbiter_session";
    static final String CSRF_HEADER = "X-CSRF-Token";
    static final AttributeKey<Boolean> STREAMING = AttributeKey.valueOf("arbiter.console.sse");
    private static final int MAX_DECISIONS = 1_000;
    private static final int MAX_CONCURRENT_LOGINS = 4;
    static final int EVENTS_RETRY_AFTER_SECONDS = 10;
    private static final Duration PUBLISH_TIMEOUT = Duration.ofSeconds(15);
    private static final String CSP = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; "
            + "connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'";

    /** What every connection's handler shares. */
    record Shared(ConsoleState state, ConsoleFeed feed, Authenticator auth, Publisher overrides, Clock clock,
                  Executor blocking, EventStream events, StaticFiles files, ObjectMapper mapper, Map<String, Object> config,
                  AtomicInteger loginsInFlight, java.util.function.Supplier<String> metrics) {
    }

    private final Shared s;

    ConsoleHttpHandler(Shared shared) {
        this.s = shared;
    }

    @Override
    protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (!req.decoderResult().isSuccess()) {
            sendError(ctx, req, BAD_REQUEST, "malformed HTTP request", true);
            return;
        }
        try {
            route(ctx, req);
        } catch (RuntimeException e) {
            LOG.warn("{} {} failed", req.method(), req.uri(), e);
            sendError(ctx, req, INTERNAL_SERVER_ERROR, "internal error: " + e.getClass().getSimpleName(), false);
        }
    }

    private void route(ChannelHandlerContext ctx, FullHttpRequest req) {
        QueryStringDecoder q = new QueryStringDecoder(req.uri());
        String path = q.path();
        HttpMethod m = req.method();
        if (path.equals("/metrics")) {
            read(ctx, req, p -> {
                FullHttpResponse r = response(OK, s.metrics().get().getBytes(StandardCharsets.UTF_8),
                        "text/plain; version=0.0.4; charset=utf-8");
                r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
                send(ctx, req, r);
            });
            return;
        }
        if (!path.startsWith("/api/")) {
            if (!m.equals(HttpMethod.GET) && !m.equals(HttpMethod.HEAD)) {
                sendError(ctx, req, METHOD_NOT_ALLOWED, m + " " + path + " (expected: GET)", false);
                return;
            }
            Optional<StaticFiles.File> f = s.files().get(path);
            if (f.isEmpty()) {
                sendError(ctx, req, NOT_FOUND, path + ": not found", false);
                return;
            }
            FullHttpResponse r = response(OK, f.get().bytes(), f.get().contentType());
            if (f.get().contentType().startsWith("text/html")) {
                r.headers().set("Content-Security-Policy", CSP);
                r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-cache");
            } else {
                r.headers().set(HttpHeaderNames.CACHE_CONTROL, path.startsWith("/webjars/") ? "max-age=86400" : "no-cache");
            }
            send(ctx, req, r);
            return;
        }
        switch (path) {
            case "/api/login" -> {
                if (expect(ctx, req, HttpMethod.POST)) {
                    login(ctx, req);
                }
            }
            case "/api/logout" -> {
                if (expect(ctx, req, HttpMethod.POST)) {
                    logout(ctx, req);
                }
            }
            case "/api/session" -> {
                if (expect(ctx, req, HttpMethod.GET)) {
                    session(ctx, req);
                }
            }
            case "/api/cluster" -> read(ctx, req, p -> json(ctx, req, OK, s.state().cluster(s.clock().instant())));
            case "/api/allocation" -> read(ctx, req, p -> json(ctx, req, OK, s.state().allocations()));
            case "/api/config" -> read(ctx, req, p -> json(ctx, req, OK, s.config()));
            case "/api/stats" -> read(ctx, req, p -> stats(ctx, req, q));
            case "/api/decisions" -> read(ctx, req, p -> decisions(ctx, req, q));
            case "/api/events" -> read(ctx, req, p -> events(ctx, req));
            case "/api/overrides" -> {
                if (req.method().equals(HttpMethod.GET)) {
                    read(ctx, req, p -> json(ctx, req, OK, Map.of("overrides", new TreeMap<>(s.state().overrides()).values(),
                            "status", s.state().pinStatuses())));
                } else if (req.method().equals(HttpMethod.POST)) {
                    write(ctx, req, p -> pin(ctx, req, p));
                } else {
                    sendError(ctx, req, METHOD_NOT_ALLOWED, req.method() + " " + path + " (expected: GET or POST)", false);
                }
            }
            default -> {
                if (path.startsWith("/api/overrides/") && path.length() > "/api/overrides/".length()) {
                    if (expect(ctx, req, HttpMethod.DELETE)) {
                        write(ctx, req, p -> unpin(ctx, req, p, path.substring("/api/overrides/".length())));
                    }
                } else {
                    sendError(ctx, req, NOT_FOUND, path + ": no such endpoint", false);
                }
            }
        }
    }

    // ---- authentication ----------------------------------------------------------------------

    private interface Route {
        void handle(Principal principal);
    }

    private void read(ChannelHandlerContext ctx, FullHttpRequest req, Route route) {
        if (!req.method().equals(HttpMethod.GET)) {
            sendError(ctx, req, METHOD_NOT_ALLOWED, req.method() + " " + new QueryStringDecoder(req.uri()).path()
                    + " (expected: GET)", false);
            return;
        }
        authorized(ctx, req, false).ifPresent(route::handle);
    }

    private void write(ChannelHandlerContext ctx, FullHttpRequest req, Route route) {
        authorized(ctx, req, true).ifPresent(route::handle);
    }

    private Optional<Principal> authorized(ChannelHandlerContext ctx, FullHttpRequest req, boolean write) {
        Authenticator.Credentials c = new Authenticator.Credentials(req.headers().get(HttpHeaderNames.AUTHORIZATION),
                sessionId(req).orElse(null), req.headers().get(CSRF_HEADER));
        Authenticator.Outcome o = s.auth().authorize(c, write, s.clock().instant());
        if (o instanceof Authenticator.Outcome.Allowed a) {
            return Optional.of(a.principal());
        }
        Authenticator.Outcome.Denied d = (Authenticator.Outcome.Denied) o;
        FullHttpResponse r = errorResponse(HttpResponseStatus.valueOf(d.status()), d.reason(), null, null);
        if (d.status() == 401) {
            r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"arbiter\"");
        }
        send(ctx, req, r);
        return Optional.empty();
    }

    private static Optional<String> sessionId(FullHttpRequest req) {
        String header = req.headers().get(HttpHeaderNames.COOKIE);
        if (header == null || header.length() > 8192) {
            return Optional.empty();
        }
        try {
            for (Cookie c : ServerCookieDecoder.STRICT.decode(header)) {
                if (c.name().equals(SESSION_COOKIE)) {
                    return Optional.of(c.value());
                }
            }
        } catch (RuntimeException e) {
            return Optional.empty();
        }
        return Optional.empty();
    }

    private void logout(ChannelHandlerContext ctx, FullHttpRequest req) {
        String id = sessionId(req).orElse(null);
        if (!s.auth().logout(id, req.headers().get(CSRF_HEADER), s.clock().instant())) {
            sendError(ctx, req, FORBIDDEN, "CSRF token missing or wrong (expected: X-CSRF-Token from /api/session)", false);
            return;
        }
        FullHttpResponse r = response(NO_CONTENT, new byte[0], null);
        r.headers().add(HttpHeaderNames.SET_COOKIE, clearCookie());
        send(ctx, req, r);
    }

    private void login(ChannelHandlerContext ctx, FullHttpRequest req) {
        JsonNode body = jsonBody(ctx, req);
        if (body == null) {
            return;
        }
        JsonNode user = body.get("user");
        JsonNode password = body.get("password");
        if (user == null || !user.isTextual() || password == null || !password.isTextual()) {
            sendError(ctx, req, BAD_REQUEST, (user == null || !user.isTextual() ? "user" : "password")
                    + ": missing (expected: {\"user\": \"...\", \"password\": \"...\"})",
                    user == null || !user.isTextual() ? "user" : "password", "a string");
            return;
        }
        String name = user.asText();
        String address = clientAddress(ctx);
        Optional<LoginThrottle.Refusal> refused = s.auth().throttled(name, address, s.clock().instant());
        if (refused.isPresent()) {
            throttled(ctx, req, refused.get(), name, address);
            return;
        }
        if (s.loginsInFlight().incrementAndGet() > MAX_CONCURRENT_LOGINS) {
            s.loginsInFlight().decrementAndGet();
            FullHttpResponse r = errorResponse(TOO_MANY_REQUESTS, "too many logins at once (expected: retry later)", null, null);
            r.headers().set(HttpHeaderNames.RETRY_AFTER, "1");
            send(ctx, req, r);
            return;
        }
        req.retain();
        CompletableFuture.supplyAsync(() -> s.auth().login(name, password.asText().toCharArray(), address,
                s.clock().instant()), s.blocking()).whenComplete((result, err) -> ctx.executor().execute(() -> {
                    s.loginsInFlight().decrementAndGet();
                    try {
                        if (err != null) {
                            LOG.warn("console login: checking user={} address={} failed", printable(name), address, err);
                            send(ctx, req, errorResponse(UNAUTHORIZED, "wrong user or password", null, null));
                            return;
                        }
                        if (result instanceof Authenticator.LoginResult.Throttled t) {
                            throttled(ctx, req, t.refusal(), name, address);
                            return;
                        }
                        if (result instanceof Authenticator.LoginResult.Failure f) {
                            failed(ctx, req, f.failure(), name, address);
                            return;
                        }
                        Authenticator.Session ss = ((Authenticator.LoginResult.Success) result).session();
                        LOG.info("console login: user={} address={}", printable(name), address);
                        FullHttpResponse r = jsonResponse(OK, sessionBody(ss.principal(), ss.csrfToken(), ss.expires()));
                        DefaultCookie cookie = new DefaultCookie(SESSION_COOKIE, ss.id());
                        cookie.setHttpOnly(true);
                        cookie.setPath("/");
                        cookie.setSameSite(io.netty.handler.codec.http.cookie.CookieHeaderNames.SameSite.Strict);
                        r.headers().add(HttpHeaderNames.SET_COOKIE, ServerCookieEncoder.STRICT.encode(cookie));
                        send(ctx, req, r);
                    } finally {
                        req.release();
                    }
                }));
    }

    /** A wrong user or password: logged with the counts (never the password), 401, Retry-After when it must wait. */
    private void failed(ChannelHandlerContext ctx, FullHttpRequest req, LoginThrottle.Failure f, String user,
                        String address) {
        long wait = f.retryAfterSeconds();
        LOG.warn("console login failed: user={} address={} failures: user {}, address {}{}", printable(user), address,
                f.userFailures(), f.addressFailures(), wait > 0 ? "; next attempt in " + wait + " s" : "");
        for (String key : f.lockouts()) {
            LOG.warn("console login locked out: {} for {} s after {} failures (from address {})", printable(key), wait,
                    key.startsWith("user ") ? f.userFailures() : f.addressFailures(), address);
        }
        FullHttpResponse r = errorResponse(UNAUTHORIZED, "wrong user or password", null, null);
        if (wait > 0) {
            r.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(wait));
        }
        send(ctx, req, r);
    }

    /** An attempt refused unchecked: 429 + Retry-After; logged once per block of a key. */
    private void throttled(ChannelHandlerContext ctx, FullHttpRequest req, LoginThrottle.Refusal r, String user,
                           String address) {
        long wait = r.retryAfterSeconds();
        if (r.firstRefusal()) {
            LOG.warn("console login refused unchecked: user={} address={}: {} {} after {} failures, {} s left", printable(user),
                    address, printable(r.key()), r.lockedOut() ? "locked out" : "slowed down", r.failures(), wait);
        }
        String why = r.lockedOut() ? r.key() + " is locked out after " + r.failures() + " failed logins"
                : "too many failed logins for " + r.key();
        FullHttpResponse resp = errorResponse(TOO_MANY_REQUESTS, clip(why) + " (expected: retry after " + wait + " s)",
                null, null);
        resp.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(wait));
        send(ctx, req, resp);
    }

    private static String clientAddress(ChannelHandlerContext ctx) {
        return ctx.channel().remoteAddress() instanceof java.net.InetSocketAddress a && a.getAddress() != null
                ? a.getAddress().getHostAddress() : String.valueOf(ctx.channel().remoteAddress());
    }

    /** A client-chosen string made safe for one log line: control characters replaced, at most 64 characters. */
    static String printable(String text) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < text.length() && b.length() < 64; i++) {
            char c = text.charAt(i);
            b.append(c < 0x20 || c == 0x7f || Character.isISOControl(c) ? '?' : c);
        }
        return text.length() > 64 ? b + "…" : b.toString();
    }

    private void session(ChannelHandlerContext ctx, FullHttpRequest req) {
        Optional<Authenticator.Session> ss = sessionId(req).flatMap(id -> s.auth().session(id, s.clock().instant()));
        if (ss.isPresent()) {
            json(ctx, req, OK, sessionBody(ss.get().principal(), ss.get().csrfToken(), ss.get().expires()));
            return;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", null);
        body.put("publicRead", s.auth().publicRead());
        body.put("passwordLogin", s.auth().hasUsers());
        json(ctx, req, OK, body);
    }

    private Map<String, Object> sessionBody(Principal p, String csrf, Instant expires) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", p.name());
        body.put("role", p.role().wireName());
        body.put("csrf", csrf);
        body.put("expires", expires);
        body.put("publicRead", s.auth().publicRead());
        body.put("passwordLogin", s.auth().hasUsers());
        return body;
    }

    private static String clearCookie() {
        DefaultCookie cookie = new DefaultCookie(SESSION_COOKIE, "");
        cookie.setHttpOnly(true);
        cookie.setPath("/");
        cookie.setMaxAge(0);
        return ServerCookieEncoder.STRICT.encode(cookie);
    }

    // ---- reads -------------------------------------------------------------------------------

    private void stats(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder q) {
        Instant since = null;
        List<String> p = q.parameters().get("since");
        if (p != null && !p.isEmpty() && !p.get(0).isEmpty()) {
            try {
                since = Instant.parse(p.get(0));
            } catch (DateTimeParseException e) {
                sendError(ctx, req, BAD_REQUEST, "since: " + clip(p.get(0)) + " (expected: an ISO-8601 instant such as "
                        + "2026-01-01T00:00:00Z)", "since", "an ISO-8601 instant");
                return;
            }
        }
        json(ctx, req, OK, Map.of("stats", s.state().stats(since)));
    }

    private void decisions(ChannelHandlerContext ctx, FullHttpRequest req, QueryStringDecoder q) {
        int limit = 50;
        List<String> p = q.parameters().get("limit");
        if (p != null && !p.isEmpty()) {
            try {
                limit = Integer.parseInt(p.get(0));
            } catch (NumberFormatException e) {
                limit = -1;
            }
            if (limit < 1 || limit > MAX_DECISIONS) {
                sendError(ctx, req, BAD_REQUEST, "limit: " + clip(p.get(0)) + " (expected: a whole number from 1 to "
                        + MAX_DECISIONS + ")", "limit", "a whole number from 1 to " + MAX_DECISIONS);
                return;
            }
        }
        json(ctx, req, OK, Map.of("decisions", s.state().decisions(limit)));
    }

    private void events(ChannelHandlerContext ctx, FullHttpRequest req) {
        if (!s.events().reserve(ctx.channel())) {
            // Over the cap: a 503 (EventSource does not retry it by itself; the page backs off), not a 200 that closes.
            FullHttpResponse r = errorResponse(SERVICE_UNAVAILABLE, "event streams: " + s.events().maxClients()
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
        ctx.channel().attr(STREAMING).set(true);
        ctx.write(head);
        ctx.writeAndFlush(new DefaultHttpContent(Unpooled.copiedBuffer("retry: 2000\n: connected\n\n", StandardCharsets.US_ASCII)));
    }

    // ---- writes ------------------------------------------------------------------------------

    private void pin(ChannelHandlerContext ctx, FullHttpRequest req, Principal p) {
        JsonNode body = jsonBody(ctx, req);
        if (body == null) {
            return;
        }
        OverrideRequest.Result r = OverrideRequest.read(body, s.state().config(), s.state().overrides().values(), p.name(),
                s.clock().instant());
        if (r instanceof OverrideRequest.Result.Invalid i) {
            sendError(ctx, req, BAD_REQUEST, i.message(), i.field(), i.rule());
            return;
        }
        OperatorOverride o = ((OverrideRequest.Result.Valid) r).override();
        publish(ctx, req, () -> s.overrides().publish(o), () -> {
            s.feed().onOverride(o.id(), o);
            FullHttpResponse resp = jsonResponse(CREATED, o);
            resp.headers().set(HttpHeaderNames.LOCATION, "/api/overrides/" + o.id());
            return resp;
        });
    }

    private void unpin(ChannelHandlerContext ctx, FullHttpRequest req, Principal p, String id) {
        // QueryStringDecoder.path() is already decoded
        OperatorOverride held = s.state().override(id);
        if (held == null) {
            sendError(ctx, req, NOT_FOUND, "override " + clip(id) + ": not in force (expected: an id from GET /api/overrides)",
                    false);
            return;
        }
        OperatorOverride off = new OperatorOverride(Message.VERSION, s.clock().instant(), id, held.kind(), held.gateway(),
                held.cls(), held.server(), held.value(), held.phi(), held.alpha(), held.beta(), held.state(), false, p.name());
        // active:false first, so a reader that never sees the tombstone (compaction) still drops the pin.
        publish(ctx, req, () -> s.overrides().publish(off).thenCompose(v -> s.overrides().delete(id)), () -> {
            s.feed().onOverride(id, null);
            return jsonResponse(OK, Map.of("id", id, "active", false));
        });
    }

    private interface ResponseSupplier {
        FullHttpResponse get();
    }

    private void publish(ChannelHandlerContext ctx, FullHttpRequest req,
                         java.util.function.Supplier<CompletableFuture<Void>> action, ResponseSupplier onDone) {
        req.retain();
        CompletableFuture.supplyAsync(action, s.blocking()).thenCompose(f -> f)
                .orTimeout(PUBLISH_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)
                .whenComplete((v, err) -> ctx.executor().execute(() -> {
                    try {
                        if (err != null) {
                            Throwable cause = err.getCause() != null ? err.getCause() : err;
                            sendError(ctx, req, SERVICE_UNAVAILABLE, "overrides topic: not acknowledged ("
                                    + cause.getClass().getSimpleName() + ")", false);
                        } else {
                            send(ctx, req, onDone.get());
                        }
                    } catch (RuntimeException e) {
                        LOG.warn("publishing an override", e);
                        sendError(ctx, req, INTERNAL_SERVER_ERROR, "internal error: " + e.getClass().getSimpleName(), false);
                    } finally {
                        req.release();
                    }
                }));
    }

    private JsonNode jsonBody(ChannelHandlerContext ctx, FullHttpRequest req) {
        String type = req.headers().get(HttpHeaderNames.CONTENT_TYPE);
        if (type == null || !type.toLowerCase(java.util.Locale.ROOT).startsWith("application/json")) {
            sendError(ctx, req, UNSUPPORTED_MEDIA_TYPE, "Content-Type: " + clip(String.valueOf(type))
                    + " (expected: application/json)", false);
            return null;
        }
        try (ByteBufInputStream in = new ByteBufInputStream(req.content().duplicate())) {
            JsonNode n = s.mapper().readTree((java.io.InputStream) in);
            if (n != null && n.isObject()) {
                return n;
            }
            sendError(ctx, req, BAD_REQUEST, "body: " + (n == null || n.isMissingNode() ? "empty" : n.getNodeType().toString()
                    .toLowerCase(java.util.Locale.ROOT)) + " (expected: a JSON object)", "body", "a JSON object");
        } catch (java.io.IOException | RuntimeException e) {
            sendError(ctx, req, BAD_REQUEST, "body: not JSON (expected: a JSON object)", "body", "a JSON object");
        }
        return null;
    }

    private boolean expect(ChannelHandlerContext ctx, FullHttpRequest req, HttpMethod method) {
        if (req.method().equals(method)) {
            return true;
        }
        sendError(ctx, req, METHOD_NOT_ALLOWED, req.method() + " " + new QueryStringDecoder(req.uri()).path()
                + " (expected: " + method + ")", false);
        return false;
    }

    // ---- responses ---------------------------------------------------------------------------

    private void json(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, Object body) {
        send(ctx, req, jsonResponse(status, body));
    }

    private FullHttpResponse jsonResponse(HttpResponseStatus status, Object body) {
        byte[] bytes;
        try {
            bytes = s.mapper().writeValueAsBytes(body);
        } catch (java.io.IOException e) {
            throw new IllegalStateException("cannot serialise a response", e);
        }
        FullHttpResponse r = response(status, bytes, "application/json");
        r.headers().set(HttpHeaderNames.CACHE_CONTROL, "no-store");
        return r;
    }

    private FullHttpResponse errorResponse(HttpResponseStatus status, String error, String field, String rule) {
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("status", status.code());
        body.put("error", error);
        if (field != null) {
            body.put("field", field);
            body.put("rule", rule);
        }
        return jsonResponse(status, body);
    }

    private void sendError(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, String error,
                           String field, String rule) {
        send(ctx, req, errorResponse(status, error, field, rule));
    }

    private void sendError(ChannelHandlerContext ctx, FullHttpRequest req, HttpResponseStatus status, String error,
                           boolean close) {
        FullHttpResponse r = errorResponse(status, error, null, null);
        if (close) {
            HttpUtil.setKeepAlive(r, false);
        }
        send(ctx, req, r);
    }

    private static FullHttpResponse response(HttpResponseStatus status, byte[] body, String contentType) {
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, Unpooled.wrappedBuffer(body));
        if (contentType != null) {
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, contentType);
        }
        HttpUtil.setContentLength(r, body.length);
        securityHeaders(r.headers());
        return r;
    }

    private static void securityHeaders(HttpHeaders h) {
        h.set("X-Content-Type-Options", "nosniff");
        h.set("X-Frame-Options", "DENY");
        h.set("Referrer-Policy", "no-referrer");
    }

    private static void send(ChannelHandlerContext ctx, FullHttpRequest req, FullHttpResponse r) {
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

    private static String clip(String s) {
        return s.length() > 80 ? s.substring(0, 80) + "…" : s;
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
