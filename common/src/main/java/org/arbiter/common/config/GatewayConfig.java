package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

/**
 * One gateway: its id, request port and admin port, bound on {@code host}, and how it stops and
 * starts.
 *
 * @param drainTimeoutSeconds  on SIGTERM or {@code POST /drain}, queued and in-flight requests are
 *                             answered normally for this long; what is left then gets 503
 * @param startupGraceSeconds  with a Kafka bootstrap, {@code /ready} is 503 until the first allocation
 *                             from the GRM arrives, for at most this long; then the gateway is ready
 *                             on the configured allocation
 * @param adminMaxConnections  open admin connections beyond this are answered 503 and closed
 */
public record GatewayConfig(String id, String host, int port, int adminPort, double drainTimeoutSeconds,
                            double startupGraceSeconds, int adminMaxConnections) {

    /** Default drain timeout (30 s). */
    public static final double DEFAULT_DRAIN_TIMEOUT_SECONDS = 30;
    /** Default start-up grace (10 s). */
    public static final double DEFAULT_STARTUP_GRACE_SECONDS = 10;
    /** Default admin connection cap (256). */
    public static final int DEFAULT_ADMIN_MAX_CONNECTIONS = 256;

    public GatewayConfig {
        requireNonNull(id, "id");
        requireNonNull(host, "host");
        if (!(drainTimeoutSeconds >= 0) || Double.isInfinite(drainTimeoutSeconds)) {
            throw new IllegalArgumentException("drainTimeout: " + drainTimeoutSeconds + " (expected: >= 0)");
        }
        if (!(startupGraceSeconds >= 0) || Double.isInfinite(startupGraceSeconds)) {
            throw new IllegalArgumentException("startupGrace: " + startupGraceSeconds + " (expected: >= 0)");
        }
        if (adminMaxConnections < 1) {
            throw new IllegalArgumentException("adminMaxConnections: " + adminMaxConnections + " (expected: >= 1)");
        }
    }

    /** A gateway with the default drain timeout, start-up grace and admin connection cap. */
    public GatewayConfig(String id, String host, int port, int adminPort) {
        this(id, host, port, adminPort, DEFAULT_DRAIN_TIMEOUT_SECONDS, DEFAULT_STARTUP_GRACE_SECONDS,
                DEFAULT_ADMIN_MAX_CONNECTIONS);
    }
}
