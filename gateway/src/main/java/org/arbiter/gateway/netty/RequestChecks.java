package org.arbiter.gateway.netty;

import io.netty.handler.codec.TooLongFrameException;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import java.util.List;
import java.util.Locale;
import org.arbiter.gateway.classify.PathNormalizer;

/*
 * RFC 9112 / RFC 9110 checks a request passes before it is classified, and the rewriting of its
 * target into the form that is classified and forwarded. In order:
 *
 *   version   HTTP/1.0 and HTTP/1.1 only; anything else (HTTP/2.0 - which is how the h2 preface
 *             "PRI * HTTP/2.0" decodes -, HTTP/0.9, HTTP/9.9) gets 505 (RFC 9110 §15.6.6).
 *   method    CONNECT (a tunnel), TRACE (reflects headers) and PRI (RFC 9113 §11.6: "never used
 *             by an actual client", only seen when an h2 preface is misread) get 405 with Allow.
 *   Host      HTTP/1.1 without Host, any request with two Host lines, or a Host that is not
 *             host[:port], gets 400 (RFC 9112 §3.2).
 *   target    origin-form "/path?query"; absolute-form "http(s)://authority/path?query" whose
 *             authority must equal Host (scheme default ports applied), without userinfo, else
 *             400; asterisk-form "*" for OPTIONS only. The path is normalised (PathNormalizer);
 *             the request is rewritten to origin-form with the normalised path, so the backend
 *             sees what was classified. The query is forwarded unchanged.
 *
 * Stateless and thread-safe.
 */

/** The strictness checks of the gateway's front end. Stateless and thread-safe. */
final class RequestChecks {

    /** Why a request is answered by the gateway itself. */
    record Refusal(HttpResponseStatus status, String reason) {
    }

    static final String ALLOW = "GET, HEAD, POST, PUT, DELETE, OPTIONS, PATCH";
    /** The 503 reason of a body refused because {@code gateway.bodyBudget} is spent. */
    static final String BODY_BUDGET = "bodyBudget";

    private RequestChecks() {
    }

    /**
     * Checks {@code req}; when it passes, rewrites its URI to origin-form with the normalised path
     * (and, for an HTTP/1.0 absolute-form request without Host, sets Host from the target).
     *
     * @return null when the request may go on, else what to answer
     */
    /**
     * The answer to a request the codec or the {@link RequestAggregator} marked as failed: 431, 414,
     * 413 (a body over maxBodyBytes), 503 (the body budget is spent), 417 (an unknown
     * {@code Expect}), else 400.
     */
    static Refusal ofDecoderFailure(Throwable cause) {
        if (cause instanceof TooLongHttpHeaderException) {
            return new Refusal(HttpResponseStatus.REQUEST_HEADER_FIELDS_TOO_LARGE, "headerTooLarge");
        } else if (cause instanceof TooLongHttpLineException) {
            return new Refusal(HttpResponseStatus.REQUEST_URI_TOO_LONG, "requestLineTooLong");
        } else if (cause instanceof TooLongFrameException) {
            return new Refusal(HttpResponseStatus.REQUEST_ENTITY_TOO_LARGE, "bodyTooLarge");
        } else if (cause instanceof RequestAggregator.BudgetSpent) {
            return new Refusal(HttpResponseStatus.SERVICE_UNAVAILABLE, BODY_BUDGET);
        } else if (cause instanceof RequestAggregator.ExpectationFailed) {
            return new Refusal(HttpResponseStatus.EXPECTATION_FAILED, "expectationFailed");
        }
        return new Refusal(HttpResponseStatus.BAD_REQUEST, "malformedRequest");
    }

