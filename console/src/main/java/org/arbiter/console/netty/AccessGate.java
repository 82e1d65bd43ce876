package org.arbiter.console.netty;

import static io.netty.handler.codec.http.HttpResponseStatus.METHOD_NOT_ALLOWED;

import io.netty.channel.ChannelHandlerContext;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.QueryStringDecoder;
import io.netty.handler.codec.http.cookie.Cookie;
import io.netty.handler.codec.http.cookie.ServerCookieDecoder;
import java.time.Clock;
import java.util.Optional;
import org.arbiter.console.auth.Authenticator;
import org.arbiter.console.auth.Principal;

/**
 * Who may call a route: reads the bearer token, the session cookie and the CSRF header of a
 * request, asks the {@link Authenticator} (which decides) and answers 401/403 itself when it
 * refuses; checks the method (405 otherwise).
 *
 * <p>Stateless; called on a connection's event loop.
 */
final class AccessGate {

    static final String SESSION_COOKIE = "arbiter_session";
    static final String CSRF_HEADER = "X-CSRF-Token";

    /** A route that runs once the caller is known. */
    interface Route {
        void handle(Principal principal);
    }

    private final Authenticator auth;
    private final Clock clock;
    private final Replies replies;

    AccessGate(Authenticator auth, Clock clock, Replies replies) {
        this.auth = auth;
        this.clock = clock;
        this.replies = replies;
    }

    /** A GET that any reader may make (405 for another method). */
    void read(ChannelHandlerContext ctx, FullHttpRequest req, Route route) {
        if (!req.method().equals(HttpMethod.GET)) {
            replies.sendError(ctx, req, METHOD_NOT_ALLOWED, req.method() + " " + new QueryStringDecoder(req.uri()).path()
                    + " (expected: GET)", false);
            return;
        }
        authorized(ctx, req, false).ifPresent(route::handle);
    }

    /** A change, which needs an admin (and the CSRF token with a session). */
    void write(ChannelHandlerContext ctx, FullHttpRequest req, Route route) {
        authorized(ctx, req, true).ifPresent(route::handle);
    }

    /** True if the request uses {@code method}; otherwise answers 405 and returns false. */
    boolean expect(ChannelHandlerContext ctx, FullHttpRequest req, HttpMethod method) {
        if (req.method().equals(method)) {
            return true;
        }
        replies.sendError(ctx, req, METHOD_NOT_ALLOWED, req.method() + " " + new QueryStringDecoder(req.uri()).path()
                + " (expected: " + method + ")", false);
        return false;
    }

    private Optional<Principal> authorized(ChannelHandlerContext ctx, FullHttpRequest req, boolean write) {
        Authenticator.Credentials c = new Authenticator.Credentials(req.headers().get(HttpHeaderNames.AUTHORIZATION),
                sessionId(req).orElse(null), req.headers().get(CSRF_HEADER));
        Authenticator.Outcome o = auth.authorize(c, write, clock.instant());
        if (o instanceof Authenticator.Outcome.Allowed a) {
            return Optional.of(a.principal());
        }
        Authenticator.Outcome.Denied d = (Authenticator.Outcome.Denied) o;
        FullHttpResponse r = replies.errorResponse(HttpResponseStatus.valueOf(d.status()), d.reason(), null, null);
        if (d.status() == 401) {
            r.headers().set(HttpHeaderNames.WWW_AUTHENTICATE, "Bearer realm=\"arbiter\"");
        }
        Replies.send(ctx, req, r);
        return Optional.empty();
    }

    /** The session cookie's value, if the request carries one that decodes. */
    static Optional<String> sessionId(FullHttpRequest req) {
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
}
