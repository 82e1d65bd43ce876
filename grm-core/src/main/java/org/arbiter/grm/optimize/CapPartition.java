package org.arbiter.grm.optimize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/*
 * Design note — the N(g,s) partition (003 eq. 5-6).
 *
 * Each server s's concurrency N_s is split among the gateways in proportion to their total
 * weights w_g = Σ_c w(g,c): the ideal is N̂(g,s) = w_g / N · N_s (eq. 6), and the integers must
 * sum to N_s exactly (eq. 5). Per server, every gateway gets ⌊N̂⌋ and the units left over go to
 * the gateways with the largest remainders — where the remainder also carries the gateway's
 * rounding debt from the servers before (Σ of N̂ − N over earlier servers). Carrying the debt
 * rotates the extra units between gateways, so Σ_s N(g,s) stays within 1 of w_g·Σ N_s/N for
 * every gateway, while each N(g,s) stays ⌊N̂⌋ or ⌊N̂⌋ + 1 (within 1 of N̂). Ties go to the
 * gateway listed first. O(S·G log G).
 *
 * Thread-safety: stateless.
 */

/** Splits each server's N_s among gateways by their weights (003 eq. 5-6). */
public final class CapPartition {

    private CapPartition() {
    }

    /**
     * @param gatewayWeights w_g per gateway, in a fixed order (ties follow it)
     * @param serverCaps     N_s per server, in server order
     * @return N(g,s) per gateway, then server; every gateway and server appears
     */
    public static Map<String, Map<String, Integer>> partition(Map<String, Double> gatewayWeights,
                                                              Map<String, Integer> serverCaps) {
        List<String> gateways = new ArrayList<>(gatewayWeights.keySet());
        double total = 0;
        for (double w : gatewayWeights.values()) {
            if (!(w >= 0)) {
                throw new IllegalArgumentException("weight: " + w + " (expected: >= 0)");
            }
            total += w;
        }
        Map<String, Map<String, Integer>> out = new LinkedHashMap<>();
        gateways.forEach(g -> out.put(g, new LinkedHashMap<>()));
        double[] debt = new double[gateways.size()];
        for (Map.Entry<String, Integer> s : serverCaps.entrySet()) {
            int ns = s.getValue();
            int[] n = new int[gateways.size()];
            double[] ideal = new double[gateways.size()];
            int assigned = 0;
            for (int i = 0; i < gateways.size(); i++) {
                ideal[i] = total > 0 ? gatewayWeights.get(gateways.get(i)) / total * ns : (double) ns / gateways.size();
                // An ideal that is an integer up to rounding error counts as that integer.
                n[i] = (int) Math.floor(ideal[i] + 1e-9);
                assigned += n[i];
            }
            int left = ns - assigned;
            Integer[] order = new Integer[gateways.size()];
            for (int i = 0; i < order.length; i++) {
                order[i] = i;
            }
            final int[] nn = n;
            Arrays.sort(order, (a, b) -> {
                double ra = ideal[a] - nn[a] + debt[a];
                double rb = ideal[b] - nn[b] + debt[b];
                int c = Double.compare(rb, ra);
                return c != 0 ? c : Integer.compare(a, b);
            });
            for (int k = 0; k < left && k < order.length; k++) {
                n[order[k]]++;
            }
            for (int i = 0; i < gateways.size(); i++) {
                debt[i] += ideal[i] - n[i];
                out.get(gateways.get(i)).put(s.getKey(), n[i]);
            }
        }
        return out;
    }
}
