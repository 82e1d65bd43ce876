package org.arbiter.gateway;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.DispatchConfig;

/*
 * Design note — the local admission path (docs/gateway.md, "Local admission").
 *
 * Between two GRM periods nothing else adapts: in a spike's first seconds a class queue grows, and
 * its requests wait up to their queue timeout and fail, or are served far past their target. This
 * book answers, at each arrival, whether the request can still be answered in time, and sheds it
 * (503 at once) when it cannot, so the slots go to requests that can.
 *
 * Estimate: a request of class c that finds q_c requests of its class queued ahead waits for q_c + 1
 *           departures of its class: with Poisson departures at rate λ_c, (q_c + 1)/λ_c on average with
 *           a variance of (q_c + 1)/λ_c², then is served in S_c on average, with a variance taken as
 *           S_c² (an exponential service; less variable services make this conservative). Its
 *           estimate is the mean of the two plus SPREAD (2) standard deviations of their sum:
 *           E_c = (q_c + 1)/λ_c + S_c + 2 √((q_c + 1)/λ_c² + S_c²), so that an admitted request is
 *           answered within the bound about 98 % of the time rather than half of it (a bound on the
 *           mean alone admits requests that then miss the target as often as not). S_c is the
 *           class's measured mean service time (YieldBook's EWMA); λ_c the rate its queue
 *           drains at: the larger of the class's own dispatch rate and its guaranteed share of the
 *           gateway's whole dispatch rate (w_c / Σ_k w_k: what WRR gives it when every class has a
 *           queue), both decayed with a time constant of DRAIN_MEMORY_SECONDS. Once the class has a
 *           queue its own rate is what it drains at; the share is the floor for a class that had few
 *           arrivals before a spike (its own rate then still says how few), so that its first
 *           queued requests are not shed on a drain rate it no longer has. (A share over the queued
 *           classes only was tried: it counts the slots a busy class without a queue holds as free,
 *           and in the fake-time tests admitted basic requests at 2.5 × the rate they drained, which
 *           then timed out in the queue.)
 * Rule:     shed iff E_c > factor × target_c and every class of lower value than c is shedding too
 *           (its own E exceeds its bound) or has nothing queued: the lowest-value classes are shed
 *           first, a higher-value class only once every lower one is already at its bound.
 * Overload: shedding alone cannot give a higher-value class more of the server: WRR keeps giving
 *           every class with a queue its weight's share, so a class whose arrivals exceed the share
 *           the GRM gave it for the load before the spike would wait past its target while the
 *           lower class is shed. So from an arrival whose estimate exceeds its class's bound (shed
 *           or not: a higher-value class over its bound is not shed while a lower one admits, but it
 *           needs the slots) until OVERLOAD_HOLD_NANOS (1 s) after the last one, the core dispatches
 *           by value (the highest-value class with a queue first), and a
 *           class's drain rate is what goes to it and to every class of lower value (it is served
 *           before them): the capacity goes to the classes the utilities value most, each admitting
 *           what it can answer in time with what is left to it. A second with no such arrival
 *           returns to WRR on the GRM's weights, which by then follow the new load. (With pools, dispatch stays
 *           by pool and WRR; only the shedding applies.)
 * Value:    003's utility per second of lateness: φ (utility.scale absolute) or φ / τ_c (relative);
 *           a class with a yield section, its yield.value (002's C). Ties: file order (the earlier
 *           class is worth more, as the priority scheduler reads it).
 * Never:    a request that would go to a server at once (its queue empty and a slot free: the
 *           core's caller checks), and before the class has a service time and the gateway a
 *           dispatch rate (nothing measured yet, nothing to go on).
 * Cost:     O(classes) per arrival, no allocation. Time passed in; not thread-safe (the core's).
 */

/** Per class: value rank, bound, decayed dispatch rates; whether an arrival is shed. See the design note. */
final class AdmissionBook {

    /**
     * Standard deviations of the wait added to its mean: the wait for q + 1 departures at rate λ (Poisson
     * departures) has mean (q + 1)/λ and standard deviation √(q + 1)/λ; two put about 98 % of admitted
     * requests' waits under the estimate.
     */
    static final double SPREAD = 2;
    /** Time constant of the decayed dispatch rates, seconds. */
    static final double DRAIN_MEMORY_SECONDS = 1.0;
    /** How long after a shed the gateway counts as overloaded (dispatch by value), ns. */
    static final long OVERLOAD_HOLD_NANOS = 1_000_000_000L;

    private DispatchConfig.Admission admission;
    /** Per class: factor × target, ns. */
    private long[] boundNanos;
    /** Classes by value, highest first. */
    private int[] byValue;
    /** Per class: its position in byValue (0 = highest value). */
    private int[] rank;
    /** Per class: decayed dispatches (events / s after × 1 / memory), as of ratesAtNanos. */
    private final double[] rate;
    private double total;
    private long ratesAtNanos;
    private long overloadedUntilNanos = Long.MIN_VALUE;

    AdmissionBook(List<ClassConfig> classes, DispatchConfig.Admission admission, long nowNanos) {
        this.rate = new double[classes.size()];
        this.ratesAtNanos = nowNanos;
        configure(classes, admission);
    }

    /** Takes the reloaded classes' targets and values (the same classes, in the same order). */
    void configure(List<ClassConfig> classes) {
        configure(classes, admission);
    }

