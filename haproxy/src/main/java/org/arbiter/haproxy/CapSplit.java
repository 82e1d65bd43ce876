package org.arbiter.haproxy;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;

/**
 * Turns one allocation's shares w(g,c) and caps N(g,s) into per-(class, server) caps N(g,c,s) for a
 * proxy that cannot share one slot pool across classes (HAProxy: one backend per class, {@code maxconn}
 * per backend server). Integers with both margins exact:
 * <ul>
 *   <li>Σ_c N(g,c,s) = N(g,s) for every server;</li>
 *   <li>Σ_s N(g,c,s) = n_c, the class's slots: w(g,c) scaled to T = Σ_s N(g,s) (the weights sum to
 *       about T, but may be fractional or off by rounding), rounded by largest remainder so that Σ_c n_c
 *       = T; a class with a weight above 0 gets at least one slot while T allows (a class with
 *       none would wait in its backend's queue until its timeout, where Arbiter's work-conserving
 *       gateway would lend it an idle slot);</li>
 *   <li>each cell is the floor or the ceiling of the proportional n_c · N(g,s) / T (a controlled rounding:
 *       floors first, then one more slot along a maximum flow from the classes' missing slots to the
 *       servers' — such a rounding always exists, and the flow finds one).</li>
 * </ul>
 * A class with weight 0 gets no slot anywhere (when every weight is 0 the slots go evenly). Classes and
 * servers keep the order given; ties go to the earlier one. Pure and deterministic.
 */
public final class CapSplit {

    private CapSplit() {
    }

    /**
     * N(g,c,s) of every pool's allocation ({@code PoolAllocations.byPool()}; one entry, "", without pools),
     * merged: each pool's allocation restricted to the pool's classes and servers (at start every pool holds
     * the whole configured allocation), classes and servers in the cluster file's order so that every process
     * splits alike (an allocation's maps have no order of their own). Every class present.
     */
    public static Map<String, Map<String, Integer>> of(Map<String, Allocation> byPool, ClusterConfig cluster) {
        Map<String, Map<String, Integer>> out = new LinkedHashMap<>();
        for (PoolConfig p : cluster.effectivePools()) {
            Allocation a = byPool.get(p.name());
            if (a == null) {
                continue;
            }
            Map<String, Double> weights = new LinkedHashMap<>();
            for (ClassConfig c : cluster.classes()) {
                if (p.classes().contains(c.name())) {
                    weights.put(c.name(), a.weights().getOrDefault(c.name(), 0.0));
                }
            }
            Map<String, Integer> serverCaps = new LinkedHashMap<>();
            for (ServerConfig s : cluster.servers()) {
                if (p.servers().contains(s.id())) {
                    serverCaps.put(s.id(), a.serverCaps().getOrDefault(s.id(), 0));
                }
            }
            out.putAll(split(weights, serverCaps));
        }
        return out;
    }

    /**
     * @param weights w(g,c) per class (≥ 0, finite), in the order backends should be listed
     * @param caps    N(g,s) per server (≥ 0)
     * @return per class, per server, N(g,c,s) (every class and every server present, 0 where none)
     */
    public static Map<String, Map<String, Integer>> split(Map<String, Double> weights, Map<String, Integer> caps) {
        List<String> classes = new ArrayList<>(weights.keySet());
        List<String> servers = new ArrayList<>(caps.keySet());
        int nc = classes.size();
        int ns = servers.size();
        long[] rows = new long[ns];
        long total = 0;
        for (int s = 0; s < ns; s++) {
            int n = caps.get(servers.get(s));
            if (n < 0) {
                throw new IllegalArgumentException("caps." + servers.get(s) + ": " + n + " (expected: >= 0)");
            }
            rows[s] = n;
            total += n;
        }
        double[] w = new double[nc];
        for (int c = 0; c < nc; c++) {
            Double v = weights.get(classes.get(c));
            if (v == null || !(v >= 0) || Double.isInfinite(v)) {
                throw new IllegalArgumentException("weights." + classes.get(c) + ": " + v + " (expected: >= 0, finite)");
            }
            w[c] = v;
        }
        long[] cols = classSlots(w, total);
        long[][] cell = new long[nc][ns];
        if (total > 0) {
            fill(cell, cols, rows, total);
        }
        Map<String, Map<String, Integer>> out = new LinkedHashMap<>();
        for (int c = 0; c < nc; c++) {
            Map<String, Integer> row = new LinkedHashMap<>();
            for (int s = 0; s < ns; s++) {
                row.put(servers.get(s), (int) cell[c][s]);
            }
            out.put(classes.get(c), row);
        }
        return out;
    }

