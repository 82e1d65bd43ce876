package org.arbiter.gateway;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.GatewayStats.ClassStats;
import org.arbiter.common.message.GatewayStats.PeriodCounters;
import org.arbiter.common.message.GatewayStats.ServerStats;

/*
 * Measurement model (docs/architecture.md, data loop step 5; 003 §III, 000 §5):
 *
 * Time is cut into buckets of bucketNanos; a ring of ceil(window / bucket) buckets holds the
 * sliding window. Each bucket counts, per class, arrivals, accepted requests, drops by reason,
 * dispatches with their summed queue time, completions with their summed response and service
 * time, a log histogram of response times (p95), the queue-length seen by arrivals (000: the
 * arrivals' view of the queue), and the time integral of the queue length (for the time-averaged
 * queue length); per server, completions, summed service time, errors and the integral of the
 * in-flight count; and the gateway's backlog: the time requests waited with every slot busy (as
 * GatewayCore reports it), and the dispatches in that time (each into a slot a completion freed,
 * so their rate is the servers' service rate at any load). A snapshot sums the buckets of the
 * window; 000 §5.3's per-period counters sum the
 * buckets of the last report period, and the peak arrival rate is the highest bucket rate in it;
 * their n_acc is 000's "connections accepted by server processes": requests released from the
 * queue to a server, so that the queue grows by n_arr − n_acc − n_d over a period.
 * Yield (002 §5.2): per class, the full yield offered by each arrival and the yield each
 * completion realised (GatewayCore computes both from the class's yield function), summed per
 * bucket; the snapshot reports them per second and LossPercent = (offered − realised) / offered.
 * Rates divide by the time actually covered (min(window, time since start)), so a young gateway
 * does not under-report.
 *
 * Thread-safety: none. The recorder belongs to its GatewayCore and is driven by the same thread;
 * nothing here reads a clock: every call carries nowNanos.
 */

/** The recorder as it was before issue 32 (every bucket walked at every snapshot, every busy server integrated at every event): the reference the faster one must equal bit for bit. */
final class ReferenceStatsRecorder {

    private static final int REASONS = DropReason.values().length;

    private final String[] classes;
    private String[] servers;
    private final int[] queueLimits;
    private final long bucketNanos;
    private final int periodBuckets;
    private final Bucket[] ring;
    private final long startNanos;
    private long bucketStart;
    private int current;
    private long filledBuckets = 1;

    // integrals
    private final int[] queueLen;
    private boolean backlogged;
    private int[] serverInFlight;
    private long lastIntegrated;

    private static final class Bucket {
        final long[] arrivals;
        final long[] accepted;
        final long[][] drops;
        final long[] dispatched;
        final double[] queueTimeSum;
        final long[] completed;
        final double[] responseSum;
        final double[] serviceSum;
        final double[] offered;
        final double[] realised;
        final double[] queueArea;
        final long[] queueSeenSum;
        final Histogram[] responses;
        long[] serverCompleted;
        double[] serverServiceSum;
        long[] serverErrors;
        double[] serverArea;
        /** Time with some request waiting, ns; requests dispatched after waiting. */
        double backlogNanos;
        long backlogDispatched;

        Bucket(int c, int s) {
            arrivals = new long[c];
            accepted = new long[c];
            drops = new long[c][REASONS];
            dispatched = new long[c];
            queueTimeSum = new double[c];
            completed = new long[c];
            responseSum = new double[c];
            serviceSum = new double[c];
            offered = new double[c];
            realised = new double[c];
            queueArea = new double[c];
            queueSeenSum = new long[c];
            responses = new Histogram[c];
            for (int i = 0; i < c; i++) {
                responses[i] = new Histogram();
            }
            serverCompleted = new long[s];
            serverServiceSum = new double[s];
            serverErrors = new long[s];
            serverArea = new double[s];
        }

        void addServer() {
            int n = serverCompleted.length + 1;
            serverCompleted = Arrays.copyOf(serverCompleted, n);
            serverServiceSum = Arrays.copyOf(serverServiceSum, n);
            serverErrors = Arrays.copyOf(serverErrors, n);
            serverArea = Arrays.copyOf(serverArea, n);
        }

