package org.arbiter.grm;

import java.util.Map;

/**
 * The optimiser's answer.
 *
 * @param objective  Ω of the allocation (003 eq. 2a or 2b)
 * @param weights    w(g,c) by gateway, then class
 * @param serverCaps N(g,s) by gateway, then server
 * @param predicted  per flow: predicted response time and utility at its weight
 * @param path       which algorithm found the allocation: marginal, level, thresholds (the fast paths), dp,
 *                   or evaluated (an allocation valued, not optimised)
 */
public record Solution(double objective, Map<String, Map<String, Double>> weights,
                       Map<String, Map<String, Integer>> serverCaps, Map<Problem.FlowId, Prediction> predicted,
                       String path) {

    /** An allocation valued, not optimised ({@code path} "evaluated"). */
    public Solution(double objective, Map<String, Map<String, Double>> weights,
                    Map<String, Map<String, Integer>> serverCaps, Map<Problem.FlowId, Prediction> predicted) {
        this(objective, weights, serverCaps, predicted, "evaluated");
    }

    /** This solution, said to have been found by {@code otherPath}. */
    public Solution withPath(String otherPath) {
        return new Solution(objective, weights, serverCaps, predicted, otherPath);
    }

    /** t(w) (eq. 9) and U_c(t(w)) (eq. 7) of one flow. */
    public record Prediction(double responseTime, double utility) {
    }
}
