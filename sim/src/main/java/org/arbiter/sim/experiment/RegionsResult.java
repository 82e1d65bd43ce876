package org.arbiter.sim.experiment;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code regions} experiment's result (003 Fig. 13-15).
 *
 * @param policies by name (fcfs, priority, grm, grm-fractional), in that order
 */
public record RegionsResult(Map<String, Policy> policies) {

    public RegionsResult {
        policies = Collections.unmodifiableMap(new LinkedHashMap<>(policies));
    }

    /**
     * One policy over the 16 points.
     *
     * @param nonNegative the points whose cluster utility is ≥ 0
     * @param meanUtility the mean cluster utility over the points
     */
    public record Policy(List<Point> points, int nonNegative, double meanUtility) {

        public Policy {
            points = List.copyOf(points);
        }
    }

    /**
     * One point: the clients of each class and the cluster utility min(U_premium, U_basic). The
     * key order is the one the replaced maps gave in the documented run.
     */
    @JsonPropertyOrder({"clusterUtility", "basic", "premium"})
    public record Point(int premium, int basic, double clusterUtility) {
    }
}
