package org.arbiter.live;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.loadgen.server.SimServer;

/**
 * Meters the simservers over a live run's span (the load's wall time, {@link LiveBackend}) and watches
 * their power states meanwhile. It reads every simserver's meter at the start and again when the
 * load's wall time is over, not when
 * the load generator returns (that waits for the last answers, longer when more requests
 * wait: a loaded off run's tail once made it 0.9 s longer than queue's), so that every run
 * is metered over the same span. Every 50 ms in between it samples each server's state with
 * the time. A server found in the same state at both ends of an interval shorter than the
 * boot delay stayed in it (going through OFF and back, or up and back to OFF, takes a boot at
 * least), so that interval is known: powered (ON, BOOTING or SHUTTING_DOWN) or not — provided
 * the samples on either side agree too, since the state a simserver shows may lag its meter's
 * by its clock thread's delay. The other intervals, and the gaps before the first and after
 * the last sample, are unknown: the bounds count them powered for the most, unpowered for the
 * least. Samples on its own thread; read the results after {@link #stop}.
 */
final class PowerSampler {
    private record Sample(long nanos, PowerModel.State[] states) {
    }

    private final List<SimServer> sims;
    private final long bootNanos;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
    private final List<Sample> samples = new ArrayList<>();
    private final double[] startJoules;
    private long from;
    private long to;
    private double joules;
    private int offs;
    private int ons;
    private ScheduledFuture<?> sampling;
    private ScheduledFuture<?> end;

    PowerSampler(List<SimServer> sims, double bootSeconds) {
        this.sims = sims;
        this.bootNanos = (long) (bootSeconds * 1e9);
        this.startJoules = new double[sims.size()];
    }

    /** Reads the meters now and again {@code spanSeconds} later; samples the states in between. */
    void start(double spanSeconds) {
        from = System.nanoTime();
        for (int i = 0; i < sims.size(); i++) {
            startJoules[i] = joules(sims.get(i));
        }
        sampling = timer.scheduleAtFixedRate(this::sample, 0, 50, TimeUnit.MILLISECONDS);
        end = timer.schedule(this::end, Math.round(spanSeconds * 1e9) - (System.nanoTime() - from),
                TimeUnit.NANOSECONDS);
    }

    private void sample() {
        PowerModel.State[] states = new PowerModel.State[sims.size()];
        for (int i = 0; i < states.length; i++) {
            states[i] = sims.get(i).state();
        }
        samples.add(new Sample(System.nanoTime(), states));
    }

    /** On the timer's thread, when the span is over. */
    private void end() {
        sampling.cancel(false);
        sample();
        for (int i = 0; i < sims.size(); i++) {
            joules += joules(sims.get(i)) - startJoules[i];
        }
        to = System.nanoTime();
        for (int k = 1; k < samples.size(); k++) {
            for (int i = 0; i < sims.size(); i++) {
                boolean was = samples.get(k - 1).states()[i] == PowerModel.State.OFF;
                boolean is = samples.get(k).states()[i] == PowerModel.State.OFF;
                offs += !was && is ? 1 : 0;
                ons += was && !is ? 1 : 0;
            }
        }
    }

    /** After the load: the end reading, if the load ended first, happens now. */
    void stop() throws InterruptedException {
        if (end != null && end.cancel(false)) {
            timer.execute(this::end);
        }
        timer.shutdown();
        timer.awaitTermination(30, TimeUnit.SECONDS);
    }

    /** The energy metered over the span, J (after {@link #stop}). */
    double joules() {
        return joules;
    }

    /** Servers seen going OFF (after {@link #stop}). */
    int offs() {
        return offs;
    }

    /** Servers seen coming back from OFF (after {@link #stop}). */
    int ons() {
        return ons;
    }

    /** The span metered, wall seconds (after {@link #stop}). */
    double seconds() {
        return (to - from) / 1e9;
    }

    /** The mean over the samples of the servers ON or BOOTING. */
    double meanServersUp() {
        return samples.stream().mapToLong(s -> Arrays.stream(s.states())
                .filter(st -> st == PowerModel.State.ON || st == PowerModel.State.BOOTING).count()).average().orElse(0);
    }

    /** Server-seconds powered (not OFF) between the meter readings; {@code most}: unknown time counts as powered. */
    double poweredSeconds(boolean most) {
        int n = sims.size();
        long unknown = samples.isEmpty() ? to - from
                : samples.get(0).nanos() - from + to - samples.get(samples.size() - 1).nanos();
        double nanos = most ? (double) unknown * n : 0;
        for (int k = 1; k < samples.size(); k++) {
            long dt = samples.get(k).nanos() - samples.get(k - 1).nanos();
            for (int i = 0; i < n; i++) {
                PowerModel.State was = samples.get(k - 1).states()[i];
                boolean known = dt < bootNanos;
                for (int j = Math.max(0, k - 2); j <= Math.min(samples.size() - 1, k + 1); j++) {
                    known &= samples.get(j).states()[i] == was;
                }
                if (known ? was != PowerModel.State.OFF : most) {
                    nanos += dt;
                }
            }
        }
        return nanos / 1e9;
    }

    private static double joules(SimServer s) {
        return s.status().joules();
    }
}