        void clear() {
            Arrays.fill(arrivals, 0);
            Arrays.fill(accepted, 0);
            for (long[] d : drops) {
                Arrays.fill(d, 0);
            }
            Arrays.fill(dispatched, 0);
            Arrays.fill(queueTimeSum, 0);
            Arrays.fill(completed, 0);
            Arrays.fill(responseSum, 0);
            Arrays.fill(serviceSum, 0);
            Arrays.fill(offered, 0);
            Arrays.fill(realised, 0);
            Arrays.fill(queueArea, 0);
            Arrays.fill(queueSeenSum, 0);
            for (Histogram h : responses) {
                h.reset();
            }
            Arrays.fill(serverCompleted, 0);
            Arrays.fill(serverServiceSum, 0);
            Arrays.fill(serverErrors, 0);
            Arrays.fill(serverArea, 0);
            backlogNanos = 0;
            backlogDispatched = 0;
        }
    }

    /**
     * @param classes       class names, by index
     * @param servers       server ids, by index
     * @param queueLimits   K per class (reported in the period counters)
     * @param windowNanos   sliding window (control.statsWindow)
     * @param periodNanos   report period (control.reportPeriod), the span of 000 §5.3's counters
     * @param nowNanos      the start of measurement
     */
    ReferenceStatsRecorder(List<String> classes, List<String> servers, int[] queueLimits, long windowNanos,
                         long periodNanos, long nowNanos) {
        this.classes = requireNonNull(classes, "classes").toArray(String[]::new);
        this.servers = requireNonNull(servers, "servers").toArray(String[]::new);
        this.queueLimits = queueLimits.clone();
        if (windowNanos <= 0 || periodNanos <= 0) {
            throw new IllegalArgumentException("window/period: " + windowNanos + "/" + periodNanos + " ns (expected: > 0)");
        }
        long bucket = Math.max(periodNanos / 10, windowNanos / 600);
        this.bucketNanos = Math.max(bucket, 1_000_000);
        this.periodBuckets = (int) Math.max(1, Math.round((double) periodNanos / bucketNanos));
        int n = (int) Math.max(periodBuckets, (windowNanos + bucketNanos - 1) / bucketNanos);
        this.ring = new Bucket[n];
        for (int i = 0; i < n; i++) {
            ring[i] = new Bucket(this.classes.length, this.servers.length);
        }
        this.startNanos = nowNanos;
        this.bucketStart = nowNanos;
        this.lastIntegrated = nowNanos;
        this.queueLen = new int[this.classes.length];
        this.serverInFlight = new int[this.servers.length];
    }

    /** Server {@code id} joins at the next index (a configuration reload added it), with no history. */
    public void addServer(String id, long nowNanos) {
        advance(nowNanos);
        integrate(nowNanos);
        int n = servers.length + 1;
        servers = Arrays.copyOf(servers, n);
        servers[n - 1] = requireNonNull(id, "id");
        serverInFlight = Arrays.copyOf(serverInFlight, n);
        for (Bucket b : ring) {
            b.addServer();
        }
    }

    /** Class c's queue limit K changed (a configuration reload). */
    public void queueLimit(int c, int limit) {
        queueLimits[c] = limit;
    }

    /** Moves the window to {@code nowNanos}, closing buckets that ended. */
    public void advance(long nowNanos) {
        while (nowNanos - bucketStart >= bucketNanos) {
            long end = bucketStart + bucketNanos;
            integrate(end);
            long behind = (nowNanos - bucketStart) / bucketNanos;
            if (behind > ring.length + 1) {
                // Idle for longer than the window: the buckets that end before the window starts
                // are skipped at once (no event fell in them); the window's own buckets are then
                // walked one by one below, so the queue, in-flight and backlog integrals that held
                // through the idle time fill them.
                for (Bucket b : ring) {
                    b.clear();
                }
                long skip = behind - ring.length;
                bucketStart += skip * bucketNanos;
                lastIntegrated = bucketStart;
                current = (int) ((current + skip) % ring.length);
                filledBuckets += skip;
                continue;
            }
            bucketStart = end;
            current = (current + 1) % ring.length;
            ring[current].clear();
            filledBuckets++;
        }
        integrate(nowNanos);
    }

