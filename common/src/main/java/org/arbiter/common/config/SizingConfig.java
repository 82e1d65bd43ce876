package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

/**
 * Cluster sizing (000 §7.5).
 *
 * @param policy               off, static, queue, utility or schedule
 * @param minServers           never fewer servers ON
 * @param maxServers           never more servers ON (0 = all)
 * @param startupDelaySeconds  OFF → ON takes this long
 * @param shutdownDelaySeconds DRAINING → OFF takes this long
 * @param dropRatio            ε_th, the drop-ratio bound that defines capacity
 * @param utilityFloor         the utility policy keeps Ω above this
 * @param staticCapacity       requests/s per server for the static estimator (0 = unknown)
 */
public record SizingConfig(String policy, int minServers, int maxServers, double startupDelaySeconds,
                           double shutdownDelaySeconds, double dropRatio, double utilityFloor,
                           double staticCapacity) {
    public SizingConfig {
        requireNonNull(policy, "policy");
    }
}
