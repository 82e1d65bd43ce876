package org.arbiter.grm.control;

import static org.arbiter.grm.control.StageFixtures.CONFIG;
import static org.arbiter.grm.control.StageFixtures.cls;
import static org.arbiter.grm.control.StageFixtures.stats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicLong;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.grm.Problem;
import org.junit.jupiter.api.Test;

/** Stage 3 alone: Σ w = N, Σ_g N(g,s) = N_s, and the solve time read off the ticker it is given. */
final class DampedSolverTest {

    static Problem problem() {
        Map<String, GatewayStats> live = new TreeMap<>(Map.of(
                "g1", stats("g1", Map.of("premium", cls(6, 6, 2.3, 0.5, 4), "basic", cls(2, 2, 1.5, 0.5, 4))),
                "g2", stats("g2", Map.of("premium", cls(1, 1, 1.1, 0.5, 4), "basic", cls(1, 1, 1.2, 0.5, 3)))));
        return new ProblemBuilder(CONFIG).build(new ProblemBuilder.Input(live, CONFIG.classes(), List.of(), Map.of(),
                ProblemBuilderTest.configuredNs(), List.of(), FlowEstimates.NONE)).problem();
    }

    @Test
    void theSolutionSharesEverySlot_andTheSolveTimeIsTheTickersDifference() {
        AtomicLong ticker = new AtomicLong(7_000_000_000L);
        // the ticker moves 2.5 ms between the two reads: 0.0025 s
        DampedSolver solver = new DampedSolver(() -> ticker.getAndAdd(2_500_000));
        DampedSolver.Solved s = solver.solve(problem(), Map.of("premium", 0.1, "basic", 0.1));
        assertThat(s.solveSeconds()).isCloseTo(0.0025, within(1e-12));
        // N = 10 + 5 = 15 slots, all of them handed out (003 eq. 3-4), and each N_s split exactly (eq. 5)
        double total = s.solution().weights().values().stream()
                .flatMap(w -> w.values().stream()).mapToDouble(Double::doubleValue).sum();
        assertThat(total).isCloseTo(15, within(1e-9));
        for (String server : List.of("s1", "s2")) {
            int sum = s.solution().serverCaps().values().stream().mapToInt(c -> c.getOrDefault(server, 0)).sum();
            assertThat(sum).as(server).isEqualTo(server.equals("s1") ? 10 : 5);
        }
        // what is published is Damping's choice, named by the path that found the optimum
        assertThat(s.solution().weights()).isEqualTo(s.chosen().solution().weights());
        assertThat(s.solution().serverCaps()).isEqualTo(s.chosen().solution().serverCaps());
        assertThat(s.solution().path()).isIn("marginal", "level", "dp");
    }
}
