package org.arbiter.sim;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.loadgen.client.ResultRecorder;

/**
 * The simulator's tallies per phase and class (outcomes, response-time moments) and the gateways'
 * weights sampled over each phase's second half; turned into {@link SimResult.PhaseResult}s at the
 * end. Not thread-safe (the simulator's thread only).
 */
final class PhaseBook {

    /** One class in one phase: outcomes and response-time moments. */
    static final class Tally {
        long sent;
        long ok;
        long rejected;
        long lost;
        long lostToFailure;
        double sum;
        double sumSq;

        /** Counts how a request ended; an OK one adds its response time. */
        void answered(ResultRecorder.Outcome outcome, double responseSeconds) {
            switch (outcome) {
                case OK -> {
                    ok++;
                    sum += responseSeconds;
                    sumSq += responseSeconds * responseSeconds;
                }
                case LOST -> lost++;
                default -> rejected++;
            }
        }
    }

    private final List<ClassConfig> classes;
    /** Per phase, per class (the cluster file's order). */
    private final List<Tally[]> tallies = new ArrayList<>();
    private final List<List<Map<String, Map<String, Double>>>> weightSamples = new ArrayList<>();

    PhaseBook(List<ClassConfig> classes) {
        this.classes = List.copyOf(classes);
    }

    /** A new phase begins (phases are numbered from 0 in the order they start). */
    void startPhase() {
        Tally[] t = new Tally[classes.size()];
        for (int c = 0; c < t.length; c++) {
            t[c] = new Tally();
        }
        tallies.add(t);
        weightSamples.add(new ArrayList<>());
    }

    /** Class {@code c} (its place in the cluster file's classes) in {@code phase}. */
    Tally tally(int phase, int c) {
        return tallies.get(phase)[c];
    }

    /** Samples every gateway's weights (gateway → class → weight) in {@code phase} once its second half began. */
    void sampleWeights(int phase, double intoPhaseSeconds, double phaseSeconds, List<? extends GatewayCore<?>> gateways) {
        if (intoPhaseSeconds >= phaseSeconds / 2) {
            Map<String, Map<String, Double>> w = new TreeMap<>();
            for (GatewayCore<?> g : gateways) {
                Map<String, Double> m = new LinkedHashMap<>();
                for (int c = 0; c < g.classCount(); c++) {
                    m.put(g.className(c), g.weight(c));
                }
                w.put(g.gatewayId(), m);
            }
            weightSamples.get(phase).add(w);
        }
    }

    /** The phases' results: per class its outcomes, throughput and response-time moments; the mean weights. */
    List<SimResult.PhaseResult> results(List<SimScenario.Phase> phases) {
        List<SimResult.PhaseResult> out = new ArrayList<>();
        double start = 0;
        for (int i = 0; i < phases.size(); i++) {
            SimScenario.Phase ph = phases.get(i);
            Map<String, SimResult.ClassResult> cr = new LinkedHashMap<>();
            for (int k = 0; k < classes.size(); k++) {
                ClassConfig c = classes.get(k);
                Tally r = tallies.get(i)[k];
                double mean = r.ok == 0 ? 0 : r.sum / r.ok;
                double var = r.ok == 0 ? 0 : Math.max(0, r.sumSq / r.ok - mean * mean);
                cr.put(c.name(), new SimResult.ClassResult(r.sent, r.ok, r.rejected, r.ok / ph.durationSeconds(), mean, var,
                        r.lost, r.lostToFailure));
            }
            out.add(new SimResult.PhaseResult(ph.name(), start, start + ph.durationSeconds(), cr,
                    average(weightSamples.get(i))));
            start += ph.durationSeconds();
        }
        return out;
    }

    private static Map<String, Map<String, Double>> average(List<Map<String, Map<String, Double>>> samples) {
        Map<String, Map<String, Double>> out = new TreeMap<>();
        for (Map<String, Map<String, Double>> s : samples) {
            s.forEach((g, m) -> m.forEach((c, v) -> out.computeIfAbsent(g, x -> new LinkedHashMap<>())
                    .merge(c, v / samples.size(), Double::sum)));
        }
        return out;
    }
}
