package org.arbiter.sim;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GrmConfig;
import org.arbiter.sim.experiment.Experiments;
import org.arbiter.sim.experiment.PaperPhase;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * 003 §V-B's phases with the GRM on 003's own model ({@code grm.model: paper}: eq. 8-9 as printed, w̃ the weight
 * in force, λ held, integer weights, a move only on a measurement taken wholly under the weights in force),
 * {@code min}, seeds 1-10 at 600 s per phase. What holds on every seed, and what does not (docs/experiments.md,
 * "003's own model"): on the absolute scale B walks down from A's (9, 1) one slot at a time and settles at
 * (6, 4) — the exact steady-state iteration's fixed point — and D ends at (8, 2). B stays at (6, 4) because a
 * move must predict a gain above the window's noise ({@code PaperMoveGate}): (5, 5) is a second fixed point of
 * eq. 9 that a noisy window would otherwise tip it into. On the relative scale B's most held weight is 6 on
 * nine seeds of ten or more.
 */
final class PaperModelPhasesTest {

    private static final double SECONDS_PER_PHASE = 600;

    /** One phase of one seed: premium's weight at each period from the phase's third on, with its time. */
    private record Phase(double start, double end, List<double[]> weights) {
        /** The premium weights of the phase's last two minutes. */
        List<Double> lastTwoMinutes() {
            return weights.stream().filter(w -> w[0] >= end - 120).map(w -> w[1]).toList();
        }

        /** The weight held most of the phase. */
        double mode() {
            Map<Double, Integer> n = new TreeMap<>();
            weights.forEach(w -> n.merge(w[1], 1, Integer::sum));
            return n.entrySet().stream().max(Map.Entry.comparingByValue()).orElseThrow().getKey();
        }
    }

    private static final Map<String, List<List<Phase>>> RUNS = new TreeMap<>();

    /** Seeds 1-10; {@code -Dpaper.seeds=11-20} runs held-out ones (docs/experiments.md quotes both). */
    private static final String SEEDS = System.getProperty("paper.seeds", "1-10");

    @BeforeAll
    static void run() {
        long first = Long.parseLong(SEEDS.split("-")[0]);
        long last = Long.parseLong(SEEDS.split("-")[1]);
        for (ClassConfig.UtilitySpec.Scale scale : ClassConfig.UtilitySpec.Scale.values()) {
            ClusterConfig cluster = Experiments.paperCluster(DispatchConfig.Scheduler.WRR, 1, 10, 0,
                    ControlConfig.Combine.MIN, scale, GrmConfig.Model.PAPER);
            List<List<Phase>> seeds = new ArrayList<>();
            List<SimResult> results = new ArrayList<>();
            for (long seed = first; seed <= last; seed++) {
                SimResult r = Simulator.withGrm(cluster,
                        new SimScenario(1, PaperPhase.simPhases(SECONDS_PER_PHASE), seed)).run();
                results.add(r);
                List<Phase> phases = new ArrayList<>();
                for (SimResult.PhaseResult p : r.phases()) {
                    List<double[]> w = new ArrayList<>();
                    for (SimResult.AllocationPoint a : r.allocations()) {
                        if (a.timeSeconds() >= p.startSeconds() + 10 && a.timeSeconds() < p.endSeconds()) {
                            w.add(new double[] {a.timeSeconds(), a.weights().get("g1").get("premium")});
                        }
                    }
                    phases.add(new Phase(p.startSeconds(), p.endSeconds(), w));
                }
                seeds.add(phases);
            }
            RUNS.put(scale.name(), seeds);
            summarise(scale, seeds, results);
        }
    }

