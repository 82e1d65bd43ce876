package org.arbiter.common.override;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.OperatorOverride.Kind;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.api.Test;

/** The rule that leaves out pins that cannot be met together, and the console's admission check. */
final class PinSelectionTest {

    /** N = 20 (two servers of 10), two gateways × two classes, minWeight 1: the other flows need 3. */
    static final ClusterConfig CONFIG = ConfigLoader.parse("""
            classes:
              - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
              - {name: basic, target: 3s, default: true}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: 10}
            gateways:
              - {id: g1, port: 8080}
              - {id: g2, port: 8081}
            """);
    static final PinSelection.Cluster CLUSTER = PinSelection.Cluster.configured(CONFIG);
    static final Instant T = Instant.parse("2026-11-22T10:00:00Z");

    static OperatorOverride weight(String id, int secondsAfter, String g, String c, double w) {
        return new OperatorOverride(1, T.plusSeconds(secondsAfter), id, Kind.WEIGHT, g, c, null, w, null, null, null, null,
                true, "t");
    }

    static OperatorOverride concurrency(String id, int secondsAfter, String s, double n) {
        return new OperatorOverride(1, T.plusSeconds(secondsAfter), id, Kind.CONCURRENCY, null, null, s, n, null, null,
                null, null, true, "t");
    }

    static OperatorOverride power(String id, int secondsAfter, String s, ServerState state) {
        return new OperatorOverride(1, T.plusSeconds(secondsAfter), id, Kind.POWER, null, null, s, null, null, null,
                null, state, true, "t");
    }

    @Test
    void twoPins_feasibleAlone_infeasibleTogether_theLaterIsLeftOut_withTheRange() {
        OperatorOverride first = weight("a", 0, "g1", "premium", 10);
        OperatorOverride second = weight("b", 1, "g2", "premium", 9);
        assertThat(PinSelection.select(CLUSTER, List.of(first)).leftOut()).isEmpty();
        assertThat(PinSelection.select(CLUSTER, List.of(second)).leftOut()).isEmpty();

        PinSelection.Outcome o = PinSelection.select(CLUSTER, List.of(second, first));
        assertThat(o.weightPins()).containsOnly(Map.entry(new PinSelection.Flow("g1", "premium"), 10.0));
        assertThat(o.statuses()).extracting(Decision.PinStatus::id).containsExactly("a", "b");   // the order they were set
        assertThat(o.statuses().get(1).applied()).isFalse();
        // 20 slots; g1/premium holds 10, g1/basic and g2/basic need 1 each: at most 8 are left
        assertThat(o.statuses().get(1).reason()).isEqualTo("value: 9 (expected: between 0 and 8: N = 20 slots, of which "
                + "the other 3 flows need 12 (minWeight 1, minShare and the pins set before this one))");
        assertThat(o.refusals().get("b").field()).isEqualTo("value");
    }

    @Test
    void theOutcome_dependsOnTheSetOnly_notOnTheOrderItArrivesIn() {
        List<OperatorOverride> pins = new ArrayList<>(List.of(weight("a", 0, "g1", "premium", 10),
                weight("b", 1, "g2", "premium", 9), weight("c", 2, "g1", "basic", 2), concurrency("d", 3, "s1", 2),
                weight("e", 3, "g2", "basic", 1)));
        PinSelection.Outcome reference = PinSelection.select(CLUSTER, pins);
        Random random = new Random(7);
        for (int i = 0; i < 50; i++) {
            Collections.shuffle(pins, random);
            assertThat(PinSelection.select(CLUSTER, pins)).isEqualTo(reference);
        }
        // a: 10, b: left out (9 > 20 - 10 - 1 - 1), c: 2, d: N_s 2 would leave N = 12 < 10 + 2 + 1 + 1: left out, e: 1
        assertThat(reference.leftOut()).containsExactly("b", "d");
        assertThat(reference.concurrency()).containsEntry("s1", 10);
    }

    @Test
    void aConcurrencyPin_thatShrinksNBelowTheWeightPins_isLeftOut_namingTheLeastNsThatFits() {
        PinSelection.Outcome o = PinSelection.select(CLUSTER, List.of(weight("a", 0, "g1", "premium", 15),
                concurrency("n", 1, "s1", 1)));
        // 15 + 3 = 18 slots needed, s2 gives 10, so s1 needs at least 8
        assertThat(o.refusals().get("n").message()).startsWith("value: 1 (expected: a whole number from 8 to 100000: N_s 1 "
                + "makes N = 11 slots, but the flows need 18");
        assertThat(o.concurrency()).containsEntry("s1", 10);
        assertThat(PinSelection.select(CLUSTER, List.of(weight("a", 0, "g1", "premium", 15),
                concurrency("n", 1, "s1", 8))).leftOut()).isEmpty();
    }

    @Test
    void aLaterPinOnTheSameFlow_replacesTheEarlier() {
        PinSelection.Outcome o = PinSelection.select(CLUSTER, List.of(weight("old", 0, "g1", "premium", 3),
                weight("new", 1, "g1", "premium", 5)));
        assertThat(o.weightPins()).containsOnly(Map.entry(new PinSelection.Flow("g1", "premium"), 5.0));
        assertThat(o.refusals().get("old").message()).contains("replaced by new");
    }

