package org.arbiter.gateway;

import java.util.Arrays;
import java.util.List;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.utility.YieldFunction;

/*
 * Design note — what GatewayCore keeps for yields and for 002's schedulers (002 §2.2, §4).
 *
 * Yield:   every class has a yield function (YieldFunction.of(ClassConfig)): each arrival offers
 *          its full yield, each completion realises Y_c(response time), a drop realises 0. The sums
 *          since start are kept here; the windowed figures are StatsRecorder's.
 * Service: per class an EWMA of the measured service times (dispatch to completion, weight
 *          SERVICE_EWMA on the newest; NaN, read as 0, before the first).
 * Usage:   the decayed consumption u_c(t) of 002 eq. 2-3 (β = CONSUMPTION_DECAY_PER_SECOND,
 *          s(r) = the service seconds, decayed and added at each completion, so every class's is as
 *          of the latest completion) and the same sum with a short memory (β =
 *          RECENT_CONSUMPTION_DECAY_PER_SECOND; step 2a reads both, YieldScheduler).
 * Drops:   the gateway's drops over arrivals in dispatch.adaptive.window (RecentDrops).
 * Step 1:  a request whose wait + expected service reaches its class's deadline D_c can earn no
 *          yield (002 Fig. 5 step 1): worthless, dropped by the core under a yield scheduler.
 * Time:    passed in. Threads: none, not thread-safe; confined to the core's thread. The double
 *          getters may be read from other threads, a moment stale.
 */

/** Per class: yield function, deadline, guaranteed share, service EWMA, consumption, yield sums. See the design note. */
final class YieldBook {

    /** Weight of the newest measurement in the per-class EWMA of service times. */
    static final double SERVICE_EWMA = 0.05;
    /** β of 002 eq. 2-3: a request completed one second ago weighs 0.95 of one completed now. */
    static final double CONSUMPTION_DECAY_PER_SECOND = 0.95;
    /** β of the short memory step 2a also reads (YieldScheduler): 3.5 s time constant. */
    static final double RECENT_CONSUMPTION_DECAY_PER_SECOND = 0.75;

    private final YieldFunction[] yields;
    private final long[] deadlineNanos;
    private final double[] minShares;
    /** EWMA of measured service seconds per class; NaN before the first completion. */
    private final double[] serviceEwma;
    /** u_c(t) of 002 eq. 2-3 as of usageAtNanos. */
    private final double[] usage;
    /** The same with RECENT_CONSUMPTION_DECAY_PER_SECOND, as of usageAtNanos. */
    private final double[] recentUsage;
    private long usageAtNanos;
    private final double[] offered;
    private final double[] realised;
    private final RecentDrops recentDrops;

    /**
     * @param dropWindowSeconds {@code dispatch.adaptive.window}
     * @param nowNanos          the start of time
     */
    YieldBook(List<ClassConfig> classes, double dropWindowSeconds, long nowNanos) {
        int nc = classes.size();
        yields = new YieldFunction[nc];
        deadlineNanos = new long[nc];
        minShares = new double[nc];
        serviceEwma = new double[nc];
        usage = new double[nc];
        recentUsage = new double[nc];
        offered = new double[nc];
        realised = new double[nc];
        Arrays.fill(serviceEwma, Double.NaN);
        for (int c = 0; c < nc; c++) {
            ClassConfig cc = classes.get(c);
            yields[c] = YieldFunction.of(cc);
            deadlineNanos[c] = yields[c].deadlineNanos();
            minShares[c] = cc.minShare();
        }
        this.usageAtNanos = nowNanos;
        this.recentDrops = new RecentDrops(dropWindowSeconds);
    }

    YieldFunction yield(int c) {
        return yields[c];
    }

    long deadlineNanos(int c) {
        return deadlineNanos[c];
    }

    /** g_c ({@code classes[].minShare}). */
    double minShare(int c) {
        return minShares[c];
    }

    /** Whether {@code cc} (with its yield function {@code y}) changes class c's yield, target or minShare. */
    boolean changes(int c, ClassConfig cc, YieldFunction y) {
        return !y.equals(yields[c]) || minShares[c] != cc.minShare();
    }

    /** Takes class c's yield function {@code y} (of {@code cc}) and minShare. */
    void reconfigure(int c, ClassConfig cc, YieldFunction y) {
        yields[c] = y;
        deadlineNanos[c] = y.deadlineNanos();
        minShares[c] = cc.minShare();
    }

    // ---------------------------------------------------------------- service and consumption

    /** Class c's expected service time, s: the EWMA of its measured service times, 0 before the first. */
    double expectedServiceSeconds(int c) {
        double e = serviceEwma[c];
        return Double.isNaN(e) ? 0 : e;
    }

    long expectedServiceNanos(int c) {
        return Math.round(expectedServiceSeconds(c) * 1e9);
    }

    /** u_c of 002 eq. 2 as of the latest completion. */
    double consumption(int c) {
        return usage[c];
    }

    /** The short-memory sum, as of the latest completion. */
    double recentConsumption(int c) {
        return recentUsage[c];
    }

    /** A request of class c completed after {@code serviceSeconds} at its server, at {@code nowNanos}. */
    void served(int c, double serviceSeconds, long nowNanos) {
        double e = serviceEwma[c];
        serviceEwma[c] = Double.isNaN(e) ? serviceSeconds : e + SERVICE_EWMA * (serviceSeconds - e);
        long dt = nowNanos - usageAtNanos;
        if (dt > 0) {
            double decay = Math.pow(CONSUMPTION_DECAY_PER_SECOND, dt / 1e9);
            double recentDecay = Math.pow(RECENT_CONSUMPTION_DECAY_PER_SECOND, dt / 1e9);
            for (int k = 0; k < usage.length; k++) {
                usage[k] *= decay;
                recentUsage[k] *= recentDecay;
            }
            usageAtNanos = nowNanos;
        }
        usage[c] += serviceSeconds;
        recentUsage[c] += serviceSeconds;
    }

    /** 002 Fig. 5 step 1: wait so far + expected service reaches the yield deadline, so no yield can be earned. */
    boolean worthless(Ticket<?> t, long nowNanos) {
        int c = t.classIndex();
        return nowNanos - t.arrivalNanos() + expectedServiceNanos(c) >= deadlineNanos[c];
    }

    /** When a head of class c that arrived at {@code arrivalNanos} falls to zero yield at today's service estimate. */
    long worthlessAtNanos(int c, long arrivalNanos) {
        return arrivalNanos + deadlineNanos[c] - expectedServiceNanos(c);
    }

    // ---------------------------------------------------------------- yields and drops

    /** Class c's full yield, offered by an arrival at {@code nowNanos} (and counted as an arrival). */
    double offer(int c, long nowNanos) {
        double full = yields[c].full();
        offered[c] += full;
        recentDrops.arrival(nowNanos);
        return full;
    }

    /** Class c realised yield {@code y}. */
    void realise(int c, double y) {
        realised[c] += y;
    }

    /** The gateway dropped a request at {@code nowNanos}. */
    void dropped(long nowNanos) {
        recentDrops.drop(nowNanos);
    }

    /** The full yield offered by class c's arrivals since the start. */
    double offered(int c) {
        return offered[c];
    }

    /** The yield class c's completions realised since the start. */
    double realised(int c) {
        return realised[c];
    }

    /** Drops over arrivals in the window ending at {@code nowNanos}. */
    double dropRatio(long nowNanos) {
        return recentDrops.ratio(nowNanos);
    }
}
