package org.arbiter.gateway.netty;

/**
 * Why a listener with {@code gateways[].proxyProtocol: true} closed a connection before reading a
 * request (counted as {@code arbiter.gateway.proxy.refused{reason}}). Immutable.
 */
public enum ProxyRefusal {
    /** A peer outside {@code gateway.trustedProxies} sent a PROXY header. */
    UNTRUSTED("untrusted"),
    /** A trusted peer (the switch) sent no PROXY header. */
    MISSING("missing"),
    /** A PROXY header that does not parse. */
    MALFORMED("malformed");

    private final String wireName;

    ProxyRefusal(String wireName) {
        this.wireName = wireName;
    }

    /** The {@code reason} tag. */
    public String wireName() {
        return wireName;
    }
}