    @Test
    void everyFlowPinned_thePinsMustAddUpToN() {
        List<OperatorOverride> pins = List.of(weight("a", 0, "g1", "premium", 5), weight("b", 1, "g1", "basic", 5),
                weight("c", 2, "g2", "premium", 5), weight("d", 3, "g2", "basic", 4));
        PinSelection.Outcome o = PinSelection.select(CLUSTER, pins);
        assertThat(o.leftOut()).containsExactly("d");
        assertThat(o.refusals().get("d").rule()).startsWith("5 exactly: every flow would be pinned");
    }

    @Test
    void pinsOnAGatewayNotLive_orAServerNotOn_wait() {
        PinSelection.Cluster oneGateway = new PinSelection.Cluster(Map.of("s1", 10), List.of("g1"),
                Map.of("premium", 0.0, "basic", 0.0), 1, 1);
        PinSelection.Outcome o = PinSelection.select(oneGateway, List.of(weight("a", 0, "g2", "premium", 3),
                concurrency("b", 1, "s2", 4)));
        assertThat(o.refusals().get("a").message()).isEqualTo("gateway: g2 (expected: a live gateway; the pin waits until it reports)");
        assertThat(o.refusals().get("b").message()).isEqualTo("server: s2 (expected: an ON server; the pin waits until it is ON)");
    }

    @Test
    void bounds_saturate_insteadOfOverflowing() {
        assertThat(PinSelection.lowerUnits(1e300, 0, 10, 1, 1000)).isEqualTo(Long.MAX_VALUE);
        assertThat(PinSelection.pinUnits(1e308, 1000)).isEqualTo(Long.MAX_VALUE);
        assertThat(PinSelection.add(Long.MAX_VALUE, 5)).isEqualTo(Long.MAX_VALUE);
        PinSelection.Cluster huge = new PinSelection.Cluster(Map.of("s1", Integer.MAX_VALUE, "s2", Integer.MAX_VALUE),
                List.of("g1"), Map.of("premium", 1.0), 1e300, 1000);
        assertThat(PinSelection.select(huge, List.of(weight("a", 0, "g1", "premium", 1_000_000))).leftOut()).containsExactly("a");
    }

    // ---- the console's check -----------------------------------------------------------------

    @Test
    void admit_refusesAPinThatCannotBeMet_withTheFeasibleRange() {
        var r = PinSelection.admit(CONFIG, List.of(), weight("weight:g1:premium", 0, "g1", "premium", 18));
        assertThat(r).hasValueSatisfying(x -> {
            assertThat(x.field()).isEqualTo("value");
            assertThat(x.rule()).startsWith("between 0 and 17: N = 20 slots");
        });
        assertThat(PinSelection.admit(CONFIG, List.of(), weight("weight:g1:premium", 0, "g1", "premium", 17))).isEmpty();
    }

    @Test
    void admit_checksAgainstThePinsInForce_andReplacesAPinOfTheSameId() {
        List<OperatorOverride> inForce = List.of(weight("weight:g1:premium", 0, "g1", "premium", 10));
        assertThat(PinSelection.admit(CONFIG, inForce, weight("weight:g2:premium", 1, "g2", "premium", 9)))
                .hasValueSatisfying(x -> assertThat(x.rule()).startsWith("between 0 and 8:"));
        assertThat(PinSelection.admit(CONFIG, inForce, weight("weight:g2:premium", 1, "g2", "premium", 8))).isEmpty();
        // re-pinning the same flow replaces the pin: 17 fits, as the old 10 goes
        assertThat(PinSelection.admit(CONFIG, inForce, weight("weight:g1:premium", 1, "g1", "premium", 17))).isEmpty();
        // a candidate stamped before the pins in force is still considered the newest
        assertThat(PinSelection.admit(CONFIG, inForce, weight("weight:g2:premium", -60, "g2", "premium", 9))).isPresent();
    }

    @Test
    void admit_refusesAPowerOrConcurrencyPin_thatWouldLeaveAWeightPinOut() {
        List<OperatorOverride> inForce = List.of(weight("weight:g1:premium", 0, "g1", "premium", 15));
        assertThat(PinSelection.admit(CONFIG, inForce, power("power:s2", 1, "s2", ServerState.OFF)))
                .hasValueSatisfying(x -> {
                    assertThat(x.field()).isEqualTo("state");
                    assertThat(x.message()).startsWith("state: OFF (expected: a value that keeps the pin weight:g1:premium");
                });
        assertThat(PinSelection.admit(CONFIG, inForce, concurrency("concurrency:s2", 1, "s2", 2)))
                .hasValueSatisfying(x -> assertThat(x.rule()).startsWith("a whole number from 8 to 100000"));
        assertThat(PinSelection.admit(CONFIG, List.of(), power("power:s2", 1, "s2", ServerState.OFF))).isEmpty();
    }
}
