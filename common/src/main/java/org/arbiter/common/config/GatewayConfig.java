package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

/** One gateway: its id, request port and admin port, bound on {@code host}. */
public record GatewayConfig(String id, String host, int port, int adminPort) {
    public GatewayConfig {
        requireNonNull(id, "id");
        requireNonNull(host, "host");
    }
}
