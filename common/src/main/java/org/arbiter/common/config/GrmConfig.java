package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonValue;

/**
 * What every GRM process reads of its own ({@code grm:} in cluster.yaml): where it serves its
 * admin endpoint ({@code GET /metrics}, {@code GET /health}), and which flow model it optimises
 * with. Several GRMs on one host need different ports: {@code arbiter grm --admin-port} overrides
 * the file. Immutable and thread-safe.
 *
 * @param host      the address the admin endpoint binds (default 127.0.0.1)
 * @param adminPort its port, 0..65535 (0 = any free port, printed at start; default 9190)
 * @param model     flow (the project's model, default) or paper (003 eq. 8-9 as printed)
 */
public record GrmConfig(String host, int adminPort, Model model) {

    /**
     * {@code grm.model}: how a flow's response time is predicted against its weight (docs/grm.md).
     * {@code flow}: the project's model — w̃ the slots the flow held (throughput × service time), the
     * slot model where the service time is measured, closed-loop arrivals with {@code thinkTime},
     * each class's flows pooled across gateways. {@code paper}: 003 eq. 8-9 exactly as printed — w̃
     * the weight in force, λ held at its measured value, one M/M/1 per flow, integer weights.
     */
    public enum Model implements Choice {
        FLOW("flow"), PAPER("paper");

        private final String wireName;

        Model(String wireName) {
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

    public static final String DEFAULT_HOST = GrmSection.HOST.defaultValue();
    public static final int DEFAULT_ADMIN_PORT = GrmSection.ADMIN_PORT.defaultValue();
    public static final GrmConfig DEFAULT = new GrmConfig(DEFAULT_HOST, DEFAULT_ADMIN_PORT);

    /** With the default model (flow). */
    public GrmConfig(String host, int adminPort) {
        this(host, adminPort, Model.FLOW);
    }

    public GrmConfig {
        requireNonNull(model, "model");
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
        return new GrmConfig(host, port, model);
    }

    /** A copy with another flow model. */
    public GrmConfig withModel(Model m) {
        return new GrmConfig(host, adminPort, m);
    }
}
