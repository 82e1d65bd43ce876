package org.arbiter.grm.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.DoubleRange;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

final class CapPartitionProperties {

    @Property(tries = 500, edgeCases = EdgeCasesMode.NONE)
    void capsSumToEachServer_eachWithinOne_andGatewayTotalsWithinOne(
            @ForAll @Size(min = 1, max = 6) List<@DoubleRange(min = 0.1, max = 50) Double> weights,
            @ForAll @Size(min = 1, max = 12) List<@IntRange(min = 1, max = 40) Integer> servers) {
        Map<String, Double> w = new LinkedHashMap<>();
        for (int i = 0; i < weights.size(); i++) {
            w.put("g" + i, weights.get(i));
        }
        Map<String, Integer> s = new LinkedHashMap<>();
        for (int i = 0; i < servers.size(); i++) {
            s.put("s" + i, servers.get(i));
        }
        Map<String, Map<String, Integer>> caps = CapPartition.partition(w, s);
        double total = w.values().stream().mapToDouble(Double::doubleValue).sum();
        int n = s.values().stream().mapToInt(Integer::intValue).sum();
        for (String server : s.keySet()) {
            int sum = 0;
            for (String g : w.keySet()) {
                int c = caps.get(g).getOrDefault(server, 0);
                double ideal = w.get(g) / total * s.get(server);
                assertThat(Math.abs(c - ideal)).isLessThan(1.0 + 1e-9);
                sum += c;
            }
            assertThat(sum).isEqualTo(s.get(server));
        }
        for (String g : w.keySet()) {
            int sum = caps.get(g).values().stream().mapToInt(Integer::intValue).sum();
            assertThat(Math.abs(sum - w.get(g) / total * n)).isLessThan(1.0 + 1e-9);
        }
    }

    /**
     * The one-pass choice of each server's leftover units gives exactly the caps of choosing them by a
     * full sort (remainder descending, then gateway order): many gateways, equal weights (ties), a few
     * units per server (the scale run's shape) and more units than gateways.
     */
    @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
    void leftoverUnits_goAsAFullSortWouldGiveThem(@ForAll long seed) {
        java.util.Random rnd = new java.util.Random(seed);
        int ng = 1 + rnd.nextInt(60);
        Map<String, Double> w = new LinkedHashMap<>();
        for (int i = 0; i < ng; i++) {
            w.put("g" + i, rnd.nextBoolean() ? 1.0 : 0.5 + rnd.nextInt(4) * 0.5);
        }
        Map<String, Integer> s = new LinkedHashMap<>();
        for (int i = 0, n = 1 + rnd.nextInt(30); i < n; i++) {
            s.put("s" + i, 1 + rnd.nextInt(rnd.nextBoolean() ? 12 : 200));
        }
        Map<String, Map<String, Integer>> caps = CapPartition.partition(w, s);
        Map<String, Map<String, Integer>> sorted = bySort(w, s);
        for (String g : w.keySet()) {
            for (String server : s.keySet()) {
                assertThat(caps.get(g).getOrDefault(server, 0)).as("%s on %s", g, server)
                        .isEqualTo(sorted.get(g).get(server));
            }
            assertThat(caps.get(g).values()).as("a row names only servers with slots").allMatch(n -> n > 0);
        }
    }

    /** 003 eq. 5-6 with the leftover units given by sorting every gateway (the partition's rule, plainly). */
    private static Map<String, Map<String, Integer>> bySort(Map<String, Double> weights, Map<String, Integer> servers) {
        List<String> gs = List.copyOf(weights.keySet());
        int ng = gs.size();
        double total = weights.values().stream().mapToDouble(Double::doubleValue).sum();
        double[] debt = new double[ng];
        Map<String, Map<String, Integer>> out = new LinkedHashMap<>();
        gs.forEach(g -> out.put(g, new LinkedHashMap<>()));
        for (Map.Entry<String, Integer> e : servers.entrySet()) {
            int ns = e.getValue();
            double[] ideal = new double[ng];
            double[] rem = new double[ng];
            int[] n = new int[ng];
            int assigned = 0;
            for (int i = 0; i < ng; i++) {
                ideal[i] = total > 0 ? weights.get(gs.get(i)) / total * ns : (double) ns / ng;
                n[i] = (int) Math.floor(ideal[i] + 1e-9);
                assigned += n[i];
                rem[i] = ideal[i] - n[i] + debt[i];
            }
            Integer[] order = new Integer[ng];
            for (int i = 0; i < ng; i++) {
                order[i] = i;
            }
            java.util.Arrays.sort(order, (a, b) -> {
                int c = Double.compare(rem[b], rem[a]);
                return c != 0 ? c : Integer.compare(a, b);
            });
            for (int k = 0; k < Math.min(ns - assigned, ng); k++) {
                n[order[k]]++;
            }
            for (int i = 0; i < ng; i++) {
                debt[i] += ideal[i] - n[i];
                out.get(gs.get(i)).put(e.getKey(), n[i]);
            }
        }
        return out;
    }
}
