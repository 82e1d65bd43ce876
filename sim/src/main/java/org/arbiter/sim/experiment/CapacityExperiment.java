package org.arbiter.sim.experiment;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import java.util.random.RandomGenerator;
import org.arbiter.grm.capacity.CapacityEstimator;
import org.arbiter.loadgen.model.PsServer;
import org.arbiter.loadgen.workload.ArrivalProcess;
import org.arbiter.loadgen.workload.Distributions;

/*
 * Design note — the capacity experiment (000 §7.4, Fig. 9-10).
 *
 * Model: one server behind a bounded FIFO queue, as the accept queue in front of 000's Apache.
 * The queue holds at most K requests; an arrival that finds it full is dropped, and a request that
 * waits longer than the queue timeout is dropped when its time is up. The server runs at most
 * `processes` requests at once (Apache's process limit, N_s); a free process takes the head of the
 * queue ("accepted"). Service is the loadgen PsServer: processor sharing over `cores` virtual
 * CPUs, each demand Exp(mean) split into a CPU part and an I/O wait (ioFraction) that holds a
 * process but no CPU. Arrivals are Poisson with a rate that is a sinusoid (two periods of
 * `--seconds` each, trough 30 %, peak 130 % of the nominal capacity), drawn exactly by thinning
 * (ArrivalProcess.diurnal, whose cosine continues past its first period).
 *
 * Workloads:
 *   cpu  ioFraction 0: the CPUs are the bottleneck; nominal capacity cores / demand.
 *   io   ioFraction 0.95: each request holds a process through a long I/O wait, so the process
 *        limit caps throughput (≈ processes / demand) while the CPUs stay under half busy — 000's
 *        0.5 s sleep before each response.
 *
 * Reference capacity (000 §7.4): a linear ramp of the arrival rate from 50 % to 150 % of nominal
 * over 1200 s on the same model; the drop ratio is watched over a sliding 60 s window, and the
 * first time it reaches ε_th = 1 % the accepted throughput over that window is the capacity. Five
 * ramps (seeds seed+1…seed+5), averaged — 000 §7.4 repeated its ramp 10 times.
 *
 * Estimators, fed once per sampling period T with the queue's counters (arrivals, accepted,
 * dropped, mean queue seen by arrivals, peak arrival rate over T/10 sub-intervals, K, the
 * PsServer's busy fraction over the period, and the backlog: the time a request waited with every
 * process busy and the requests taken from the queue meanwhile, as the gateway reports them): queue monitoring (000 eq. 1-5, ε_th = 1 %,
 * T_c = 10 s, α = 0.9), CPU utilisation (throughput / busy fraction, smoothing 0.9) and static
 * (the configured benchmark figure: here the reference itself, measured offline by the ramp, so
 * its error is zero by construction on this workload). The result is each estimate at the end
 * of the run.
 *
 * Not modelled: TCP retransmissions of dropped SYNs (a drop is final), the SYN queue (one queue),
 * Surge's heavy-tailed file sizes (demands are exponential), measurement noise of /proc counters.
 *
 * Deterministic under the seed; not thread-safe (runs on the caller's thread).
 */

/** 000 §7.4: queue-monitoring vs CPU-utilisation vs static capacity estimates. See the design note. */
public final class CapacityExperiment {

    /** 000's drop-ratio bound ε_th. */
    static final double DROP_RATIO_BOUND = 0.01;
    /** Sampling period T of the estimators (s). */
    static final double SAMPLE_SECONDS = 5;
    static final int SUB_INTERVALS = 10;
    static final double FORECAST_SECONDS = 10;
    static final double ALPHA = 0.9;
    static final double RAMP_SECONDS = 1200;
    static final double RAMP_WINDOW_SECONDS = 60;
    static final int RAMPS = 5;
    static final int MAX_SERIES_POINTS = 400;

    /**
     * One server and its queue.
     *
     * @param meanDemandSeconds  mean service demand (Exp), CPU and I/O together
     * @param ioFraction         share of the demand that is an I/O wait
     * @param processes          N_s, requests in service at once
     * @param queueLimit         K
     * @param queueTimeoutSeconds a queued request older than this is dropped
     */
    record Workload(String name, int cores, double meanDemandSeconds, double ioFraction, int processes,
                    int queueLimit, double queueTimeoutSeconds) {

        /** What the design says the server sustains: the lower of the CPU and the process limits (req/s). */
        double nominalPerSecond() {
            return Math.min(cores / ((1 - ioFraction) * meanDemandSeconds), processes / meanDemandSeconds);
        }

        CapacityResult.Server describe() {
            return new CapacityResult.Server(cores, meanDemandSeconds, ioFraction, processes, queueLimit,
                    queueTimeoutSeconds, Experiments.round(nominalPerSecond()));
        }
    }

