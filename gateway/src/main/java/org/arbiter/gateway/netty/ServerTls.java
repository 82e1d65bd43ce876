package org.arbiter.gateway.netty;

import static java.util.Objects.requireNonNull;

import io.netty.handler.codec.http2.Http2SecurityUtil;
import io.netty.handler.ssl.ApplicationProtocolConfig;
import io.netty.handler.ssl.ApplicationProtocolNames;
import io.netty.handler.ssl.OpenSsl;
import io.netty.handler.ssl.SniHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslProvider;
import io.netty.handler.ssl.SupportedCipherSuiteFilter;
import io.netty.util.DomainWildcardMappingBuilder;
import io.netty.util.Mapping;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.TlsConfig;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * TLS termination for one request port ({@code gateways[].tls}): the default certificate, the extra
 * certificates chosen by SNI, the protocol list, and ALPN (h2, then http/1.1; only http/1.1 when
 * HTTP/2 is off). OpenSSL (BoringSSL, netty-tcnative) when it loads, the JDK's provider otherwise
 * ({@link #provider()}). Immutable: a certificate change builds a new one ({@link #changed()}),
 * and new connections take it while open ones keep theirs. Thread-safe.
 */
public final class ServerTls {

    private static final Logger LOG = LoggerFactory.getLogger(ServerTls.class);
    private static volatile boolean providerLogged;

    private final TlsConfig config;
    private final boolean http2;
    private final Mapping<String, SslContext> mapping;
    private final SslProvider provider;
    private final Map<Path, Long> stamps;

    private ServerTls(TlsConfig config, boolean http2, Mapping<String, SslContext> mapping, SslProvider provider,
                      Map<Path, Long> stamps) {
        this.config = config;
        this.http2 = http2;
        this.mapping = mapping;
        this.provider = provider;
        this.stamps = stamps;
    }

    /** The provider this JVM uses for TLS: OpenSSL when netty-tcnative loads with ALPN, else the JDK. */
    public static SslProvider preferredProvider() {
        return OpenSsl.isAvailable() && SslProvider.isAlpnSupported(SslProvider.OPENSSL) ? SslProvider.OPENSSL
                : SslProvider.JDK;
    }

    /**
     * Reads the PEM files of {@code config} and builds the contexts.
     *
     * @throws IOException naming the file that cannot be read or used
     */
    public static ServerTls load(TlsConfig config, boolean http2) throws IOException {
        requireNonNull(config, "config");
        if (!config.enabled()) {
            throw new IllegalArgumentException("tls: off (expected: cert and key)");
        }
        SslProvider provider = preferredProvider();
        if (!providerLogged) {
            providerLogged = true;
            LOG.info("TLS provider: {}{}", provider == SslProvider.OPENSSL ? "OpenSSL (" + OpenSsl.versionString() + ")"
                    : "JDK", provider == SslProvider.JDK && OpenSsl.unavailabilityCause() != null
                    ? " (OpenSSL unavailable: " + OpenSsl.unavailabilityCause() + ")" : "");
        }
        Map<Path, Long> stamps = new HashMap<>();
        SslContext fallback = context(config.cert(), config.key(), config, http2, provider, stamps);
        DomainWildcardMappingBuilder<SslContext> b = new DomainWildcardMappingBuilder<>(fallback);
        for (Map.Entry<String, TlsConfig.CertKey> e : config.sni().entrySet()) {
            b.add(e.getKey(), context(e.getValue().cert(), e.getValue().key(), config, http2, provider, stamps));
        }
        return new ServerTls(config, http2, b.build(), provider, Map.copyOf(stamps));
    }

    private static SslContext context(Path cert, Path key, TlsConfig config, boolean http2, SslProvider provider,
                                      Map<Path, Long> stamps) throws IOException {
        stamps.put(cert, mtime(cert));
        stamps.put(key, mtime(key));
        try {
            SslContextBuilder b = SslContextBuilder.forServer(cert.toFile(), key.toFile()).sslProvider(provider);
            if (!config.protocols().isEmpty()) {
                b.protocols(config.protocols());
            }
            List<String> alpn = new ArrayList<>();
            if (http2) {
                alpn.add(ApplicationProtocolNames.HTTP_2);
                b.ciphers(Http2SecurityUtil.CIPHERS, SupportedCipherSuiteFilter.INSTANCE);
            }
            alpn.add(ApplicationProtocolNames.HTTP_1_1);
            b.applicationProtocolConfig(new ApplicationProtocolConfig(ApplicationProtocolConfig.Protocol.ALPN,
                    ApplicationProtocolConfig.SelectorFailureBehavior.NO_ADVERTISE,
                    ApplicationProtocolConfig.SelectedListenerFailureBehavior.ACCEPT, alpn));
            return b.build();
        } catch (IOException | RuntimeException e) {
            throw new IOException("tls: cert " + cert + ", key " + key + ": " + e.getMessage(), e);
        }
    }

    private static long mtime(Path p) throws IOException {
        return Files.getLastModifiedTime(p).toMillis() ^ Files.size(p) * 31;
    }

    /**
     * A new handler for one connection (SNI picks the context; then the TLS handshake); a client
     * whose hello and handshake take longer than {@code handshakeTimeoutMillis} is closed.
     */
    SniHandler newHandler(long handshakeTimeoutMillis) {
        return new SniHandler(mapping, handshakeTimeoutMillis);
    }

    public SslProvider provider() {
        return provider;
    }

    public TlsConfig config() {
        return config;
    }

    boolean http2() {
        return http2;
    }

    /** Whether h2 is offered by ALPN. */
    public boolean http2Offered() {
        return http2;
    }

    /** The same contexts, with the files' current stamps (a change that could not be loaded is not retried until the next). */
    public ServerTls withCurrentStamps() {
        Map<Path, Long> now = new HashMap<>();
        for (Path p : stamps.keySet()) {
            try {
                now.put(p, mtime(p));
            } catch (IOException e) {
                now.put(p, -1L);
            }
        }
        return new ServerTls(config, http2, mapping, provider, Map.copyOf(now));
    }

    /** True when one of the PEM files changed (modification time or size) since this was loaded. */
    public boolean changed() {
        for (Map.Entry<Path, Long> e : stamps.entrySet()) {
            try {
                if (mtime(e.getKey()) != e.getValue()) {
                    return true;
                }
            } catch (IOException x) {
                return true; // gone or unreadable: the reload says why
            }
        }
        return false;
    }
}
