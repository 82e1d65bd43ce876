package org.arbiter.common.message;

import static org.arbiter.common.message.Message.checkAt;
import static org.arbiter.common.message.Message.checkId;
import static org.arbiter.common.message.Message.checkNonNegative;
import static org.arbiter.common.message.Message.checkVersion;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;

/**
 * What gateway {@code gateway} measured over the last {@code windowSeconds} (sliding window),
 * published every report period. Topic {@code stats}, key: the gateway id; with pools one report per pool,
 * restricted to it ({@link #restrictTo}), keyed {@code gateway@pool} on the pool's partition
 * ({@code StatsTopics.poolReports}).
 *
 * <p>Ranges (checked in the constructors, so a decoded record is within them): every number is
 * finite and >= 0 — rates, times, lengths, weights, counts, caps; {@code allocationVersion} >= 0.
 * NaN and infinities are refused.
 *
 * @param allocationVersion the version of the allocation in force when the snapshot was taken
 * @param classes           per class measurements
 * @param servers           per server measurements, of the servers the gateway uses: a cap above 0, requests
 *                          in flight, work in the window, or marked down; a server not listed has none of
 *                          these (every figure 0, up)
 * @param backlog           over the last report period, how long requests waited for a slot and how
 *                          many the slots took in meanwhile (absent in older messages: empty)
 */