    /** Per phase over the seeds: premium weight mean (third period on), end, mode; utility spread; B's ratio. */
    private static void summarise(ClassConfig.UtilitySpec.Scale scale, List<List<Phase>> seeds, List<SimResult> results) {
        StringBuilder out = new StringBuilder("paper model, " + scale.name().toLowerCase() + ", seeds " + SEEDS + ":\n");
        for (PaperPhase ph : PaperPhase.values()) {
            List<Double> means = new ArrayList<>();
            Map<Double, Integer> ends = new TreeMap<>();
            Map<Double, Integer> modes = new TreeMap<>();
            List<Double> spreads = new ArrayList<>();
            List<Double> ratios = new ArrayList<>();
            for (int i = 0; i < seeds.size(); i++) {
                Phase p = seeds.get(i).get(ph.ordinal());
                means.add(p.weights().stream().mapToDouble(w -> w[1]).average().orElse(Double.NaN));
                double end = p.lastTwoMinutes().stream().mapToDouble(Double::doubleValue).average().orElse(Double.NaN);
                ends.merge(Math.round(end * 100) / 100.0, 1, Integer::sum);
                modes.merge(p.mode(), 1, Integer::sum);
                SimResult.PhaseResult pr = results.get(i).phases().get(ph.ordinal());
                double tp = pr.classes().get("premium").meanResponseSeconds();
                double tb = pr.classes().get("basic").meanResponseSeconds();
                double up = scale == ClassConfig.UtilitySpec.Scale.RELATIVE ? (2 - tp) / 2 : 2 - tp;
                double ub = scale == ClassConfig.UtilitySpec.Scale.RELATIVE ? (3 - tb) / 3 : 3 - tb;
                spreads.add(Math.abs(up - ub));
                ratios.add(tb / tp);
            }
            out.append(String.format("  %s: mean %.2f-%.2f, end %s, mode %s, spread %.2f-%.2f, basic/premium %.2f-%.2f%n",
                    ph, min(means), max(means), ends, modes, min(spreads), max(spreads), min(ratios), max(ratios)));
        }
        System.out.print(out);
    }

    private static double min(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).min().orElse(Double.NaN);
    }

    private static double max(List<Double> xs) {
        return xs.stream().mapToDouble(Double::doubleValue).max().orElse(Double.NaN);
    }

    private static Phase phase(List<Phase> seed, String name) {
        return seed.get(PaperPhase.valueOf(name).ordinal());
    }

    @Test
    void absolute_BWalksDownOneSlotAtATime_toSixToFour_andSettlesThere_everySeed() {
        List<List<Phase>> seeds = RUNS.get("ABSOLUTE");
        List<Double> dwell = new ArrayList<>();
        for (int i = 0; i < seeds.size(); i++) {
            List<double[]> w = phase(seeds.get(i), "B").weights();
            // A leaves premium 9 slots (light load: more is never worse for the class that is behind)
            assertThat(phase(seeds.get(i), "A").lastTwoMinutes()).as("seed %d, A", i + 1).containsOnly(9.0);
            double previous = 9;
            int first = -1;
            for (int k = 0; k < w.size() && first < 0; k++) {
                double now = w.get(k)[1];
                assertThat(previous - now).as("seed %d, B at %.0f s: one slot at a time, down", i + 1, w.get(k)[0])
                        .isBetween(0.0, 1.0);
                previous = now;
                if (now == 6) {
                    first = k;
                }
            }
            assertThat(first).as("seed %d: B reaches (6, 4)", i + 1).isNotNegative();
            // how long it stays: at the end of the window it waited for, it is free to move
            double reached = w.get(first)[0];
            double left = phase(seeds.get(i), "B").end();
            for (double[] x : w) {
                if (x[0] > reached && x[1] != 6) {
                    left = x[0];
                    break;
                }
            }
            dwell.add(left - reached);
            // never past (5, 5): no overshoot to (4, 6)
            assertThat(w).as("seed %d, B", i + 1).allSatisfy(x -> assertThat(x[1]).isGreaterThanOrEqualTo(5.0));
        }
        System.out.println("paper model, absolute: B held (6, 4) for " + dwell + " s after reaching it");
        // 003 Fig. 8: B settles at (6, 4). It stays there to the phase's end on every seed: a window's noise no
        // longer tips it into (5, 5), the second fixed point (PaperMoveGate; without the gate 2 seeds of 10 end there)
        for (int i = 0; i < seeds.size(); i++) {
            assertThat(phase(seeds.get(i), "B").lastTwoMinutes()).as("seed %d, B's last two minutes", i + 1)
                    .containsOnly(6.0);
        }
    }

    @Test
    void dEndsAtEightToTwo_everySeed_onBothScales() {
        for (var run : RUNS.entrySet()) {
            for (int i = 0; i < run.getValue().size(); i++) {
                assertThat(phase(run.getValue().get(i), "D").lastTwoMinutes()).as("%s, seed %d, D", run.getKey(), i + 1)
                        .containsOnly(8.0);
            }
        }
    }

    @Test
    void relative_BHoldsSixToFour_onNineSeedsOfTen() {
        List<List<Phase>> seeds = RUNS.get("RELATIVE");
        int atSix = 0;
        StringBuilder modes = new StringBuilder();
        for (List<Phase> s : seeds) {
            double m = phase(s, "B").mode();
            modes.append(m).append(' ');
            if (m == 6) {
                atSix++;
            }
        }
        assertThat(atSix).as("B's most held premium weight per seed: %s", modes).isGreaterThanOrEqualTo(9);
    }
}