    /** 000's two workloads, scaled so the CPU-bound one sustains about 600 req/s like 000's server. */
    static final List<Workload> WORKLOADS = List.of(
            new Workload("cpu", 4, 4.0 / 600, 0, 64, 128, 3),
            new Workload("io", 4, 0.1, 0.95, 32, 128, 3));

    private CapacityExperiment() {
    }

    /**
     * Runs both workloads: two periods of a sinusoid, each {@code periodSeconds} simulated
     * seconds long, with the three estimators; and the ramps that give the reference.
     */
    public static CapacityResult run(long seed, double periodSeconds, Consumer<String> progress) {
        if (!(periodSeconds > 0)) {
            throw new IllegalArgumentException("periodSeconds: " + periodSeconds + " (expected: > 0)");
        }
        double seconds = 2 * periodSeconds;
        Map<String, CapacityResult.Workload> workloads = new LinkedHashMap<>();
        for (Workload w : WORKLOADS) {
            workloads.put(w.name(), runWorkload(w, seed, seconds, progress));
        }
        return new CapacityResult(workloads, DROP_RATIO_BOUND, SAMPLE_SECONDS, periodSeconds, seconds);
    }

    private static CapacityResult.Workload runWorkload(Workload w, long seed, double seconds, Consumer<String> progress) {
        List<Double> ramps = new ArrayList<>();
        double sum = 0;
        for (int i = 1; i <= RAMPS; i++) {
            double r = reference(w, seed + i);
            ramps.add(Experiments.round(r));
            sum += r;
        }
        double reference = sum / RAMPS;
        progress.accept(String.format(Locale.ROOT, "capacity %s: reference %.1f req/s (ramps %s)", w.name(), reference, ramps));

        CapacityEstimator queue = CapacityEstimator.ofQueueMonitoring(DROP_RATIO_BOUND, FORECAST_SECONDS, ALPHA);
        CapacityEstimator utilization = CapacityEstimator.ofUtilization(0.9);
        CapacityEstimator fixed = CapacityEstimator.ofStatic(reference);
        double nominal = w.nominalPerSecond();
        ArrivalProcess sinusoid = ArrivalProcess.diurnal(1.3 * nominal, 0.3 * nominal, 0, seconds / 2);
        List<double[]> rows = new ArrayList<>();
        long[] totals = new long[3];
        simulate(w, sinusoid, new SplittableRandom(seed), seconds, SAMPLE_SECONDS, (t, s) -> {
            rows.add(new double[] {t, s.arrivalRate(), s.serviceRate(), s.dropRatio(), queue.update(s),
                    utilization.update(s), fixed.update(s)});
            totals[0] += s.arrivals();
            totals[1] += s.accepted();
            totals[2] += s.dropped();
            return true;
        });
        CapacityResult.Estimates estimates = new CapacityResult.Estimates(Experiments.round(queue.estimate()),
                Experiments.round(utilization.estimate()), Experiments.round(fixed.estimate()));
        CapacityResult.Estimates errors = new CapacityResult.Estimates(errorPercent(estimates.queue(), reference),
                errorPercent(estimates.utilization(), reference), errorPercent(estimates.fixed(), reference));
        progress.accept(String.format(Locale.ROOT, "capacity %s: estimates queue %.1f, utilization %.1f, static %.1f req/s",
                w.name(), queue.estimate(), utilization.estimate(), fixed.estimate()));

        return new CapacityResult.Workload(Experiments.round(reference), estimates, errors, ramps, w.describe(),
                new CapacityResult.Sinusoid(Experiments.round(0.3 * nominal), Experiments.round(1.3 * nominal), seconds / 2),
                totals[0] == 0 ? 0.0 : Experiments.round((double) totals[2] / totals[0]), series(rows));
    }

    /** An estimate's error against the reference, %. */
    private static double errorPercent(double estimate, double reference) {
        return Experiments.round(100 * (estimate / reference - 1));
    }

    /** The reference capacity of one ramp: accepted req/s over the first 60 s window with drop ratio ≥ ε_th (0 if never). */
    static double reference(Workload w, long seed) {
        double nominal = w.nominalPerSecond();
        double from = 0.5 * nominal;
        double to = 1.5 * nominal;
        ArrivalProcess ramp = (after, random) -> {
            double t = after;
            while (true) {
                t += Distributions.exponential(random, 1 / to);
                if (random.nextDouble() * to < from + (to - from) * Math.min(1, t / RAMP_SECONDS)) {
                    return t;
                }
            }
        };
        int window = (int) Math.round(RAMP_WINDOW_SECONDS);
        long[][] ring = new long[window][];
        int[] count = {0};
        double[] found = {0};
        simulate(w, ramp, new SplittableRandom(seed), RAMP_SECONDS, 1, (t, s) -> {
            ring[count[0] % window] = new long[] {s.arrivals(), s.accepted(), s.dropped()};
            count[0]++;
            if (count[0] < window) {
                return true;
            }
            long arrivals = 0;
            long accepted = 0;
            long dropped = 0;
            for (long[] r : ring) {
                arrivals += r[0];
                accepted += r[1];
                dropped += r[2];
            }
            if (arrivals > 0 && (double) dropped / arrivals >= DROP_RATIO_BOUND) {
                found[0] = accepted / RAMP_WINDOW_SECONDS;
                return false;
            }
            return true;
        });
        return found[0];
    }