public record GatewayStats(int v, Instant at, String gateway, double windowSeconds, long allocationVersion,
                           Map<String, ClassStats> classes, Map<String, ServerStats> servers, Backlog backlog)
        implements Message {

    /** Without backlog counters (a gateway that does not measure them). */
    public GatewayStats(int v, Instant at, String gateway, double windowSeconds, long allocationVersion,
                        Map<String, ClassStats> classes, Map<String, ServerStats> servers) {
        this(v, at, gateway, windowSeconds, allocationVersion, classes, servers, Backlog.EMPTY);
    }

    public GatewayStats {
        backlog = backlog == null ? Backlog.EMPTY : backlog;
        checkVersion(v);
        checkAt(at);
        checkId("gateway", gateway);
        checkNonNegative("windowSeconds", windowSeconds);
        checkNonNegative("allocationVersion", allocationVersion);
        classes = classes == null ? Map.of() : Map.copyOf(classes);
        servers = servers == null ? Map.of() : Map.copyOf(servers);
        classes.forEach((k, c) -> {
            if (c == null) {
                throw new IllegalArgumentException("classes." + k + ": null (expected: class statistics)");
            }
        });
        servers.forEach((k, s) -> {
            if (s == null) {
                throw new IllegalArgumentException("servers." + k + ": null (expected: server statistics)");
            }
        });
    }

    @Override
    public String key() {
        return gateway;
    }

    /**
     * This report as one pool sees it: only the classes in {@code keepClasses} and the servers in
     * {@code keepServers}; the gateway-wide backlog counters as they are.
     */
    public GatewayStats restrictTo(Set<String> keepClasses, Set<String> keepServers) {
        Map<String, ClassStats> cs = new LinkedHashMap<>();
        classes.forEach((k, c) -> {
            if (keepClasses.contains(k)) {
                cs.put(k, c);
            }
        });
        Map<String, ServerStats> ss = new LinkedHashMap<>();
        servers.forEach((k, s) -> {
            if (keepServers.contains(k)) {
                ss.put(k, s);
            }
        });
        return new GatewayStats(v, at, gateway, windowSeconds, allocationVersion, cs, ss, backlog);
    }

    /**
     * One flow (g, c) over the window.
     *
     * @param arrivalRate          λ̃, requests/s arriving
     * @param throughput           requests/s completed
     * @param meanResponseTime     t̃, arrival at the gateway to last byte sent, s
     * @param meanQueueTime        mean wait in the class queue, s
     * @param meanServiceTime      mean time at the server, s
     * @param p95ResponseTime      95th percentile response time, s
     * @param meanQueueLength      time-averaged queue length
     * @param queueLength          queue length at the snapshot
     * @param inFlight             requests of the class at servers at the snapshot
     * @param weight               w(g,c) in force
     * @param drops                rejected requests in the window by reason (queueFull, queueTimeout, zeroYield, shed,
     *                             backendTimeout, backendError; a reader takes any name)
     * @param period               the queue-monitoring counters for the last report period (000 §5.3)
     * @param yield                offered and realised yield over the window (002 §5.2; absent in older
     *                             messages: {@link YieldStats#EMPTY})
     */
    public record ClassStats(double arrivalRate, double throughput, double meanResponseTime, double meanQueueTime,
                             double meanServiceTime, double p95ResponseTime, double meanQueueLength, int queueLength,
                             int inFlight, double weight, Map<String, Long> drops, PeriodCounters period,
                             YieldStats yield) {

        /** Without yield counters (a gateway that does not measure them). */
        public ClassStats(double arrivalRate, double throughput, double meanResponseTime, double meanQueueTime,
                          double meanServiceTime, double p95ResponseTime, double meanQueueLength, int queueLength,
                          int inFlight, double weight, Map<String, Long> drops, PeriodCounters period) {
            this(arrivalRate, throughput, meanResponseTime, meanQueueTime, meanServiceTime, p95ResponseTime,
                    meanQueueLength, queueLength, inFlight, weight, drops, period, YieldStats.EMPTY);
        }

        public ClassStats {
            yield = yield == null ? YieldStats.EMPTY : yield;
            checkNonNegative("arrivalRate", arrivalRate);
            checkNonNegative("throughput", throughput);
            checkNonNegative("meanResponseTime", meanResponseTime);
            checkNonNegative("meanQueueTime", meanQueueTime);
            checkNonNegative("meanServiceTime", meanServiceTime);
            checkNonNegative("p95ResponseTime", p95ResponseTime);
            checkNonNegative("meanQueueLength", meanQueueLength);
            checkNonNegative("queueLength", queueLength);
            checkNonNegative("inFlight", inFlight);
            checkNonNegative("weight", weight);
            drops = drops == null ? Map.of() : Map.copyOf(drops);
            drops.forEach((reason, n) -> {
                if (n == null || n < 0) {
                    throw new IllegalArgumentException("drops." + reason + ": " + n + " (expected: >= 0)");
                }
            });
            period = period == null ? PeriodCounters.EMPTY : period;
        }

        /** Total drops in the window. */
        public long dropped() {
            return drops.values().stream().mapToLong(Long::longValue).sum();
        }
    }

    /**
     * A class's service yield over the window (002 §2.2, §5.2): every arrival offers the full
     * yield of its class; a completed request realises its yield function at its response time; a
     * dropped one realises 0.
     *
     * @param offered     OfferedYield per second: full yield × arrivals, over the window
     * @param realised    RealizedYield per second, over the window
     * @param lossPercent 002's LossPercent, (offered − realised) / offered × 100; 0 when nothing was offered
     */
    public record YieldStats(double offered, double realised, double lossPercent) {
        public static final YieldStats EMPTY = new YieldStats(0, 0, 0);

        public YieldStats {
            checkNonNegative("yield.offered", offered);
            checkNonNegative("yield.realised", realised);
            checkNonNegative("yield.lossPercent", lossPercent);
        }

        /** From the two rates; LossPercent follows (0 with nothing offered, never below 0). */
        public static YieldStats of(double offered, double realised) {
            double loss = offered > 0 ? Math.max(0, (offered - realised) / offered * 100) : 0;
            return new YieldStats(offered, realised, loss);
        }
    }

    /**
     * The per-sampling-period counters of 000 §5.3 (the inputs of 000 eq. 1-5).
     *
     * @param periodSeconds           length of the period
     * @param arrivals                n_arr
     * @param accepted                n_acc, requests taken from the queue into service (000 §5: the queue
     *                                grows by n_arr − n_acc − n_d over the period)
     * @param dropped                 n_d
     * @param meanQueueSeenByArrivals mean queue length an arrival found
     * @param peakArrivalRate         highest arrival rate over sub-intervals of the period, req/s
     * @param queueLimit              K, the queue bound
     */
    public record PeriodCounters(double periodSeconds, long arrivals, long accepted, long dropped,
                                 double meanQueueSeenByArrivals, double peakArrivalRate, int queueLimit) {
        public static final PeriodCounters EMPTY = new PeriodCounters(0, 0, 0, 0, 0, 0, 0);

        public PeriodCounters {
            checkNonNegative("period.periodSeconds", periodSeconds);
            checkNonNegative("period.arrivals", arrivals);
            checkNonNegative("period.accepted", accepted);
            checkNonNegative("period.dropped", dropped);
            checkNonNegative("period.meanQueueSeenByArrivals", meanQueueSeenByArrivals);
            checkNonNegative("period.peakArrivalRate", peakArrivalRate);
            checkNonNegative("period.queueLimit", queueLimit);
        }
    }

    /**
     * The gateway's backlog over the last report period: while any request waits in one of its
     * queues, every slot it may use is busy, so the requests taken from a queue in that time are
     * taken at the rate its slots complete work — the servers' service rate, measured whatever the
     * load, where the period's accepted count is that rate only when the queue never empties.
     *
     * @param periodSeconds length of the period
     * @param seconds       time during which at least one request waited in a queue
     * @param dispatched    requests taken from a queue into service after waiting, in that time
     */
    public record Backlog(double periodSeconds, double seconds, long dispatched) {
        public static final Backlog EMPTY = new Backlog(0, 0, 0);

        public Backlog {
            checkNonNegative("backlog.periodSeconds", periodSeconds);
            checkNonNegative("backlog.seconds", seconds);
            checkNonNegative("backlog.dispatched", dispatched);
        }
    }

    /**
     * One server as seen from this gateway over the window.
     *
     * @param inFlight        requests of this gateway at the server now
     * @param cap             N(g,s) in force
     * @param throughput      completions/s
     * @param meanServiceTime mean service time, s
     * @param meanInFlight    time-averaged in-flight count
     * @param errors          failed requests in the window
     * @param up              false while the gateway considers the server down
     */
    public record ServerStats(int inFlight, int cap, double throughput, double meanServiceTime, double meanInFlight,
                              long errors, boolean up) {
        public ServerStats {
            checkNonNegative("inFlight", inFlight);
            checkNonNegative("cap", cap);
            checkNonNegative("throughput", throughput);
            checkNonNegative("meanServiceTime", meanServiceTime);
            checkNonNegative("meanInFlight", meanInFlight);
            checkNonNegative("errors", errors);
        }
    }
}
