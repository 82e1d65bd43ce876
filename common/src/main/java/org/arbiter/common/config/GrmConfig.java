package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

/**
 * What every GRM process reads of its own ({@code grm:} in cluster.yaml): where it serves its
 * admin endpoint ({@code GET /metrics}, {@code GET /health}). Several GRMs on one host need
 * different ports: {@code arbiter grm --admin-port} overrides the file. Immutable and thread-safe.
 *
 * @param host      the address the admin endpoint binds (default 127.0.0.1)
 * @param adminPort its port, 0..65535 (0 = any free port, printed at start; default 9190)
 */
public record GrmConfig(String host, int adminPort) {

    public static final String DEFAULT_HOST = GrmSection.HOST.defaultValue();
    public static final int DEFAULT_ADMIN_PORT = GrmSection.ADMIN_PORT.defaultValue();
    public static final GrmConfig DEFAULT = new GrmConfig(DEFAULT_HOST, DEFAULT_ADMIN_PORT);

    public GrmConfig {
        requireNonNull(host, "host");
        if (host.isBlank()) {
            throw new IllegalArgumentException("host: \"" + host + "\" (expected: an address to bind)");
        }
        if (adminPort < 0 || adminPort > 65535) {
            throw new IllegalArgumentException("adminPort: " + adminPort + " (expected: 0..65535)");
        }
    }

    /** A copy with another admin port. */
    public GrmConfig withAdminPort(int port) {
        return new GrmConfig(host, port);
    }
}
