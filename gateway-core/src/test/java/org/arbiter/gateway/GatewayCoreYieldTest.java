package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;
import org.junit.jupiter.api.Test;

/** The core's side of 002: yield recorded per request, zeroYield drops (Fig. 5 step 1), consumption, the adaptive window. */
final class GatewayCoreYieldTest {

    private static final long MS = 1_000_000L;

    /** gold (C = 4) and bronze (C = 1, default), hybrid, D = 2 s, D' = 1 s, C' = C/2; one server with {@code slots}. */
    private static ClusterConfig cluster(String scheduler, int slots, String minShares) {
        return Fixtures.parse("""
                classes:
                  - {name: gold, target: 2s, match: {header: {X-Class: gold}}, %s
                     yield: {shape: hybrid, full: 4, dropPenalty: 2, deadline: 2s, preDeadline: 1s}}
                  - {name: bronze, target: 2s, default: true,
                     yield: {shape: hybrid, full: 1, dropPenalty: 0.5, deadline: 2s, preDeadline: 1s}}
                servers:
                  - {id: s1, url: 'http://127.0.0.1:9', concurrency: %d}
                control: {reportPeriod: 1s, statsWindow: 10s}
                dispatch: {scheduler: %s, adaptive: {dropRatio: 0.05, window: 30s}}
                """.formatted(minShares, slots, scheduler));
    }

    private static GatewayCore<String> core(String scheduler, int slots) {
        return core(scheduler, slots, "");
    }

    private static GatewayCore<String> core(String scheduler, int slots, String minShares) {
        ClusterConfig c = cluster(scheduler, slots, minShares);
        return new GatewayCore<>(c, "g1", org.arbiter.gateway.allocation.ConfiguredAllocation.of(c, "g1", true,
                Instant.EPOCH), Schedulers.of(c.dispatch()), Balancers.of(c.dispatch(), new java.util.Random(1)), 0);
    }

    @Test
    void everyArrivalOffersItsFullYield_andEveryCompletionRealisesItsYieldAtItsResponseTime() {
        GatewayCore<String> core = core("fcfs", 10);
        Ticket<String> fast = core.offer("a", "gold", 0);
        Ticket<String> slow = core.offer("b", "gold", 0);
        Ticket<String> late = core.offer("c", "bronze", 0);
        core.offer("d", "bronze", 0); // never completes: realises nothing yet
        assertThat(core.next(0)).isSameAs(fast);
        assertThat(core.next(0)).isSameAs(slow);
        assertThat(core.next(0)).isSameAs(late);
        core.complete(fast, Outcome.OK, 500 * MS);   // 4
        core.complete(slow, Outcome.OK, 1500 * MS);  // 4 − 2·0.5 = 3
        core.complete(late, Outcome.OK, 2500 * MS);  // past D: 0
        assertThat(core.offeredYield(0)).isEqualTo(8);
        assertThat(core.offeredYield(1)).isEqualTo(2);
        assertThat(core.realisedYield(0)).isCloseTo(7, within(1e-9));
        assertThat(core.realisedYield(1)).isZero();
        GatewayStats s = core.snapshot(Instant.EPOCH, 5000 * MS);
        GatewayStats.YieldStats gold = s.classes().get("gold").yield();
        assertThat(gold.lossPercent()).isCloseTo(12.5, within(1e-9));
        assertThat(gold.offered()).isCloseTo(8 / 5.0, within(1e-9));
        assertThat(s.classes().get("bronze").yield().lossPercent()).isCloseTo(100, within(1e-9));
    }

    @Test
    void aHeadThatCanEarnNoYield_isDroppedWithZeroYield_byNext_andByExpireQueued() {
        GatewayCore<String> core = core("yid", 1);
        Ticket<String> first = core.offer("first", "bronze", 0);
        assertThat(core.next(0)).isSameAs(first);
        core.complete(first, Outcome.OK, 500 * MS); // E_bronze = 0.5 s
        assertThat(core.expectedServiceSeconds(1)).isCloseTo(0.5, within(1e-9));
        Ticket<String> running = core.offer("running", "bronze", 500 * MS);
        assertThat(core.next(500 * MS)).isSameAs(running);
        Ticket<String> waits = core.offer("waits", "bronze", 600 * MS);
        Ticket<String> later = core.offer("later", "bronze", 900 * MS);
        assertThat(core.next(600 * MS)).isNull(); // the one slot is busy
        // waits falls due when 0.6 + 2 − 0.5 = 2.1 s
        assertThat(core.nextExpiryNanos()).isEqualTo(2100 * MS);
        assertThat(core.expireQueued(2099 * MS)).isEmpty();
        List<Ticket<String>> dropped = core.expireQueued(2100 * MS);
        assertThat(dropped).containsExactly(waits);
        assertThat(waits.state()).isEqualTo(Ticket.State.EXPIRED);
        assertThat(waits.dropReason()).isEqualTo(DropReason.ZERO_YIELD);
        // a completion at 2.45 s frees the slot; later (arrived 0.9 s) is due at 2.4 s: next drops it
        core.complete(running, Outcome.OK, 2450 * MS);
        Ticket<String> t = core.next(2450 * MS);
        assertThat(t).isSameAs(later);
        assertThat(t.state()).isEqualTo(Ticket.State.EXPIRED);
        assertThat(t.dropReason()).isEqualTo(DropReason.ZERO_YIELD);
        assertThat(core.next(2450 * MS)).isNull();
        assertThat(core.queued()).isZero();
        GatewayStats s = core.snapshot(Instant.EPOCH, 2450 * MS);
        assertThat(s.classes().get("bronze").drops()).containsEntry("zeroYield", 2L);
    }

