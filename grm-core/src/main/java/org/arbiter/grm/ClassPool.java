package org.arbiter.grm;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/*
 * Design note — one class, one model across gateways (issue 19).
 *
 * 003 eq. 8 infers a flow's service rate per unit of weight, μ = 1/t̃ + λ̃/w̃, from what one gateway
 * measured for the class. Every gateway's share of a class runs the same requests on the same
 * servers, so μ is a property of the class, not of the gateway; measured per gateway it differs only
 * by the noise of each gateway's statistics window, and the optimiser followed that noise: two
 * gateways with the same load got splits up to two slots apart (phase A of 003 §V-B with the clients
 * over two gateways: 77 of 118 control periods more than one slot apart, seed 1).
 *
 * Pooled, per class c over the flows that measured something (λ̃ > 0 and t̃ > 0):
 *
 *     λ_c = Σ_g λ̃_g,   t̃_c = Σ_g λ̃_g t̃_g / λ_c,   W_c = Σ_g w̃_g (slots in use),
 *     S̃_c = Σ_g λ̃_g S̃_g / Σ_g λ̃_g over the flows with a service time measured,
 *     μ_c = 1/t̃_c + λ_c/W_c,
 *
 * and each flow g is modelled as its share s_g of the class, holding that share of the class's
 * arrivals and slots: t̃ → t̃_c, λ̃ → s_g λ_c and w̃ → s_g W_c, so its μ is μ_c. The share is the
 * flow's clients, s_g = n_g/Σn with n_g = λ̃_g (Z + t̃_g) by Little's law (closed-loop clients of think
 * time Z; its own t̃_g, because a gateway whose clients wait longer sends less, and a share by arrivals
 * would shrink with the slots it was given — the proportional split below then starved the gateway it
 * had once given less, 4 against 2 slots for 10 and 10 clients), or its arrivals λ̃_g/λ_c with open-loop
 * traffic. (Σ_g s_g λ_c (Z + t̃_c) = Σ_g n_g: the class's clients are kept.) Two flows of a class then
 * differ only by their shares: gateways with the same load get the same model, and the
 * optimiser (concave value tables, ties to the earlier flow) splits the class's slots between them
 * within one slot. The measured per-gateway figures still go in the decision, and the prediction
 * error compares each flow's prediction with its own gateway's measurement.
 *
 * A class measured at one gateway only is left as it is (the pool is that flow). The smoothing is the
 * gateways' own: every figure is a mean over the statistics window (control.statsWindow, 30 s in
 * 003 §V), reported every report period.
 *
 * Pure and stateless.
 */

/** Pools a class's statistics across gateways: one flow model per class (see the design note). */
public final class ClassPool {

    private ClassPool() {
    }

    /**
     * The flows with each class's measured flows modelled from the class's pooled statistics.
     *
     * @param thinkTimes per class, Z of its closed-loop clients (absent or +∞: open loop)
     * @param pinned     flows an operator pinned: left as they are and out of the pools (their weight is
     *                   not the optimiser's, and what they measured under it says nothing of the others)
     */
    public static List<Problem.Flow> pool(List<Problem.Flow> flows, Map<String, Double> thinkTimes,
                                          Set<Problem.FlowId> pinned) {
        Map<String, double[]> sums = new LinkedHashMap<>(); // class → {λ, λ·t, slots, flows, population, λ·S, λ with S}
        for (Problem.Flow f : flows) {
            if (measured(f) && !pinned.contains(f.id())) {
                double[] s = sums.computeIfAbsent(f.cls(), c -> new double[7]);
                s[0] += f.arrivalRate();
                s[1] += f.arrivalRate() * f.responseTime();
                s[2] += f.weightForModel();
                s[3]++;
                s[4] += population(f, thinkTimes);
                if (f.serviceTime() > 0) {
                    s[5] += f.arrivalRate() * f.serviceTime();
                    s[6] += f.arrivalRate();
                }
            }
        }
        List<Problem.Flow> out = new ArrayList<>(flows.size());
        for (Problem.Flow f : flows) {
            double[] s = sums.get(f.cls());
            if (!measured(f) || pinned.contains(f.id()) || s == null || s[3] < 2) {
                out.add(f);
                continue;
            }
            double share = population(f, thinkTimes) / s[4];
            out.add(new Problem.Flow(f.gateway(), f.cls(), s[0] * share, s[1] / s[0], f.weight(), f.queueLength(),
                    s[2] * share, s[6] > 0 ? s[5] / s[6] : 0));
        }
        return out;
    }

    /**
     * The flow's weight in its class: its clients n = λ̃(Z + t̃) by Little's law with closed-loop
     * clients (its own t̃: a gateway whose clients wait longer sends less, and its share of the
     * arrivals would shrink with its slots), its arrival rate λ̃ with open-loop traffic.
     */
    private static double population(Problem.Flow f, Map<String, Double> thinkTimes) {
        double z = thinkTimes.getOrDefault(f.cls(), Double.POSITIVE_INFINITY);
        return z < Double.POSITIVE_INFINITY ? f.arrivalRate() * (z + f.responseTime()) : f.arrivalRate();
    }

    private static boolean measured(Problem.Flow f) {
        return f.arrivalRate() > 0 && f.responseTime() > 0;
    }
}
