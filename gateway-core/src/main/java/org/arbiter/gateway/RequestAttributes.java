package org.arbiter.gateway;

import java.util.HashMap;
import java.util.Locale;
import java.util.Map;

/**
 * What a {@link Classifier} may look at: the request line and headers. Implementations are views
 * over whatever the adapter holds (a Netty request, a simulator record); nothing is copied.
 */
public interface RequestAttributes {

    /** The method, upper case as received ({@code GET}). */
    String method();

    /** The request target's path, without query string. */
    String path();

    /** The Host header without port, or null. */
    String host();

    /** The first value of header {@code name} (case-insensitive), or null. */
    String header(String name);

    /**
     * The client's address: the source a trusted PROXY protocol header carried, else the TCP
     * peer's, as raw bytes (4 for IPv4, 16 for IPv6, network order); null when unknown (then no
     * {@code match.source} rule matches). Raw bytes keep the core free of {@code java.net}.
     */
    default byte[] clientAddress() {
        return null;
    }

    /** A fixed request, for tests and the simulator. */
    static RequestAttributes of(String method, String path, String host, Map<String, String> headers) {
        Map<String, String> lower = new HashMap<>();
        headers.forEach((k, v) -> lower.put(k.toLowerCase(Locale.ROOT), v));
        return new RequestAttributes() {
            @Override
            public String method() {
                return method;
            }

            @Override
            public String path() {
                return path;
            }

            @Override
            public String host() {
                return host;
            }

            @Override
            public String header(String name) {
                return lower.get(name.toLowerCase(Locale.ROOT));
            }
        };
    }
}
