package org.arbiter.sim.kernel;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.PriorityQueue;
import java.util.Random;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * The kernel runs events in exactly the order of a priority queue of (time by Double.compare, rank,
 * scheduling order) records — whatever the times (negative, −0.0 and 0.0, infinite, equal), the ranks,
 * events scheduled while others run, and queues that grow past the kernel's first arrays and drain again.
 */
final class EventKernelProperties {

    private record Ev(double time, long rank, long seq, int id) {
    }

    private static final Comparator<Ev> ORDER = Comparator.<Ev>comparingDouble(e -> e.time)
            .thenComparingLong(e -> e.rank).thenComparingLong(e -> e.seq);

    private static double time(Random rnd, double now) {
        return switch (rnd.nextInt(12)) {
            case 0 -> -0.0;
            case 1 -> 0.0;
            case 2 -> Double.POSITIVE_INFINITY;
            case 3 -> -rnd.nextInt(5);
            case 4, 5 -> now; // at the running event's time
            default -> now + rnd.nextInt(50) * 0.25;
        };
    }

    @Property(tries = 60, edgeCases = EdgeCasesMode.NONE)
    void eventsRun_inThePriorityQueuesOrder(@ForAll long seed) {
        Random rnd = new Random(seed);
        EventKernel kernel = new EventKernel();
        PriorityQueue<Ev> reference = new PriorityQueue<>(ORDER);
        List<Integer> ran = new ArrayList<>();
        List<Integer> expected = new ArrayList<>();
        long[] seq = {0};
        int[] ids = {0};
        int initial = rnd.nextInt(3000);
        Runnable[] schedule = new Runnable[1];
        schedule[0] = () -> {
            int id = ids[0]++;
            double t = time(rnd, kernel.now());
            long rank = rnd.nextInt(3);
            reference.add(new Ev(t, rank, seq[0]++, id));
            kernel.schedule(t, rank, () -> {
                ran.add(id);
                expected.add(reference.poll().id); // what the queue says runs now, of the events pending now
                if (ids[0] < 6000) {
                    for (int k = rnd.nextInt(3); k > 0; k--) { // events scheduled while one runs
                        schedule[0].run();
                    }
                }
            });
        };
        for (int i = 0; i < initial; i++) {
            schedule[0].run();
        }
        kernel.runUntil(Double.POSITIVE_INFINITY);
        assertThat(ran).hasSize(ids[0]);
        assertThat(ran).isEqualTo(expected);
        assertThat(reference).isEmpty();
        assertThat(kernel.pending()).isZero();
    }
}
