package org.arbiter.console.netty;

import static io.netty.handler.codec.http.HttpResponseStatus.BAD_REQUEST;
import static io.netty.handler.codec.http.HttpResponseStatus.FORBIDDEN;
import static io.netty.handler.codec.http.HttpResponseStatus.NO_CONTENT;
import static io.netty.handler.codec.http.HttpResponseStatus.OK;
import static io.netty.handler.codec.http.HttpResponseStatus.TOO_MANY_REQUESTS;
import static io.netty.handler.codec.http.HttpResponseStatus.UNAUTHORIZED;
import static org.arbiter.console.netty.AccessGate.CSRF_HEADER;
import static org.arbiter.console.netty.AccessGate.SESSION_COOKIE;
import static org.arbiter.console.netty.AccessGate.sessionId;
import static org.arbiter.console.netty.Replies.clip;
import static org.arbiter.console.netty.Replies.send;

import com.fasterxml.jackson.databind.JsonNode;
import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.cookie.CookieHeaderNames;
import io.netty.handler.codec.http.cookie.DefaultCookie;
import io.netty.handler.codec.http.cookie.ServerCookieEncoder;
import io.netty.handler.ssl.SslHandler;
import java.net.InetSocketAddress;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import org.arbiter.console.auth.Authenticator;
import org.arbiter.console.auth.ClientAddress;
import org.arbiter.console.auth.LoginThrottle;
import org.arbiter.console.auth.Principal;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code POST /api/login}, {@code POST /api/logout} and {@code GET /api/session}: the session
 * cookie, the CSRF token, throttled logins (429 + Retry-After, refused on the event loop without a
 * password check) and the login log. The {@link Authenticator} decides; this class speaks HTTP.
 *
 * <p>Called on a connection's event loop; the PBKDF2 check runs on {@code blocking} and its answer
 * is handed back to the event loop. At most {@value #MAX_CONCURRENT_LOGINS} checks run at once.
 */
final class SessionEndpoints {

    // The login log keeps the handler's logger name: docs/operations.md tells operators to watch it.
    private static final Logger LOG = LoggerFactory.getLogger(ConsoleHttpHandler.class);
    private static final int MAX_CONCURRENT_LOGINS = 4;
    private static final String X_FORWARDED_FOR = "X-Forwarded-For";

    private final ConsoleHttpHandler.Shared s;
    private final Replies replies;

    SessionEndpoints(ConsoleHttpHandler.Shared shared, Replies replies) {
        this.s = shared;
        this.replies = replies;
    }

    void logout(ChannelHandlerContext ctx, FullHttpRequest req) {
        String id = sessionId(req).orElse(null);
        if (!s.auth().logout(id, req.headers().get(CSRF_HEADER), s.clock().instant())) {
            replies.sendError(ctx, req, FORBIDDEN, "CSRF token missing or wrong (expected: X-CSRF-Token from /api/session)", false);
            return;
        }
        FullHttpResponse r = Replies.response(NO_CONTENT, new byte[0], null);
        r.headers().add(HttpHeaderNames.SET_COOKIE, clearCookie(client(ctx, req).secure()));
        send(ctx, req, r);
    }

    void login(ChannelHandlerContext ctx, FullHttpRequest req) {
        JsonNode body = replies.jsonBody(ctx, req);
        if (body == null) {
            return;
        }
        JsonNode user = body.get("user");
        JsonNode password = body.get("password");
        if (user == null || !user.isTextual() || password == null || !password.isTextual()) {
            replies.sendError(ctx, req, BAD_REQUEST, (user == null || !user.isTextual() ? "user" : "password")
                    + ": missing (expected: {\"user\": \"...\", \"password\": \"...\"})",
                    user == null || !user.isTextual() ? "user" : "password", "a string");
            return;
        }
        String name = user.asText();
        ClientAddress client = client(ctx, req);
        String address = client.address();
        Optional<LoginThrottle.Refusal> refused = s.auth().throttled(name, address, s.clock().instant());
        if (refused.isPresent()) {
            throttled(ctx, req, refused.get(), name, address);
            return;
        }
        if (s.loginsInFlight().incrementAndGet() > MAX_CONCURRENT_LOGINS) {
            s.loginsInFlight().decrementAndGet();
            FullHttpResponse r = replies.errorResponse(TOO_MANY_REQUESTS, "too many logins at once (expected: retry later)", null, null);
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
                            send(ctx, req, replies.errorResponse(UNAUTHORIZED, "wrong user or password", null, null));
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
                        FullHttpResponse r = replies.jsonResponse(OK, sessionBody(ss.principal(), ss.csrfToken(), ss.expires()));
                        DefaultCookie cookie = new DefaultCookie(SESSION_COOKIE, ss.id());
                        cookie.setHttpOnly(true);
                        cookie.setPath("/");
                        cookie.setSameSite(CookieHeaderNames.SameSite.Strict);
                        cookie.setSecure(client.secure());  // over TLS, directly or via a trusted proxy
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
        FullHttpResponse r = replies.errorResponse(UNAUTHORIZED, "wrong user or password", null, null);
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
        FullHttpResponse resp = replies.errorResponse(TOO_MANY_REQUESTS, clip(why) + " (expected: retry after " + wait + " s)",
                null, null);
        resp.headers().set(HttpHeaderNames.RETRY_AFTER, Long.toString(wait));
        send(ctx, req, resp);
    }

    /** The client and whether it came over TLS: the peer, or what a trusted proxy says ({@link ClientAddress}). */
    private ClientAddress client(ChannelHandlerContext ctx, FullHttpRequest req) {
        boolean tls = ctx.pipeline().get(SslHandler.class) != null;
        if (!(ctx.channel().remoteAddress() instanceof InetSocketAddress a) || a.getAddress() == null) {
            return new ClientAddress(String.valueOf(ctx.channel().remoteAddress()), tls);
        }
        return ClientAddress.of(a.getAddress(), tls, req.headers().getAll(X_FORWARDED_FOR),
                req.headers().getAll("X-Forwarded-Proto"), s.auth().trustedProxies());
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

    void session(ChannelHandlerContext ctx, FullHttpRequest req) {
        Optional<Authenticator.Session> ss = sessionId(req).flatMap(id -> s.auth().session(id, s.clock().instant()));
        if (ss.isPresent()) {
            replies.json(ctx, req, OK, sessionBody(ss.get().principal(), ss.get().csrfToken(), ss.get().expires()));
            return;
        }
        Map<String, Object> body = new LinkedHashMap<>();
        body.put("user", null);
        body.put("publicRead", s.auth().publicRead());
        body.put("passwordLogin", s.auth().hasUsers());
        replies.json(ctx, req, OK, body);
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

    private static String clearCookie(boolean secure) {
        DefaultCookie cookie = new DefaultCookie(SESSION_COOKIE, "");
        cookie.setHttpOnly(true);
        cookie.setSecure(secure);
        cookie.setPath("/");
        cookie.setMaxAge(0);
        return ServerCookieEncoder.STRICT.encode(cookie);
    }
}