    static Refusal admit(HttpRequest req) {
        HttpVersion v = req.protocolVersion();
        if (!v.equals(HttpVersion.HTTP_1_1) && !v.equals(HttpVersion.HTTP_1_0)) {
            return new Refusal(HttpResponseStatus.HTTP_VERSION_NOT_SUPPORTED,
                    "PRI".equals(req.method().name()) ? "http2Preface" : "unsupportedVersion");
        }
        if (req.method().equals(HttpMethod.CONNECT) || req.method().equals(HttpMethod.TRACE)
                || "PRI".equals(req.method().name())) {  // PRI in any form: found by fuzzing
            return new Refusal(HttpResponseStatus.METHOD_NOT_ALLOWED, "methodNotAllowed");
        }
        List<String> hosts = req.headers().getAll(HttpHeaderNames.HOST);
        if (hosts.size() > 1) {
            return new Refusal(HttpResponseStatus.BAD_REQUEST, "duplicateHost");
        }
        String host = hosts.isEmpty() ? null : hosts.get(0).trim();
        if (host == null && v.equals(HttpVersion.HTTP_1_1)) {
            return new Refusal(HttpResponseStatus.BAD_REQUEST, "missingHost");
        }
        if (host != null && !(host.isEmpty() || validAuthority(host))) {
            return new Refusal(HttpResponseStatus.BAD_REQUEST, "badHost");
        }
        String uri = req.uri();
        if (uri.equals("*")) {
            return req.method().equals(HttpMethod.OPTIONS) ? null : new Refusal(HttpResponseStatus.BAD_REQUEST, "badTarget");
        }
        String rest = uri;
        if (!uri.startsWith("/")) {
            int sep = uri.indexOf("://");
            String scheme = sep < 0 ? "" : uri.substring(0, sep).toLowerCase(Locale.ROOT);
            if (!scheme.equals("http") && !scheme.equals("https")) {
                return new Refusal(HttpResponseStatus.BAD_REQUEST, "badTarget");
            }
            int end = sep + 3;
            while (end < uri.length() && "/?#".indexOf(uri.charAt(end)) < 0) {
                end++;
            }
            String authority = uri.substring(sep + 3, end);
            if (authority.isEmpty() || authority.indexOf('@') >= 0 || !validAuthority(authority)) {
                return new Refusal(HttpResponseStatus.BAD_REQUEST, "badTarget");
            }
            int defaultPort = scheme.equals("https") ? 443 : 80;
            if (host == null) {
                req.headers().set(HttpHeaderNames.HOST, authority);
            } else if (!canonical(authority, defaultPort).equals(canonical(host, defaultPort))) {
                return new Refusal(HttpResponseStatus.BAD_REQUEST, "hostMismatch");
            }
            rest = uri.substring(end);
            if (rest.isEmpty() || rest.charAt(0) == '?') {
                rest = "/" + rest;
            }
        }
        int q = rest.indexOf('?');
        String path = q < 0 ? rest : rest.substring(0, q);
        String query = q < 0 ? "" : rest.substring(q);
        if (query.indexOf('#') >= 0 || hasControl(query)) {
            return new Refusal(HttpResponseStatus.BAD_REQUEST, "badTarget");
        }
        String normal;
        try {
            normal = PathNormalizer.normalize(path);
        } catch (IllegalArgumentException e) {
            return new Refusal(HttpResponseStatus.BAD_REQUEST, "badPath");
        }
        String target = normal + query;
        if (!target.equals(uri)) {
            req.setUri(target);
        }
        return null;
    }

    /**
     * host[:port] where host is a reg-name ({@code [A-Za-z0-9._~!$&'()*+,;=%-]+}, which an IPv4 address is too)
     * or a bracketed IPv6 literal ({@code \[[0-9A-Fa-f:.]+\]}), and port 0-65535 in at most five digits, or
     * empty. Character loops, no regular expression and no substring: it runs on every request.
     */
    static boolean validAuthority(String a) {
        int n = a.length();
        int portStart;
        if (n > 0 && a.charAt(0) == '[') {
            int close = a.indexOf(']');
            if (close < 2) {
                return false;
            }
            for (int i = 1; i < close; i++) {
                char c = a.charAt(i);
                if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' || c == ':' || c == '.')) {
                    return false;
                }
            }
            if (close + 1 == n) {
                return true;
            }
            if (a.charAt(close + 1) != ':') {
                return false;
            }
            portStart = close + 2;
        } else {
            int colon = a.indexOf(':');
            int hostEnd = colon < 0 ? n : colon;
            if (hostEnd == 0) {
                return false;
            }
            for (int i = 0; i < hostEnd; i++) {
                if (!regName(a.charAt(i))) {
                    return false;
                }
            }
            if (colon < 0) {
                return true;
            }
            portStart = colon + 1;
        }
        int digits = n - portStart;
        if (digits > 5) {
            return false;
        }
        int port = 0;
        for (int i = portStart; i < n; i++) {
            char c = a.charAt(i);
            if (c < '0' || c > '9') {
                return false;
            }
            port = port * 10 + (c - '0');
        }
        return port <= 65535;
    }

    /** RFC 3986's unreserved, sub-delims and the percent sign. */
    private static boolean regName(char c) {
        return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                || c < 128 && "._~!$&'()*+,;=%-".indexOf(c) >= 0;
    }

    /** Lower-case host and explicit port, for comparing a target's authority with Host. */
    private static String canonical(String authority, int defaultPort) {
        String a = authority.toLowerCase(Locale.ROOT);
        int colon = a.lastIndexOf(':');
        if (colon >= 0 && colon > a.lastIndexOf(']')) {
            String p = a.substring(colon + 1);
            return a.substring(0, colon) + ":" + (p.isEmpty() ? defaultPort : Integer.parseInt(p));
        }
        return a + ":" + defaultPort;
    }

    private static boolean hasControl(String s) {
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                return true;
            }
        }
        return false;
    }
}
