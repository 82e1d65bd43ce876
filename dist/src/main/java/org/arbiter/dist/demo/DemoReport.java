package org.arbiter.dist.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.common.utility.UtilityFunction;
import org.arbiter.grm.model.PredictionErrors;
import org.arbiter.sim.experiment.PredictionError;

/**
 * Adds what the demo knows to the load generator's summary: per phase the time-averaged weights
 * each gateway enforced, the cluster utility (min over classes of 003 eq. 7 at the class's
 * mean response time, in 003's time units) and the flow model's prediction error (as the
 * experiments report it: each decision's predicted response time per flow against the gateway's
 * measurement one statistics window later, predictions made in the phase's first window left out),
 * and renders the per-phase table.
 */
public final class DemoReport {

    private DemoReport() {
    }

    /** 003 §V-B's utilities: premium τ = 2 s, basic τ = 3 s, φ = α = β = 1. */
    static final Map<String, UtilityFunction> UTILITY = Map.of(
            "premium", UtilityFunction.pacifici(2, 1, 1, 1), "basic", UtilityFunction.pacifici(3, 1, 1, 1));

    /**
     * @param summary      loadgen's summary.json (modified in place)
     * @param weights      what the gateways enforced, in seconds since the load started
     * @param timeScale    to convert measured seconds back to 003's
     */
    public static void enrich(ObjectNode summary, WeightTracker weights, double timeScale) {
        enrich(summary, weights, timeScale, List.of(), 0, 0);
    }

    /**
     * As {@link #enrich(ObjectNode, WeightTracker, double)}, and per phase {@code predictionError}
     * ({@code meanAbs}, {@code meanSigned}, {@code samples}; the means null without samples).
     *
     * @param errors              the GRM's checked predictions ({@link PredictionErrors}, times in epoch seconds)
     * @param loadStartEpochSeconds when the load started, epoch seconds (the phases' times are relative to it)
     * @param windowSeconds       the statistics window W
     */
    public static void enrich(ObjectNode summary, WeightTracker weights, double timeScale,
                              List<PredictionErrors.Sample> errors, double loadStartEpochSeconds, double windowSeconds) {
        for (JsonNode phase : summary.withArray("phases")) {
            ObjectNode p = (ObjectNode) phase;
            double start = p.path("startSeconds").asDouble();
            double end = p.path("endSeconds").asDouble();
            PredictionError e = PredictionError.of(errors, loadStartEpochSeconds + start + windowSeconds,
                    loadStartEpochSeconds + end);
            p.set("predictionError", MessageCodec.mapper().valueToTree(e));
            ObjectNode w = p.putObject("weights");
            weights.average(start, end).forEach((g, m) -> {
                ObjectNode gw = w.putObject(g);
                m.forEach((c, v) -> gw.put(c, Math.round(v * 100) / 100.0));
            });
            double min = Double.POSITIVE_INFINITY;
            for (Map.Entry<String, UtilityFunction> u : UTILITY.entrySet()) {
                JsonNode c = p.path("classes").path(u.getKey());
                if (c.isMissingNode() || c.path("ok").asLong() == 0) {
                    continue;
                }
                double t = c.path("meanResponseSeconds").asDouble() / timeScale;
                min = Math.min(min, u.getValue().utility(t));
            }
            p.put("clusterUtility", Double.isInfinite(min) ? 0 : Math.round(min * 1000) / 1000.0);
        }
    }

    /** One line per phase: clients, weights, response against target, throughput, utility. */
    /**
     * The demo's response time against time in 003's seconds (phases every {@code plan.phaseSeconds()}
     * of wall time from the load's start, targets 2 s and 3 s).
     */
    public static org.arbiter.sim.experiment.Timeline timeline(org.arbiter.sim.experiment.DecisionLog decisions,
                                                              double loadStartEpochSeconds, DemoPlan plan) {
        List<org.arbiter.sim.experiment.Timeline.PhaseMark> marks = new java.util.ArrayList<>();
        for (int i = 0; i < DemoPlan.PHASES.size(); i++) {
            marks.add(new org.arbiter.sim.experiment.Timeline.PhaseMark(DemoPlan.PHASES.get(i).name() + " "
                    + DemoPlan.PHASES.get(i).premium() + "," + DemoPlan.PHASES.get(i).basic(),
                    i * plan.phaseSeconds() / plan.timeScale()));
        }
        return decisions.timeline(loadStartEpochSeconds, plan.timeScale(), marks,
                org.arbiter.sim.experiment.Experiments.TARGETS);
    }

    public static String table(ObjectNode summary, double timeScale) {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "%-5s %-15s %-33s %-28s %-9s %-8s %s%n", "phase", "clients (P,B)",
                "weights at g1 | g2 (P,B)", "mean response P / B (target)", "req/s", "utility", "error"));
        for (JsonNode p : summary.withArray("phases")) {
            JsonNode w = p.path("weights");
            String weights = String.format(Locale.ROOT, "%.1f,%.1f | %.1f,%.1f",
                    w.path("g1").path("premium").asDouble(), w.path("g1").path("basic").asDouble(),
                    w.path("g2").path("premium").asDouble(), w.path("g2").path("basic").asDouble());
            double rp = p.path("classes").path("premium").path("meanResponseSeconds").asDouble() / timeScale;
            double rb = p.path("classes").path("basic").path("meanResponseSeconds").asDouble() / timeScale;
            double x = p.path("classes").path("premium").path("throughputPerSecond").asDouble()
                    + p.path("classes").path("basic").path("throughputPerSecond").asDouble();
            JsonNode e = p.path("predictionError").path("meanAbs");
            b.append(String.format(Locale.ROOT, "%-5s %-15s %-33s %-28s %-9.1f %-8.3f %s%n",
                    p.path("name").asText(), clients(p), weights,
                    String.format(Locale.ROOT, "%.2f s / %.2f s (2 s / 3 s)", rp, rb), x,
                    p.path("clusterUtility").asDouble(),
                    e.isNumber() ? String.format(Locale.ROOT, "%.3f", e.asDouble()) : "—"));
        }
        b.append(String.format(Locale.ROOT, "(P,B): (premium, basic). Response times are in the paper's seconds "
                + "(003's experiment; measured wall seconds / the time scale %s); req/s is wall-clock. utility: the "
                + "phase's cluster utility, min over the classes (003 eq. 2b). error: the GRM model's mean |predicted "
                + "- measured| / measured response time.%n", fmtScale(timeScale)));
        return b.toString();
    }

    private static String fmtScale(double s) {
        return s == Math.rint(s) ? String.format(Locale.ROOT, "%.0f", s) : Double.toString(s);
    }

    private static String clients(JsonNode p) {
        String name = p.path("name").asText();
        for (DemoPlan.Phase ph : DemoPlan.PHASES) {
            if (ph.name().equals(name)) {
                return ph.premium() + "," + ph.basic();
            }
        }
        return "?";
    }

    /** Parses JSON text into an object node. */
    public static ObjectNode parse(String json) {
        try {
            return (ObjectNode) MessageCodec.mapper().readTree(json);
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException("summary: not JSON (" + e.getMessage() + ")", e);
        }
    }
}
