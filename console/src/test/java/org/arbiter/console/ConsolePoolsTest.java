package org.arbiter.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Message;
import org.junit.jupiter.api.Test;

/** The console with pools: each pool's allocation followed on its own and shown merged; who owns each pool. */
final class ConsolePoolsTest {

    static final Instant T0 = Instant.parse("2026-11-27T10:00:00Z");
    static final ClusterConfig POOLED = Fixtures.config().toBuilder().pools(List.of(
            new PoolConfig("web", List.of("s1"), List.of("premium")),
            new PoolConfig("batch", List.of("s2"), List.of("basic")))).build();

    static Allocation alloc(String pool, long epoch, long version, Map<String, Double> w, Map<String, Integer> caps) {
        return new Allocation(1, T0.plusSeconds(version), "g1", version, w, caps, "grm", epoch, pool);
    }

    static Decision decision(String grm, String pool, long epoch, long seq) {
        return new Decision(Message.VERSION, T0.plusSeconds(seq), grm, seq, seq, "min", 0.5, 0.001, List.of("g1"),
                List.of(), Map.of(), 0, List.of(), List.of(), epoch, Map.of(), "level", pool);
    }

    @Test
    void eachPoolsAllocation_isOrderedOnItsOwn_andTheGatewayShowsThemTogether() {
        ConsoleState s = new ConsoleState(POOLED, 5, Duration.ofSeconds(60), 3);
        long e = T0.toEpochMilli();
        assertThat(s.onAllocation("g1@web", alloc("web", e, 5, Map.of("premium", 4.0), Map.of("s1", 4)))).isTrue();
        // batch's owner began its epoch earlier: still taken, its pool has its own order
        assertThat(s.onAllocation("g1@batch", alloc("batch", e - 60_000, 2, Map.of("basic", 3.0), Map.of("s2", 3)))).isTrue();
        assertThat(s.onAllocation("g1@web", alloc("web", e - 1, 9, Map.of("premium", 1.0), Map.of("s1", 1))))
                .as("older within web").isFalse();
        ConsoleState.AllocationView v = s.allocations().get("g1");
        assertThat(v.weights()).isEqualTo(Map.of("premium", 4.0, "basic", 3.0));
        assertThat(v.serverCaps()).isEqualTo(Map.of("s1", 4, "s2", 3));
        assertThat(s.onAllocation("g1@batch", null)).as("one pool's tombstone").isTrue();
        assertThat(s.allocations().get("g1").serverCaps()).isEqualTo(Map.of("s1", 4));
    }

    @Test
    void thePoolsCard_namesEachPoolsOwner_fromItsNewestEpoch() {
        ConsoleState s = new ConsoleState(POOLED, 5, Duration.ofSeconds(60), 10);
        assertThat(s.cluster(T0).pools()).extracting(ConsoleState.PoolView::owner).containsExactly("", "");
        s.onDecision(decision("grm-a", "web", 1000, 1));
        s.onDecision(decision("grm-b", "batch", 2000, 1));
        s.onDecision(decision("grm-c", "web", 3000, 2));
        s.onDecision(decision("grm-a", "web", 1000, 3)); // a deposed owner's late decision
        List<ConsoleState.PoolView> pools = s.cluster(T0.plusSeconds(5)).pools();
        assertThat(pools).extracting(ConsoleState.PoolView::name).containsExactly("web", "batch");
        assertThat(pools).extracting(ConsoleState.PoolView::owner).containsExactly("grm-c", "grm-b");
        assertThat(pools.get(0).servers()).containsExactly("s1");
        assertThat(new ConsoleState(Fixtures.config()).cluster(T0).pools()).isEmpty();
    }
}
