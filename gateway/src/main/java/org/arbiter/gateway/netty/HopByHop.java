package org.arbiter.gateway.netty;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaders;
import java.util.ArrayList;
import java.util.List;

/**
 * Hop-by-hop header handling (RFC 9110 §7.6.1): Connection, the fields it names, and
 * Proxy-Connection, Keep-Alive, TE, Transfer-Encoding, Upgrade and Trailer are removed before a
 * message is forwarded. Stateless.
 */
final class HopByHop {

    private static final List<CharSequence> FIXED = List.of(HttpHeaderNames.CONNECTION, "proxy-connection",
            HttpHeaderNames.KEEP_ALIVE, HttpHeaderNames.TE, HttpHeaderNames.TRANSFER_ENCODING, HttpHeaderNames.UPGRADE,
            HttpHeaderNames.TRAILER);

    private HopByHop() {
    }

    static void strip(HttpHeaders headers) {
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
