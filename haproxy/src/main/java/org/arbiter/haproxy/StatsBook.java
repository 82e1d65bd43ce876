package org.arbiter.haproxy;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.HashMap;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;

/**
 * Turns periodic {@code show stat} samples of an HAProxy gateway into the {@link GatewayStats} Arbiter's
 * gateway publishes, so the GRM cannot tell the two apart.
 *
 * <p>HAProxy keeps counters (requests assigned to a backend, sent to a server, responses, errors) and
 * instantaneous levels (queued, in progress), and averages over its last 1 024 requests; it keeps no
 * sums of response times and no percentiles. So, over the window (from the samples, one every
 * sampling interval, time passed in):
 * <ul>
 *   <li>arrival rate λ̃ = Δ backend {@code stot} / Δt; throughput = Δ servers' responses / Δt;</li>
 *   <li>queue length: the time average of the backend's {@code qcur}; in flight: of the servers' {@code scur};</li>
 *   <li>mean queueing time = ∫ qcur dt / requests sent to servers, mean service time = ∫ scur dt / responses,
 *       mean response time = their sum (Little's law on each part; exact up to the sampling of the levels
 *       and the requests in progress at the window's two ends);</li>
 *   <li>drops: {@code queueTimeout} = the backend's 5xx less its servers' 5xx (HAProxy answers 503 itself when a
 *       request times out in the queue); {@code backendError} = the servers' {@code econ} + {@code eresp};</li>
 *   <li>p95 is not measured (reported 0); yield is not measured (reported empty).</li>
 * </ul>
 * A counter that goes down (HAProxy restarted, or reloaded with {@code -sf}: the new process starts from
 * 0) starts the book afresh from that sample. Not thread-safe: one agent thread owns it.
 */
public final class StatsBook {

    private final String gateway;
    private final List<String> classes;
    private final List<String> servers;
    private final Map<String, Integer> queueLimits;
    private final Map<String, Integer> serverIndex = new HashMap<>();
    private final double windowSeconds;
    private final ArrayDeque<Sample> samples = new ArrayDeque<>();
    private long resets;

    /**
     * @param queueLimits each class's queue limit K (HAProxy does not bound a backend's queue; this is the
     *                    configured one, for 000's estimator)
     */
    public StatsBook(String gateway, List<String> classes, List<String> servers, Map<String, Integer> queueLimits,
                     double windowSeconds) {
        this.gateway = gateway;
        this.classes = List.copyOf(classes);
        this.servers = List.copyOf(servers);
        for (int i = 0; i < this.servers.size(); i++) {
            serverIndex.put(this.servers.get(i), i);
        }
        this.queueLimits = Map.copyOf(queueLimits);
        this.windowSeconds = windowSeconds;
    }

    /** One sample: per class and per server, levels and counters. */
    private record Sample(long nanos, long[] queued, long[] inService, long[] assigned, long[] sent, long[] answered,
                          long[] queue5xx, long[] backendErrors, long[] serverInFlight, long[] serverSent,
                          long[] serverAnswered, long[] serverErrors, int[] serverCap, boolean[] serverUp) {
    }

    /** Times the book started afresh because a counter went down. */
    public long resets() {
        return resets;
    }

