package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.stream.Stream;
import org.arbiter.gateway.scheduler.Schedulers;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

/** One contract run over every scheduler. */
final class SchedulerContractTest {

    record View(int[] backlog, int[] inFlight, double[] weight, long[] head) implements Scheduler.ClassView {
        @Override
        public int classCount() {
            return backlog.length;
        }

        @Override
        public int backlog(int c) {
            return backlog[c];
        }

        @Override
        public int inFlight(int c) {
            return inFlight[c];
        }

        @Override
        public double weight(int c) {
            return weight[c];
        }

        @Override
        public long headSequence(int c) {
            return head[c];
        }
    }

    static Stream<String> schedulers() {
        return Stream.of("wrr", "fcfs", "priority", "edf", "yid", "greedy", "adaptive");
    }

    @ParameterizedTest
    @MethodSource("schedulers")
    void emptyQueues_releaseNothing(String name) {
        Scheduler s = Schedulers.named(name);
        assertThat(s.next(new View(new int[] {0, 0}, new int[] {3, 0}, new double[] {1, 1}, new long[] {0, 0})))
                .isEqualTo(-1);
    }

    @ParameterizedTest
    @MethodSource("schedulers")
    void aBackloggedClass_isAlwaysReleased_evenWithZeroWeight(String name) {
        Scheduler s = Schedulers.named(name);
        for (int only = 0; only < 3; only++) {
            int[] backlog = new int[3];
            backlog[only] = 2;
            assertThat(s.next(new View(backlog, new int[] {5, 5, 5}, new double[] {0, 1, 0.5}, new long[] {1, 2, 3})))
                    .isEqualTo(only);
        }
    }

    @org.junit.jupiter.api.Test
    void anUnknownName_isRefusedWithAClearMessage() {
        org.assertj.core.api.Assertions.assertThatThrownBy(() -> Schedulers.named("wfq"))
                .hasMessage("dispatch.scheduler: wfq (expected: wrr, fcfs, priority, edf, yid, greedy or adaptive)");
    }

    @org.junit.jupiter.api.Test
    void onlyTheYieldSchedulers_dropZeroYieldRequests() {
        for (String name : List.of("wrr", "fcfs", "priority")) {
            assertThat(Schedulers.named(name).dropsZeroYield()).as(name).isFalse();
        }
        for (String name : List.of("edf", "yid", "greedy", "adaptive")) {
            assertThat(Schedulers.named(name).dropsZeroYield()).as(name).isTrue();
        }
    }

    @org.junit.jupiter.api.Test
    void fcfs_releasesTheEarliestArrival_andPriority_theFirstClass() {
        View v = new View(new int[] {1, 1}, new int[] {0, 0}, new double[] {1, 1}, new long[] {7, 3});
        assertThat(Schedulers.ofFcfs().next(v)).isEqualTo(1);
        assertThat(Schedulers.ofPriority().next(v)).isEqualTo(0);
    }

    @org.junit.jupiter.api.Test
    void wrr_releasesTheSmallestInflightOverWeight_withRoundRobinTies() {
        Scheduler wrr = Schedulers.ofWeightedRoundRobin();
        // 3/1.5 = 2 > 1/1 = 1: class 1 goes.
        assertThat(wrr.next(new View(new int[] {1, 1}, new int[] {3, 1}, new double[] {1.5, 1}, new long[] {0, 0})))
                .isEqualTo(1);
        View tie = new View(new int[] {1, 1, 1}, new int[] {1, 1, 1}, new double[] {1, 1, 1}, new long[] {0, 0, 0});
        assertThat(List.of(wrr.next(tie), wrr.next(tie), wrr.next(tie), wrr.next(tie))).containsExactly(0, 1, 2, 0);
    }
}