    /** n_c: the weights scaled to {@code total}, largest remainder, at least 1 for a weight above 0 while it fits. */
    static long[] classSlots(double[] w, long total) {
        int nc = w.length;
        long[] n = new long[nc];
        if (nc == 0 || total == 0) {
            return n;
        }
        double sum = 0;
        for (double v : w) {
            sum += v;
        }
        boolean[] eligible = new boolean[nc];
        double[] share = new double[nc];
        for (int c = 0; c < nc; c++) {
            eligible[c] = sum > 0 ? w[c] > 0 : true;
            share[c] = sum > 0 ? w[c] / sum * total : (double) total / nc;
        }
        long given = 0;
        int holders = 0;
        for (int c = 0; c < nc; c++) {
            n[c] = eligible[c] ? (long) Math.floor(share[c]) : 0;
            given += n[c];
            holders += n[c] > 0 ? 1 : 0;
        }
        // one slot for each eligible class left at 0, largest share first, while there are slots for all holders
        while (holders < total) {
            int best = -1;
            for (int c = 0; c < nc; c++) {
                if (eligible[c] && n[c] == 0 && (best < 0 || share[c] > share[best])) {
                    best = c;
                }
            }
            if (best < 0) {
                break;
            }
            n[best] = 1;
            given++;
            holders++;
        }
        // too many (the lifts): take back from a holder above 1, the most over its share first
        while (given > total) {
            int best = -1;
            for (int c = 0; c < nc; c++) {
                if (n[c] > 1 && (best < 0 || share[c] - n[c] < share[best] - n[best])) {
                    best = c;
                }
            }
            n[best]--;
            given--;
        }
        // too few: largest remainder first
        while (given < total) {
            int best = -1;
            for (int c = 0; c < nc; c++) {
                if (eligible[c] && (best < 0 || share[c] - n[c] > share[best] - n[best])) {
                    best = c;
                }
            }
            n[best]++;
            given++;
        }
        return n;
    }

    /** Controlled rounding of cols[c]·rows[s]/total: floors, then the missing units by a maximum flow. */
    private static void fill(long[][] cell, long[] cols, long[] rows, long total) {
        int nc = cols.length;
        int ns = rows.length;
        long[] colLeft = cols.clone();
        long[] rowLeft = rows.clone();
        boolean[][] fractional = new boolean[nc][ns];
        for (int c = 0; c < nc; c++) {
            for (int s = 0; s < ns; s++) {
                long num = cols[c] * rows[s];
                cell[c][s] = num / total;
                fractional[c][s] = num % total != 0;
                colLeft[c] -= cell[c][s];
                rowLeft[s] -= cell[c][s];
            }
        }
        // Augmenting paths source → class c (colLeft) → server s (one unit on a fractional cell, or back along one
        // already raised) → sink (rowLeft). The fractional parts form a feasible flow, so the maximum saturates.
        boolean[][] raised = new boolean[nc][ns];
        while (true) {
            int[] fromClass = new int[ns];
            int[] fromServer = new int[nc];
            Arrays.fill(fromClass, -2);
            Arrays.fill(fromServer, -2);
            ArrayDeque<Integer> queue = new ArrayDeque<>();
            for (int c = 0; c < nc; c++) {
                if (colLeft[c] > 0) {
                    fromServer[c] = -1;
                    queue.add(c);
                }
            }
            int end = -1;
            while (!queue.isEmpty() && end < 0) {
                int c = queue.poll();
                for (int s = 0; s < ns && end < 0; s++) {
                    if (fractional[c][s] && !raised[c][s] && fromClass[s] == -2) {
                        fromClass[s] = c;
                        if (rowLeft[s] > 0) {
                            end = s;
                        } else {
                            for (int c2 = 0; c2 < nc; c2++) {
                                if (raised[c2][s] && fromServer[c2] == -2) {
                                    fromServer[c2] = s;
                                    queue.add(c2);
                                }
                            }
                        }
                    }
                }
            }
            if (end < 0) {
                break;
            }
            rowLeft[end]--;
            int s = end;
            while (true) {
                int c = fromClass[s];
                raised[c][s] = true;
                cell[c][s]++;
                int back = fromServer[c];
                if (back == -1) {
                    colLeft[c]--;
                    break;
                }
                raised[c][back] = false;
                cell[c][back]--;
                s = back;
            }
        }
        for (int c = 0; c < nc; c++) {
            if (colLeft[c] != 0) {
                throw new IllegalStateException("cap split left class " + c + " " + colLeft[c] + " slots short");
            }
        }
    }
}