    /** Adds the table read at {@code nanos}; returns false when it started the book afresh (a counter went down). */
    public boolean add(long nanos, StatCsv.Table t) {
        int nc = classes.size();
        int ns = servers.size();
        Sample s = new Sample(nanos, new long[nc], new long[nc], new long[nc], new long[nc], new long[nc], new long[nc],
                new long[nc], new long[ns], new long[ns], new long[ns], new long[ns], new int[ns], new boolean[ns]);
        boolean[] seen = new boolean[ns];
        for (int c = 0; c < nc; c++) {
            Map<String, StatCsv.Row> rows = t.proxies().get(HaproxyNames.backend(classes.get(c)));
            if (rows == null) {
                continue;
            }
            long server5xx = 0;
            for (StatCsv.Row r : rows.values()) {
                if (r.isBackend()) {
                    s.queued[c] = Math.max(0, r.qcur());
                    s.assigned[c] = Math.max(0, r.stot());
                    s.queue5xx[c] = r.errors5xx();
                    continue;
                }
                if (r.isFrontend()) {
                    continue;
                }
                s.inService[c] += Math.max(0, r.scur());
                s.sent[c] += Math.max(0, r.stot());
                s.answered[c] += r.responses();
                s.backendErrors[c] += r.connectErrors() + r.responseErrors();
                server5xx += r.errors5xx();
                Integer i = serverIndex.get(r.server());
                if (i != null) {
                    s.serverInFlight[i] += Math.max(0, r.scur());
                    s.serverSent[i] += Math.max(0, r.stot());
                    s.serverAnswered[i] += r.responses();
                    s.serverErrors[i] += r.connectErrors() + r.responseErrors() + r.errors5xx();
                    boolean serving = r.weight() > 0 && !r.status().startsWith("MAINT") && !r.status().startsWith("DRAIN");
                    if (serving && r.slim() > 0) {
                        s.serverCap[i] += (int) Math.min(Integer.MAX_VALUE, r.slim());
                    }
                    s.serverUp[i] |= !r.status().startsWith("DOWN");
                    seen[i] = true;
                }
            }
            s.queue5xx[c] = Math.max(0, s.queue5xx[c] - server5xx);
        }
        for (int i = 0; i < ns; i++) {
            s.serverUp[i] |= !seen[i];
        }
        Sample last = samples.peekLast();
        boolean fresh = last != null && wentDown(last, s);
        if (fresh) {
            samples.clear();
            resets++;
        }
        samples.addLast(s);
        // keep one sample at or before the window's start
        double keep = windowSeconds * 1e9;
        while (samples.size() > 2) {
            Iterator<Sample> it = samples.iterator();
            it.next();
            Sample second = it.next();
            if (nanos - second.nanos >= keep) {
                samples.pollFirst();
            } else {
                break;
            }
        }
        return !fresh;
    }

    private static boolean wentDown(Sample a, Sample b) {
        return down(a.assigned, b.assigned) || down(a.sent, b.sent) || down(a.answered, b.answered)
                || down(a.serverSent, b.serverSent);
    }

    private static boolean down(long[] a, long[] b) {
        for (int i = 0; i < a.length; i++) {
            if (b[i] < a[i]) {
                return true;
            }
        }
        return false;
    }

    /** The sample at or just before {@code fromNanos} (the oldest when the book is younger). */
    private Sample startAt(long fromNanos) {
        Sample first = samples.peekFirst();
        for (Sample s : samples) {
            if (s.nanos <= fromNanos) {
                first = s;
            } else {
                break;
            }
        }
        return first;
    }