    /** Takes the classes' targets and values, and the admission settings. */
    void configure(List<ClassConfig> classes, DispatchConfig.Admission a) {
        this.admission = a;
        int nc = classes.size();
        boundNanos = new long[nc];
        List<Integer> order = new ArrayList<>();
        for (int c = 0; c < nc; c++) {
            boundNanos[c] = Math.round(a.factor() * classes.get(c).targetSeconds() * 1e9);
            order.add(c);
        }
        order.sort(Comparator.comparingDouble((Integer c) -> -value(classes.get(c))).thenComparingInt(c -> c));
        byValue = order.stream().mapToInt(Integer::intValue).toArray();
        rank = new int[nc];
        for (int i = 0; i < nc; i++) {
            rank[byValue[i]] = i;
        }
    }

    /** 003's utility per second late (φ, or φ/τ when relative), or the yield's full value. */
    static double value(ClassConfig c) {
        if (c.yield() != null) {
            return c.yield().full();
        }
        ClassConfig.UtilitySpec u = c.utility();
        return u.scale() == ClassConfig.UtilitySpec.Scale.RELATIVE ? u.phi() / c.targetSeconds() : u.phi();
    }

    boolean enabled() {
        return admission.enabled();
    }

    /** Classes from highest value to lowest (a copy). */
    int[] valueOrder() {
        return byValue.clone();
    }

    /** A request of class c left its queue for a server at {@code nowNanos}. */
    void dispatched(int c, long nowNanos) {
        decay(nowNanos);
        rate[c] += 1 / DRAIN_MEMORY_SECONDS;
        total += 1 / DRAIN_MEMORY_SECONDS;
    }

    private void decay(long nowNanos) {
        if (nowNanos > ratesAtNanos) {
            double k = expMinus((nowNanos - ratesAtNanos) / 1e9 / DRAIN_MEMORY_SECONDS);
            for (int c = 0; c < rate.length; c++) {
                rate[c] *= k;
            }
            total *= k;
            ratesAtNanos = nowNanos;
        }
    }

    /**
     * e^−x for x ≥ 0. Between two dispatches at tens of thousands a second x is about 10⁻⁵: there the
     * series to x³ is exact to 10⁻¹⁴ and costs a fraction of {@link Math#exp} (called on every dispatch).
     */
    static double expMinus(double x) {
        if (x < 1e-3) {
            return 1 - x * (1 - x * (0.5 - x / 6));
        }
        return Math.exp(-x);
    }

    /**
     * Whether an arrival found its class's estimate over its bound (shed or not) within the last
     * OVERLOAD_HOLD_NANOS: dispatch then goes by value.
     */
    boolean overloaded(long nowNanos) {
        return nowNanos < overloadedUntilNanos;
    }

    /** The queued class of highest value, or -1 when every queue is empty (dispatch while overloaded). */
    int firstQueuedByValue(ClassQueues<?> queues) {
        for (int c : byValue) {
            if (queues.size(c) > 0) {
                return c;
            }
        }
        return -1;
    }

    /** Class c's drain rate, requests per second (see the design note); 0 before any dispatch. */
    double drainPerSecond(int c, ClassQueues<?> queues, long nowNanos) {
        decay(nowNanos);
        if (overloaded(nowNanos)) {
            // by value: c drains at what goes to it and to every class below it, which it is served before
            double mine = 0;
            for (int i = rank[c]; i < byValue.length; i++) {
                mine += rate[byValue[i]];
            }
            return mine;
        }
        double w = queues.weight(c);
        double all = 0;
        for (int k = 0; k < rate.length; k++) {
            all += queues.weight(k);
        }
        double share = all > 0 ? w / all : 0;
        return Math.max(rate[c], share * total);
    }

    /** Class c's estimate E_c for a request joining its queue now, ns (see the design note; Long.MAX_VALUE: unknown drain). */
    long expectedNanos(int c, ClassQueues<?> queues, YieldBook yields, long nowNanos) {
        double drain = drainPerSecond(c, queues, nowNanos);
        if (!(drain > 0)) {
            return Long.MAX_VALUE;
        }
        double ahead = queues.size(c) + 1;
        double service = yields.expectedServiceSeconds(c);
        double seconds = ahead / drain + service + SPREAD * Math.sqrt(ahead / (drain * drain) + service * service);
        return (long) Math.min(Long.MAX_VALUE / 2.0, seconds * 1e9);
    }

    /**
     * Whether an arriving request of class c is shed (the caller has already found that it cannot go to a
     * server at once). False while nothing is measured: no dispatch yet, or no service time of the class.
     * An estimate over the class's bound, shed or not, starts (or extends) the overload: dispatch by value.
     */
    boolean shed(int c, ClassQueues<?> queues, YieldBook yields, long nowNanos) {
        if (!admission.enabled() || total <= 0 || yields.expectedServiceSeconds(c) <= 0) {
            return false;
        }
        if (expectedNanos(c, queues, yields, nowNanos) <= boundNanos[c]) {
            return false;
        }
        overloadedUntilNanos = nowNanos + OVERLOAD_HOLD_NANOS; // over its bound, shed or not: dispatch by value
        for (int i = rank[c] + 1; i < byValue.length; i++) { // every class of lower value
            int k = byValue[i];
            if (queues.size(k) > 0 && expectedNanos(k, queues, yields, nowNanos) <= boundNanos[k]) {
                return false; // a lower-value class still admits: it is shed first
            }
        }
        return true;
    }
}
