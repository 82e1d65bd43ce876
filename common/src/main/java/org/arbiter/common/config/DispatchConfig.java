package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

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
 * @param ejection              passive health: when a failing server is taken out of rotation, and for how long
 */
public record DispatchConfig(Scheduler scheduler, Balancer balancer, int pollSize, double backendTimeoutSeconds,
                             double connectTimeoutSeconds, long maxBodyBytes, long maxHeaderBytes,
                             double idleTimeoutSeconds, boolean classHeader, Ejection ejection) {
    public DispatchConfig {
        requireNonNull(scheduler, "scheduler");
        requireNonNull(balancer, "balancer");
        requireNonNull(ejection, "ejection");
    }

    /** As above with the default ejection policy. */
    public DispatchConfig(Scheduler scheduler, Balancer balancer, int pollSize, double backendTimeoutSeconds,
                          double connectTimeoutSeconds, long maxBodyBytes, long maxHeaderBytes,
                          double idleTimeoutSeconds, boolean classHeader) {
        this(scheduler, balancer, pollSize, backendTimeoutSeconds, connectTimeoutSeconds, maxBodyBytes, maxHeaderBytes,
                idleTimeoutSeconds, classHeader, Ejection.DEFAULT);
    }

    /**
     * Passive ejection ({@code dispatch.ejection}): {@code threshold} failures in a row (refused or
     * timed-out connects, resets, 5xx, timeouts) take a server out of rotation for a backoff that
     * starts at {@code baseBackoffSeconds}, doubles on each ejection up to {@code maxBackoffSeconds},
     * and returns to the base once the server has stayed up for {@code maxBackoffSeconds}.
     */
    public record Ejection(int threshold, double baseBackoffSeconds, double maxBackoffSeconds) {
        public static final Ejection DEFAULT = new Ejection(3, 1, 30);

        public Ejection {
            if (threshold < 1) {
                throw new IllegalArgumentException("threshold: " + threshold + " (expected: >= 1)");
            }
            if (!(baseBackoffSeconds > 0)) {
                throw new IllegalArgumentException("baseBackoff: " + baseBackoffSeconds + " (expected: > 0)");
            }
            if (!(maxBackoffSeconds >= baseBackoffSeconds)) {
                throw new IllegalArgumentException("maxBackoff: " + maxBackoffSeconds + " (expected: >= baseBackoff, "
                        + baseBackoffSeconds + ")");
            }
        }
    }

    /** {@code dispatch.scheduler}: wrr, fcfs, priority; Neptune's edf, yid, greedy and adaptive are reserved (not implemented). */
    public enum Scheduler implements Choice {
        WRR("wrr"), FCFS("fcfs"), PRIORITY("priority"), EDF("edf"), YID("yid"), GREEDY("greedy"), ADAPTIVE("adaptive");

        private final String wireName;

        Scheduler(String wireName) {
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

    /** {@code dispatch.balancer}: least-outstanding, or random-poll over {@code pollSize} servers (002 §3). */
    public enum Balancer implements Choice {
        LEAST_OUTSTANDING("least-outstanding"), RANDOM_POLL("random-poll");

        private final String wireName;

        Balancer(String wireName) {
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
}
