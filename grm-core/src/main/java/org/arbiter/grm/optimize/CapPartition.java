package org.arbiter.grm.optimize;

import java.util.ArrayList;
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
 * gateway listed first. O(S·G) (the leftover units of a server, at most G, found in one pass).
 * A gateway's row names the servers it gets slots on: at 1 000 gateways most of its N(g,s) are 0.
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
     * @return N(g,s) per gateway, then server: every gateway appears, with the servers it gets slots on
     *         (N(g,s) > 0; a server not in a gateway's row gives it none)
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
        // each gateway's row grows server by server (so in server order): only its cells above 0 are
        // written, not a G × S matrix (at 1 000 × 10 000, 40 MB written column by column every step)
        List<Map<String, Integer>> rows = new ArrayList<>(ng);
        for (int i = 0; i < ng; i++) {
            rows.add(new LinkedHashMap<>());
        }
        double[] debt = new double[ng];
        int[] n = new int[ng];
        double[] ideal = new double[ng];
        double[] remainder = new double[ng];
        int[] top = new int[ng];
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
            }
            // the leftover units to the largest remainders (debt included), ties to the earlier gateway:
            // the first `left` gateways in (remainder descending, index ascending) order, found in one
            // pass that keeps the best `left` so far in that order (left ≤ G; a few units per server)
            int left = Math.min(ns - assigned, ng);
            if (left > 0) {
                int kept = 0;
                for (int i = 0; i < ng; i++) {
                    // i comes after every gateway kept on ties (a larger index), so it displaces only a
                    // strictly smaller remainder
                    if (kept == left && !(Double.compare(remainder[i], remainder[top[kept - 1]]) > 0)) {
                        continue;
                    }
                    int at = kept == left ? left - 1 : kept++;
                    while (at > 0 && Double.compare(remainder[i], remainder[top[at - 1]]) > 0) {
                        top[at] = top[at - 1];
                        at--;
                    }
                    top[at] = i;
                }
                for (int k = 0; k < left; k++) {
                    n[top[k]]++;
                }
            }
            for (int i = 0; i < ng; i++) {
                debt[i] += ideal[i] - n[i];
                if (n[i] > 0) {
                    rows.get(i).put(ids[column], n[i]);
                }
            }
            column++;
        }
        Map<String, Map<String, Integer>> out = new LinkedHashMap<>();
        for (int i = 0; i < ng; i++) {
            out.put(gateways.get(i), rows.get(i));
        }
        return out;
    }
}
