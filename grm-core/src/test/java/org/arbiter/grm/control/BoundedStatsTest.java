package org.arbiter.grm.control;

import static org.arbiter.grm.control.GrmCoreTest.PINS;
import static org.arbiter.grm.control.GrmCoreTest.T0;
import static org.arbiter.grm.control.GrmCoreTest.allocations;
import static org.arbiter.grm.control.GrmCoreTest.core;
import static org.arbiter.grm.control.GrmCoreTest.pinStats;
import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiFunction;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.grm.control.GrmCore.Command;
import org.junit.jupiter.api.Test;

/**
 * Bounded statistics (issue 30, item 4): one statistics record stamped in the future — far
 * beyond {@code control.maxClockSkew} (2099) or just inside it — never makes a serving gateway's
 * later reports stale. Two GRM cores on virtual time, fed the same ordinary reports; one also gets
 * the forged record. PINS' cluster: g1 and g2, s1 with N_s = 10, Γ = 1 s, default skew 30 s.
 */
final class BoundedStatsTest {

    private static final int PERIODS = 16;

    /** g1's and g2's caps of s1 in force after each period, plus what became of the injected record. */
    private record Run(List<Map<String, Integer>> caps, List<List<String>> live, List<Command> injected) {
    }

    /**
     * Runs {@link #PERIODS} periods of ordinary reports from g1 and g2; after period 3's reports,
     * {@code inject} (given now and g1's allocation in force) yields an extra record for g1, or null.
     */
    private static Run run(BiFunction<Instant, Allocation, GatewayStats> inject) {
        GrmCore grm = core(PINS, "grm");
        Map<String, Allocation> inForce = new TreeMap<>();
        List<Map<String, Integer>> caps = new ArrayList<>();
        List<List<String>> live = new ArrayList<>();
        List<Command> injected = List.of();
        Instant now = T0;
        grm.leadershipGained(now);
        for (int p = 1; p <= PERIODS; p++) {
            now = now.plusSeconds(1);
            for (String g : List.of("g1", "g2")) {
                grm.stats(pinStats(g, now, g.equals("g1") ? 4 : 3, inForce.get(g)), now);
            }
            if (p == 3) {
                GatewayStats extra = inject.apply(now, inForce.get("g1"));
                if (extra != null) {
                    injected = grm.stats(extra, now.plusMillis(10));
                }
            }
            allocations(grm.tick(now.plusMillis(500))).forEach(a -> inForce.put(a.gateway(), a));
            Map<String, Integer> c = new TreeMap<>();
            inForce.forEach((g, a) -> c.put(g, a.serverCaps().getOrDefault("s1", 0)));
            caps.add(c);
            live.add(grm.liveGateways());
        }
        return new Run(caps, live, injected);
    }

    @Test
    void aRecordStampedIn2099_isRefusedAsFuture_andG1KeepsItsShareForTwelvePlusPeriods() {
        Run control = run((now, a) -> null);
        Run forged = run((now, a) -> pinStats("g1", Instant.parse("2099-01-01T00:00:00Z"), 4, a));

        assertThat(forged.injected()).singleElement().isInstanceOfSatisfying(Command.StatsIgnored.class, i -> {
            assertThat(i.outcome()).isEqualTo(StatsBook.Outcome.FUTURE);
            assertThat(i.outcome().tag()).isEqualTo("future");
        });
        assertThat(control.caps().get(PERIODS - 1).get("g1")).as("g1 has a share without the forgery").isPositive();
        assertThat(forged.live()).as("both gateways live in every period").allSatisfy(l ->
                assertThat(l).containsExactly("g1", "g2"));
        assertThat(forged.caps()).as("caps in every period, with and without the forged record")
                .isEqualTo(control.caps());
    }

    @Test
    void aRecordStampedJustInsideTheSkew_isTaken_butG1sNextReportsAreStillTaken() {
        Run control = run((now, a) -> null);
        // 29 s ahead: plausible to the GRM (maxClockSkew 30 s); before the change it made the next
        // 29 ordinary reports stale, and g1 was left out after 3 periods and gone after 12
        Run ahead = run((now, a) -> pinStats("g1", now.plusSeconds(29), 4, a));

        assertThat(ahead.injected()).isEmpty();
        assertThat(ahead.live()).allSatisfy(l -> assertThat(l).containsExactly("g1", "g2"));
        assertThat(ahead.caps()).isEqualTo(control.caps());
    }
}
