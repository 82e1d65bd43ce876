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
                int c = caps.get(g).get(server);
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
}
