package org.arbiter.gateway;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.Arrays;
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
 * queue length); and the gateway's backlog: the time requests waited with every slot busy (as
 * GatewayCore reports it), and the dispatches in that time (each into a slot a completion freed,
 * so their rate is the servers' service rate at any load). A snapshot sums the buckets of the
 * window; 000 §5.3's per-period counters sum the
 * buckets of the last report period, and the peak arrival rate is the highest bucket rate in it;
 * their n_acc is 000's "connections accepted by server processes": requests released from the
 * queue to a server, so that the queue grows by n_arr − n_acc − n_d over a period.
 * Yield (002 §5.2): per class, the full yield offered by each arrival and the yield each
 * completion realised (GatewayCore computes both from the class's yield function), summed per
 * bucket; the snapshot reports them per second and LossPercent = (offered − realised) / offered.
 * Per server (completions, summed service time, errors, the integral of the in-flight count) the
 * recorder keeps running totals with one history entry per bucket in which the server had an event;
 * the window's figures are the totals now minus those at the window's start (see {@code history}).
 * Rates divide by the time actually covered (min(window, time since start)), so a young gateway
 * does not under-report.
 *
 * Thread-safety: none. The recorder belongs to its GatewayCore and is driven by the same thread;
 * nothing here reads a clock: every call carries nowNanos.
 */

/** Sliding-window measurement of one gateway; produces {@link GatewayStats}. See the design note in the source. */
public final class StatsRecorder {

    private static final int REASONS = DropReason.values().length;
    // a server's history entry: its last event's time, then its totals as of that event
    private static final int AT = 0;
    private static final int AREA = 1;
    private static final int IN_FLIGHT = 2;
    private static final int DONE = 3;
    private static final int ERRORS = 4;
    private static final int SERVICE = 5;
    private static final int ENTRY = 6;
    // a server's history array starts with where its entries start and end (indices into it)
    private static final int FROM = 0;
    private static final int TO = 1;
    private static final int HEAD = 2;

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
    /** Classes whose queue is not empty (the queue integral skips the classes when none is). */
    private int queuesHeld;
    private boolean backlogged;
    /*
     * Per server, its running totals as a short history: after a head of {@link #HEAD} longs (where the
     * entries start and end, in the array itself so that an event reads one array, not three), one
     * entry per bucket in which something happened to it ({@link #ENTRY} longs: the time of its last event in that bucket, then as of that
     * event the in-flight integral in request-nanoseconds, the count in flight, completions, errors and
     * summed service nanoseconds), the last entry its state now. The window's figures are the totals
     * now minus the totals at the window's start — the last entry before it, its integral carried to
     * the start at its count — all in whole numbers, so exactly what summing the window's buckets gave,
     * and nothing is done for a server at a bucket boundary. Entries that end before the window are
     * dropped as entries are added (the last one before the window's start kept), so a server holds at
     * most a window's worth of buckets plus one. A total that passes 2^63 over months wraps, and the
     * difference of two totals is still exact (two's complement), as long as the window's own figure fits.
     */
    private long[][] history;
    /** Bit s: server s has a history (something happened to it since it was last idle before the window). */
    private long[] tracked;
    /** Per class, the response-time histogram of the whole ring, kept the same way (counts: exact). */
    private final long[][] windowResponses;
    private long lastIntegrated;

    // A bucket's figures of class c: F fields at c × F in one long[] (a double as its raw bits), those a
    // request touches first, so that its arrival, dispatch and completion read one or two cache lines
    // of the bucket, not a line in each of twelve arrays (with a thousand gateways and more, few stay
    // in the cache between two events of one gateway)
    private static final int ARRIVALS = 0;
    private static final int QUEUE_SEEN = 1;
    private static final int OFFERED = 2;       // double
    private static final int ACCEPTED = 3;
    private static final int DISPATCHED = 4;
    private static final int QUEUE_TIME = 5;    // double
    private static final int COMPLETED = 6;
    private static final int RESPONSE = 7;      // double
    private static final int SERVICE_SUM = 8;   // double
    private static final int REALISED = 9;      // double
    private static final int QUEUE_AREA = 10;   // double
    private static final int DROPS = 11;        // REASONS longs
    private static final int F = DROPS + REASONS;

    private static final class Bucket {
        /** Per class c, its F fields at c × F (see ARRIVALS ... DROPS). */
        final long[] v;
        /**
         * The bucket's response-time histogram cells (class × {@link LogHistogram#BUCKETS} + cell), only
         * to take them off the window's histograms when the bucket leaves: as a list of the cells
         * recorded while few (a gateway sees tens of responses per bucket, a histogram per class would be
         * hundreds of counters each), as counts per cell once the list would be larger than them.
         */
        int[] cells = new int[8];
        int cellCount;
        int[] cellCounts;
        boolean dense;
        private final int cellLimit;
        /** Time with some request waiting, ns; requests dispatched after waiting. */
        double backlogNanos;
        long backlogDispatched;

        Bucket(int c) {
            v = new long[c * F];
            cellLimit = c * LogHistogram.BUCKETS;
        }

        /** A response landed in histogram cell {@code cell} (class × BUCKETS + index). */
        void response(int cell) {
            if (dense) {
                cellCounts[cell]++;
                return;
            }
            if (cellCount == cells.length) {
                if (cellCount >= cellLimit / 2) { // the list would outgrow the counts: switch
                    if (cellCounts == null) {
                        cellCounts = new int[cellLimit];
                    }
                    for (int i = 0; i < cellCount; i++) {
                        cellCounts[cells[i]]++;
                    }
                    dense = true;
                    cellCounts[cell]++;
                    return;
                }
                cells = Arrays.copyOf(cells, cellCount * 2);
            }
            cells[cellCount++] = cell;
        }

        /** Takes this bucket's responses off the window's histograms. */
        void subtractResponses(long[][] window) {
            if (dense) {
                for (int cell = 0; cell < cellCounts.length; cell++) {
                    if (cellCounts[cell] != 0) {
                        window[cell / LogHistogram.BUCKETS][cell % LogHistogram.BUCKETS] -= cellCounts[cell];
                    }
                }
                return;
            }
            for (int i = 0; i < cellCount; i++) {
                window[cells[i] / LogHistogram.BUCKETS][cells[i] % LogHistogram.BUCKETS]--;
            }
        }

        /** Field i of class c, a double. */
        double d(int c, int i) {
            return Double.longBitsToDouble(v[c * F + i]);
        }

        /** Field i of class c, a count. */
        long n(int c, int i) {
            return v[c * F + i];
        }

        void add(int c, int i, double x) {
            int k = c * F + i;
            v[k] = Double.doubleToRawLongBits(Double.longBitsToDouble(v[k]) + x);
        }

        void clear() {
            Arrays.fill(v, 0); // 0L is +0.0 too
            if (dense) {
                Arrays.fill(cellCounts, 0);
                dense = false;
            }
            cellCount = 0;
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
    public StatsRecorder(List<String> classes, List<String> servers, int[] queueLimits, long windowNanos,
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
            ring[i] = new Bucket(this.classes.length);
        }
        this.startNanos = nowNanos;
        this.bucketStart = nowNanos;
        this.lastIntegrated = nowNanos;
        this.queueLen = new int[this.classes.length];
        this.history = new long[this.servers.length][];
        this.tracked = new long[(this.servers.length + 63) >>> 6];
        this.windowResponses = new long[this.classes.length][LogHistogram.BUCKETS];
    }

    /** Server {@code id} joins at the next index (a configuration reload added it), with no history. */
    public void addServer(String id, long nowNanos) {
        advance(nowNanos);
        integrate(nowNanos);
        int n = servers.length + 1;
        servers = Arrays.copyOf(servers, n);
        servers[n - 1] = requireNonNull(id, "id");
        history = Arrays.copyOf(history, n);
        tracked = Arrays.copyOf(tracked, (n + 63) >>> 6);
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
                for (long[] h : windowResponses) {
                    Arrays.fill(h, 0);
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
            leaveWindow(ring[current]);
            ring[current].clear();
            filledBuckets++;
        }
        integrate(nowNanos);
    }

    /** The bucket about to be cleared for reuse leaves the window: its responses come off the histograms. */
    private void leaveWindow(Bucket b) {
        b.subtractResponses(windowResponses);
    }

    /** Where the window starts: the start of its oldest bucket. */
    private long windowStart() {
        return bucketStart - (Math.min(ring.length, filledBuckets) - 1) * bucketNanos;
    }

    /**
     * Server s's entry for an event at {@code t}, its totals carried to t (the in-flight integral
     * grown at the count held since the last event): the last entry when that event fell in the
     * current bucket, else a new one.
     */
    private int entry(int s, long t) {
        long[] h = history[s];
        if (h == null) {
            h = history[s] = new long[HEAD + 4 * ENTRY];
            h[FROM] = HEAD;
            h[TO] = HEAD;
            tracked[s >>> 6] |= 1L << s;
        }
        int from = (int) h[FROM];
        int to = (int) h[TO];
        if (to > from && h[to - ENTRY + AT] >= bucketStart) {
            int e = to - ENTRY;
            long dt = t - h[e + AT];
            if (dt > 0) {
                h[e + AREA] += h[e + IN_FLIGHT] * dt;
            }
            h[e + AT] = t;
            return e;
        }
        // entries wholly before the window go, the last one before its start kept
        long start = windowStart();
        while (to - from >= 2 * ENTRY && h[from + ENTRY + AT] < start) {
            from += ENTRY;
        }
        if (to == h.length) {
            if (from > HEAD) { // room at the front: move the entries there
                System.arraycopy(h, from, h, HEAD, to - from);
            } else {
                h = history[s] = Arrays.copyOf(h, HEAD + (h.length - HEAD) * 2);
            }
            to -= from - HEAD;
            from = HEAD;
        }
        if (to > from) {
            System.arraycopy(h, to - ENTRY, h, to, ENTRY);
            long dt = t - h[to + AT];
            if (dt > 0) {
                h[to + AREA] += h[to + IN_FLIGHT] * dt;
            }
        }
        h[to + AT] = t;
        h[FROM] = from;
        h[TO] = to + ENTRY;
        return to;
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
        if (queuesHeld != 0) {
            for (int c = 0; c < queueLen.length; c++) {
                if (queueLen[c] != 0) {
                    b.add(c, QUEUE_AREA, (double) queueLen[c] * dt);
                }
            }
        }
        lastIntegrated = t;
    }

    /** A request of class c arrived and found {@code queueLengthSeen} requests in its queue. */
    public void arrival(int c, int queueLengthSeen, long nowNanos) {
        advance(nowNanos);
        long[] v = ring[current].v;
        v[c * F + ARRIVALS]++;
        v[c * F + QUEUE_SEEN] += queueLengthSeen;
    }

    public void accepted(int c, long nowNanos) {
        advance(nowNanos);
        ring[current].v[c * F + ACCEPTED]++;
    }

    public void dropped(int c, DropReason reason, long nowNanos) {
        advance(nowNanos);
        ring[current].v[c * F + DROPS + reason.ordinal()]++;
    }

    /** Class c's queue now holds {@code length} requests. */
    public void queueLength(int c, int length, long nowNanos) {
        advance(nowNanos);
        queuesHeld += (length != 0 ? 1 : 0) - (queueLen[c] != 0 ? 1 : 0);
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
        int e = entry(s, nowNanos);
        history[s][e + IN_FLIGHT] = inFlight;
    }

    /**
     * A queued request went to a server after {@code queueNanos}; {@code inBacklog}: during the
     * backlog (so into a slot a completion freed).
     */
    public void dispatched(int c, long queueNanos, boolean inBacklog, long nowNanos) {
        advance(nowNanos);
        Bucket b = ring[current];
        b.v[c * F + DISPATCHED]++;
        b.add(c, QUEUE_TIME, queueNanos);
        if (inBacklog) {
            b.backlogDispatched++;
        }
    }

    /** A response was delivered: response time from arrival, service time at server s. */
    public void completed(int c, int s, long responseNanos, long serviceNanos, long nowNanos) {
        advance(nowNanos);
        Bucket b = ring[current];
        b.v[c * F + COMPLETED]++;
        b.add(c, RESPONSE, responseNanos);
        b.add(c, SERVICE_SUM, serviceNanos);
        int cell = LogHistogram.index(responseNanos);
        b.response(c * LogHistogram.BUCKETS + cell);
        windowResponses[c][cell]++;
        int e = entry(s, nowNanos);
        history[s][e + DONE]++;
        history[s][e + SERVICE] += serviceNanos;
    }

    /** A request of class c arrived, offering {@code yield} (its class's full yield). */
    public void offered(int c, double yield, long nowNanos) {
        advance(nowNanos);
        ring[current].add(c, OFFERED, yield);
    }

    /** A request of class c completed, realising {@code yield}. */
    public void realised(int c, double yield, long nowNanos) {
        advance(nowNanos);
        ring[current].add(c, REALISED, yield);
    }

    public void serverError(int s, long nowNanos) {
        advance(nowNanos);
        int e = entry(s, nowNanos);
        history[s][e + ERRORS]++;
    }

    /** What a snapshot needs to know of server s that the recorder does not measure itself. */
    public interface ServerLive {
        /** Requests of this gateway in flight at s now. */
        int inFlight(int s);

        /** N(g,s) in force, 0 when s is ejected (its slots are capacity lost). */
        int cap(int s);

        /** Whether s is up now. */
        boolean up(int s);
    }

    /**
     * Everything the recorder does not measure itself, as of the snapshot. {@code candidates}: bit s
     * set for every server that may have a cap above 0 or be down now (more is harmless); the servers
     * a snapshot lists are among these and those the recorder has a history of (every server with a
     * request in flight has one), so a gateway using a few servers of a large cluster is not read
     * server by server.
     */
    public record Live(double[] weights, int[] queueLengths, int[] classInFlight, ServerLive servers,
                       long[] candidates) {
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

        // Buckets outside, classes inside: each bucket's arrays are read once, in a row. Every class's
        // sums still take the buckets newest first, so they are the same, bit for bit, as class by class.
        int nc = classes.length;
        long[] arrivals = new long[nc], completed = new long[nc], dispatched = new long[nc];
        double[] resp = new double[nc], service = new double[nc], queue = new double[nc], area = new double[nc],
                offered = new double[nc], realised = new double[nc];
        long[][] drops = new long[nc][REASONS];
        long[] pArr = new long[nc], pAcc = new long[nc], pDrop = new long[nc], pSeen = new long[nc], peak = new long[nc];
        for (int k = 0; k < nb; k++) {
            Bucket b = ring[Math.floorMod(current - k, ring.length)];
            boolean inPeriod = k < pb;
            for (int c = 0; c < nc; c++) {
                arrivals[c] += b.n(c, ARRIVALS);
                completed[c] += b.n(c, COMPLETED);
                dispatched[c] += b.n(c, DISPATCHED);
                resp[c] += b.d(c, RESPONSE);
                service[c] += b.d(c, SERVICE_SUM);
                offered[c] += b.d(c, OFFERED);
                realised[c] += b.d(c, REALISED);
                queue[c] += b.d(c, QUEUE_TIME);
                area[c] += b.d(c, QUEUE_AREA);
                long[] d = drops[c];
                for (int r = 0; r < REASONS; r++) {
                    d[r] += b.n(c, DROPS + r);
                }
                if (inPeriod) {
                    pArr[c] += b.n(c, ARRIVALS);
                    pAcc[c] += b.n(c, DISPATCHED); // n_acc: taken from the queue into service (000 §5)
                    for (int r = 0; r < REASONS; r++) {
                        pDrop[c] += b.n(c, DROPS + r);
                    }
                    pSeen[c] += b.n(c, QUEUE_SEEN);
                    peak[c] = Math.max(peak[c], b.n(c, ARRIVALS));
                }
            }
        }
        DropReason[] reasons = DropReason.values();
        @SuppressWarnings("unchecked")
        Map.Entry<String, ClassStats>[] cs = new Map.Entry[nc];
        for (int c = 0; c < nc; c++) {
            @SuppressWarnings("unchecked")
            Map.Entry<String, Long>[] dropEntries = new Map.Entry[REASONS];
            for (DropReason r : reasons) {
                dropEntries[r.ordinal()] = Map.entry(r.wireName(), drops[c][r.ordinal()]);
            }
            PeriodCounters period = new PeriodCounters(periodNanosCovered / 1e9, pArr[c], pAcc[c], pDrop[c],
                    pArr[c] == 0 ? 0 : (double) pSeen[c] / pArr[c], peak[c] / (bucketNanos / 1e9), queueLimits[c]);
            cs[c] = Map.entry(classes[c], new ClassStats(
                    arrivals[c] / covered,
                    completed[c] / covered,
                    completed[c] == 0 ? 0 : resp[c] / completed[c] / 1e9,
                    dispatched[c] == 0 ? 0 : queue[c] / dispatched[c] / 1e9,
                    completed[c] == 0 ? 0 : service[c] / completed[c] / 1e9,
                    LogHistogram.quantile(windowResponses[c], 0.95) / 1e9 * (completed[c] == 0 ? 0 : 1),
                    area[c] / coveredNanos,
                    live.queueLengths()[c],
                    live.classInFlight()[c],
                    live.weights()[c],
                    Map.ofEntries(dropEntries),
                    period,
                    GatewayStats.YieldStats.of(offered[c] / covered, realised[c] / covered)));
        }
        double backlogNanos = 0;
        long backlogDispatched = 0;
        for (int k = 0; k < pb; k++) {
            Bucket b = ring[Math.floorMod(current - k, ring.length)];
            backlogNanos += b.backlogNanos;
            backlogDispatched += b.backlogDispatched;
        }
        // per server, the window's sums (every bucket of the ring: those not filled yet are zero), for
        // the servers that may be listed: a history here, or a cap or a health state there (ascending)
        int ns = servers.length;
        long start = windowStart();
        long[] candidates = live.candidates();
        ServerLive sl = live.servers();
        // listed straight into an immutable map (the message keeps it as it is: no second copy)
        @SuppressWarnings("unchecked")
        Map.Entry<String, ServerStats>[] ss = new Map.Entry[Math.min(ns, 64)];
        int listed = 0;
        for (int w = 0; w < tracked.length; w++) {
            long bits = tracked[w] | (w < candidates.length ? candidates[w] : 0);
            while (bits != 0) {
                int s = (w << 6) + Long.numberOfTrailingZeros(bits);
                bits &= bits - 1;
                if (s >= ns) {
                    break;
                }
                ServerStats st = serverStats(s, start, nowNanos, covered, coveredNanos, sl);
                if (st != null) {
                    if (listed == ss.length) {
                        ss = Arrays.copyOf(ss, Math.min(ns, 2 * listed));
                    }
                    ss[listed++] = Map.entry(servers[s], st);
                }
            }
        }
        return new GatewayStats(1, at, gateway, covered, allocationVersion, Map.ofEntries(cs),
                Map.ofEntries(Arrays.copyOf(ss, listed)),
                new GatewayStats.Backlog(periodNanosCovered / 1e9, Math.min(backlogNanos, periodNanosCovered) / 1e9,
                        backlogDispatched));
    }

    /** Server s's figures over the window, or null when it is not to be listed. */
    private ServerStats serverStats(int s, long start, long nowNanos, double covered, double coveredNanos,
                                    ServerLive sl) {
        long done = 0;
        long errors = 0;
        double serviceNanos = 0;
        double inFlightArea = 0;
        long[] h = history[s];
        int to = h == null ? 0 : (int) h[TO];
        if (h != null && to > h[FROM]) {
            int last = to - ENTRY;
            long areaNow = h[last + AREA] + h[last + IN_FLIGHT] * Math.max(0, nowNanos - h[last + AT]);
            // the totals at the window's start: the last entry before it, carried to it
            int before = -1;
            for (int e = (int) h[FROM]; e < to && h[e + AT] < start; e += ENTRY) {
                before = e;
            }
            long areaThen = 0;
            if (before >= 0) {
                areaThen = h[before + AREA] + h[before + IN_FLIGHT] * Math.max(0, start - h[before + AT]);
                done = h[last + DONE] - h[before + DONE];
                errors = h[last + ERRORS] - h[before + ERRORS];
                serviceNanos = h[last + SERVICE] - h[before + SERVICE];
            } else {
                done = h[last + DONE];
                errors = h[last + ERRORS];
                serviceNanos = h[last + SERVICE];
            }
            inFlightArea = areaNow - areaThen;
            if (h[last + IN_FLIGHT] == 0 && h[last + AT] < start) {
                // idle since before the window: its figures are all 0 until its next event, from
                // which totals can start again from 0; the history goes (a gateway whose caps move
                // over many servers does not keep one for every server it ever used)
                history[s] = null;
                tracked[s >>> 6] &= ~(1L << s);
            }
        }
        int cap = sl.cap(s);
        int inFlight = sl.inFlight(s);
        boolean up = sl.up(s);
        if (cap == 0 && inFlight == 0 && up && done == 0 && errors == 0 && inFlightArea == 0) {
            return null; // a server this gateway neither uses nor used in the window, and up: not listed
        }
        return new ServerStats(inFlight, cap, done / covered, done == 0 ? 0 : serviceNanos / done / 1e9,
                inFlightArea / coveredNanos, errors, up);
    }
}
