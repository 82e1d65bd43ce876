package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * TLS termination on a gateway's request port ({@code gateways[].tls}). Immutable and thread-safe.
 *
 * @param cert      the PEM certificate chain served by default; null when TLS is off
 * @param key       its PEM private key (PKCS#8, or PKCS#1 with the OpenSSL provider)
 * @param protocols the protocol versions offered, e.g. {@code [TLSv1.3, TLSv1.2]}; empty: the provider's defaults
 * @param sni       extra certificates by host name (exact, lower case, or {@code *.example.com}), chosen by the
 *                  client's SNI; a name not listed gets {@link #cert}
 */
public record TlsConfig(Path cert, Path key, List<String> protocols, Map<String, CertKey> sni) {

    /** No TLS: plain HTTP (and h2c). */
    public static final TlsConfig OFF = new TlsConfig(null, null, List.of(), Map.of());

    /** The protocol versions a gateway accepts in {@code protocols}. */
    public static final List<String> KNOWN_PROTOCOLS = List.of("TLSv1.3", "TLSv1.2");

    public TlsConfig {
        protocols = List.copyOf(requireNonNull(protocols, "protocols"));
        sni = Map.copyOf(requireNonNull(sni, "sni"));
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("tls: cert and key (expected: both or neither)");
        }
        for (String p : protocols) {
            if (!KNOWN_PROTOCOLS.contains(p)) {
                throw new IllegalArgumentException("protocols: " + p + " (expected: one of " + KNOWN_PROTOCOLS + ")");
            }
        }
    }

    /** True when the port speaks TLS. */
    public boolean enabled() {
        return cert != null;
    }

    /** A certificate chain and its key, PEM files. */
    public record CertKey(Path cert, Path key) {
        public CertKey {
            requireNonNull(cert, "cert");
            requireNonNull(key, "key");
        }
    }
}
