package org.arbiter.grm.control;

import static org.arbiter.grm.control.StageFixtures.CONFIG;
import static org.arbiter.grm.control.StageFixtures.allocation;
import static org.arbiter.grm.control.StageFixtures.cls;
import static org.arbiter.grm.control.StageFixtures.stats;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.grm.Problem;
import org.junit.jupiter.api.Test;

/** Stage 2 alone: the problem shares only what the left-out gateways do not hold; each flow's inputs. */
final class ProblemBuilderTest {

    final ProblemBuilder builder = new ProblemBuilder(CONFIG);

    static Map<String, Integer> configuredNs() {
        Map<String, Integer> ns = new LinkedHashMap<>();
        ns.put("s1", 10);
        ns.put("s2", 5);
        return ns;
    }

    static ProblemBuilder.Input input(Map<String, GatewayStats> live, Map<String, Allocation> last, List<Allocation> held) {
        return new ProblemBuilder.Input(live, CONFIG.classes(), List.of(), last, configuredNs(), held, FlowEstimates.NONE);
    }

    @Test
    void theLeftOutGatewaysCaps_areReserved_andEachFlowCarriesItsInputs() {
        // g3 is left out holding s1: 4 and all of s2: the problem shares s1's other 6, and s2 not at all
        Allocation g3 = allocation("g3", Map.of("premium", 3.0, "basic", 1.0), Map.of("s1", 4, "s2", 5));
        // g1 measured premium without a weight of its own (0): the last allocation's 2.5 is in force;
        // basic not at all: the configured 1 (its last weight is 0)
        Map<String, GatewayStats> live = Map.of("g1", stats("g1", Map.of("premium", StageFixtures.cls(2, 2, 1.5, 0.5, 0))));
        Allocation last = allocation("g1", Map.of("premium", 2.5, "basic", 0.0), Map.of("s1", 5));
        ProblemBuilder.Built built = builder.build(input(live, Map.of("g1", last), List.of(g3)));

        assertThat(built.everySlotHeld()).isFalse();
        assertThat(built.problem().servers()).containsExactly(new Problem.Server("s1", 6));
        assertThat(built.reserve().free()).containsEntry("s1", 6).containsEntry("s2", 0);
        assertThat(built.reserve().cut()).isEmpty();
        // slots in use X·S = 2 · 0.5 = 1; S̃ with no estimate yet: the gateway's own 0.5 s
        assertThat(built.measured()).containsExactly(
                new Problem.Flow("g1", "premium", 2, 1.5, 2.5, 0, 1.0, 0.5),
                new Problem.Flow("g1", "basic", 0, 0, 1.0, 0));
        assertThat(built.problem().classNamed("premium").targetSeconds()).isEqualTo(2.0);
    }

    @Test
    void whenTheLeftOutGatewaysHoldEverySlot_thereIsNoProblem() {
        Allocation g3 = allocation("g3", Map.of("premium", 3.0, "basic", 1.0), Map.of("s1", 10, "s2", 5));
        Map<String, GatewayStats> live = Map.of("g1", stats("g1", Map.of("premium", cls(2, 2, 1.5, 0.5, 3))));
        ProblemBuilder.Built built = builder.build(input(live, Map.of(), List.of(g3)));
        assertThat(built.everySlotHeld()).isTrue();
        assertThat(built.reserve().free()).containsEntry("s1", 0).containsEntry("s2", 0);
        assertThat(built.measured()).isEmpty();
    }

    @Test
    void theSmoothedServiceTime_replacesTheGatewaysOwn() {
        Map<String, GatewayStats> live = Map.of("g1", stats("g1", Map.of("premium", cls(2, 2, 1.5, 0.5, 3))));
        FlowEstimates est = new FlowEstimates(Map.of("premium", 0.8), Map.of());
        ProblemBuilder.Built built = builder.build(new ProblemBuilder.Input(live, CONFIG.classes(), List.of(), Map.of(),
                configuredNs(), List.of(), est));
        // S̃ = 0.8 from stage 1; the slots in use stay what the gateway measured, 2 · 0.5 = 1
        assertThat(built.measured().get(0).serviceTime()).isEqualTo(0.8);
        assertThat(built.measured().get(0).slotsInUse()).isEqualTo(1.0);
        assertThat(built.problem().totalConcurrency()).isEqualTo(15);
    }
}
