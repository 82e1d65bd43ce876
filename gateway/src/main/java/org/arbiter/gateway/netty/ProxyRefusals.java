package org.arbiter.gateway.netty;

import java.net.SocketAddress;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Connections closed at the PROXY protocol gate: each counted (the listener), and logged at most
 * once per reason per minute, with how many since the last line. Thread-safe (synchronized; rare).
 */
final class ProxyRefusals {

    private static final Logger LOG = LoggerFactory.getLogger(DataPlane.class);
    private static final long LOG_EVERY_NANOS = TimeUnit.MINUTES.toNanos(1);

    private final String gatewayId;
    private final PlaneListener listener;
    private final long[] loggedNanos = new long[ProxyRefusal.values().length];
    private final long[] sinceLog = new long[ProxyRefusal.values().length];

    ProxyRefusals(String gatewayId, PlaneListener listener) {
        this.gatewayId = gatewayId;
        this.listener = listener;
    }

    synchronized void refused(ProxyRefusal reason, SocketAddress peer, String detail, long nowNanos) {
        listener.proxyRefused(reason);
        int i = reason.ordinal();
        sinceLog[i]++;
        if (loggedNanos[i] == 0 || nowNanos - loggedNanos[i] >= LOG_EVERY_NANOS) {
            LOG.warn("gateway {}: closed a connection from {}: {} (reason {}; {} such since the last line)",
                    gatewayId, peer, detail, reason.wireName(), sinceLog[i]);
            loggedNanos[i] = nowNanos;
            sinceLog[i] = 0;
        }
    }
}
