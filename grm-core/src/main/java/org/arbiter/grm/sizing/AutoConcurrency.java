package org.arbiter.grm.sizing;

import java.util.List;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.ServerState;
import org.arbiter.grm.concurrency.ConcurrencyController;

/**
 * N_s per server: the configured value, or for a {@code concurrency: auto} server its controller
 * (knee fit, AM-C or PM-C — 004 — bounded), which gets one sample per period while the server is
 * ON and served something. Not thread-safe.
 */
final class AutoConcurrency {

    private final List<ServerConfig> servers;
    private final ConcurrencyController[] controllers;

    AutoConcurrency(ClusterConfig config) {
        this.servers = config.servers();
        this.controllers = new ConcurrencyController[servers.size()];
        int hold = (int) Math.ceil(config.control().statsWindowSeconds() / config.control().periodSeconds());
        for (int i = 0; i < servers.size(); i++) {
            if (servers.get(i).autoConcurrency()) {
                controllers[i] = controllerFor(servers.get(i), hold);
            }
        }
    }

    private static ConcurrencyController controllerFor(ServerConfig s, int hold) {
        ServerConfig.ConcurrencyControl c = s.control();
        int start = Math.max(c.min(), Math.min(c.max(), s.concurrency()));
        ConcurrencyController inner = switch (c.method()) {
            case AMC -> ConcurrencyController.ofLatencyBound(start, c.latencyMaxSeconds(), c.gain());
            case PMC -> ConcurrencyController.ofAbandonBound(start, c.abandonMax(), c.gain());
            case KNEE -> ConcurrencyController.ofKnee(start, c.min(), c.max(), hold);
        };
        return ConcurrencyController.bounded(inner, c.min(), c.max(), c.maxStep(), c.hysteresis());
    }

    /** N_s of server {@code i} now. */
    int current(int i) {
        return controllers[i] != null ? controllers[i].current() : servers.get(i).concurrency();
    }

    /**
     * One period's sample for every auto server that is ON and served something: (Σ_g mean
     * in-flight, throughput-weighted mean service time, Σ_g throughput, drop share of all arrivals).
     */
    void update(FleetSample m, ServerPower power) {
        for (int i = 0; i < servers.size(); i++) {
            if (controllers[i] != null && power.state(i) == ServerState.ON
                    && m.throughput[i] > 0) {
                controllers[i].update(new ConcurrencyController.Sample(m.meanInFlight[i],
                        m.serviceWeighted[i] / m.throughput[i], m.throughput[i], m.abandon()));
            }
        }
    }
}
