package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.junit.jupiter.api.Test;

class CapSplitTest {

    @Test
    void paperPhaseBSplitsTenSlotsSixToFour() {
        Map<String, Map<String, Integer>> m = CapSplit.split(ordered("premium", 6.0, "basic", 4.0), ordered("s1", 10));
        assertThat(m.get("premium")).containsEntry("s1", 6);
        assertThat(m.get("basic")).containsEntry("s1", 4);
    }

    @Test
    void twoServersProportionalCellsWithExactMargins() {
        // 6:4 of 5 + 5 slots: 3 + 3 premium, 2 + 2 basic
        Map<String, Map<String, Integer>> m = CapSplit.split(ordered("premium", 6.0, "basic", 4.0),
                ordered("s1", 5, "s2", 5));
        assertThat(m.get("premium")).containsEntry("s1", 3).containsEntry("s2", 3);
        assertThat(m.get("basic")).containsEntry("s1", 2).containsEntry("s2", 2);
    }

    @Test
    void aClassWithAWeightGetsASlotWhileThereAreEnough() {
        Map<String, Map<String, Integer>> m = CapSplit.split(ordered("a", 9.7, "b", 0.3), ordered("s1", 10));
        assertThat(m.get("a").get("s1")).isEqualTo(9);
        assertThat(m.get("b").get("s1")).isEqualTo(1);
        Map<String, Map<String, Integer>> zero = CapSplit.split(ordered("a", 10.0, "b", 0.0), ordered("s1", 10));
        assertThat(zero.get("b").get("s1")).isZero();
    }

    @Test
    void everyWeightZeroSplitsEvenly() {
        Map<String, Map<String, Integer>> m = CapSplit.split(ordered("a", 0.0, "b", 0.0), ordered("s1", 4));
        assertThat(m.get("a").get("s1")).isEqualTo(2);
        assertThat(m.get("b").get("s1")).isEqualTo(2);
    }

    @Test
    void marginsExactAndCellsFloorOrCeilingOnRandomAllocations() {
        for (long seed = 1; seed <= 400; seed++) {
            SplittableRandom r = new SplittableRandom(seed);
            int nc = 1 + r.nextInt(8);
            int ns = 1 + r.nextInt(12);
            Map<String, Double> w = new LinkedHashMap<>();
            for (int c = 0; c < nc; c++) {
                w.put("c" + c, r.nextInt(4) == 0 ? 0.0 : r.nextDouble() * 20);
            }
            Map<String, Integer> caps = new LinkedHashMap<>();
            long total = 0;
            for (int s = 0; s < ns; s++) {
                int n = r.nextInt(5) == 0 ? 0 : r.nextInt(40);
                caps.put("s" + s, n);
                total += n;
            }
            Map<String, Map<String, Integer>> m = CapSplit.split(w, caps);
            double wsum = w.values().stream().mapToDouble(Double::doubleValue).sum();
            long positive = w.values().stream().filter(v -> v > 0).count();
            long grand = 0;
            for (String s : caps.keySet()) {
                int col = 0;
                for (String c : w.keySet()) {
                    col += m.get(c).get(s);
                }
                assertThat(col).as("seed %d server %s", seed, s).isEqualTo(caps.get(s));
            }
            for (String c : w.keySet()) {
                long row = m.get(c).values().stream().mapToLong(Integer::longValue).sum();
                grand += row;
                double share = wsum > 0 ? w.get(c) / wsum * total : (double) total / nc;
                if (wsum > 0 && w.get(c) == 0) {
                    assertThat(row).as("seed %d class %s (weight 0)", seed, c).isZero();
                } else if (total >= (wsum > 0 ? positive : nc)) {
                    assertThat(row).as("seed %d class %s: a slot at least", seed, c).isGreaterThanOrEqualTo(1);
                }
                // the rounding moves a class by less than one slot, plus what the at-least-one rule took
                assertThat(Math.abs(row - share)).as("seed %d class %s", seed, c).isLessThan(1.0 + (wsum > 0 ? positive : nc));
                for (String s : caps.keySet()) {
                    double exact = total == 0 ? 0 : (double) row * caps.get(s) / total;
                    int cell = m.get(c).get(s);
                    assertThat(cell).as("seed %d cell %s/%s", seed, c, s)
                            .isBetween((int) Math.floor(exact), (int) Math.ceil(exact));
                }
            }
            assertThat(grand).isEqualTo(total);
        }
    }

    private static Map<String, Double> ordered(String a, double wa, String b, double wb) {
        Map<String, Double> m = new LinkedHashMap<>();
        m.put(a, wa);
        m.put(b, wb);
        return m;
    }

    private static Map<String, Integer> ordered(String a, int na) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put(a, na);
        return m;
    }

    private static Map<String, Integer> ordered(String a, int na, String b, int nb) {
        Map<String, Integer> m = new LinkedHashMap<>();
        m.put(a, na);
        m.put(b, nb);
        return m;
    }

    @Test
    void eachPoolSplitsItsOwnClassesOverItsOwnServers() {
        ClusterConfig cluster = ConfigLoader.parse("""
                classes:
                  - {name: checkout, target: 500ms, match: {path: /checkout}}
                  - {name: browse, target: 1s, default: true}
                  - {name: reports, target: 10s, match: {path: /reports}}
                servers:
                  - {id: web1, url: "http://127.0.0.1:9001", concurrency: 8}
                  - {id: web2, url: "http://127.0.0.1:9002", concurrency: 8}
                  - {id: batch1, url: "http://127.0.0.1:9101", concurrency: 4}
                gateways:
                  - {id: g1, kind: haproxy, port: 8080}
                pools:
                  - {name: web, servers: [web1, web2], classes: [checkout, browse]}
                  - {name: batch, servers: [batch1], classes: [reports]}
                """);
        Instant at = Instant.EPOCH;
        // every pool's allocation names only its own classes and servers, as the GRM writes them
        Map<String, Allocation> byPool = Map.of(
                "web", new Allocation(1, at, "g1", 1, Map.of("checkout", 6.0, "browse", 10.0),
                        Map.of("web1", 8, "web2", 8), "grm", 0, "web"),
                "batch", new Allocation(1, at, "g1", 1, Map.of("reports", 4.0), Map.of("batch1", 4), "grm", 0, "batch"));
        Map<String, Map<String, Integer>> m = CapSplit.of(byPool, cluster);
        assertThat(m.get("checkout")).containsOnlyKeys("web1", "web2").containsEntry("web1", 3).containsEntry("web2", 3);
        assertThat(m.get("browse")).containsEntry("web1", 5).containsEntry("web2", 5);
        assertThat(m.get("reports")).containsOnlyKeys("batch1").containsEntry("batch1", 4);
        // at start every pool holds the whole configured allocation: each is still cut to its own pool
        Allocation whole = new Allocation(1, at, "g1", 0, Map.of("checkout", 6.0, "browse", 10.0, "reports", 4.0),
                Map.of("web1", 8, "web2", 8, "batch1", 4), "configured");
        Map<String, Map<String, Integer>> start = CapSplit.of(Map.of("web", whole, "batch", whole), cluster);
        assertThat(start).isEqualTo(m);
    }
}
