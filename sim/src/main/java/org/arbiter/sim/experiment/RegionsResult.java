package org.arbiter.sim.experiment;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The {@code regions} experiment's result (003 Fig. 13-15).
 *
 * @param combine  how the GRM and every point's cluster utility combine the classes: min (003 eq. 2b) or sum (eq. 2a)
 * @param policies by name (fcfs, priority, grm, grm-fractional), in that order
 */
@JsonPropertyOrder({"combine", "policies"})
public record RegionsResult(String combine, Map<String, Policy> policies) {

    public RegionsResult {
        policies = Collections.unmodifiableMap(new LinkedHashMap<>(policies));
    }

    /** Combined by min (003 eq. 2b, the paper's Fig. 13-15). */
    public RegionsResult(Map<String, Policy> policies) {
        this("min", policies);
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
     * One point: the clients of each class and the cluster utility, min(U_premium, U_basic) or their
     * sum as the result's combine says. The key order is the one the replaced maps gave in the
     * documented run.
     *
     * @param predictionError the GRM's flow-model error at this point (null: no GRM, or not measured)
     */
    @JsonPropertyOrder({"clusterUtility", "basic", "premium", "predictionError"})
    @com.fasterxml.jackson.annotation.JsonInclude(com.fasterxml.jackson.annotation.JsonInclude.Include.NON_NULL)
    public record Point(int premium, int basic, double clusterUtility, PredictionError predictionError) {
        public Point(int premium, int basic, double clusterUtility) {
            this(premium, basic, clusterUtility, null);
        }
    }
}
