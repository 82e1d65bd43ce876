package org.arbiter.grm.model;

import static java.util.Objects.requireNonNull;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.arbiter.common.message.Decision;

/*
 * Design note — how well the flow model predicts.
 *
 * Every decision records, per flow, the response time the model (003 eq. 8-9, FlowModel)
 * predicts for the weight it chose: t_pred. The gateways measure the response time over a sliding
 * statistics window of W seconds, so the measurement that answers a prediction made at t0 is the
 * one reported in the first decision at t1 ≥ t0 + W: its window (t1 − W, t1] lies wholly after the
 * prediction. The pair counts only when the flow's weight stayed what was chosen at t0 in every
 * decision up to t1 (otherwise the window mixes allocations and no single prediction is being
 * checked). The relative error is
 *
 *     e = (t_pred − t_measured) / t_measured,
 *
 * signed (bias: > 0 the model is pessimistic) and absolute. Flows with no measured response
 * (t_measured = 0) or no prediction (NaN) give no sample.
 *
 * Thread-safety: not thread-safe; fed from one thread (the control loop, an experiment).
 */

/** Pairs each decision's predicted response times with the measurement one statistics window later. */
public final class PredictionErrors {

    /** One checked prediction: made at {@code madeSeconds}, measured over (measuredSeconds − W, measuredSeconds]. */
    public record Sample(String gateway, String cls, double madeSeconds, double measuredSeconds, double predicted,
                         double measured) {
        /** (predicted − measured) / measured. */
        public double relative() {
            return (predicted - measured) / measured;
        }
    }

    /** Mean absolute and mean signed relative error over some samples (NaN when there are none). */
    public record Summary(double meanAbs, double meanSigned, int samples) {
        public static Summary of(List<Sample> samples) {
            if (samples.isEmpty()) {
                return new Summary(Double.NaN, Double.NaN, 0);
            }
            double abs = 0;
            double signed = 0;
            for (Sample s : samples) {
                abs += Math.abs(s.relative());
                signed += s.relative();
            }
            return new Summary(abs / samples.size(), signed / samples.size(), samples.size());
        }
    }

    private record Pending(double madeSeconds, double weight, double predicted) {
    }

    private record FlowKey(String gateway, String cls) implements Comparable<FlowKey> {
        @Override
        public int compareTo(FlowKey o) {
            int c = gateway.compareTo(o.gateway);
            return c != 0 ? c : cls.compareTo(o.cls);
        }
    }

    private final double windowSeconds;
    private final Map<FlowKey, Deque<Pending>> pending = new TreeMap<>();
    private final Map<FlowKey, Sample> latest = new TreeMap<>();
    private final List<Sample> all = new ArrayList<>();
    private final boolean keepAll;

    /**
     * @param windowSeconds W, the gateways' statistics window
     * @param keepAll       keep every sample (experiments); otherwise only the latest per flow
     */
    public PredictionErrors(double windowSeconds, boolean keepAll) {
        if (!(windowSeconds > 0)) {
            throw new IllegalArgumentException("windowSeconds: " + windowSeconds + " (expected: > 0)");
        }
        this.windowSeconds = windowSeconds;
        this.keepAll = keepAll;
    }

    /** Takes the next decision (decisions in time order); returns the samples it resolved. */
    public List<Sample> accept(Decision d) {
        requireNonNull(d, "d");
        double now = d.at().getEpochSecond() + d.at().getNano() / 1e9;
        List<Sample> resolved = new ArrayList<>();
        for (Decision.Flow f : d.flows()) {
            FlowKey k = new FlowKey(f.gateway(), f.cls());
            Deque<Pending> q = pending.computeIfAbsent(k, x -> new ArrayDeque<>());
            // resolve the predictions whose window has passed, with the measurement in this decision
            while (!q.isEmpty() && q.peekFirst().madeSeconds() + windowSeconds <= now + 1e-9) {
                Pending p = q.pollFirst();
                if (f.responseTime() > 0 && p.weight() == f.previousWeight()) {
                    Sample s = new Sample(k.gateway(), k.cls(), p.madeSeconds(), now, p.predicted(), f.responseTime());
                    resolved.add(s);
                    latest.put(k, s);
                    if (keepAll) {
                        all.add(s);
                    }
                }
            }
            // a weight change voids every prediction made under another weight
            if (f.weight() != f.previousWeight()) {
                q.clear();
            }
            if (!Double.isNaN(f.predictedResponseTime()) && f.predictedResponseTime() > 0) {
                q.addLast(new Pending(now, f.weight(), f.predictedResponseTime()));
            }
        }
        return resolved;
    }

    /** Every sample so far (only when made with keepAll). */
    public List<Sample> samples() {
        return List.copyOf(all);
    }

    /** The latest sample of every flow, by gateway then class. */
    public Map<String, Map<String, Sample>> latest() {
        Map<String, Map<String, Sample>> out = new LinkedHashMap<>();
        latest.forEach((k, s) -> out.computeIfAbsent(k.gateway(), g -> new LinkedHashMap<>()).put(k.cls(), s));
        return out;
    }
}
