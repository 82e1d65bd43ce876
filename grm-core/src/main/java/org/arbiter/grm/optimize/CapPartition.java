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
        int ng = gateways.size();
        double[] weights = new double[ng];
        double total = 0;
        for (int i = 0; i < ng; i++) {
            double w = gatewayWeights.get(gateways.get(i));
            if (!(w >= 0)) {
                throw new IllegalArgumentException("weight: " + w + " (expected: >= 0)");
            }
            weights[i] = w;
            total += w;
        }
        int ns0 = serverCaps.size();
        String[] ids = new String[ns0];
        int[][] cells = new int[ng][ns0]; // N(g,s) by index first: each gateway's row is then built in one pass
        double[] debt = new double[ng];
        int[] n = new int[ng];
        double[] ideal = new double[ng];
        double[] remainder = new double[ng];
        boolean[] chosen = new boolean[ng];
        int column = 0;
        for (Map.Entry<String, Integer> s : serverCaps.entrySet()) {
            ids[column] = s.getKey();
            int ns = s.getValue();
            int assigned = 0;
            for (int i = 0; i < ng; i++) {
                ideal[i] = total > 0 ? weights[i] / total * ns : (double) ns / ng;
                // An ideal that is an integer up to rounding error counts as that integer.
                n[i] = (int) Math.floor(ideal[i] + 1e-9);
                assigned += n[i];
                remainder[i] = ideal[i] - n[i] + debt[i];
                chosen[i] = false;
            }
            // the leftover units to the largest remainders (debt included), ties to the earlier gateway
            int left = Math.min(ns - assigned, ng);
            if (left <= 16) { // one pass per unit: O(G·left), no boxing
                for (int k = 0; k < left; k++) {
                    int best = -1;
                    for (int i = 0; i < ng; i++) {
                        if (!chosen[i] && (best < 0 || Double.compare(remainder[i], remainder[best]) > 0)) {
                            best = i;
                        }
                    }
                    chosen[best] = true;
                    n[best]++;
                }
            } else if (left > 0) {
                Integer[] order = new Integer[ng];
                for (int i = 0; i < ng; i++) {
                    order[i] = i;
                }
                Arrays.sort(order, (a, b) -> {
                    int c = Double.compare(remainder[b], remainder[a]);
                    return c != 0 ? c : Integer.compare(a, b);
                });
                for (int k = 0; k < left; k++) {
                    n[order[k]]++;
                }
            }
            for (int i = 0; i < ng; i++) {
                debt[i] += ideal[i] - n[i];
                cells[i][column] = n[i];
            }
            column++;
        }
        Map<String, Map<String, Integer>> out = new LinkedHashMap<>();
        for (int i = 0; i < ng; i++) {
            Map<String, Integer> row = new LinkedHashMap<>(ns0 * 4 / 3 + 1);
            int[] cell = cells[i];
            for (int k = 0; k < ns0; k++) {
                row.put(ids[k], cell[k]);
            }
            out.put(gateways.get(i), row);
        }
        return out;
    }
}