    private void integrate(long t) {
        long dt = t - lastIntegrated;
        if (dt <= 0) {
            return;
        }
        Bucket b = ring[current];
        if (backlogged) {
            b.backlogNanos += dt;
        }
        for (int c = 0; c < queueLen.length; c++) {
            if (queueLen[c] != 0) {
                b.queueArea[c] += (double) queueLen[c] * dt;
            }
        }
        for (int s = 0; s < serverInFlight.length; s++) {
            if (serverInFlight[s] != 0) {
                b.serverArea[s] += (double) serverInFlight[s] * dt;
            }
        }
        lastIntegrated = t;
    }

    /** A request of class c arrived and found {@code queueLengthSeen} requests in its queue. */
    public void arrival(int c, int queueLengthSeen, long nowNanos) {
        advance(nowNanos);
        Bucket b = ring[current];
        b.arrivals[c]++;
        b.queueSeenSum[c] += queueLengthSeen;
    }

    public void accepted(int c, long nowNanos) {
        advance(nowNanos);
        ring[current].accepted[c]++;
    }

    public void dropped(int c, DropReason reason, long nowNanos) {
        advance(nowNanos);
        ring[current].drops[c][reason.ordinal()]++;
    }

    /** Class c's queue now holds {@code length} requests. */
    public void queueLength(int c, int length, long nowNanos) {
        advance(nowNanos);
        queueLen[c] = length;
    }

    /** Whether requests wait with every slot busy (the gateway's backlog, see GatewayCore). */
    public void backlogged(boolean on, long nowNanos) {
        advance(nowNanos);
        backlogged = on;
    }

    /** Server s now runs {@code inFlight} requests of this gateway. */
    public void serverInFlight(int s, int inFlight, long nowNanos) {
        advance(nowNanos);
        serverInFlight[s] = inFlight;
    }

    /**
     * A queued request went to a server after {@code queueNanos}; {@code inBacklog}: during the
     * backlog (so into a slot a completion freed).
     */
    public void dispatched(int c, long queueNanos, boolean inBacklog, long nowNanos) {
        advance(nowNanos);
        Bucket b = ring[current];
        b.dispatched[c]++;
        b.queueTimeSum[c] += queueNanos;
        if (inBacklog) {
            b.backlogDispatched++;
        }
    }

    /** A response was delivered: response time from arrival, service time at server s. */
    public void completed(int c, int s, long responseNanos, long serviceNanos, long nowNanos) {
        advance(nowNanos);
        Bucket b = ring[current];
        b.completed[c]++;
        b.responseSum[c] += responseNanos;
        b.serviceSum[c] += serviceNanos;
        b.responses[c].record(responseNanos);
        b.serverCompleted[s]++;
        b.serverServiceSum[s] += serviceNanos;
    }

    /** A request of class c arrived, offering {@code yield} (its class's full yield). */
    public void offered(int c, double yield, long nowNanos) {
        advance(nowNanos);
        ring[current].offered[c] += yield;
    }

    /** A request of class c completed, realising {@code yield}. */
    public void realised(int c, double yield, long nowNanos) {
        advance(nowNanos);
        ring[current].realised[c] += yield;
    }

    public void serverError(int s, long nowNanos) {
        advance(nowNanos);
        ring[current].serverErrors[s]++;
    }

    /** Everything the recorder does not measure itself, as of the snapshot. */
    public record Live(double[] weights, int[] queueLengths, int[] classInFlight, int[] serverInFlight, int[] caps,
                       boolean[] up) {
    }

