package org.arbiter.common.config;

import java.nio.file.Path;

/**
 * TLS toward {@code https://} servers ({@code dispatch.tls}). Immutable and thread-safe.
 *
 * @param ca     PEM file of the certificates that may sign a server's certificate; null: the JVM's default
 *               trust store
 * @param verify check the server's certificate chain and that it names the host of its URL; false accepts
 *               any certificate (for tests and self-signed lab servers only)
 */
public record BackendTls(Path ca, boolean verify) {

    /** The JVM's trust store, verified. */
    public static final BackendTls DEFAULT = new BackendTls(null, true);
}
