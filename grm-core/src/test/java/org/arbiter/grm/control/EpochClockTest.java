package org.arbiter.grm.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.SplittableRandom;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import org.arbiter.common.message.Epochs;
import org.junit.jupiter.api.Test;

/** The GRM's epoch clock on fake time (issue #14). */
final class EpochClockTest {

    static final Instant T = Instant.parse("2026-11-23T12:00:00Z");
    static final long MS = T.toEpochMilli();
    static final long SKEW = 30_000;

    final EpochClock clock = new EpochClock(SKEW);

    @Test
    void theFirstEpoch_isTheMillisecondLeadershipBegan_andTheCounterCountsTicks() {
        assertThat(clock.next(T)).isEqualTo(new EpochClock.Stamp(MS, 1));
        assertThat(clock.next(T.plusSeconds(5))).isEqualTo(new EpochClock.Stamp(MS, 2));
        assertThat(clock.begin(T.plusSeconds(6))).isEqualTo(new EpochClock.Stamp(MS, 2)); // power orders: no tick
        assertThat(clock.next(T.plusSeconds(10))).isEqualTo(new EpochClock.Stamp(MS, 3));
    }

    @Test
    void aNewLeader_outranksTheOldEpochsHigherCounter() {
        EpochClock old = new EpochClock(SKEW);
        EpochClock.Stamp last = null;
        for (int i = 0; i < 900; i++) {
            last = old.next(T.plusMillis(i));
        }
        assertThat(last).isEqualTo(new EpochClock.Stamp(MS, 900));
        // the new leader's own clock is 10 s behind: its epoch still outranks what it read
        Instant behind = T.minusSeconds(10);
        assertThat(clock.offer(last.epoch(), last.counter(), T, behind)).isEmpty();
        clock.lead();
        EpochClock.Stamp first = clock.next(behind);
        assertThat(first).isEqualTo(new EpochClock.Stamp(MS + 1, 1));
        assertThat(first.compareTo(last)).isPositive();
    }

    @Test
    void aForeignRecordNewerThanMine_inMyOwnEpoch_startsANewEpoch_butMyOwnRecordsDoNot() {
        EpochClock.Stamp mine = clock.next(T);
        assertThat(clock.offer(mine.epoch(), mine.counter(), T, T.plusMillis(3))).isEmpty(); // my own, read back
        assertThat(clock.next(T.plusSeconds(5))).isEqualTo(new EpochClock.Stamp(MS, 2));
        // a forged record in my epoch with a plausible but higher counter: a gateway may have taken it
        assertThat(clock.offer(MS, 5_000, T.plusSeconds(5), T.plusSeconds(5))).isEmpty();
        EpochClock.Stamp after = clock.next(T.plusSeconds(10));
        assertThat(after).isEqualTo(new EpochClock.Stamp(MS + 10_000, 1));
        assertThat(after.compareTo(new EpochClock.Stamp(MS, 5_000))).isPositive();
    }

    @Test
    void implausibleRecords_areRefusedWithTheirReason_andNeverObserved() {
        assertThat(clock.offer(0, Long.MAX_VALUE, T, T)).contains(Epochs.Implausible.COUNTER);
        assertThat(clock.offer(MS + 86_400_000L, 1, T, T)).contains(Epochs.Implausible.FUTURE_EPOCH);
        assertThat(clock.offer(MS, 1, T.plusSeconds(3600), T)).contains(Epochs.Implausible.FUTURE_AT);
        assertThat(clock.seen()).isEqualTo(EpochClock.Stamp.NONE);
        assertThat(clock.next(T)).isEqualTo(new EpochClock.Stamp(MS, 1));
        // a day later, the refused future epoch is still not taken (it was beyond 2 x skew: not held back)
        assertThat(clock.next(T.plusSeconds(86_400 + 1))).isEqualTo(new EpochClock.Stamp(MS, 2));
    }

    @Test
    void aRecordJustBeyondTheSkew_isHeldBack_andOutrankedOnceItBecomesPlausible() {
        long future = MS + SKEW + 10_000; // a gateway whose clock runs 10 s ahead may have accepted it
        assertThat(clock.offer(future, 1, T, T)).contains(Epochs.Implausible.FUTURE_EPOCH);
        assertThat(clock.next(T)).isEqualTo(new EpochClock.Stamp(MS, 1));
        EpochClock.Stamp later = clock.next(T.plusSeconds(11));
        assertThat(later).isEqualTo(new EpochClock.Stamp(future + 1, 1));
        assertThat(Epochs.check(later.epoch(), later.counter(), T.plusSeconds(11), T.plusSeconds(11), SKEW)).isEmpty();
    }

    @Test
    void aRecordAtTheVeryEdgeOfTheSkew_isOutranked_byAnEpochThatIsItselfPlausible() {
        long edge = MS + SKEW;
        assertThat(clock.offer(edge, 1, T, T)).isEmpty(); // plausible: a gateway on this clock takes it
        EpochClock.Stamp now = clock.next(T);
        assertThat(Epochs.check(now.epoch(), now.counter(), T, T, SKEW)).as("%s", now).isEmpty();
        Instant later = T.plusMillis(1);
        EpochClock.Stamp next = clock.next(later);
        assertThat(next.compareTo(new EpochClock.Stamp(edge, 1))).isPositive();
        assertThat(Epochs.check(next.epoch(), next.counter(), later, later, SKEW)).as("%s", next).isEmpty();
    }

    @Test
    void manyTicksInOneMillisecond_neverPassTheCounterBound() {
        EpochClock.Stamp prev = EpochClock.Stamp.NONE;
        for (int i = 0; i < 5_000; i++) {
            EpochClock.Stamp s = clock.next(T);
            assertThat(s.compareTo(prev)).isPositive();
            assertThat(Epochs.check(s.epoch(), s.counter(), T, T, SKEW)).as("tick %d: %s", i, s).isEmpty();
            prev = s;
        }
    }

    /**
     * Whatever it reads (arbitrary longs, and plausible records near its clock), the clock's stamps
     * strictly grow, outrank every record it observed, and are plausible to a reader on the same clock.
     */
    @Property(tries = 300)
    void stamps_grow_outrankWhatWasSeen_andArePlausible(@ForAll long seed) {
        SplittableRandom r = new SplittableRandom(seed);
        long skew = r.nextBoolean() ? 0 : r.nextLong(1, 120_000);
        EpochClock c = new EpochClock(skew);
        long now = r.nextLong(0, 4_000_000_000_000L);
        EpochClock.Stamp prev = EpochClock.Stamp.NONE;
        for (int i = 0; i < 200; i++) {
            now += r.nextLong(0, 3_000);
            switch (r.nextInt(5)) {
                case 0 -> c.offer(r.nextLong(), r.nextLong(), Instant.ofEpochMilli(r.nextLong(0, Epochs.MAX_MILLIS)),
                        Instant.ofEpochMilli(now));
                case 1 -> c.offer(now + r.nextLong(-60_000, 70_000), r.nextLong(0, 5_000),
                        Instant.ofEpochMilli(now + r.nextLong(-1_000, 40_000)), Instant.ofEpochMilli(now));
                case 2 -> c.lead();
                default -> {
                    EpochClock.Stamp s = c.next(Instant.ofEpochMilli(now));
                    assertThat(s.compareTo(prev)).as("grows").isPositive();
                    assertThat(s.compareTo(c.seen())).as("outranks what was seen").isPositive();
                    assertThat(Epochs.check(s.epoch(), s.counter(), now, now, skew)).as("plausible: %s at %d", s, now)
                            .isEmpty();
                    prev = s;
                }
            }
        }
    }
}
