package org.arbiter.grm.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.api.Test;

final class OverrideBookTest {

    static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    static OperatorOverride weight(String id, Instant at, String g, String c, double v) {
        return new OperatorOverride(1, at, id, OperatorOverride.Kind.WEIGHT, g, c, null, v, null, null, null, null, true, "t");
    }

    @Test
    void pinsAreKept_newestWins_andUnpinningRemoves() {
        OverrideBook book = new OverrideBook(StatsBookTest.CONFIG);
        book.apply("a", weight("a", T0, "g1", "premium", 7));
        book.apply("b", weight("b", T0.plusSeconds(1), "g1", "premium", 3));
        assertThat(book.weightPins()).containsExactly(
                java.util.Map.entry(new OverrideBook.Flow("g1", "premium"), 3.0));
        book.apply("b", null);
        assertThat(book.weightPins()).containsValue(7.0);
        book.apply("a", new OperatorOverride(1, T0, "a", OperatorOverride.Kind.WEIGHT, null, null, null, null,
                null, null, null, null, false, "t"));
        assertThat(book.weightPins()).isEmpty();
        assertThat(book.ids()).isEmpty();
    }

    @Test
    void unknownNames_areRefused() {
        OverrideBook book = new OverrideBook(StatsBookTest.CONFIG);
        assertThat(book.apply("x", weight("x", T0, "g7", "premium", 1))).contains("gateway: g7 (expected: a gateway of the configuration)");
        assertThat(book.apply("y", weight("y", T0, "g1", "gold", 1))).contains("class: gold (expected: a class of the configuration)");
        assertThat(book.refused()).isEqualTo(2);
        assertThat(book.ids()).isEmpty();
    }

    @Test
    void targetUtilityConcurrencyAndPower_areApplied() {
        OverrideBook book = new OverrideBook(StatsBookTest.CONFIG);
        book.apply("t", new OperatorOverride(1, T0, "t", OperatorOverride.Kind.TARGET, null, "premium", null, 1.5,
                null, null, null, null, true, "t"));
        book.apply("u", new OperatorOverride(1, T0, "u", OperatorOverride.Kind.UTILITY, null, "premium", null, null,
                2.0, null, null, null, true, "t"));
        book.apply("c", new OperatorOverride(1, T0, "c", OperatorOverride.Kind.CONCURRENCY, null, null, "s1", 8.0,
                null, null, null, null, true, "t"));
        book.apply("p", new OperatorOverride(1, T0, "p", OperatorOverride.Kind.POWER, null, null, "s1", null,
                null, null, null, ServerState.OFF, true, "t"));
        var premium = book.effective(StatsBookTest.CONFIG.classes().get(0));
        assertThat(premium.targetSeconds()).isEqualTo(1.5);
        assertThat(premium.utility().phi()).isEqualTo(2.0);
        assertThat(premium.utility().alpha()).isEqualTo(1.0);
        assertThat(book.effective(StatsBookTest.CONFIG.classes().get(1))).isSameAs(StatsBookTest.CONFIG.classes().get(1));
        assertThat(book.concurrencyPins()).containsEntry("s1", 8);
        assertThat(book.powerPins()).containsEntry("s1", ServerState.OFF);
    }

    /**
     * Two target overrides set at the same instant: the larger id wins whatever the order of their topic
     * keys (EffectiveClass), as in the console (the same pairs in ConsoleStateTest).
     */
    @Test
    void twoTargetOverridesAtTheSameTime_theLargerIdWins_asInTheConsole() {
        OverrideBook book = new OverrideBook(StatsBookTest.CONFIG);
        book.apply("k2", new OperatorOverride(1, T0, "a", OperatorOverride.Kind.TARGET, null, "premium", null, 4.0,
                null, null, null, null, true, "t"));
        book.apply("k1", new OperatorOverride(1, T0, "b", OperatorOverride.Kind.TARGET, null, "premium", null, 1.5,
                null, null, null, null, true, "t"));
        assertThat(book.effective(StatsBookTest.CONFIG.classes().get(0)).targetSeconds()).isEqualTo(1.5);
    }
}
