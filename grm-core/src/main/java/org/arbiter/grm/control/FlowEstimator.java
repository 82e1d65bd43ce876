package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.grm.Problem;
import org.arbiter.grm.model.LiuControl;

/*
 * Design note — stage 1 of the GRM step: the flow estimators.
 *
 * What it computes, once per period, from the live gateways' statistics (docs/grm.md, "The flow model"):
 *
 * S̃_c, the mean time a request of class c holds a slot. It is a property of the class, not of the
 * gateway or the allocation, so it is pooled over the gateways, weighted by throughput:
 *     S_window = Σ_g X̃(g,c)·S(g,c) / Σ_g X̃(g,c),
 * and smoothed over time by weight, not by period: each period adds S_window with the weight of the
 * requests completed since the last one, X̃·Δt (X̃·Γ the first time), and older weight decays by
 * e^{−Δt/T}:
 *     A ← A·e^{−Δt/T} + X̃Δt·S_window,   B ← B·e^{−Δt/T} + X̃Δt,   S̃ = A / B.
 * T = SERVICE_TIME_WINDOWS statistics windows, or the time the class takes to complete
 * SERVICE_TIME_REQUESTS requests (1 000 / X̃) if longer, at most SERVICE_TIME_MAX_WINDOWS windows.
 * Normalised, it has no start-up bias (an EWMA started from the first window kept e^{−t/T} of that
 * window, often a transient of a few requests), and a window with few completions counts for few.
 * S̃ scales every prediction of 003 eq. 8-9 (μ = 1/t̃ + λ̃/w̃ with w̃ = X̃·S̃).
 *
 * Δμ(g,c), with prediction liu and control.liu.pi: 001 Fig. 2's PI term per flow, from the flow's
 * measured mean response time against its class target τ_c (the target in force), once per period;
 * a flow with nothing measured holds its integral (LiuControl.Pi).
 *
 * Output: FlowEstimates, per class S̃ (absent until the class has completed a request) and per live
 * flow Δμ (empty without the PI term). Input: the live gateways (in gateway order) and the classes'
 * targets in force.
 *
 * Not thread-safe: one control thread (or the simulator) calls it; it keeps the smoothing sums and
 * the PI integrals between periods.
 */

/** Stage 1 of {@link GrmStep}: per class S̃ and per flow Δμ from the period's statistics; see the design note. */
final class FlowEstimator {

    /** The time constant of the service-time smoothing, in statistics windows. */
    static final double SERVICE_TIME_WINDOWS = 4;
    /**
     * The least number of requests the service-time smoothing spans: S̃ of exponential demands from
     * 1 000 requests has a 3 % standard error (a light class's 4 windows can hold 200: 7 %).
     */
    static final double SERVICE_TIME_REQUESTS = 1000;
    /** ... but never more than this many statistics windows (a near-idle class still follows a change within 10 min at W = 30 s). */
    static final double SERVICE_TIME_MAX_WINDOWS = 20;

    /**
     * What the estimator is given each period.
     *
     * @param live        the live gateways' latest statistics, in gateway order
     * @param targets     per class, the target in force τ_c (seconds; overrides applied)
     * @param nowSeconds  the period's time
     */
    record Input(Map<String, GatewayStats> live, Map<String, Double> targets, double nowSeconds) {
        Input {
            requireNonNull(live, "live");
            requireNonNull(targets, "targets");
        }
    }

    /** The smoothing sums of one class: A = Σ weight·S, B = Σ weight, as of {@code atSeconds}. */
    private record Smoothed(double weightedSum, double weight, double atSeconds) {
    }

    private final ClusterConfig config;
    /** liu prediction with a PI term: one controller per flow, updated once per period (001 Fig. 2). */
    private final Map<Problem.FlowId, LiuControl.Pi> pis = new HashMap<>();
    private final Map<String, Smoothed> serviceTimes = new HashMap<>();

    FlowEstimator(ClusterConfig config) {
        this.config = requireNonNull(config, "config");
    }

    /** One period: updates the PI terms and the smoothed service times, and returns the estimates. */
    FlowEstimates estimate(Input in) {
        Map<Problem.FlowId, Double> deltaMu = updatePi(in);
        updateServiceTimes(in.live(), in.nowSeconds());
        Map<String, Double> s = new LinkedHashMap<>();
        for (ClassConfig c : config.classes()) {
            Smoothed st = serviceTimes.get(c.name());
            if (st != null && st.weight() > 0) {
                s.put(c.name(), st.weightedSum() / st.weight());
            }
        }
        return new FlowEstimates(s, deltaMu);
    }

    private Map<Problem.FlowId, Double> updatePi(Input in) {
        Map<Problem.FlowId, Double> deltaMu = new LinkedHashMap<>();
        ControlConfig.Liu liu = config.control().liu();
        if (config.control().prediction() != ControlConfig.Prediction.LIU || !liu.hasPi()) {
            return deltaMu;
        }
        for (Map.Entry<String, GatewayStats> g : in.live().entrySet()) {
            for (ClassConfig c : config.classes()) {
                GatewayStats.ClassStats cs = g.getValue().classes().get(c.name());
                double measured = cs != null && cs.meanResponseTime() > 0 ? cs.meanResponseTime() : Double.NaN;
                Problem.FlowId id = new Problem.FlowId(g.getKey(), c.name());
                double d = pis.computeIfAbsent(id, f -> new LiuControl.Pi(liu.kp(), liu.ki()))
                        .update(measured, in.targets().get(c.name()), config.control().periodSeconds());
                deltaMu.put(id, d);
            }
        }
        return deltaMu;
    }

    private void updateServiceTimes(Map<String, GatewayStats> live, double nowSeconds) {
        double window = config.control().statsWindowSeconds();
        for (ClassConfig c : config.classes()) {
            double xs = 0;
            double x = 0;
            for (GatewayStats g : live.values()) {
                GatewayStats.ClassStats cs = g.classes().get(c.name());
                if (cs != null && FlowEstimates.measuredServiceTime(cs) > 0) {
                    xs += cs.throughput() * cs.meanServiceTime();
                    x += cs.throughput();
                }
            }
            if (x > 0) {
                double mean = xs / x;
                Smoothed st = serviceTimes.getOrDefault(c.name(), new Smoothed(0, 0, nowSeconds));
                double dt = Math.max(0, nowSeconds - st.atSeconds());
                double horizon = Math.min(Math.max(SERVICE_TIME_WINDOWS * window, SERVICE_TIME_REQUESTS / x),
                        SERVICE_TIME_MAX_WINDOWS * window);
                double decay = Math.exp(-dt / horizon);
                double weight = x * (dt > 0 ? dt : config.control().periodSeconds());
                serviceTimes.put(c.name(), new Smoothed(st.weightedSum() * decay + weight * mean,
                        st.weight() * decay + weight, nowSeconds));
            }
        }
    }
}
