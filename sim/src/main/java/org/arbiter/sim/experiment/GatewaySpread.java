package org.arbiter.sim.experiment;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.sim.SimResult;
import org.arbiter.sim.SimScenario;
import org.arbiter.sim.Simulator;

/**
 * 003 §V-B's four phases with the clients spread over two gateways (as the demo runs them): how far
 * apart the GRM puts the two gateways' weights for the same class. For every phase, over the
 * control periods after its first two, the largest |w(g1,c) − w(g2,c)| over the classes, and the
 * share of those periods in which any class's weights differ by more than one slot.
 */
public final class GatewaySpread {

    private GatewaySpread() {
    }

    /**
     * @param maxSpread      the largest |w(g1,c) − w(g2,c)| over c and the periods after the first two
     * @param periodsOverOne the periods (after the first two) with some class's spread above one slot
     * @param periods        the periods counted
     * @param weights        per gateway, per class: w(g,c) averaged over the phase's second half
     * @param predictionError the flow model's error over the phase (both gateways' flows; predictions
     *                        made in the phase's first statistics window left out, as in phases)
     */
    public record Phase(String name, double maxSpread, int periodsOverOne, int periods,
                        Map<String, Map<String, Double>> weights, PredictionError predictionError) {
    }

    /** The paper cluster with two gateways, g1 and g2. */
    public static ClusterConfig twoGateways(ControlConfig.Combine combine) {
        ClusterConfig one = Experiments.paperCluster(DispatchConfig.Scheduler.WRR, 1, 10, 0, combine);
        return one.toBuilder().addGateway(GatewayConfig.builder("g2").port(8081).build()).build();
    }

    /** Runs the four phases ({@code secondsPerPhase} each) with two gateways. */
    public static List<Phase> run(long seed, double secondsPerPhase, ControlConfig.Combine combine) {
        SimScenario sc = new SimScenario(1, PaperPhase.simPhases(secondsPerPhase), seed);
        ClusterConfig cluster = twoGateways(combine);
        double period = cluster.control().periodSeconds();
        double window = cluster.control().statsWindowSeconds();
        DecisionLog log = new DecisionLog(window);
        SimResult r = Simulator.withGrm(cluster, sc).withDecisions(log).run();
        List<Phase> out = new ArrayList<>();
        for (SimResult.PhaseResult p : r.phases()) {
            double max = 0;
            int over = 0;
            int n = 0;
            for (SimResult.AllocationPoint a : r.allocations()) {
                // an allocation made at t is in force over (t, t + Γ]; skip the phase's first two periods
                if (a.timeSeconds() < p.startSeconds() + 2 * period - 1e-9 || a.timeSeconds() >= p.endSeconds()) {
                    continue;
                }
                Map<String, Double> w1 = a.weights().get("g1");
                Map<String, Double> w2 = a.weights().get("g2");
                if (w1 == null || w2 == null) {
                    continue;
                }
                double worst = 0;
                for (String c : w1.keySet()) {
                    worst = Math.max(worst, Math.abs(w1.get(c) - w2.getOrDefault(c, 0.0)));
                }
                max = Math.max(max, worst);
                if (worst > 1 + 1e-9) {
                    over++;
                }
                n++;
            }
            out.add(new Phase(p.name(), max, over, n, new LinkedHashMap<>(p.weightsSecondHalf()),
                    PredictionError.of(log.samples(), p.startSeconds() + window, p.endSeconds())));
        }
        return out;
    }
}
