package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonValue;

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
 * @param drainDelaySeconds    on a drain, {@code /ready} turns 503 at once but the request port keeps
 *                             accepting and serving for this long before it closes, so that an L4 switch's
 *                             health check takes the gateway out before connections are refused
 * @param proxyProtocol        the request port expects a PROXY protocol header (v1 or v2) from an L4
 *                             switch in {@code gateway.trustedProxies}, and takes the client's address
 *                             from it; a trusted peer without one, or another peer with one, is refused
 * @param tls                  TLS termination on the request port (h2 and http/1.1 by ALPN), or {@link TlsConfig#OFF}
 * @param http2                HTTP/2 on the request port: h2 by ALPN with TLS, h2c by prior knowledge or
 *                             {@code Upgrade: h2c} without
 * @param adminHost            the address the admin port binds: 127.0.0.1 unless configured otherwise (not
 *                             {@code host}: the admin port is for the machine's own health checks and operators)
 * @param kind                 what runs as this gateway: Arbiter's own ({@code arbiter}), or an HAProxy process
 *                             driven by {@code arbiter agent haproxy} ({@code haproxy}; docs/operations.md,
 *                             "Driving HAProxy")
 */
public record GatewayConfig(String id, String host, int port, int adminPort, double drainTimeoutSeconds,
                            double startupGraceSeconds, int adminMaxConnections, double drainDelaySeconds,
                            boolean proxyProtocol, TlsConfig tls, boolean http2, String adminHost, Kind kind) {

    /** {@code gateways[].kind}. */
    public enum Kind implements Choice {
        /** Arbiter's gateway ({@code arbiter gateway}). */
        ARBITER("arbiter"),
        /** An HAProxy process and its agent ({@code arbiter haproxy config}, {@code arbiter agent haproxy}). */
        HAPROXY("haproxy");

        private final String wireName;

        Kind(String wireName) {
            this.wireName = wireName;
        }

        @JsonValue
        @Override
        public String wireName() {
            return wireName;
        }

        @Override
        public String toString() {
            return wireName;
        }
    }

    /** As below, Arbiter's own gateway. */
    public GatewayConfig(String id, String host, int port, int adminPort, double drainTimeoutSeconds,
                         double startupGraceSeconds, int adminMaxConnections, double drainDelaySeconds,
                         boolean proxyProtocol, TlsConfig tls, boolean http2, String adminHost) {
        this(id, host, port, adminPort, drainTimeoutSeconds, startupGraceSeconds, adminMaxConnections,
                drainDelaySeconds, proxyProtocol, tls, http2, adminHost, Kind.ARBITER);
    }

    /** Default drain timeout (30 s). */
    public static final double DEFAULT_DRAIN_TIMEOUT_SECONDS = GatewaysSection.DRAIN_TIMEOUT.defaultValue();
    /** Default start-up grace (10 s). */
    public static final double DEFAULT_STARTUP_GRACE_SECONDS = GatewaysSection.STARTUP_GRACE.defaultValue();
    /** Default admin connection cap (256). */
    public static final int DEFAULT_ADMIN_MAX_CONNECTIONS = GatewaysSection.ADMIN_MAX_CONNECTIONS.defaultValue();

    public GatewayConfig {
        requireNonNull(kind, "kind");
        requireNonNull(tls, "tls");
        requireNonNull(id, "id");
        requireNonNull(host, "host");
        requireNonNull(adminHost, "adminHost");
        if (!(drainTimeoutSeconds >= 0) || Double.isInfinite(drainTimeoutSeconds)) {
            throw new IllegalArgumentException("drainTimeout: " + drainTimeoutSeconds + " (expected: >= 0)");
        }
        if (!(startupGraceSeconds >= 0) || Double.isInfinite(startupGraceSeconds)) {
            throw new IllegalArgumentException("startupGrace: " + startupGraceSeconds + " (expected: >= 0)");
        }
        if (!(drainDelaySeconds >= 0) || Double.isInfinite(drainDelaySeconds)) {
            throw new IllegalArgumentException("drainDelay: " + drainDelaySeconds + " (expected: >= 0)");
        }
        if (adminMaxConnections < 1) {
            throw new IllegalArgumentException("adminMaxConnections: " + adminMaxConnections + " (expected: >= 1)");
        }
    }

    /** As above with the admin port on 127.0.0.1. */
    public GatewayConfig(String id, String host, int port, int adminPort, double drainTimeoutSeconds,
                         double startupGraceSeconds, int adminMaxConnections, double drainDelaySeconds,
                         boolean proxyProtocol, TlsConfig tls, boolean http2) {
        this(id, host, port, adminPort, drainTimeoutSeconds, startupGraceSeconds, adminMaxConnections,
                drainDelaySeconds, proxyProtocol, tls, http2, DEFAULT_ADMIN_HOST);
    }

    /** As above without TLS, with HTTP/2. */
    public GatewayConfig(String id, String host, int port, int adminPort, double drainTimeoutSeconds,
                         double startupGraceSeconds, int adminMaxConnections, double drainDelaySeconds,
                         boolean proxyProtocol) {
        this(id, host, port, adminPort, drainTimeoutSeconds, startupGraceSeconds, adminMaxConnections,
                drainDelaySeconds, proxyProtocol, TlsConfig.OFF, true);
    }

    /** A gateway with the default drain timeout, start-up grace and admin connection cap, without PROXY protocol. */
    public GatewayConfig(String id, String host, int port, int adminPort) {
        this(id, host, port, adminPort, DEFAULT_DRAIN_TIMEOUT_SECONDS, DEFAULT_STARTUP_GRACE_SECONDS,
                DEFAULT_ADMIN_MAX_CONNECTIONS, 0, false);
    }

    /** The default {@code host}. */
    public static final String DEFAULT_HOST = GatewaysSection.HOST.defaultValue();
    /** The default {@code adminHost} (127.0.0.1). */
    public static final String DEFAULT_ADMIN_HOST = GatewaysSection.ADMIN_HOST.defaultValue();
    /** The default {@code port}. */
    public static final int DEFAULT_PORT = GatewaysSection.PORT.defaultValue();

    /** The default {@code adminPort}: {@code port + 100}, or 0 (any free port) when {@code port} is 0. */
    public static int defaultAdminPort(int port) {
        return port == 0 ? 0 : port + 100;
    }

    /** The gateway a configuration without {@code gateways:} has: g1 on 127.0.0.1:8080, admin 8180. */
    public static GatewayConfig defaultGateway() {
        return builder("g1").build();
    }

    /** A builder starting from the defaults with the required id (see {@link Builder}). */
    public static Builder builder(String id) {
        return new Builder(id);
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder(id).host(host).port(port).adminPort(adminPort).drainTimeoutSeconds(drainTimeoutSeconds)
                .startupGraceSeconds(startupGraceSeconds).adminMaxConnections(adminMaxConnections)
                .drainDelaySeconds(drainDelaySeconds).proxyProtocol(proxyProtocol).tls(tls).http2(http2)
                .adminHost(adminHost).kind(kind);
    }

    /**
     * Builds a {@link GatewayConfig}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
     * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
     */
    public static final class Builder {
        private final String id;
        private String host = DEFAULT_HOST;
        private int port = DEFAULT_PORT;
        private Integer adminPort = null;
        private double drainTimeoutSeconds = DEFAULT_DRAIN_TIMEOUT_SECONDS;
        private double startupGraceSeconds = DEFAULT_STARTUP_GRACE_SECONDS;
        private int adminMaxConnections = DEFAULT_ADMIN_MAX_CONNECTIONS;
        private double drainDelaySeconds;
        private boolean proxyProtocol;
        private TlsConfig tls = TlsConfig.OFF;
        private boolean http2 = true;
        private String adminHost = DEFAULT_ADMIN_HOST;
        private Kind kind = Kind.ARBITER;

        private Builder(String id) {
            this.id = requireNonNull(id, "id");
        }

        /** {@code host}; default 127.0.0.1. */
        public Builder host(String host) {
            this.host = host;
            return this;
        }

        /** {@code port}; default 8080 (0: any free port). */
        public Builder port(int port) {
            this.port = port;
            return this;
        }

        /** {@code adminPort}; default {@code port + 100}, or 0 when {@code port} is 0. */
        public Builder adminPort(int adminPort) {
            this.adminPort = adminPort;
            return this;
        }

        /** {@code drainTimeout}; default 30 s. */
        public Builder drainTimeoutSeconds(double drainTimeoutSeconds) {
            this.drainTimeoutSeconds = drainTimeoutSeconds;
            return this;
        }

        /** {@code startupGrace}; default 10 s. */
        public Builder startupGraceSeconds(double startupGraceSeconds) {
            this.startupGraceSeconds = startupGraceSeconds;
            return this;
        }

        /** {@code adminMaxConnections}; default 256. */
        public Builder adminMaxConnections(int adminMaxConnections) {
            this.adminMaxConnections = adminMaxConnections;
            return this;
        }

        /** {@code drainDelay}; default 0 s (the request port closes as the drain begins). */
        public Builder drainDelaySeconds(double drainDelaySeconds) {
            this.drainDelaySeconds = drainDelaySeconds;
            return this;
        }

        /** {@code proxyProtocol}; default false. */
        public Builder proxyProtocol(boolean proxyProtocol) {
            this.proxyProtocol = proxyProtocol;
            return this;
        }

        /** {@code tls}; default off. */
        public Builder tls(TlsConfig tls) {
            this.tls = tls;
            return this;
        }

        /** {@code http2}; default true. */
        public Builder http2(boolean http2) {
            this.http2 = http2;
            return this;
        }

        /** {@code adminHost}; default 127.0.0.1. */
        public Builder adminHost(String adminHost) {
            this.adminHost = adminHost;
            return this;
        }

        /** {@code kind}; default {@code arbiter}. */
        public Builder kind(Kind kind) {
            this.kind = kind;
            return this;
        }

        public GatewayConfig build() {
            return new GatewayConfig(id, host, port, adminPort != null ? adminPort : defaultAdminPort(port),
                    drainTimeoutSeconds, startupGraceSeconds, adminMaxConnections, drainDelaySeconds, proxyProtocol,
                    tls, http2, adminHost, kind);
        }
    }
}