    /** The window as a {@link GatewayStats} message. */
    public GatewayStats snapshot(String gateway, Instant at, long nowNanos, long allocationVersion, Live live) {
        advance(nowNanos);
        int nb = (int) Math.min(ring.length, filledBuckets);
        double coveredNanos = Math.max(1, Math.min((double) (nb - 1) * bucketNanos + (nowNanos - bucketStart),
                (double) (nowNanos - startNanos)));
        double covered = coveredNanos / 1e9;
        int pb = Math.min(periodBuckets, nb);
        double periodNanosCovered = Math.max(1, (double) (pb - 1) * bucketNanos + (nowNanos - bucketStart));

        Map<String, ClassStats> cs = new LinkedHashMap<>();
        long[] hist = new long[LogHistogram.BUCKETS];
        for (int c = 0; c < classes.length; c++) {
            long arrivals = 0, completed = 0, dispatched = 0;
            double resp = 0, service = 0, queue = 0, area = 0, offered = 0, realised = 0;
            long[] drops = new long[REASONS];
            Arrays.fill(hist, 0);
            long pArr = 0, pAcc = 0, pDrop = 0, pSeen = 0, peak = 0;
            for (int k = 0; k < nb; k++) {
                Bucket b = ring[Math.floorMod(current - k, ring.length)];
                arrivals += b.arrivals[c];
                completed += b.completed[c];
                dispatched += b.dispatched[c];
                resp += b.responseSum[c];
                service += b.serviceSum[c];
                offered += b.offered[c];
                realised += b.realised[c];
                queue += b.queueTimeSum[c];
                area += b.queueArea[c];
                for (int r = 0; r < REASONS; r++) {
                    drops[r] += b.drops[c][r];
                }
                b.responses[c].addTo(hist);
                if (k < pb) {
                    pArr += b.arrivals[c];
                    pAcc += b.dispatched[c]; // n_acc: taken from the queue into service (000 §5)
                    for (int r = 0; r < REASONS; r++) {
                        pDrop += b.drops[c][r];
                    }
                    pSeen += b.queueSeenSum[c];
                    peak = Math.max(peak, b.arrivals[c]);
                }
            }
            Map<String, Long> dropMap = new LinkedHashMap<>();
            for (DropReason r : DropReason.values()) {
                dropMap.put(r.wireName(), drops[r.ordinal()]);
            }
            PeriodCounters period = new PeriodCounters(periodNanosCovered / 1e9, pArr, pAcc, pDrop,
                    pArr == 0 ? 0 : (double) pSeen / pArr, peak / (bucketNanos / 1e9), queueLimits[c]);
            cs.put(classes[c], new ClassStats(
                    arrivals / covered,
                    completed / covered,
                    completed == 0 ? 0 : resp / completed / 1e9,
                    dispatched == 0 ? 0 : queue / dispatched / 1e9,
                    completed == 0 ? 0 : service / completed / 1e9,
                    LogHistogram.quantile(hist, 0.95) / 1e9 * (completed == 0 ? 0 : 1),
                    area / coveredNanos,
                    live.queueLengths()[c],
                    live.classInFlight()[c],
                    live.weights()[c],
                    dropMap,
                    period,
                    GatewayStats.YieldStats.of(offered / covered, realised / covered)));
        }
        double backlogNanos = 0;
        long backlogDispatched = 0;
        for (int k = 0; k < pb; k++) {
            Bucket b = ring[Math.floorMod(current - k, ring.length)];
            backlogNanos += b.backlogNanos;
            backlogDispatched += b.backlogDispatched;
        }
        Map<String, ServerStats> ss = new LinkedHashMap<>();
        for (int s = 0; s < servers.length; s++) {
            long completed = 0, errors = 0;
            double service = 0, area = 0;
            for (int k = 0; k < nb; k++) {
                Bucket b = ring[Math.floorMod(current - k, ring.length)];
                completed += b.serverCompleted[s];
                service += b.serverServiceSum[s];
                errors += b.serverErrors[s];
                area += b.serverArea[s];
            }
            ss.put(servers[s], new ServerStats(live.serverInFlight()[s], live.caps()[s], completed / covered,
                    completed == 0 ? 0 : service / completed / 1e9, area / coveredNanos, errors, live.up()[s]));
        }
        return new GatewayStats(1, at, gateway, covered, allocationVersion, cs, ss,
                new GatewayStats.Backlog(periodNanosCovered / 1e9, Math.min(backlogNanos, periodNanosCovered) / 1e9,
                        backlogDispatched));
    }

    /** One bucket's response times of one class: counts per {@link LogHistogram} cell (the recorder before). */
    static final class Histogram {
        private final int[] counts = new int[LogHistogram.BUCKETS];
        private long total;

        void record(long nanos) {
            counts[LogHistogram.index(nanos)]++;
            total++;
        }

        void addTo(long[] acc) {
            if (total == 0) {
                return;
            }
            for (int i = 0; i < LogHistogram.BUCKETS; i++) {
                acc[i] += counts[i];
            }
        }

        void reset() {
            if (total != 0) {
                Arrays.fill(counts, 0);
                total = 0;
            }
        }
    }
}
