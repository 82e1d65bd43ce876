package org.arbiter.grm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import org.arbiter.common.utility.UtilityFunction;
import org.arbiter.grm.model.FlowModel;
import org.junit.jupiter.api.Test;

/**
 * The solver with the slot model (service time measured) on 003 §V-B's cluster: premium τ = 2 s,
 * basic τ = 3 s, combine min, N = 10, closed-loop clients thinking 1 s, service 1 s.
 */
final class SlotModelSolverTest {

    static Problem phase(List<Problem.Flow> flows) {
        return new Problem(List.of(new Problem.Server("s1", 10)),
                List.of(new Problem.ClassSpec("premium", 2, UtilityFunction.pacifici(2, 1, 1, 1), 0, 10, 1),
                        new Problem.ClassSpec("basic", 3, UtilityFunction.pacifici(3, 1, 1, 1), 0, 10, 1)),
                flows, Problem.Parameters.PAPER, Map.of());
    }

    /** n clients measured on weight w: X = min(w, n/2), R = n/X − 1, X·1 s slots in use, S̃ = 1 s. */
    static Problem.Flow flow(String cls, int n, double w) {
        double x = Math.min(w, n / 2.0);
        return new Problem.Flow("g1", cls, x, n / x - 1, w, 0, x, 1.0);
    }

    @Test
    void lightLoad_everyAllocationEquallyGood_isSplitByDemand_notByInputOrder() {
        // phase A (5, 5) measured under (8, 2): nobody ever waits, whatever the weights
        Solution s = GrmSolver.solve(phase(List.of(flow("premium", 5, 8), flow("basic", 5, 2))));
        Solution swapped = GrmSolver.solve(phase(List.of(flow("basic", 5, 2), flow("premium", 5, 8))));
        assertThat(s.weights().get("g1")).containsEntry("premium", 5.0).containsEntry("basic", 5.0);
        assertThat(swapped.weights()).isEqualTo(s.weights());
        // and both are predicted at the service time, as measured
        s.predicted().values().forEach(p -> assertThat(p.responseTime()).isEqualTo(1.0));
    }

    @Test
    void moderateLoad_premiumGetsItsClients_basicIsPredictedWithTheSlotsItBorrows() {
        // phase C (5, 20) measured under (3, 7)
        Problem p = phase(List.of(flow("premium", 5, 3), flow("basic", 20, 7)));
        Solution s = GrmSolver.solve(p);
        assertThat(s.weights().get("g1")).containsEntry("premium", 5.0).containsEntry("basic", 5.0);
        // basic holds its 5 and what premium's 5 clients leave idle: 10 − 5·1/(1 + 1) = 7.5 slots
        double expected = (FlowModel.finiteSource(20, 7, 1, 1) + FlowModel.finiteSource(20, 8, 1, 1)) / 2;
        assertThat(s.predicted().get(new Problem.FlowId("g1", "basic")).responseTime())
                .isCloseTo(expected, within(1e-9));
        assertThat(s.predicted().get(new Problem.FlowId("g1", "premium")).responseTime()).isEqualTo(1.0);
    }

    @Test
    void heavyLoad_nobodyBorrows_andPremiumOutranksBasic() {
        // phase B (20, 20) and D (20, 5): the other class's demand (10 slots) leaves nothing idle
        double b = GrmSolver.solve(phase(List.of(flow("premium", 20, 5), flow("basic", 20, 5))))
                .weights().get("g1").get("premium");
        double d = GrmSolver.solve(phase(List.of(flow("premium", 20, 8), flow("basic", 5, 2))))
                .weights().get("g1").get("premium");
        assertThat(b).isBetween(5.0, 6.0);
        assertThat(d).isEqualTo(8.0);
    }

    @Test
    void evaluate_usesTheSameBorrowedSlots_asSolve() {
        Problem p = phase(List.of(flow("premium", 5, 3), flow("basic", 20, 7)));
        Solution s = GrmSolver.solve(p);
        Solution e = GrmSolver.evaluate(p, s.weights());
        assertThat(e.predicted()).isEqualTo(s.predicted());
        assertThat(e.objective()).isCloseTo(s.objective(), within(1e-12));
    }
}
