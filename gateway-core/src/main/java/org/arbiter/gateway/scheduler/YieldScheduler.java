package org.arbiter.gateway.scheduler;

import static java.util.Objects.requireNonNull;

import java.util.Locale;
import org.arbiter.common.utility.YieldFunction;
import org.arbiter.gateway.Scheduler;

/*
 * Model — 002's node-level service scheduling (002 §4, Fig. 5, Table 1), run at the gateway's
 * class queues: the queues are 002's per-class queues, a free slot under N(g,s) is 002's free
 * thread, and the balancer picks the server (002 §3's cluster level).
 *
 * Step 1 (the core does it, because a drop must be answered): every queue head whose expected
 *   completion — wait so far + the class's expected service time E_c, an EWMA of its measured
 *   service times — reaches its yield deadline D_c can earn no yield and is dropped (zeroYield, 503).
 * Step 2a: among the backlogged classes whose proportional resource consumption
 *   u_c(t) / Σ_k u_k(t) (002 eq. 2-3, β = 0.95 per second, service seconds as s(r)) is below
 *   their guaranteed share g_c (classes[].minShare), release the one with the largest gap.
 *   Arbiter's addition: the share is the smaller of that one and the same sum with a memory of a
 *   few seconds (β = 0.75 per second, a 3.5 s time constant). With 002's memory alone a class that
 *   consumed far more than its guarantee before a spike is "above" it for ~20 s after the spike
 *   starts (55 % decays to 20 % only after ln(0.364)/ln(0.95) ≈ 20 s), and Greedy starves it to
 *   7-11 % meanwhile (spike experiment, docs/experiments.md); with the short memory it is back at
 *   its guarantee within about 4 s, while the long memory still catches a class held below its
 *   share over the long run. The price: on a node that runs one request at a time, each request is
 *   a step of E_c / 3.5 s in the short share, so a class held at its floor ends a few points above
 *   it (Bronze 24-26 % for 20 % in the spike experiment; 0.21 for 0.2 on a 10-slot backend).
 * Step 2b: otherwise release the head with the smallest priority value (Table 1), where w is the
 *   head's wait, E_c its class's expected service time and Y_c(w + E_c) its expected yield:
 *     edf       absolute deadline arrival + D_c (the closest deadline; 002 §4.2)
 *     yid       relative deadline divided by expected yield, (D_c − w) / Y_c(w + E_c)
 *     greedy    expected resource consumption divided by expected yield, E_c / Y_c(w + E_c)
 *     adaptive  yid, or greedy while the gateway dropped more than dropRatio of the requests that
 *               arrived in the adaptive window (002: 5 % over 30 s)
 *   Ties go to the earlier arrival.
 *
 * One difference from 002: a scheduler here picks a class, and its queue releases its head (the
 * core keeps each class queue in arrival order; see GatewayCore). Within a class every request has
 * the same yield function and the same E_c, so the head has the closest deadline (edf) and, for
 * throughput and 002's hybrid yields, the smallest yid and greedy values too; only under a
 * response-time yield can a younger request of the same class have a smaller yid value, and it
 * still waits behind its head.
 *
 * The GRM's weights w(g,c) are ignored; its caps N(g,s) bound how many requests run at once (docs/gateway.md).
 *
 * Thread-safety: none needed; stateless (the adaptive switch reads the view's drop ratio, step 2a
 * its consumption).
 */

/** 002's edf, yid, greedy and adaptive scheduling (002 Fig. 5, Table 1); see the design note in the source. */
public final class YieldScheduler implements Scheduler {

    /** Step 2b's priority (002 Table 1). */
    public enum Policy { EDF, YID, GREEDY, ADAPTIVE }

    private static final double EPS = 1e-12;

    private final Policy policy;
    private final double adaptiveDropRatio;

    /**
     * @param policy            step 2b's priority
     * @param adaptiveDropRatio adaptive: greedy while the view's drop ratio exceeds this
     */
    public YieldScheduler(Policy policy, double adaptiveDropRatio) {
        this.policy = requireNonNull(policy, "policy");
        if (!(adaptiveDropRatio >= 0 && adaptiveDropRatio < 1)) {
            throw new IllegalArgumentException("adaptiveDropRatio: " + adaptiveDropRatio + " (expected: 0 <= x < 1)");
        }
        this.adaptiveDropRatio = adaptiveDropRatio;
    }

    @Override
    public boolean dropsZeroYield() {
        return true;
    }

    /** The policy step 2b applies now: the configured one, or for adaptive yid or greedy by the drop ratio. */
    public Policy effective(ClassView v) {
        if (policy != Policy.ADAPTIVE) {
            return policy;
        }
        return v.dropRatio() > adaptiveDropRatio ? Policy.GREEDY : Policy.YID;
    }

    @Override
    public int next(ClassView v) {
        int n = v.classCount();
        // step 2a: the class furthest below its guaranteed share, on either memory
        double total = 0;
        double recentTotal = 0;
        for (int c = 0; c < n; c++) {
            total += v.consumption(c);
            recentTotal += v.recentConsumption(c);
        }
        int under = -1;
        double gap = 0;
        for (int c = 0; c < n; c++) {
            if (v.backlog(c) > 0 && v.minShare(c) > 0) {
                double g = v.minShare(c) - Math.min(share(v.consumption(c), total), share(v.recentConsumption(c), recentTotal));
                if (g > EPS && (under < 0 || g > gap + EPS)) {
                    under = c;
                    gap = g;
                }
            }
        }
        if (under >= 0) {
            return under;
        }
        // step 2b: the smallest priority value
        Policy p = effective(v);
        int best = -1;
        double bestValue = 0;
        for (int c = 0; c < n; c++) {
            if (v.backlog(c) == 0) {
                continue;
            }
            double value = priority(p, v, c);
            if (best < 0 || value < bestValue || value == bestValue && v.headSequence(c) < v.headSequence(best)) {
                best = c;
                bestValue = value;
            }
        }
        return best;
    }

    /** u / total, 0 while nothing was consumed. */
    private static double share(double u, double total) {
        return total > 0 ? u / total : 0;
    }

    /** Class c's head under policy p (smaller goes first); +∞ when it can earn nothing. */
    static double priority(Policy p, ClassView v, int c) {
        YieldFunction y = v.yield(c);
        double waitSeconds = Math.max(0, v.nowNanos() - v.headArrivalNanos(c)) / 1e9;
        double service = v.expectedServiceSeconds(c);
        if (p == Policy.EDF) {
            return v.headArrivalNanos(c) / 1e9 + y.deadlineSeconds();
        }
        double expected = y.yield(waitSeconds + service);
        if (!(expected > 0)) {
            return Double.POSITIVE_INFINITY;
        }
        return switch (p) {
            case YID -> Math.max(0, y.deadlineSeconds() - waitSeconds) / expected;
            case GREEDY -> service / expected;
            default -> throw new IllegalStateException("policy: " + p);
        };
    }

    @Override
    public String toString() {
        return policy.name().toLowerCase(Locale.ROOT);
    }
}