    @Test
    void wrr_neverDropsForYield() {
        GatewayCore<String> core = core("wrr", 1);
        core.next(0);
        Ticket<String> running = core.offer("running", "bronze", 0);
        assertThat(core.next(0)).isSameAs(running);
        core.offer("waits", "bronze", 0);
        assertThat(core.expireQueued(10_000 * MS)).isEmpty();
        assertThat(core.nextExpiryNanos()).isEqualTo(30_000 * MS); // the queue timeout only
    }

    @Test
    void consumption_decaysByBetaPerSecond_asEquation3() {
        GatewayCore<String> core = core("edf", 10);
        Ticket<String> g = core.offer("g", "gold", 0);
        core.next(0);
        core.complete(g, Outcome.OK, 1000 * MS); // u_gold = 1
        Ticket<String> b = core.offer("b", "bronze", 1000 * MS);
        core.next(1000 * MS);
        core.complete(b, Outcome.OK, 3000 * MS); // u_gold = 0.95², u_bronze = 2
        assertThat(core.consumption(0)).isCloseTo(0.95 * 0.95, within(1e-9));
        assertThat(core.consumption(1)).isCloseTo(2, within(1e-9));
    }

    @Test
    void aClassBelowItsMinShare_isServedFirst() {
        // gold is guaranteed 30 %: bronze has consumed everything so far, so gold's head goes first
        // although bronze's head arrived earlier and EDF would pick it
        GatewayCore<String> core = core("edf", 1, "minShare: 0.3,");
        Ticket<String> b0 = core.offer("b0", "bronze", 0);
        core.next(0);
        core.complete(b0, Outcome.OK, 100 * MS);
        Ticket<String> blocker = core.offer("blocker", "bronze", 100 * MS);
        core.next(100 * MS);
        Ticket<String> bronze = core.offer("bronze", "bronze", 150 * MS);
        Ticket<String> gold = core.offer("gold", "gold", 160 * MS);
        core.complete(blocker, Outcome.OK, 200 * MS);
        assertThat(core.next(200 * MS)).isSameAs(gold);
        assertThat(bronze.state()).isEqualTo(Ticket.State.QUEUED);
    }

    /**
     * Bronze (minShare 0.2) had the server to itself for 60 s, then gold for {@code goldSeconds}; at that instant a
     * bronze and a gold request wait (greedy prefers gold, 4 against 1). Returns what the core releases.
     */
    private static String afterBronzeThenGold(int goldSeconds) {
        ClusterConfig c = Fixtures.parse("""
                classes:
                  - {name: gold, target: 2s, match: {header: {X-Class: gold}},
                     yield: {shape: hybrid, full: 4, dropPenalty: 2, deadline: 2s, preDeadline: 1s}}
                  - {name: bronze, target: 2s, default: true, minShare: 0.2,
                     yield: {shape: hybrid, full: 1, dropPenalty: 0.5, deadline: 2s, preDeadline: 1s}}
                servers:
                  - {id: s1, url: 'http://127.0.0.1:9', concurrency: 1}
                control: {reportPeriod: 1s, statsWindow: 10s}
                dispatch: {scheduler: greedy}
                """);
        GatewayCore<String> core = new GatewayCore<>(c, "g1", org.arbiter.gateway.allocation.ConfiguredAllocation.of(c,
                "g1", true, Instant.EPOCH), Schedulers.of(c.dispatch()), Balancers.of(c.dispatch(), new java.util.Random(1)), 0);
        long t = 0;
        Ticket<String> running = null;
        for (int k = 0; k < 60 + goldSeconds; k++, t += 1000 * MS) {
            if (running != null) {
                core.complete(running, Outcome.OK, t);
            }
            running = core.offer("r" + k, k < 60 ? "bronze" : "gold", t);
            assertThat(core.next(t)).isSameAs(running);
        }
        core.offer("bronze", "bronze", t - 500 * MS);
        core.offer("gold", "gold", t - 400 * MS);
        core.complete(running, Outcome.OK, t);
        return core.next(t).request();
    }

    @Test
    void aClassThatConsumedMoreThanItsGuaranteeEarlier_isBackAtItWithinSeconds_throughTheShortMemory() {
        // after 60 s of bronze alone, 002's memory (β = 0.95/s) still gives bronze 0.95^6 ≈ 74 % of the
        // consumption 6 s into gold's run; the short memory (β = 0.75/s) gives it 0.75^6 ≈ 18 % < 20 %
        assertThat(afterBronzeThenGold(3)).as("3 s of gold: bronze's short share 0.75^3 ≈ 42 %%").isEqualTo("gold");
        assertThat(afterBronzeThenGold(6)).as("6 s of gold: bronze's short share ≈ 18 %%, under 20 %%").isEqualTo("bronze");
    }

    @Test
    void theAdaptiveWindow_countsGatewayDropsOverArrivals_andForgetsAfterTheWindow() {
        GatewayCore<String> core = core("adaptive", 1);
        List<Ticket<String>> all = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            all.add(core.offer("r" + i, "bronze", i * MS));
        }
        core.next(10 * MS);
        assertThat(core.recentDropRatio()).isZero();
        core.expireQueued(3000 * MS); // the nine waiting ones can earn nothing by now
        assertThat(all.stream().filter(t -> t.dropReason() == DropReason.ZERO_YIELD)).hasSize(9);
        assertThat(core.recentDropRatio()).isCloseTo(0.9, within(1e-9));
        core.offer("x", "bronze", 40_000 * MS);
        assertThat(core.recentDropRatio()).isZero();
    }
}
