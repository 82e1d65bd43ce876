package org.arbiter.gateway.netty;

import io.netty.buffer.ByteBufAllocator;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import io.netty.handler.ssl.SslHandler;
import io.netty.handler.ssl.util.InsecureTrustManagerFactory;
import java.io.IOException;
import javax.net.ssl.SSLEngine;
import javax.net.ssl.SSLParameters;
import org.arbiter.common.config.BackendTls;

/**
 * TLS toward {@code https://} servers ({@code dispatch.tls}): the CA file (or the JVM's trust
 * store), and, with {@code verify}, the chain and the host name of the server's URL (HTTPS
 * endpoint identification); SNI carries that host name. http/1.1 only. Thread-safe.
 */
final class ClientTls {

    private final SslContext context;
    private final boolean verify;

    private ClientTls(SslContext context, boolean verify) {
        this.context = context;
        this.verify = verify;
    }

    static ClientTls of(BackendTls tls) throws IOException {
        try {
            SslContextBuilder b = SslContextBuilder.forClient().sslProvider(ServerTls.preferredProvider());
            if (!tls.verify()) {
                b.trustManager(InsecureTrustManagerFactory.INSTANCE);
            } else if (tls.ca() != null) {
                b.trustManager(tls.ca().toFile());
            }
            return new ClientTls(b.build(), tls.verify());
        } catch (IOException | RuntimeException e) {
            throw new IOException("dispatch.tls.ca: " + tls.ca() + ": " + e.getMessage(), e);
        }
    }

    /** A handler for one connection to {@code host:port}. */
    SslHandler newHandler(ByteBufAllocator alloc, String host, int port) {
        SslHandler h = context.newHandler(alloc, host, port);
        if (verify) {
            SSLEngine engine = h.engine();
            SSLParameters p = engine.getSSLParameters();
            p.setEndpointIdentificationAlgorithm("HTTPS");
            engine.setSSLParameters(p);
        }
        return h;
    }
}
