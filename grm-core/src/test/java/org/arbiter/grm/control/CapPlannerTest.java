package org.arbiter.grm.control;

import static org.arbiter.grm.control.StageFixtures.CONFIG;
import static org.arbiter.grm.control.StageFixtures.allocation;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.arbiter.common.message.Allocation;
import org.arbiter.grm.Solution;
import org.junit.jupiter.api.Test;

/** Stage 4 alone: who keeps which caps, so that Σ_g N(g,s) ≤ N_s over the caps in force. */
final class CapPlannerTest {

    static final Map<String, Double> W = Map.of("premium", 3.0, "basic", 1.0);

    final CapPlanner planner = new CapPlanner(CONFIG);

    @Test
    void leftOut_heldKeepTheirCaps_goneGetZeroOnEveryServer() {
        Map<String, Allocation> last = Map.of(
                "g1", allocation("g1", W, Map.of("s1", 3)),
                "g2", allocation("g2", W, Map.of("s1", 3)),
                "g3", allocation("g3", W, Map.of("s1", 2)));
        CapPlanner.LeftOut out = planner.leftOut(Set.of("g1"), Set.of("g3"), last);
        assertThat(out.held()).containsOnlyKeys("g2");
        assertThat(out.newlyGone()).singleElement().satisfies(p -> {
            assertThat(p.gateway()).isEqualTo("g3");
            assertThat(p.caps()).containsExactlyInAnyOrderEntriesOf(Map.of("s1", 0, "s2", 0));
            assertThat(p.source()).isEqualTo("grm: gateway gone");
        });
        // a gone gateway that holds nothing any more is not republished
        Map<String, Allocation> emptied = Map.of("g3", allocation("g3", W, Map.of("s1", 0)));
        assertThat(planner.leftOut(Set.of("g1"), Set.of("g3"), emptied).newlyGone()).isEmpty();
    }

    @Test
    void solved_aServerTheLeftOutHoldInFull_givesNothing_thenTheGoneAndTheCutFollow() {
        // N_s: s1 10, s2 5. g2 is held with s1: 3 and all of s2; the solution split s1's free 7 to g1
        Map<String, Integer> ns = new LinkedHashMap<>(Map.of("s1", 10, "s2", 5));
        Allocation g2 = allocation("g2", W, Map.of("s1", 3, "s2", 5));
        Map<String, Allocation> last = Map.of("g2", g2, "g3", allocation("g3", W, Map.of("s1", 1)));
        CapPlanner.LeftOut leftOut = planner.leftOut(Set.of("g1"), Set.of("g3"), last);
        CapReserve reserve = new CapReserve(leftOut.held().values(), ns);
        Solution solution = new Solution(1, Map.of("g1", W), Map.of("g1", Map.of("s1", 7)), Map.of());
        CapPlanner.Plan plan = planner.solved(List.of("g1"), solution, reserve, leftOut, last);
        assertThat(plan.allocations()).extracting(CapPlanner.Planned::gateway).containsExactly("g1", "g3");
        assertThat(plan.allocations().get(0).caps()).containsExactlyInAnyOrderEntriesOf(Map.of("s1", 7));
        // 7 + g2's 3 = 10 on s1 and g2's 5 on s2: exactly N_s. g1 gets nothing on s2: named 0 only where
        // g1 held a cap there (its last allocation, or its statistics)
        Map<String, Allocation> g1HeldS2 = Map.of("g1", allocation("g1", W, Map.of("s1", 5, "s2", 2)));
        assertThat(new CapListing(Map.of(), g1HeldS2).of("g1", plan.allocations().get(0).caps()))
                .isEqualTo(Map.of("s1", 7, "s2", 0));
        assertThat(new CapListing(Map.of(), last).of("g1", plan.allocations().get(0).caps())).isEqualTo(Map.of("s1", 7));
    }

    @Test
    void nothingSolved_theLastCapsStay_heldFirst_thenLiveCutToFit() {
        // s1 pinned down to N_s 4: held g2 keeps its 3, live g1 is cut from 3 to the 1 left
        Map<String, Allocation> last = Map.of("g1", allocation("g1", W, Map.of("s1", 3)),
                "g2", allocation("g2", W, Map.of("s1", 3)));
        CapPlanner.LeftOut leftOut = planner.leftOut(Set.of("g1"), Set.of(), last);
        CapReserve kept = planner.keptInForce(Map.of("s1", 4), List.of("g1"), leftOut, last);
        assertThat(kept.cut()).containsExactly(Map.entry("g1", Map.of("s1", 1)));
        CapPlanner.Plan plan = planner.withGoneAndCut(List.of(), kept, leftOut, last);
        assertThat(plan.allocations()).singleElement().satisfies(p -> {
            assertThat(p.caps()).containsExactly(Map.entry("s1", 1));
            assertThat(p.weights()).isEqualTo(W);
            assertThat(p.source()).isEqualTo("grm: caps cut to fit");
        });
    }

    @Test
    void configured_splitsEachNsEvenly_andAppliesOnlyThatGatewaysPins() {
        Map<String, Integer> ns = new LinkedHashMap<>();
        ns.put("s1", 10);
        ns.put("s2", 5);
        List<String> all = List.of("g1", "g2", "g3");
        List<CapPlanner.Planned> plan = planner.configured(all, all, ns,
                Map.of(new OverrideBook.Flow("g2", "premium"), 7.0), "configured");
        // 15 slots over three gateways: 5 each; s1's 10 as 4 + 3 + 3, s2's 5 as 1 + 2 + 2 (the remainder rotates)
        assertThat(plan).allSatisfy(p -> assertThat(p.caps().values().stream().mapToInt(i -> i).sum()).isEqualTo(5));
        assertThat(plan.stream().mapToInt(p -> p.caps().get("s1")).sum()).isEqualTo(10);
        assertThat(plan.stream().mapToInt(p -> p.caps().get("s2")).sum()).isEqualTo(5);
        assertThat(plan).extracting(p -> p.caps().get("s1")).containsExactly(4, 3, 3);
        assertThat(plan).extracting(p -> p.caps().get("s2")).containsExactly(1, 2, 2);
        assertThat(plan.get(0).weights()).containsEntry("premium", 3.0).containsEntry("basic", 1.0);
        assertThat(plan.get(1).weights()).containsEntry("premium", 7.0).containsEntry("basic", 1.0);
    }
}
