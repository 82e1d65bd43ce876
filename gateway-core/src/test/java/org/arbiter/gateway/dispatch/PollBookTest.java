package org.arbiter.gateway.dispatch;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.SplittableRandom;
import org.arbiter.gateway.Balancer;
import org.arbiter.gateway.PollBook;
import org.junit.jupiter.api.Test;

/** PollBook's rule and RandomPoll's use of it, on fake time. */
final class PollBookTest {

    private static final long MS = 1_000_000L;

    @Test
    void threeMissesInARow_skipForOneSecond_andAnAnswerResetsTheStreak() {
        PollBook b = new PollBook(2);
        b.missed(0, 0);
        b.missed(0, 10 * MS);
        assertThat(b.skipped(0, 10 * MS)).isFalse();
        b.answered(0, 4, 20 * MS);
        b.missed(0, 30 * MS);
        b.missed(0, 40 * MS);
        assertThat(b.skipped(0, 40 * MS)).as("the answer reset the streak").isFalse();
        b.missed(0, 50 * MS);
        assertThat(b.skipped(0, 50 * MS)).isTrue();
        assertThat(b.skipped(0, 1049 * MS)).isTrue();
        assertThat(b.skipped(0, 1050 * MS)).isFalse();
        b.missed(0, 1060 * MS); // polled again after the skip: one more miss skips it again
        assertThat(b.skipped(0, 1060 * MS)).isTrue();
        assertThat(b.skipped(1, 1060 * MS)).isFalse();
    }

    @Test
    void anAnswerStandsForItsTtl_plusWhatWasSentSince() {
        PollBook b = new PollBook(1);
        assertThat(b.load(0, 0)).isEqualTo(-1);
        b.answered(0, 3, 0);
        b.sent(0);
        b.sent(0);
        assertThat(b.load(0, 500 * MS)).isEqualTo(5);
        assertThat(b.load(0, 1001 * MS)).as("stale").isEqualTo(-1);
    }

    /**
     * RandomPollSocketTest's set-up without sockets: s0 misses its polls (skipped), s1 and s2 answer
     * the same load. Ties go to the first server sampled, which is uniform, so each of s1 and s2 takes
     * between 45 % and 55 % of 10 000 picks, on every seed tried, and s0 none.
     */
    @Test
    void randomPoll_splitsEvenlyBetweenServersOfEqualLoad_andLeavesTheSkippedOneOut() {
        for (long seed = 1; seed <= 5; seed++) {
            View v = new View();
            v.book.answered(1, 3, 0);
            v.book.answered(2, 3, 0);
            for (int i = 0; i < 3; i++) {
                v.book.missed(0, 0);
            }
            RandomPoll p = new RandomPoll(3, new SplittableRandom(seed));
            int[] picks = new int[3];
            for (int i = 0; i < 10_000; i++) {
                picks[p.pick(v, -1)]++;
            }
            assertThat(picks[0]).as("seed %d: the skipped server", seed).isZero();
            assertThat(picks[1]).as("seed %d: s1 of 10 000", seed).isBetween(4_500, 5_500);
            assertThat(picks[2]).as("seed %d: s2 of 10 000", seed).isBetween(4_500, 5_500);
        }
    }

    /** Three servers with free slots; the gateway's own counters say s0 is idle, the polls say it is the busiest. */
    private static final class View implements Balancer.ServerView {
        final PollBook book = new PollBook(3);
        long now;
        final int[] inFlight = {0, 5, 5};

        @Override
        public int serverCount() {
            return 3;
        }

        @Override
        public int inFlight(int s) {
            return inFlight[s];
        }

        @Override
        public int cap(int s) {
            return 10;
        }

        @Override
        public boolean available(int s) {
            return true;
        }

        @Override
        public int polledLoad(int s) {
            return book.load(s, now);
        }

        @Override
        public boolean skipped(int s) {
            return book.skipped(s, now);
        }
    }

    @Test
    void randomPoll_prefersPolledLoads_andNeverPicksASkippedServerWhileOthersAreFree() {
        View v = new View();
        RandomPoll p = new RandomPoll(3, new SplittableRandom(1));
        assertThat(p.pick(v, -1)).as("no answers: own counters").isEqualTo(0);
        v.book.answered(0, 9, 0);
        v.book.answered(1, 1, 0);
        v.book.answered(2, 2, 0);
        assertThat(p.pick(v, -1)).as("answers in: the least loaded by its own report").isEqualTo(1);
        for (int i = 0; i < 3; i++) {
            v.book.missed(1, 10 * MS);
        }
        v.now = 10 * MS;
        for (int i = 0; i < 50; i++) {
            assertThat(p.pick(v, -1)).isNotEqualTo(1);
        }
    }
}
