package org.arbiter.console;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.api.Test;

final class ConsoleStateTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");

    private final ConsoleState state = new ConsoleState(Fixtures.config(), 5, Duration.ofSeconds(60), 3);

    @Test
    void statsHistory_isBoundedByCount() {
        for (int i = 0; i < 8; i++) {
            state.onStats(Fixtures.stats("g1", T0.plusSeconds(i), 1, 5));
        }
        assertThat(state.stats(null)).hasSize(5).first().extracting(ConsoleState.StatsPoint::at).isEqualTo(T0.plusSeconds(3));
    }

    @Test
    void statsHistory_dropsSamplesOlderThanTheHorizon() {
        state.onStats(Fixtures.stats("g1", T0, 1, 5));
        state.onStats(Fixtures.stats("g1", T0.plusSeconds(61), 1, 5));
        assertThat(state.stats(null)).extracting(ConsoleState.StatsPoint::at).containsExactly(T0.plusSeconds(61));
    }

    @Test
    void statsSince_returnsOnlyNewerSamples() {
        for (int i = 0; i < 4; i++) {
            state.onStats(Fixtures.stats("g1", T0.plusSeconds(i), 1, 5));
        }
        assertThat(state.stats(T0.plusSeconds(1))).extracting(ConsoleState.StatsPoint::at)
                .containsExactly(T0.plusSeconds(2), T0.plusSeconds(3));
    }

    @Test
    void statsPoint_carriesMeasuredUtility_ofTheTargetInForce() {
        ConsoleState.StatsPoint fast = state.onStats(Fixtures.stats("g1", T0, 1, 5));
        ConsoleState.StatsPoint slow = state.onStats(Fixtures.stats("g1", T0.plusSeconds(1), 4, 5));
        assertThat(fast.classes().get("premium").utility()).isPositive();   // 1 s < τ = 2 s
        assertThat(slow.classes().get("premium").utility()).isNegative();   // 4 s > τ
        state.onOverride("target:premium", override(OperatorOverride.Kind.TARGET, null, "premium", null, 10.0, T0));
        ConsoleState.StatsPoint relaxed = state.onStats(Fixtures.stats("g1", T0.plusSeconds(2), 4, 5));
        assertThat(relaxed.classes().get("premium").utility()).isPositive();
    }

    @Test
    void statsPoint_carriesTheYieldOfferedAndRealised_andLossPercent_nullWhenNothingWasOffered() {
        GatewayStats plain = Fixtures.stats("g1", T0, 1, 5);
        GatewayStats.ClassStats p = plain.classes().get("premium");
        GatewayStats.ClassStats withYield = new GatewayStats.ClassStats(p.arrivalRate(), p.throughput(), p.meanResponseTime(),
                p.meanQueueTime(), p.meanServiceTime(), p.p95ResponseTime(), p.meanQueueLength(), p.queueLength(), p.inFlight(),
                p.weight(), p.drops(), p.period(), GatewayStats.YieldStats.of(20, 15));
        ConsoleState.StatsPoint point = state.onStats(new GatewayStats(plain.v(), T0, "g1", plain.windowSeconds(),
                plain.allocationVersion(), Map.of("premium", withYield, "basic", plain.classes().get("basic")),
                plain.servers(), plain.backlog()));
        ConsoleState.ClassPoint premium = point.classes().get("premium");
        assertThat(premium.offeredYield()).isEqualTo(20);
        assertThat(premium.realisedYield()).isEqualTo(15);
        assertThat(premium.lossPercent()).isEqualTo(25);
        assertThat(point.classes().get("basic").lossPercent()).as("no yield counted: no LossPercent").isNull();
    }

    @Test
    void gatewayLiveness_followsTheLastReport() {
        state.onStats(Fixtures.stats("g1", T0, 1, 5));
        ConsoleState.ClusterView now = state.cluster(T0.plusSeconds(2));
        assertThat(now.gateways()).extracting(ConsoleState.GatewayView::id, ConsoleState.GatewayView::live)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("g1", true), org.assertj.core.groups.Tuple.tuple("g2", false));
        assertThat(state.cluster(T0.plusSeconds(4)).gateways().get(0).live()).isFalse();  // 3 report periods
    }

    @Test
    void aReportFromTheFuture_countsAsReceived_andDoesNotBlockNewerOnes() {
        Instant yearAhead = T0.plus(Duration.ofDays(365));
        ConsoleState.StatsPoint p = state.onStats(Fixtures.stats("g1", yearAhead, 1, 5), T0);
        assertThat(p.at()).isEqualTo(T0);
        assertThat(state.futureReports()).isEqualTo(1);
        assertThat(state.cluster(T0.plusSeconds(2)).gateways().get(0).live()).isTrue();
        assertThat(state.cluster(T0.plusSeconds(4)).gateways().get(0).live()).isFalse();   // not for a year
        state.onStats(Fixtures.stats("g1", T0.plusSeconds(5), 2, 5), T0.plusSeconds(5));
        ConsoleState.GatewayView g1 = state.cluster(T0.plusSeconds(5)).gateways().get(0);
        assertThat(g1.stats().at()).isEqualTo(T0.plusSeconds(5));
        assertThat(g1.lastReport()).isEqualTo(T0.plusSeconds(5));
        assertThat(state.stats(null)).extracting(ConsoleState.StatsPoint::at).containsExactly(T0, T0.plusSeconds(5));
    }

    @Test
    void membersNotInTheConfiguration_areListedAsUnknown_andNotCounted() {
        state.onStats(Fixtures.stats("g1", T0, 1, 5));
        state.onStats(Fixtures.stats("gx", T0, 1, 5));
        state.onPower("sx", new PowerOrder(Message.VERSION, T0, "sx", ServerState.OFF, ServerState.OFF, "", 1));
        ConsoleState.ClusterView v = state.cluster(T0);
        assertThat(v.gateways()).extracting(ConsoleState.GatewayView::id, ConsoleState.GatewayView::unknown).containsExactly(
                org.assertj.core.groups.Tuple.tuple("g1", false), org.assertj.core.groups.Tuple.tuple("g2", false),
                org.assertj.core.groups.Tuple.tuple("gx", true));
        assertThat(v.gateways()).extracting(ConsoleState.GatewayView::kind)   // the file's gateways[].kind; none if unknown
                .containsExactly(GatewayConfig.Kind.ARBITER, GatewayConfig.Kind.HAPROXY, null);
        assertThat(v.liveGateways()).isEqualTo(1);
        assertThat(v.unknownGateways()).isEqualTo(1);
        assertThat(v.servers()).extracting(ConsoleState.ServerView::id, ConsoleState.ServerView::unknown).containsExactly(
                org.assertj.core.groups.Tuple.tuple("s1", false), org.assertj.core.groups.Tuple.tuple("s2", false),
                org.assertj.core.groups.Tuple.tuple("sx", true));
        assertThat(v.configuredServers()).isEqualTo(2);
        assertThat(v.unknownServers()).isEqualTo(1);
    }

    @Test
    void olderAllocationVersion_isIgnored() {
        assertThat(state.onAllocation("g1", allocation("g1", 5, 6.0))).isTrue();
        assertThat(state.onAllocation("g1", allocation("g1", 4, 1.0))).isFalse();
        assertThat(state.allocations().get("g1").version()).isEqualTo(5);
        assertThat(state.allocations().get("g1").weights()).containsEntry("premium", 6.0);
        state.onAllocation("g1", null);
        assertThat(state.allocations()).isEmpty();
    }

    @Test
    void aNewLeadersEpoch_winsOverAHigherVersionOfTheOldEpoch() {
        long oldEpoch = T0.toEpochMilli() - 60_000;
        assertThat(state.onAllocation("g1", new Allocation(Message.VERSION, T0, "g1", 500, Map.of("premium", 6.0),
                Map.of("s1", 7), "grm", oldEpoch))).isTrue();
        assertThat(state.onAllocation("g1", new Allocation(Message.VERSION, T0, "g1", 1, Map.of("premium", 2.0),
                Map.of("s1", 7), "grm", oldEpoch + 1))).isTrue();
        assertThat(state.onAllocation("g1", new Allocation(Message.VERSION, T0, "g1", 501, Map.of("premium", 9.0),
                Map.of("s1", 7), "grm", oldEpoch))).isFalse();
        assertThat(state.allocations().get("g1").weights()).containsEntry("premium", 2.0);
    }

    @Test
    void clusterView_showsCapsPowerStateAndConcurrency() {
        state.onAllocation("g1", allocation("g1", 1, 6.0));
        state.onPower("s2", new PowerOrder(Message.VERSION, T0, "s2", ServerState.OFF, ServerState.DRAINING, "sizing", 1));
        state.onDecision(decision(1, Map.of("s1", new Decision.Server(ServerState.ON, 12, 50, 60))));
        ConsoleState.ClusterView v = state.cluster(T0);
        ConsoleState.ServerView s1 = v.servers().get(0);
        ConsoleState.ServerView s2 = v.servers().get(1);
        assertThat(s1.state()).isEqualTo(ServerState.ON);
        assertThat(s1.concurrency()).isEqualTo(12);
        assertThat(s1.caps()).containsEntry("g1", 7);
        assertThat(s2.state()).isEqualTo(ServerState.DRAINING);
        assertThat(s2.target()).isEqualTo(ServerState.OFF);
        assertThat(s2.concurrency()).isEqualTo(10);
        assertThat(v.classes()).extracting(ConsoleState.ClassView::name).containsExactly("premium", "basic");
    }

    @Test
    void decisions_areBoundedAndNewestFirst() {
        for (int i = 1; i <= 5; i++) {
            state.onDecision(decision(i, Map.of()));
        }
        assertThat(state.decisions(10)).extracting(Decision::sequence).containsExactly(5L, 4L, 3L);
        assertThat(state.decisions(2)).extracting(Decision::sequence).containsExactly(5L, 4L);
    }

    @Test
    void overrides_inactiveOrTombstone_removeThePin() {
        state.onOverride("a", override(OperatorOverride.Kind.WEIGHT, "g1", "premium", null, 7.0, T0));
        state.onOverride("b", override(OperatorOverride.Kind.CONCURRENCY, null, null, "s1", 8.0, T0));
        assertThat(state.overrides()).containsOnlyKeys("a", "b");
        state.onOverride("a", inactive("a"));
        state.onOverride("b", null);
        assertThat(state.overrides()).isEmpty();
    }

    @Test
    void targetOverride_showsInTheClassView() {
        state.onOverride("t", override(OperatorOverride.Kind.TARGET, null, "premium", null, 1.5, T0));
        ConsoleState.ClassView premium = state.cluster(T0).classes().get(0);
        assertThat(premium.targetSeconds()).isEqualTo(1.5);
        assertThat(premium.configuredTargetSeconds()).isEqualTo(2.0);
        assertThat(premium.utilityScale()).isEqualTo("absolute");
    }

    /**
     * Two target overrides set at the same instant: the larger id wins, as in the GRM (EffectiveClass; the
     * same pairs in OverrideBookTest), whatever the order of their topic keys. Keyed here so that the key
     * order (k1 then k2) and the id order (b after a) disagree: the console's old rule, the later key on a
     * tie, gave a's 4 s.
     */
    @Test
    void twoTargetOverridesAtTheSameTime_theLargerIdWins_asInTheGrm() {
        state.onOverride("k2", targetOverride("a", 4.0));
        state.onOverride("k1", targetOverride("b", 1.5));
        assertThat(state.cluster(T0).classes().get(0).targetSeconds()).isEqualTo(1.5);
    }

    static OperatorOverride targetOverride(String id, double seconds) {
        return new OperatorOverride(Message.VERSION, T0, id, OperatorOverride.Kind.TARGET, null, "premium", null, seconds,
                null, null, null, null, true, "test");
    }

    @Test
    void tombstonesOnStreams_areCountedNotFatal() {
        assertThat(state.onStats(null)).isNull();
        state.onDecision(null);
        assertThat(state.ignored()).isEqualTo(2);
    }

    static Allocation allocation(String g, long version, double premium) {
        return new Allocation(Message.VERSION, T0, g, version, Map.of("premium", premium, "basic", 10 - premium),
                Map.of("s1", 7, "s2", 3), "grm");
    }

    static Decision decision(long seq, Map<String, Decision.Server> servers) {
        return new Decision(Message.VERSION, T0.plusSeconds(seq), "grm-1", seq, seq, "min", 0.5, 0.001, List.of("g1"),
                List.of(), servers, 0, List.of());
    }

    static OperatorOverride override(OperatorOverride.Kind kind, String g, String c, String s, Double v, Instant at) {
        return new OperatorOverride(Message.VERSION, at, kind.name().toLowerCase(), kind, g, c, s, v, null, null, null, null,
                true, "test");
    }

    static OperatorOverride inactive(String id) {
        return new OperatorOverride(Message.VERSION, T0, id, OperatorOverride.Kind.WEIGHT, null, null, null, null, null, null,
                null, null, false, "test");
    }
}
