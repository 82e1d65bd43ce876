package org.arbiter.grm.control;

import static org.arbiter.grm.control.GrmCoreTest.PINS;
import static org.arbiter.grm.control.GrmCoreTest.T0;
import static org.arbiter.grm.control.GrmCoreTest.allocations;
import static org.arbiter.grm.control.GrmCoreTest.core;
import static org.arbiter.grm.control.GrmCoreTest.pinStats;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.OperatorOverride;
import org.junit.jupiter.api.Test;

/**
 * A gateway left out of a period (its statistics late) keeps its last caps in force, so the GRM
 * never hands them to another gateway until it is gone (silent for 12Γ): on virtual time, no broker.
 * PINS' cluster: g1 and g2, one server s1 with N_s = 10, Γ = 1 s.
 */
final class GrmLeftOutGatewayTest {

    private static final int NS = 10;

    /** The caps in force at each gateway: the last allocation published to it. */
    private final Map<String, Allocation> inForce = new TreeMap<>();
    private final GrmCore grm = core(PINS, "grm");
    private Instant now = T0;

    /** One period: the gateways named report (g1 busy at 4 req/s of premium, g2 at 3), then the GRM ticks. */
    private List<Allocation> period(List<String> reporting) {
        now = now.plusSeconds(1);
        for (String g : reporting) {
            grm.stats(pinStats(g, now, g.equals("g1") ? 4 : 3, inForce.get(g)), now);
        }
        List<Allocation> out = allocations(grm.tick(now));
        out.forEach(a -> inForce.put(a.gateway(), a));
        assertThat(sumInForce()).as("Σ_g N(g,s1) in force at %s after %s", now, out).isLessThanOrEqualTo(NS);
        return out;
    }

    private int caps(String g) {
        Allocation a = inForce.get(g);
        return a == null ? 0 : a.serverCaps().getOrDefault("s1", 0);
    }

    private int sumInForce() {
        return caps("g1") + caps("g2");
    }

    @Test
    void lateStats_keepTheGatewaysCapsReserved_untilItIsBackOrGone() {
        grm.leadershipGained(now);
        for (int i = 0; i < 3; i++) {
            period(List.of("g1", "g2"));
        }
        assertThat(sumInForce()).isEqualTo(NS);
        int held = caps("g2");
        assertThat(held).as("g2's share while both report").isBetween(1, NS - 1);
        Instant g2Last = now;

        // g2's statistics stop; for 3Γ it is still live, then it is left out: g1 gets only what g2 does not hold
        int leftOut = 0;
        for (int k = 0; k < 8; k++) {
            List<Allocation> out = period(List.of("g1"));
            if (grm.liveGateways().contains("g2")) {
                held = caps("g2"); // still live on its last report: optimised as before
            } else {
                leftOut++;
                assertThat(out).extracting(Allocation::gateway).as("g2's allocation is not republished")
                        .containsOnly("g1");
                assertThat(caps("g2")).isEqualTo(held);
                assertThat(caps("g1")).as("g1 gets every slot g2 does not hold, no more").isEqualTo(NS - held);
            }
        }
        assertThat(leftOut).isEqualTo(5);

        // g2 reports again within 12Γ: both are optimised again and every slot is handed out
        period(List.of("g1", "g2"));
        period(List.of("g1", "g2"));
        assertThat(grm.liveGateways()).containsExactly("g1", "g2");
        assertThat(sumInForce()).isEqualTo(NS);
        assertThat(caps("g1")).isPositive();
        assertThat(caps("g2")).isPositive();
        held = caps("g2");
        g2Last = now;

        // g2 stops for good: held until 12Γ after its last report, then gone: caps 0 to g2, all of s1 to g1
        Instant goneAt = g2Last.plusSeconds(StatsBook.GONE_AFTER_PERIODS);
        while (now.isBefore(goneAt.minusSeconds(1))) {
            period(List.of("g1"));
            assertThat(caps("g2")).isEqualTo(held);
        }
        List<Allocation> gone = period(List.of("g1"));
        assertThat(now).isEqualTo(goneAt);
        assertThat(gone).filteredOn(a -> a.gateway().equals("g2")).singleElement().satisfies(a -> {
            assertThat(a.source()).isEqualTo("grm: gateway gone");
            assertThat(a.serverCaps()).containsExactly(Map.entry("s1", 0));
        });
        assertThat(caps("g1")).isEqualTo(NS);
        List<Allocation> after = period(List.of("g1"));
        assertThat(after).extracting(Allocation::gateway).as("a gone gateway is told once").containsOnly("g1");

        // g2 comes back: it gets a share again
        period(List.of("g1", "g2"));
        assertThat(sumInForce()).isEqualTo(NS);
        assertThat(caps("g2")).isPositive();
    }

    @Test
    void aHeldGatewaysCaps_areCutAndRepublished_whenNsFallsBelowThem() {
        grm.leadershipGained(now);
        for (int i = 0; i < 3; i++) {
            period(List.of("g1", "g2"));
        }
        for (int k = 0; k < 4; k++) {
            period(List.of("g1"));
        }
        assertThat(grm.liveGateways()).containsExactly("g1");
        int held = caps("g2");
        // the operator pins N_s below what g2 holds: g2's caps are cut to fit, its weights kept
        int pinned = held - 1;
        OperatorOverride pin = new OperatorOverride(1, now, "ns", OperatorOverride.Kind.CONCURRENCY, null, null, "s1",
                (double) pinned, null, null, null, null, true, "test");
        List<Allocation> out = allocations(grm.override("ns", pin, now));
        out.forEach(a -> inForce.put(a.gateway(), a));
        Allocation g2 = out.stream().filter(a -> a.gateway().equals("g2")).findFirst().orElseThrow();
        assertThat(g2.source()).isEqualTo("grm: caps cut to fit");
        assertThat(caps("g2")).isEqualTo(pinned);
        assertThat(caps("g1") + caps("g2")).isLessThanOrEqualTo(pinned);
    }
}
