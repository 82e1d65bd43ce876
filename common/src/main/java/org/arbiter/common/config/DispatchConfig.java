package org.arbiter.common.config;

import com.fasterxml.jackson.annotation.JsonValue;

import static java.util.Objects.requireNonNull;

/**
 * How gateways schedule and dispatch.
 *
 * @param scheduler             wrr, fcfs, priority, edf, yid, greedy, adaptive
 * @param balancer              least-outstanding or random-poll
 * @param pollSize              d, the servers polled by random-poll ({@code dispatch.poll.count}, 002 §3)
 * @param backendTimeoutSeconds a backend slower than this gets the client a 504
 * @param connectTimeoutSeconds connect timeout to a backend
 * @param maxBodyBytes          larger request bodies get 413
 * @param maxHeaderBytes        larger request heads get 431
 * @param idleTimeoutSeconds    idle or trickling client connections are closed after this
 * @param classHeader           add {@code X-Arbiter-Class} to responses
 * @param ejection              passive health: when a failing server is taken out of rotation, and for how long
 * @param adaptive              when the adaptive scheduler switches from yid to greedy (002 §4.2)
 * @param pollDeadlineSeconds   a load poll not answered within this is discarded ({@code dispatch.poll.deadline}, 002 §3: 10 ms)
 * @param tls                   how {@code https://} servers are verified
 * @param tunnelIdleTimeoutSeconds an upgraded connection (WebSocket tunnel) with no byte either way for this long
 *                              is closed and its slot freed
 * @param tunnelShare           the most of the gateway's server slots (Σ_s N(g,s)) that tunnels and upgrades
 *                              waiting for one may hold (0 < x ≤ 1); an upgrade beyond it gets 503
 * @param admission             the local admission path between GRM periods ({@code dispatch.admission})
 */
