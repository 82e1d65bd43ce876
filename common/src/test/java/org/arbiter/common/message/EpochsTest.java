package org.arbiter.common.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Optional;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.LongRange;
import org.junit.jupiter.api.Test;

/** The ordering and plausibility rule of control records (issue #14). */
final class EpochsTest {

    static final long NOW = Instant.parse("2026-11-23T12:00:00Z").toEpochMilli();
    static final long SKEW = 30_000;

    @Test
    void aNewEpoch_beatsAnyCounterOfAnOlderEpoch() {
        assertThat(Epochs.compare(NOW, 1, NOW - 1, Long.MAX_VALUE)).isPositive();
        assertThat(Epochs.compare(NOW - 1, Long.MAX_VALUE, NOW, 1)).isNegative();
        assertThat(Epochs.compare(NOW, 2, NOW, 1)).isPositive();
        assertThat(Epochs.compare(NOW, 2, NOW, 2)).isZero();
        // a legacy record (epoch 0) loses to any epoch
        assertThat(Epochs.compare(1, 1, 0, Long.MAX_VALUE)).isPositive();
    }

    @Test
    void theLegacyPoison_longMaxVersion_isRefused() {
        assertThat(Epochs.check(0, Long.MAX_VALUE, NOW, NOW, SKEW)).contains(Epochs.Implausible.COUNTER);
        assertThat(Epochs.check(NOW - 60_000, Long.MAX_VALUE, NOW, NOW, SKEW)).contains(Epochs.Implausible.COUNTER);
    }

    @Test
    void aRecordFromTheFuture_isRefused_upToTheSkewItIsNot() {
        assertThat(Epochs.check(NOW, 1, NOW + SKEW, NOW, SKEW)).isEmpty();
        assertThat(Epochs.check(NOW, 1, NOW + SKEW + 1, NOW, SKEW)).contains(Epochs.Implausible.FUTURE_AT);
        assertThat(Epochs.check(NOW + SKEW, 1, NOW, NOW, SKEW)).isEmpty();
        assertThat(Epochs.check(NOW + SKEW + 1, 1, NOW, NOW, SKEW)).contains(Epochs.Implausible.FUTURE_EPOCH);
        assertThat(Epochs.check(Long.MAX_VALUE, 1, NOW, NOW, SKEW)).contains(Epochs.Implausible.FUTURE_EPOCH);
    }

    @Test
    void theCounter_mayRunOneTickPerMillisecondOfTheEpoch_plus1000() {
        long epoch = NOW - 5_000;
        assertThat(Epochs.maxCounter(epoch, NOW)).isEqualTo(6_000);
        assertThat(Epochs.check(epoch, 6_000, NOW, NOW, SKEW)).isEmpty();
        assertThat(Epochs.check(epoch, 6_001, NOW, NOW, SKEW)).contains(Epochs.Implausible.COUNTER);
        assertThat(Epochs.check(epoch, -1, NOW, NOW, SKEW)).contains(Epochs.Implausible.COUNTER);
        // an epoch a little ahead of at (skew): 1000 ticks of slack, never a negative bound
        assertThat(Epochs.maxCounter(NOW + 20_000, NOW)).isEqualTo(1000);
    }

    @Test
    void millis_saturatesInsteadOfThrowing() {
        assertThat(Epochs.millis(Instant.MAX)).isEqualTo(Long.MAX_VALUE);
        assertThat(Epochs.millis(Instant.MIN)).isEqualTo(Long.MIN_VALUE);
    }

    @Property
    void check_andMaxCounter_neverOverflowOrThrow_atAnyLong(@ForAll long epoch, @ForAll long counter, @ForAll long at,
                                                           @ForAll long now, @ForAll long skew) {
        Optional<Epochs.Implausible> why = Epochs.check(epoch, counter, at, now, skew);
        assertThat(why).isNotNull();
        long max = Epochs.maxCounter(epoch, at);
        assertThat(max).isGreaterThanOrEqualTo(Epochs.COUNTER_SLACK);
        // saturation, not wrap-around: the bound only grows with at
        assertThat(Epochs.maxCounter(epoch, at == Long.MAX_VALUE ? at : at + 1)).isGreaterThanOrEqualTo(max);
        if (why.isEmpty()) {
            assertThat(counter).isBetween(0L, max);
            assertThat(epoch).isNotNegative();
        }
    }

    @Property
    void compare_isAntisymmetric_andEpochDominates(@ForAll long e1, @ForAll long c1, @ForAll long e2, @ForAll long c2) {
        assertThat(Integer.signum(Epochs.compare(e1, c1, e2, c2))).isEqualTo(-Integer.signum(Epochs.compare(e2, c2, e1, c1)));
        if (e1 > e2) {
            assertThat(Epochs.compare(e1, c1, e2, c2)).isPositive();
        }
    }

    /** Every honest stamp is plausible: an epoch begun up to now, counting at most one tick per ms (+1000). */
    @Property
    void honestStamps_areAlwaysPlausible(@ForAll @LongRange(min = 1, max = 4_000_000_000_000L) long epoch,
                                         @ForAll @LongRange(min = 0, max = 10_000_000_000L) long elapsed,
                                         @ForAll @LongRange(min = 0, max = 3_600_000) long skew) {
        long at = epoch + elapsed;
        long ticks = Math.min(elapsed + Epochs.COUNTER_SLACK, elapsed / 5_000 + 1); // one tick per 5 s period
        assertThat(Epochs.check(epoch, ticks, at, at, skew)).isEmpty();
    }

    @Test
    void aRecordsConstructor_enforcesTheCounterBound_soDecodeNamesIt() {
        Decoded<Allocation> d = MessageCodec.decode("{\"v\":1,\"at\":\"2026-11-22T10:00:00Z\",\"gateway\":\"g1\","
                + "\"version\":9223372036854775807,\"weights\":{\"a\":1}}", Allocation.class);
        assertThat(d).isEqualTo(new Decoded.Failure<>("Allocation version: 9223372036854775807 "
                + "(expected: 0..1795341601000 = 1000 + ms from epoch 0 to at)"));
    }
}
