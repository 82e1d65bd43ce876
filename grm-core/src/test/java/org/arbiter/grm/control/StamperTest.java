package org.arbiter.grm.control;

import static org.arbiter.grm.control.StageFixtures.CONFIG;
import static org.arbiter.grm.control.StageFixtures.T;
import static org.arbiter.grm.control.StageFixtures.cls;
import static org.arbiter.grm.control.StageFixtures.stats;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.grm.sizing.Fleet;
import org.junit.jupiter.api.Test;

/** Stage 5 alone: one stamp on every record of the period; the decision's N_s with pins. */
final class StamperTest {

    @Test
    void everyAllocation_andTheDecision_carryTheOneStamp() {
        EpochClock.Stamp stamp = new EpochClock.Stamp(T.toEpochMilli(), 7);
        CapPlanner.Plan plan = new CapPlanner.Plan(List.of(
                new CapPlanner.Planned("g1", Map.of("premium", 3.0), Map.of("s1", 6), "grm"),
                new CapPlanner.Planned("g3", Map.of("premium", 3.0), Map.of("s1", 0), "grm: gateway gone")));
        List<Allocation> out = Stamper.allocations(plan, T.plusSeconds(5), stamp, CapListing.POSITIVE);
        assertThat(out).extracting(Allocation::gateway).containsExactly("g1", "g3");
        assertThat(out).allSatisfy(a -> {
            assertThat(a.epoch()).isEqualTo(T.toEpochMilli());
            assertThat(a.version()).isEqualTo(7);
            assertThat(a.at()).isEqualTo(T.plusSeconds(5));
        });
        assertThat(out.get(1).source()).isEqualTo("grm: gateway gone");

        // nothing solved: the decision says so (Ω NaN, no prediction) and shows s1 at its pinned N_s 4
        OverrideBook overrides = new OverrideBook(CONFIG);
        overrides.apply("n", new OperatorOverride(1, T, "n", OperatorOverride.Kind.CONCURRENCY, null, null, "s1", 4.0,
                null, null, null, null, true, "t"));
        Map<String, GatewayStats> live = new TreeMap<>(Map.of("g1",
                stats("g1", Map.of("premium", cls(2, 2, 1.5, 0.5, 3)))));
        ProblemBuilder.Built built = new ProblemBuilder(CONFIG).build(new ProblemBuilder.Input(live, CONFIG.classes(),
                overrides.all(), Map.of(), ProblemBuilderTest.configuredNs(), List.of(), FlowEstimates.NONE));
        Fleet fleet = new Fleet(CONFIG, 0);
        Decision d = new Stamper(CONFIG, "grm-s").decision(new Stamper.DecisionInput(T.plusSeconds(5), 3, built, null, 0,
                List.of("g1"), fleet, overrides.ids()), stamp);
        assertThat(d.epoch()).isEqualTo(T.toEpochMilli());
        assertThat(d.allocationVersion()).isEqualTo(7);
        assertThat(d.sequence()).isEqualTo(3);
        assertThat(Double.isNaN(d.objective())).isTrue();
        assertThat(d.flows()).hasSize(2).allSatisfy(f -> {
            assertThat(Double.isNaN(f.predictedResponseTime())).isTrue();
            assertThat(f.weight()).isEqualTo(f.previousWeight());
        });
        assertThat(d.servers().get("s1").concurrency()).isEqualTo(4);
        assertThat(d.servers().get("s2").concurrency()).isEqualTo(5);
        assertThat(d.overrides()).containsExactly("n");
    }
}