    /** The rows' columns (time, arrival rate, throughput, drop ratio, the three estimates), at most 400 rows. */
    private static CapacityResult.Series series(List<double[]> rows) {
        int stride = Math.max(1, (rows.size() + MAX_SERIES_POINTS - 1) / MAX_SERIES_POINTS);
        List<List<Double>> columns = new ArrayList<>();
        for (int j = 0; j < 7; j++) {
            List<Double> col = new ArrayList<>();
            for (int i = stride - 1; i < rows.size(); i += stride) {
                col.add(Experiments.round(rows.get(i)[j]));
            }
            columns.add(col);
        }
        return new CapacityResult.Series(columns.get(0), columns.get(1), columns.get(2), columns.get(3), columns.get(4),
                columns.get(5), columns.get(6));
    }

    /** Receives one sampling period; returns false to stop the run. */
    interface SampleSink {
        boolean accept(double timeSeconds, CapacityEstimator.Sample sample);
    }

    /**
     * The event loop: Poisson arrivals from {@code arrivals} into the bounded queue, the server
     * taking requests from its head; one sample per {@code period} until {@code end}.
     */
    static void simulate(Workload w, ArrivalProcess arrivals, RandomGenerator random, double end, double period,
                         SampleSink sink) {
        PsServer<Object> server = new PsServer<>(w.cores(), 0, 0, w.ioFraction());
        ArrayDeque<double[]> queue = new ArrayDeque<>(); // {arrival time, demand}
        double subLength = period / SUB_INTERVALS;
        long[] sub = new long[SUB_INTERVALS];
        long nArrivals = 0;
        long nAccepted = 0;
        long nDropped = 0;
        double queueSeen = 0;
        double backlogSeconds = 0; // time with a request waiting (every process busy)
        long backlogAccepted = 0;  // requests taken from the queue in that time
        double lastEvent = 0;
        double periodStart = 0;
        double busyAtStart = 0;
        double nextArrival = arrivals.nextArrival(0, random);
        double nextSample = period;
        while (nextSample <= end + 1e-9) {
            double expiry = queue.isEmpty() ? Double.POSITIVE_INFINITY : queue.peekFirst()[0] + w.queueTimeoutSeconds();
            double t = Math.min(Math.min(nextArrival, server.nextEventTime()), Math.min(expiry, nextSample));
            if (!queue.isEmpty()) {
                backlogSeconds += t - lastEvent;
            }
            lastEvent = t;
            // completions free processes; the head of the queue takes them
            server.advance(t);
            while (!queue.isEmpty() && queue.peekFirst()[0] + w.queueTimeoutSeconds() <= t) {
                queue.pollFirst();
                nDropped++;
            }
            while (!queue.isEmpty() && server.inFlight() < w.processes()) {
                server.admit(Boolean.TRUE, queue.pollFirst()[1], t);
                nAccepted++;
                backlogAccepted++;
            }
            if (t == nextArrival) {
                nArrivals++;
                sub[Math.min(SUB_INTERVALS - 1, (int) ((t - periodStart) / subLength))]++;
                queueSeen += queue.size();
                double demand = Distributions.exponential(random, w.meanDemandSeconds());
                if (queue.isEmpty() && server.inFlight() < w.processes()) {
                    server.admit(Boolean.TRUE, demand, t);
                    nAccepted++;
                } else if (queue.size() < w.queueLimit()) {
                    queue.addLast(new double[] {t, demand});
                } else {
                    nDropped++;
                }
                nextArrival = arrivals.nextArrival(t, random);
            }
            if (t == nextSample) {
                long peak = 0;
                for (long c : sub) {
                    peak = Math.max(peak, c);
                }
                double busy = (server.busyArea() - busyAtStart) / period;
                CapacityEstimator.Sample s = new CapacityEstimator.Sample(period, nArrivals, nAccepted, nDropped,
                        nArrivals == 0 ? 0 : queueSeen / nArrivals, peak / subLength, w.queueLimit(), busy,
                        Math.min(period, backlogSeconds), backlogAccepted);
                if (!sink.accept(t, s)) {
                    return;
                }
                nArrivals = 0;
                nAccepted = 0;
                nDropped = 0;
                queueSeen = 0;
                backlogSeconds = 0;
                backlogAccepted = 0;
                Arrays.fill(sub, 0);
                periodStart = t;
                busyAtStart = server.busyArea();
                nextSample = periodStart + period;
            }
        }
    }
}
