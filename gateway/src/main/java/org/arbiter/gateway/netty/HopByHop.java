package org.arbiter.gateway.netty;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.util.AsciiString;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;

/**
 * Hop-by-hop header handling (RFC 9110 §7.6.1): Connection, the fields it names, and
 * Proxy-Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade and Trailer are removed before a
 * message is forwarded. Stateless.
 */
final class HopByHop {

    private static final AsciiString PROXY_CONNECTION = AsciiString.cached("proxy-connection");
    private static final List<CharSequence> FIXED = List.of(HttpHeaderNames.CONNECTION, PROXY_CONNECTION,
            HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.TE, HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE,
            HttpHeaderNames.TRAILER);
    static final AsciiString FORWARDED = AsciiString.cached("Forwarded"); // as the gateway writes them
    static final AsciiString X_FORWARDED_FOR = AsciiString.cached("X-Forwarded-For");
    static final AsciiString X_FORWARDED_HOST = AsciiString.cached("X-Forwarded-Host");
    static final AsciiString X_FORWARDED_PROTO = AsciiString.cached("X-Forwarded-Proto");
    private static final AsciiString HTTP2_EXTENSION = AsciiString.cached("x-http2-");

    private HopByHop() {
    }

    /**
     * Whether {@code headers} hold a field the gateway removes or rewrites on its way through: a hop-by-hop one,
     * HTTP/2's extension fields ({@code x-http2-*}), Forwarded or X-Forwarded-*. One pass over the fields, no
     * hashing: most messages hold none, and then the removals (about twenty hashed lookups) are skipped.
     */
    static boolean anyListed(HttpHeaders headers) {
        for (Iterator<Map.Entry<CharSequence, CharSequence>> i = headers.iteratorCharSequence(); i.hasNext(); ) {
            if (listed(i.next().getKey())) {
                return true;
            }
        }
        return false;
    }

    private static boolean listed(CharSequence n) {
        return n.length() > 8 && AsciiString.regionMatches(n, true, 0, HTTP2_EXTENSION, 0, 8) || switch (n.length()) {
            case 2 -> AsciiString.contentEqualsIgnoreCase(n, HttpHeaderNames.TE);
            case 7 -> AsciiString.contentEqualsIgnoreCase(n, HttpHeaderNames.TRAILER)
                    || AsciiString.contentEqualsIgnoreCase(n, HttpHeaderNames.UPGRADE);
            case 9 -> AsciiString.contentEqualsIgnoreCase(n, FORWARDED);
            case 10 -> AsciiString.contentEqualsIgnoreCase(n, HttpHeaderNames.CONNECTION)
                    || AsciiString.contentEqualsIgnoreCase(n, HttpHeaderNames.KEEP_ALIVE);
            case 15 -> AsciiString.contentEqualsIgnoreCase(n, X_FORWARDED_FOR);
            case 16 -> AsciiString.contentEqualsIgnoreCase(n, X_FORWARDED_HOST)
                    || AsciiString.contentEqualsIgnoreCase(n, PROXY_CONNECTION);
            case 17 -> AsciiString.contentEqualsIgnoreCase(n, X_FORWARDED_PROTO)
                    || AsciiString.contentEqualsIgnoreCase(n, HttpHeaderNames.TRANSFER_ENCODING);
            default -> false;
        };
    }

    static void strip(HttpHeaders headers) {
        if (!anyListed(headers)) {
            return;
        }
        stripListed(headers);
    }

    /** {@link #strip} once {@link #anyListed} said yes. */
    static void stripListed(HttpHeaders headers) {
        List<String> named = null;
        for (String v : headers.getAll(HttpHeaderNames.CONNECTION)) {
            for (String token : v.split(",")) {
                String t = token.trim();
                if (!t.isEmpty()) {
                    if (named == null) {
                        named = new ArrayList<>();
                    }
                    named.add(t);
                }
            }
        }
        if (named != null) {
            for (String n : named) {
                headers.remove(n);
            }
        }
        for (CharSequence n : FIXED) {
            headers.remove(n);
        }
    }
}