public record DispatchConfig(Scheduler scheduler, Balancer balancer, int pollSize, double backendTimeoutSeconds,
                             double connectTimeoutSeconds, long maxBodyBytes, long maxHeaderBytes,
                             double idleTimeoutSeconds, boolean classHeader, Ejection ejection, Adaptive adaptive,
                             double pollDeadlineSeconds, BackendTls tls, double tunnelIdleTimeoutSeconds,
                             double tunnelShare, Admission admission) {
    public DispatchConfig {
        requireNonNull(tls, "tls");
        requireNonNull(admission, "admission");
        if (!(tunnelShare > 0 && tunnelShare <= 1)) {
            throw new IllegalArgumentException("tunnelShare: " + tunnelShare + " (expected: 0 < x <= 1)");
        }
        if (!(tunnelIdleTimeoutSeconds > 0) || Double.isInfinite(tunnelIdleTimeoutSeconds)) {
            throw new IllegalArgumentException("tunnelIdleTimeout: " + tunnelIdleTimeoutSeconds + " (expected: > 0)");
        }
        if (pollSize < 1) {
            throw new IllegalArgumentException("poll.count: " + pollSize + " (expected: >= 1)");
        }
        if (!(pollDeadlineSeconds > 0)) {
            throw new IllegalArgumentException("poll.deadline: " + pollDeadlineSeconds + " (expected: > 0)");
        }
        requireNonNull(scheduler, "scheduler");
        requireNonNull(balancer, "balancer");
        requireNonNull(ejection, "ejection");
        requireNonNull(adaptive, "adaptive");
    }

    /** As above with the local admission path off. */
    public DispatchConfig(Scheduler scheduler, Balancer balancer, int pollSize, double backendTimeoutSeconds,
                          double connectTimeoutSeconds, long maxBodyBytes, long maxHeaderBytes,
                          double idleTimeoutSeconds, boolean classHeader, Ejection ejection, Adaptive adaptive,
                          double pollDeadlineSeconds, BackendTls tls, double tunnelIdleTimeoutSeconds,
                          double tunnelShare) {
        this(scheduler, balancer, pollSize, backendTimeoutSeconds, connectTimeoutSeconds, maxBodyBytes, maxHeaderBytes,
                idleTimeoutSeconds, classHeader, ejection, adaptive, pollDeadlineSeconds, tls, tunnelIdleTimeoutSeconds,
                tunnelShare, Admission.OFF);
    }

    /**
     * The local admission path ({@code dispatch.admission}, docs/gateway.md "Local admission"): with mode
     * {@code deadline} a request whose expected response time (its class's queue ahead of it at the class's
     * drain rate, plus its measured service time) exceeds {@code factor} × its class's target is answered 503 at
     * once, the lowest-value classes first; {@code off} queues it as before.
     */
    public record Admission(Mode mode, double factor) {
        public static final Admission OFF = new Admission(Mode.OFF, 1.0);

        public Admission {
            requireNonNull(mode, "mode");
            if (!(factor > 0) || Double.isInfinite(factor)) {
                throw new IllegalArgumentException("admission.factor: " + factor + " (expected: > 0)");
            }
        }

        /** Whether the path sheds at all. */
        public boolean enabled() {
            return mode != Mode.OFF;
        }

        /** {@code off} or {@code deadline}. */
        public enum Mode implements Choice {
            OFF("off"), DEADLINE("deadline");

            private final String wireName;

            Mode(String wireName) {
                this.wireName = wireName;
            }

            @Override
            @JsonValue
            public String wireName() {
                return wireName;
            }
        }
    }

    /** As above with the default tunnel idle timeout (10 min) and tunnel share (0.5). */
    public DispatchConfig(Scheduler scheduler, Balancer balancer, int pollSize, double backendTimeoutSeconds,
                          double connectTimeoutSeconds, long maxBodyBytes, long maxHeaderBytes,
                          double idleTimeoutSeconds, boolean classHeader, Ejection ejection, Adaptive adaptive,
                          double pollDeadlineSeconds, BackendTls tls) {
        this(scheduler, balancer, pollSize, backendTimeoutSeconds, connectTimeoutSeconds, maxBodyBytes, maxHeaderBytes,
                idleTimeoutSeconds, classHeader, ejection, adaptive, pollDeadlineSeconds, tls,
                DispatchSection.TUNNEL_IDLE_TIMEOUT.defaultValue(), DispatchSection.TUNNEL_SHARE.defaultValue());
    }

    /** As above with the default poll deadline (10 ms) and backend TLS (the JVM's trust store, verified). */
    public DispatchConfig(Scheduler scheduler, Balancer balancer, int pollSize, double backendTimeoutSeconds,
                          double connectTimeoutSeconds, long maxBodyBytes, long maxHeaderBytes,
                          double idleTimeoutSeconds, boolean classHeader, Ejection ejection, Adaptive adaptive) {
        this(scheduler, balancer, pollSize, backendTimeoutSeconds, connectTimeoutSeconds, maxBodyBytes, maxHeaderBytes,
                idleTimeoutSeconds, classHeader, ejection, adaptive, 0.010, BackendTls.DEFAULT);
    }

    /** As above with the default adaptive switch. */
    public DispatchConfig(Scheduler scheduler, Balancer balancer, int pollSize, double backendTimeoutSeconds,
                          double connectTimeoutSeconds, long maxBodyBytes, long maxHeaderBytes,
                          double idleTimeoutSeconds, boolean classHeader, Ejection ejection) {
        this(scheduler, balancer, pollSize, backendTimeoutSeconds, connectTimeoutSeconds, maxBodyBytes, maxHeaderBytes,
                idleTimeoutSeconds, classHeader, ejection, Adaptive.DEFAULT);
    }

    /**
     * The adaptive scheduler's switch ({@code dispatch.adaptive}, 002 §4.2): greedy while more than
     * {@code dropRatio} of the requests that arrived in the last {@code windowSeconds} were
     * dropped by the gateway (queueFull, queueTimeout, zeroYield), yid otherwise. 002: 5 %, 30 s.
     */
    public record Adaptive(double dropRatio, double windowSeconds) {
        public static final Adaptive DEFAULT = new Adaptive(DispatchSection.ADAPTIVE_DROP_RATIO.defaultValue(),
                DispatchSection.ADAPTIVE_WINDOW.defaultValue());

        public Adaptive {
            if (!(dropRatio >= 0 && dropRatio < 1)) {
                throw new IllegalArgumentException("dropRatio: " + dropRatio + " (expected: 0 <= x < 1)");
            }
            if (!(windowSeconds > 0) || Double.isInfinite(windowSeconds)) {
                throw new IllegalArgumentException("window: " + windowSeconds + " (expected: > 0)");
            }
        }
    }

    /** As above with the default ejection policy. */
    public DispatchConfig(Scheduler scheduler, Balancer balancer, int pollSize, double backendTimeoutSeconds,
                          double connectTimeoutSeconds, long maxBodyBytes, long maxHeaderBytes,
                          double idleTimeoutSeconds, boolean classHeader) {
        this(scheduler, balancer, pollSize, backendTimeoutSeconds, connectTimeoutSeconds, maxBodyBytes, maxHeaderBytes,
                idleTimeoutSeconds, classHeader, Ejection.DEFAULT, Adaptive.DEFAULT);
    }

    /**
     * Passive ejection ({@code dispatch.ejection}): {@code threshold} failures in a row (refused or
     * timed-out connects, resets, 5xx, timeouts) take a server out of rotation for a backoff that
     * starts at {@code baseBackoffSeconds}, doubles on each ejection up to {@code maxBackoffSeconds},
     * and returns to the base once the server has stayed up for {@code maxBackoffSeconds}.
     */
    public record Ejection(int threshold, double baseBackoffSeconds, double maxBackoffSeconds) {
        public static final Ejection DEFAULT = new Ejection(DispatchSection.EJECTION_THRESHOLD.defaultValue(),
                DispatchSection.EJECTION_BASE_BACKOFF.defaultValue(), DispatchSection.EJECTION_MAX_BACKOFF.defaultValue());

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

    /**
     * {@code dispatch.scheduler}: wrr, fcfs, priority (003), and Neptune's yield schedulers edf, yid, greedy and
     * adaptive (002 §4, Fig. 5, Table 1).
     */
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

    /**
     * Every default, as {@link ConfigLoader} applies them: wrr, least-outstanding, d = 3 polled within 10 ms, 60 s backend and idle
     * timeouts, 2 s connect, 10 MiB bodies, 16 KiB heads.
     */
    public static final DispatchConfig DEFAULT = builder().build();

    /** A builder starting from the defaults (see {@link Builder}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().scheduler(scheduler).balancer(balancer).pollSize(pollSize)
                .backendTimeoutSeconds(backendTimeoutSeconds).connectTimeoutSeconds(connectTimeoutSeconds)
                .maxBodyBytes(maxBodyBytes).maxHeaderBytes(maxHeaderBytes).idleTimeoutSeconds(idleTimeoutSeconds)
                .classHeader(classHeader).ejection(ejection).adaptive(adaptive).pollDeadlineSeconds(pollDeadlineSeconds)
                .tls(tls).tunnelIdleTimeoutSeconds(tunnelIdleTimeoutSeconds).tunnelShare(tunnelShare)
                .admission(admission);
    }

    /**
     * Builds a {@link DispatchConfig}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
     * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
     */
    public static final class Builder {
        private Scheduler scheduler = DispatchSection.SCHEDULER.defaultValue();
        private Balancer balancer = DispatchSection.BALANCER.defaultValue();
        private int pollSize = DispatchSection.POLL_COUNT.defaultValue();
        private double pollDeadlineSeconds = DispatchSection.POLL_DEADLINE.defaultValue();
        private double backendTimeoutSeconds = DispatchSection.BACKEND_TIMEOUT.defaultValue();
        private double connectTimeoutSeconds = DispatchSection.CONNECT_TIMEOUT.defaultValue();
        private long maxBodyBytes = DispatchSection.MAX_BODY_BYTES.defaultValue();
        private long maxHeaderBytes = DispatchSection.MAX_HEADER_BYTES.defaultValue();
        private double idleTimeoutSeconds = DispatchSection.IDLE_TIMEOUT.defaultValue();
        private boolean classHeader = DispatchSection.CLASS_HEADER.defaultValue();
        private Ejection ejection = Ejection.DEFAULT;
        private Adaptive adaptive = Adaptive.DEFAULT;
        private BackendTls tls = BackendTls.DEFAULT;
        private double tunnelIdleTimeoutSeconds = DispatchSection.TUNNEL_IDLE_TIMEOUT.defaultValue();
        private double tunnelShare = DispatchSection.TUNNEL_SHARE.defaultValue();
        private Admission admission = Admission.OFF;

        private Builder() {
        }

        /** {@code scheduler}; default wrr. */
        public Builder scheduler(Scheduler scheduler) {
            this.scheduler = scheduler;
            return this;
        }

        /** {@code balancer}; default least-outstanding. */
        public Builder balancer(Balancer balancer) {
            this.balancer = balancer;
            return this;
        }

        /** {@code poll.deadline}; default 10 ms (002 §3). */
        public Builder pollDeadlineSeconds(double pollDeadlineSeconds) {
            this.pollDeadlineSeconds = pollDeadlineSeconds;
            return this;
        }

        /** {@code poll.count} (formerly {@code pollSize}), d of random-poll; default 3 (002 §3). */
        public Builder pollSize(int pollSize) {
            this.pollSize = pollSize;
            return this;
        }

        /** {@code backendTimeout}; default 60 s. */
        public Builder backendTimeoutSeconds(double backendTimeoutSeconds) {
            this.backendTimeoutSeconds = backendTimeoutSeconds;
            return this;
        }

        /** {@code connectTimeout}; default 2 s. */
        public Builder connectTimeoutSeconds(double connectTimeoutSeconds) {
            this.connectTimeoutSeconds = connectTimeoutSeconds;
            return this;
        }

        /** {@code maxBodyBytes}; default 10 MiB. */
        public Builder maxBodyBytes(long maxBodyBytes) {
            this.maxBodyBytes = maxBodyBytes;
            return this;
        }

        /** {@code maxHeaderBytes}; default 16 KiB. */
        public Builder maxHeaderBytes(long maxHeaderBytes) {
            this.maxHeaderBytes = maxHeaderBytes;
            return this;
        }

        /** {@code idleTimeout}; default 60 s. */
        public Builder idleTimeoutSeconds(double idleTimeoutSeconds) {
            this.idleTimeoutSeconds = idleTimeoutSeconds;
            return this;
        }

        /** {@code classHeader}; default true. */
        public Builder classHeader(boolean classHeader) {
            this.classHeader = classHeader;
            return this;
        }

        /** {@code ejection}; default {@link Ejection#DEFAULT} (3 failures, 1 s doubling to 30 s). */
        public Builder ejection(Ejection ejection) {
            this.ejection = ejection;
            return this;
        }

        /** {@code adaptive}; default {@link Adaptive#DEFAULT} (greedy above 5 % drops over 30 s). */
        public Builder adaptive(Adaptive adaptive) {
            this.adaptive = adaptive;
            return this;
        }

        /** {@code tls}; default {@link BackendTls#DEFAULT} (the JVM's trust store, verified). */
        public Builder tls(BackendTls tls) {
            this.tls = tls;
            return this;
        }

        /** {@code tunnelIdleTimeout}; default 10 min. */
        public Builder tunnelIdleTimeoutSeconds(double tunnelIdleTimeoutSeconds) {
            this.tunnelIdleTimeoutSeconds = tunnelIdleTimeoutSeconds;
            return this;
        }

        /** {@code tunnelShare}; default 0.5. */
        public Builder tunnelShare(double tunnelShare) {
            this.tunnelShare = tunnelShare;
            return this;
        }

        /** {@code admission}; default {@link Admission#OFF}. */
        public Builder admission(Admission admission) {
            this.admission = admission;
            return this;
        }

        public DispatchConfig build() {
            return new DispatchConfig(scheduler, balancer, pollSize, backendTimeoutSeconds, connectTimeoutSeconds,
                    maxBodyBytes, maxHeaderBytes, idleTimeoutSeconds, classHeader, ejection, adaptive, pollDeadlineSeconds,
                    tls, tunnelIdleTimeoutSeconds, tunnelShare, admission);
        }
    }
}
