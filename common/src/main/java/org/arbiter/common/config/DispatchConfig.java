package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

/**
 * How gateways schedule and dispatch.
 *
 * @param scheduler             wrr, fcfs, priority (edf, yid, greedy, adaptive reserved)
 * @param balancer              least-outstanding or random-poll
 * @param pollSize              d, the servers polled by random-poll (002 §3)
 * @param backendTimeoutSeconds a backend slower than this gets the client a 504
 * @param connectTimeoutSeconds connect timeout to a backend
 * @param maxBodyBytes          larger request bodies get 413
 * @param maxHeaderBytes        larger request heads get 431
 * @param idleTimeoutSeconds    idle or trickling client connections are closed after this
 * @param classHeader           add {@code X-Arbiter-Class} to responses
 */
public record DispatchConfig(String scheduler, String balancer, int pollSize, double backendTimeoutSeconds,
                             double connectTimeoutSeconds, long maxBodyBytes, long maxHeaderBytes,
                             double idleTimeoutSeconds, boolean classHeader) {
    public DispatchConfig {
        requireNonNull(scheduler, "scheduler");
        requireNonNull(balancer, "balancer");
    }
}
