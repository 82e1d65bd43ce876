package org.arbiter.loadgen.model;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.SplittableRandom;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;

/**
 * {@link PsServer} keeps its requests in primitive arrays; it must give exactly what the object-list
 * model gave ({@link ReferencePsServer}, the code before) — the same requests done at the same times,
 * in the same order, the same next event, busy area and in-flight counts, bit for bit — whatever the
 * sequence: arrivals with and without their own contention, several at one instant, I/O parts (tiny
 * ones included, which end in the step that starts them), advances to past, equal and future times,
 * drains. Two deliberate mutations of PsServer (the contention sum not reset when the last request
 * leaves; a tiny I/O part finished with the CPU part instead of after it) each fail it.
 */
final class PsServerProperties {

    @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
    void everyStep_equalsTheObjectListModel_bitForBit(@ForAll long seed) {
        SplittableRandom rnd = new SplittableRandom(seed);
        int cores = 1 + rnd.nextInt(8);
        double overhead = rnd.nextInt(3) == 0 ? 0 : rnd.nextDouble() * 0.2;
        int knee = rnd.nextInt(12);
        double ioFraction = rnd.nextInt(3) == 0 ? 0 : rnd.nextDouble() * 0.9;
        PsServer<Integer> fast = new PsServer<>(cores, overhead, knee, ioFraction);
        ReferencePsServer<Integer> ref = new ReferencePsServer<>(cores, overhead, knee, ioFraction);
        double t = rnd.nextDouble() * 1000; // large times too: to + a tiny I/O part rounds to to
        for (int step = 0; step < 1_000; step++) {
            int op = rnd.nextInt(100);
            if (op < 55) {
                double demand = switch (rnd.nextInt(4)) {
                    case 0 -> 0;
                    case 1 -> rnd.nextDouble() * 1e-12;
                    default -> rnd.nextDouble() * 0.2;
                };
                List<PsServer.Done<Integer>> a;
                List<PsServer.Done<Integer>> b;
                if (rnd.nextBoolean()) {
                    double contention = rnd.nextBoolean() ? overhead : rnd.nextDouble() * 0.3;
                    a = fast.admit(step, demand, contention, t);
                    b = ref.admit(step, demand, contention, t);
                } else {
                    a = fast.admit(step, demand, t);
                    b = ref.admit(step, demand, t);
                }
                assertThat(a).as("done at admit, step %d", step).isEqualTo(b);
            } else if (op < 99) {
                double next = fast.nextEventTime();
                assertThat(next).as("next event, step %d", step).isEqualTo(ref.nextEventTime());
                double to = switch (rnd.nextInt(5)) {
                    case 0, 4 -> next; // exactly at the next event
                    case 1 -> t - rnd.nextDouble(); // the past: treated as now
                    default -> t + rnd.nextDouble() * 0.1;
                };
                if (Double.isInfinite(to)) {
                    to = t + 0.05;
                }
                assertThat(fast.advance(to)).as("done at advance, step %d", step).isEqualTo(ref.advance(to));
                t = Math.max(t, to);
            } else {
                assertThat(fast.drain(t)).as("drained, step %d", step).isEqualTo(ref.drain(t));
            }
            assertThat(fast.inFlight()).isEqualTo(ref.inFlight());
            assertThat(fast.cpuInFlight()).isEqualTo(ref.cpuInFlight());
            assertThat(fast.busyArea()).isEqualTo(ref.busyArea());
            assertThat(fast.now()).isEqualTo(ref.now());
            if (rnd.nextInt(3) != 0) { // else the next operation comes at the same instant
                t += rnd.nextDouble() * 0.01;
            }
        }
    }
}
