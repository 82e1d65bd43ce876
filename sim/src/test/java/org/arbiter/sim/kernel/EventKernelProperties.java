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

    /**
     * A rescheduled event runs exactly where the old way put it: the old event left in the queue to do
     * nothing and the action scheduled anew (same rank, the next sequence number); a handle of an event
     * that has run moves nothing.
     */
    @Property(tries = 60, edgeCases = EdgeCasesMode.NONE)
    void aRescheduledEvent_runsWhereSchedulingAnewPutsIt(@ForAll long seed) {
        Random rnd = new Random(seed);
        EventKernel kernel = new EventKernel();
        PriorityQueue<Ev> reference = new PriorityQueue<>(ORDER);
        java.util.Map<Integer, Long> live = new java.util.HashMap<>(); // id -> the reference's current seq
        java.util.Map<Integer, Long> ranks = new java.util.HashMap<>();
        List<Long> handles = new ArrayList<>();
        List<Integer> handleIds = new ArrayList<>();
        java.util.Set<Integer> done = new java.util.HashSet<>();
        List<Integer> ran = new ArrayList<>();
        List<Integer> expected = new ArrayList<>();
        long[] seq = {0};
        int[] ids = {0};
        Runnable[] schedule = new Runnable[1];
        Runnable[] moveSome = new Runnable[1];
        moveSome[0] = () -> {
            for (int k = rnd.nextInt(4); k > 0 && !handles.isEmpty(); k--) {
                int pick = rnd.nextInt(handles.size());
                int id = handleIds.get(pick);
                double t = Math.max(kernel.now(), time(rnd, kernel.now()));
                boolean moved = kernel.reschedule(handles.get(pick), t);
                assertThat(moved).as("event %d: moved only while pending", id).isEqualTo(!done.contains(id));
                if (moved) {
                    long rank = ranks.get(id);
                    long q = seq[0]++;
                    live.put(id, q); // the old record stays in the queue, doing nothing
                    reference.add(new Ev(t, rank, q, id));
                }
            }
        };
        schedule[0] = () -> {
            int id = ids[0]++;
            double t = Math.max(kernel.now(), time(rnd, kernel.now()));
            long rank = rnd.nextInt(3);
            long q = seq[0]++;
            live.put(id, q);
            ranks.put(id, rank);
            reference.add(new Ev(t, rank, q, id));
            long h = kernel.scheduleHandle(t, rank, () -> {
                ran.add(id);
                Ev e;
                while ((e = reference.poll()).seq != live.get(e.id)) { // left behind by a move: nothing
                }
                expected.add(e.id);
                done.add(id);
                if (ids[0] < 3000) {
                    for (int k = rnd.nextInt(3); k > 0; k--) {
                        schedule[0].run();
                    }
                }
                moveSome[0].run();
            });
            handles.add(h);
            handleIds.add(id);
        };
        for (int i = rnd.nextInt(1500); i > 0; i--) {
            schedule[0].run();
            moveSome[0].run();
        }
        kernel.runUntil(Double.POSITIVE_INFINITY);
        assertThat(ran).hasSize(ids[0]);
        assertThat(ran).isEqualTo(expected);
        assertThat(kernel.pending()).isZero();
    }
}