    /**
     * The report at {@code nanos}: the window over the last {@code windowSeconds}, the 000 §5.3 counters and the
     * backlog over the last {@code periodSeconds}; weights from {@code inForce}. Null before the first sample.
     */
    public GatewayStats report(Instant at, long nanos, double periodSeconds, Allocation inForce) {
        Sample last = samples.peekLast();
        if (last == null) {
            return null;
        }
        Sample first = startAt(nanos - (long) (windowSeconds * 1e9));
        Sample periodStart = startAt(nanos - (long) (periodSeconds * 1e9));
        double dt = (last.nanos - first.nanos) / 1e9;
        double pdt = (last.nanos - periodStart.nanos) / 1e9;
        int nc = classes.size();
        int ns = servers.size();
        double[] queueArea = new double[nc];
        double[] serviceArea = new double[nc];
        double[] serverArea = new double[ns];
        double[] periodQueueArea = new double[nc];
        double[] peak = new double[nc];
        double backlogSeconds = 0;
        long backlogSent = 0;
        Sample prev = null;
        for (Sample s : samples) {
            if (s.nanos < first.nanos) {
                continue;
            }
            if (prev != null) {
                double h = (s.nanos - prev.nanos) / 1e9;
                boolean inPeriod = prev.nanos >= periodStart.nanos;
                boolean anyQueued = false;
                long sentNow = 0;
                for (int c = 0; c < nc; c++) {
                    queueArea[c] += prev.queued[c] * h;
                    serviceArea[c] += prev.inService[c] * h;
                    if (inPeriod) {
                        periodQueueArea[c] += prev.queued[c] * h;
                        if (h > 0) {
                            peak[c] = Math.max(peak[c], (s.assigned[c] - prev.assigned[c]) / h);
                        }
                    }
                    anyQueued |= prev.queued[c] > 0;
                    sentNow += s.sent[c] - prev.sent[c];
                }
                for (int i = 0; i < ns; i++) {
                    serverArea[i] += prev.serverInFlight[i] * h;
                }
                if (inPeriod && anyQueued) {
                    backlogSeconds += h;
                    backlogSent += sentNow;
                }
            }
            prev = s;
        }
        Map<String, Double> weights = inForce == null ? Map.of() : inForce.weights();
        Map<String, GatewayStats.ClassStats> cs = new LinkedHashMap<>();
        for (int c = 0; c < nc; c++) {
            long arrivals = last.assigned[c] - first.assigned[c];
            long sent = last.sent[c] - first.sent[c];
            long answered = last.answered[c] - first.answered[c];
            double queueTime = sent > 0 ? queueArea[c] / sent : 0;
            double serviceTime = answered > 0 ? serviceArea[c] / answered : 0;
            Map<String, Long> drops = new LinkedHashMap<>();
            long timeouts = Math.max(0, last.queue5xx[c] - first.queue5xx[c]);
            long errors = Math.max(0, last.backendErrors[c] - first.backendErrors[c]);
            if (timeouts > 0) {
                drops.put("queueTimeout", timeouts);
            }
            if (errors > 0) {
                drops.put("backendError", errors);
            }
            GatewayStats.PeriodCounters period = new GatewayStats.PeriodCounters(pdt,
                    last.assigned[c] - periodStart.assigned[c], last.sent[c] - periodStart.sent[c],
                    Math.max(0, last.queue5xx[c] - periodStart.queue5xx[c]), pdt > 0 ? periodQueueArea[c] / pdt : 0,
                    peak[c], queueLimits.getOrDefault(classes.get(c), 0));
            cs.put(classes.get(c), new GatewayStats.ClassStats(rate(arrivals, dt), rate(answered, dt),
                    queueTime + serviceTime, queueTime, serviceTime, 0, dt > 0 ? queueArea[c] / dt : last.queued[c],
                    (int) Math.min(Integer.MAX_VALUE, last.queued[c]), (int) Math.min(Integer.MAX_VALUE, last.inService[c]),
                    weights.getOrDefault(classes.get(c), 0.0), drops, period));
        }
        Map<String, GatewayStats.ServerStats> ss = new LinkedHashMap<>();
        for (int i = 0; i < ns; i++) {
            long answered = last.serverAnswered[i] - first.serverAnswered[i];
            long errors = Math.max(0, last.serverErrors[i] - first.serverErrors[i]);
            int inFlight = (int) Math.min(Integer.MAX_VALUE, last.serverInFlight[i]);
            if (last.serverCap[i] == 0 && inFlight == 0 && answered == 0 && errors == 0 && last.serverUp[i]) {
                continue; // as the gateway: a server not listed has none of these
            }
            ss.put(servers.get(i), new GatewayStats.ServerStats(inFlight, last.serverCap[i], rate(answered, dt),
                    answered > 0 ? serverArea[i] / answered : 0, dt > 0 ? serverArea[i] / dt : inFlight, errors,
                    last.serverUp[i]));
        }
        return new GatewayStats(1, at, gateway, dt, inForce == null ? 0 : inForce.version(), cs, ss,
                new GatewayStats.Backlog(pdt, backlogSeconds, backlogSent));
    }

    private static double rate(long n, double dt) {
        return dt > 0 ? Math.max(0, n) / dt : 0;
    }
}
