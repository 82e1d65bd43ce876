package org.arbiter.gateway.server;

import org.arbiter.runtime.metrics.ProcessMetrics;

/**
 * How to start a gateway in-process ({@link Gateway#start}); null fields fall back to the file.
 *
 * @param port      request port (null: the gateway's entry in the file; 0: any free port)
 * @param adminPort admin port (null: the file; 0: any)
 * @param bootstrap Kafka bootstrap overriding {@code kafka.bootstrap} (null: the file's)
 * @param useBus    false to run standalone even when a bootstrap is configured
 * @param metrics   the component's meters (null: the gateway creates and owns its own)
 */
public record GatewayOptions(Integer port, Integer adminPort, String bootstrap, boolean useBus, ProcessMetrics metrics) {

    public static GatewayOptions defaults() {
        return new GatewayOptions(null, null, null, true, null);
    }

    public GatewayOptions withPorts(Integer newPort, Integer newAdminPort) {
        return new GatewayOptions(newPort, newAdminPort, bootstrap, useBus, metrics);
    }

    public GatewayOptions withBootstrap(String newBootstrap) {
        return new GatewayOptions(port, adminPort, newBootstrap, useBus, metrics);
    }

    public GatewayOptions standalone() {
        return new GatewayOptions(port, adminPort, bootstrap, false, metrics);
    }
}
