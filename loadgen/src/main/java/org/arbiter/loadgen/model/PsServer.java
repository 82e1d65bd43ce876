package org.arbiter.loadgen.model;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/*
 * Design note — an emulated server in virtual time.
 *
 * Processor sharing over `cores` virtual CPUs: while n requests hold CPU, each progresses at
 * rate min(1, cores/n) · eff(n), eff(n) = 1 / (1 + overhead · max(0, n − knee)) — throughput rises
 * to `cores`/demand, stays flat, then falls with overhead (003 Fig. 7). A request's demand D splits
 * into a CPU part (1 − ioFraction)·D, served first, and an I/O part ioFraction·D, a wait that holds
 * no CPU (000's I/O-bound workload). busyFraction = min(1, n/cores): the "CPU utilisation" a
 * server reports.
 *
 * Contention per request: admit(request, demand, contention, t) gives the request its own
 * overhead coefficient (e.g. a read-only scan that thrashes a database's buffer cache more than a
 * short write); eff(n) then uses the mean coefficient of the requests holding CPU,
 * eff(n) = 1 / (1 + ō · max(0, n − knee)). admit(request, demand, t) uses the server's `overhead`,
 * so a server fed only through it behaves as before.
 *
 * Event-driven: admit() and advance() move time forward exactly, updating every request's
 * remaining work at the rate in force since the last event; nextEventTime() says when the next
 * request will finish a stage. O(n) per event, over primitive arrays. The caller drives it: the
 * simulator on virtual time, the live simserver on System.nanoTime() from one thread. Typical loop:
 *
 *   done = server.admit(request, demandSeconds, now);   // at each arrival
 *   t = server.nextCompletionTime();                    // schedule a wake-up at t
 *   done = server.advanceTo(t);                         // at the wake-up
 *
 * Power and energy live next door, in PowerModel, fed with busyFraction().
 *
 * Thread-safety: not thread-safe; time is passed in (seconds) and must not go backwards (an
 * earlier time is treated as "now").
 */

/** A processor-sharing server model driven by the caller's clock. See the design note. */
public final class PsServer<T> {

    /** A request that finished at {@code timeSeconds}. */
    public record Done<T>(T request, double timeSeconds) {
    }


    private final int cores;
    private final double overhead;
    private final int knee;
    private final double ioFraction;
    /*
     * The requests holding CPU, in arrival order, as parallel arrays (every event walks them: a scan
     * of primitives, not of objects): the request, CPU work left, I/O part to wait after, contention.
     */
    private Object[] cpuRequest = new Object[4];
    private double[] cpuLeft = new double[4];
    private double[] cpuIo = new double[4];
    private double[] cpuContention = new double[4];
    private int cpuCount;
    /* The requests waiting on I/O, in the order they started waiting, and when each wait ends. */
    private Object[] ioRequest = new Object[4];
    private double[] ioUntil = new double[4];
    private int ioCount;
    private double now;
    private double busyArea;
    private double contentionSum;
    private int ownContention;
    /**
     * The least CPU work left among {@link #cpu}'s requests, or NaN when not known (after a request
     * left). Every request progresses by the same r·dt and rounding is monotone, so the least one stays
     * the least and its value is exactly the cached one minus r·dt: nextEventTime() needs no scan
     * between departures (it was most of the capacity experiment's time, under overload).
     */
    private double minCpuLeft = Double.NaN;

    /**
     * @param cores      virtual CPUs (>= 1)
     * @param overhead   efficiency loss per request above the knee (>= 0)
     * @param knee       concurrency above which the overhead applies (>= 0)
     * @param ioFraction share of each demand that is an I/O wait holding no CPU (0 <= x < 1)
     */
    public PsServer(int cores, double overhead, int knee, double ioFraction) {
        if (cores < 1) {
            throw new IllegalArgumentException("cores: " + cores + " (expected: >= 1)");
        }
        if (!(overhead >= 0)) {
            throw new IllegalArgumentException("overhead: " + overhead + " (expected: >= 0)");
        }
        if (knee < 0) {
            throw new IllegalArgumentException("knee: " + knee + " (expected: >= 0)");
        }
        if (!(ioFraction >= 0 && ioFraction < 1)) {
            throw new IllegalArgumentException("ioFraction: " + ioFraction + " (expected: 0 <= x < 1)");
        }
        this.cores = cores;
        this.overhead = overhead;
        this.knee = knee;
        this.ioFraction = ioFraction;
    }

    /** Per-request CPU progress rate with n requests holding CPU. */
    public double rate(int n) {
        if (n == 0) {
            return 0;
        }
        double eff = 1 / (1 + overhead * Math.max(0, n - knee));
        return Math.min(1.0, (double) cores / n) * eff;
    }

    /**
     * A request with service demand {@code demandSeconds} arrives at {@code t}; returns the
     * requests that finished up to {@code t} (as {@link #advance}).
     */
    public List<Done<T>> admit(T request, double demandSeconds, double t) {
        return admit(request, demandSeconds, overhead, t);
    }

    /**
     * As {@link #admit(Object, double, double)}, the request bringing its own efficiency loss per
     * request above the knee, {@code contention} (>= 0), in place of the server's overhead.
     */
    public List<Done<T>> admit(T request, double demandSeconds, double contention, double t) {
        if (!(demandSeconds >= 0)) {
            throw new IllegalArgumentException("demandSeconds: " + demandSeconds + " (expected: >= 0)");
        }
        if (!(contention >= 0)) {
            throw new IllegalArgumentException("contention: " + contention + " (expected: >= 0)");
        }
        List<Done<T>> done = advance(t);
        if (cpuCount == cpuLeft.length) {
            int n = cpuCount * 2;
            cpuRequest = Arrays.copyOf(cpuRequest, n);
            cpuLeft = Arrays.copyOf(cpuLeft, n);
            cpuIo = Arrays.copyOf(cpuIo, n);
            cpuContention = Arrays.copyOf(cpuContention, n);
        }
        double work = (1 - ioFraction) * demandSeconds;
        cpuRequest[cpuCount] = request;
        cpuLeft[cpuCount] = work;
        cpuIo[cpuCount] = ioFraction * demandSeconds;
        cpuContention[cpuCount] = contention;
        cpuCount++;
        if (cpuCount == 1) {
            minCpuLeft = work;
        } else if (!Double.isNaN(minCpuLeft)) {
            minCpuLeft = Math.min(minCpuLeft, work);
        }
        contentionSum += contention;
        if (contention != overhead) {
            ownContention++;
        }
        return done;
    }

    /** Per-request CPU progress rate now: rate(n) with the mean contention of the requests holding CPU. */
    private double rateNow() {
        int n = cpuCount;
        if (n == 0) {
            return 0;
        }
        // exactly the server's overhead when no request brought its own (no rounding from the sum)
        double mean = ownContention == 0 ? overhead : Math.max(0, contentionSum) / n;
        return Math.min(1.0, (double) cores / n) / (1 + mean * Math.max(0, n - knee));
    }

    /** When the next stage ends (+∞ when idle). */
    public double nextEventTime() {
        double next = Double.POSITIVE_INFINITY;
        if (cpuCount > 0) {
            double r = rateNow();
            if (Double.isNaN(minCpuLeft)) {
                double minLeft = Double.POSITIVE_INFINITY;
                for (int i = 0; i < cpuCount; i++) {
                    minLeft = Math.min(minLeft, cpuLeft[i]);
                }
                minCpuLeft = minLeft;
            }
            next = now + minCpuLeft / r;
        }
        for (int i = 0; i < ioCount; i++) {
            next = Math.min(next, ioUntil[i]);
        }
        return next;
    }

    /** Same as {@link #nextEventTime()}: when the next request finishes a stage (+∞ when idle). */
    public double nextCompletionTime() {
        return nextEventTime();
    }

    /** Same as {@link #advance(double)}. */
    public List<Done<T>> advanceTo(double t) {
        return advance(t);
    }

    /** Moves to time t; returns the requests that finished by then, in order (an empty, unmodifiable list when none did). */
    public List<Done<T>> advance(double t) {
        List<Done<T>> out = null;
        while (true) {
            double next = nextEventTime();
            if (next > t) {
                break;
            }
            if (out == null) {
                out = new ArrayList<>(2);
            }
            step(next, out);
        }
        progress(t);
        return out == null ? List.of() : out;
    }

    @SuppressWarnings("unchecked")
    private void step(double to, List<Done<T>> out) {
        progress(to);
        int kept = 0;
        for (int i = 0; i < cpuCount; i++) {
            if (cpuLeft[i] <= 1e-9) {
                minCpuLeft = Double.NaN;
                contentionSum -= cpuContention[i];
                if (cpuContention[i] != overhead) {
                    ownContention--;
                }
                if (cpuIo[i] > 0) {
                    waitIo(cpuRequest[i], to + cpuIo[i]);
                } else {
                    out.add(new Done<>((T) cpuRequest[i], to));
                }
            } else {
                cpuRequest[kept] = cpuRequest[i];
                cpuLeft[kept] = cpuLeft[i];
                cpuIo[kept] = cpuIo[i];
                cpuContention[kept] = cpuContention[i];
                kept++;
            }
        }
        for (int i = kept; i < cpuCount; i++) {
            cpuRequest[i] = null; // no reference kept to a request that left
        }
        cpuCount = kept;
        if (cpuCount == 0) {
            contentionSum = 0;
        }
        int waiting = 0;
        for (int i = 0; i < ioCount; i++) {
            if (ioUntil[i] <= to + 1e-12) { // those that started their wait just now included
                out.add(new Done<>((T) ioRequest[i], to));
            } else {
                ioRequest[waiting] = ioRequest[i];
                ioUntil[waiting] = ioUntil[i];
                waiting++;
            }
        }
        for (int i = waiting; i < ioCount; i++) {
            ioRequest[i] = null;
        }
        ioCount = waiting;
    }

    private void waitIo(Object request, double until) {
        if (ioCount == ioUntil.length) {
            ioRequest = Arrays.copyOf(ioRequest, ioCount * 2);
            ioUntil = Arrays.copyOf(ioUntil, ioCount * 2);
        }
        ioRequest[ioCount] = request;
        ioUntil[ioCount++] = until;
    }

    private void progress(double to) {
        if (to <= now) {
            return;
        }
        double dt = to - now;
        double r = rateNow();
        for (int i = 0; i < cpuCount; i++) {
            cpuLeft[i] -= r * dt;
        }
        if (!Double.isNaN(minCpuLeft)) {
            minCpuLeft -= r * dt;
        }
        busyArea += Math.min(1.0, (double) cpuCount / cores) * dt;
        now = to;
    }

    /**
     * Drops every request in flight at {@code t} (a crash, a power-off) and returns them, oldest
     * first; the server is idle afterwards. Requests that finished by {@code t} are not included:
     * call {@link #advance} first to collect them.
     */
    @SuppressWarnings("unchecked")
    public List<T> drain(double t) {
        progress(t);
        List<T> dropped = new ArrayList<>(cpuCount + ioCount);
        for (int i = 0; i < cpuCount; i++) {
            dropped.add((T) cpuRequest[i]);
        }
        for (int i = 0; i < ioCount; i++) {
            dropped.add((T) ioRequest[i]);
        }
        Arrays.fill(cpuRequest, 0, cpuCount, null);
        Arrays.fill(ioRequest, 0, ioCount, null);
        cpuCount = 0;
        ioCount = 0;
        minCpuLeft = Double.NaN;
        contentionSum = 0;
        ownContention = 0;
        return dropped;
    }

    /** Requests in the server, holding CPU or waiting on I/O. */
    public int inFlight() {
        return cpuCount + ioCount;
    }

    /** Requests holding CPU (the n of the rate formula). */
    public int cpuInFlight() {
        return cpuCount;
    }

    /** Share of the virtual CPUs busy now: min(1, cpuInFlight / cores) — the "CPU utilisation". */
    public double busyFraction() {
        return Math.min(1.0, (double) cpuCount / cores);
    }

    /** Completion rate at saturation without overhead: cores / mean demand of the CPU part. */
    public double capacityPerSecond(double meanDemandSeconds) {
        return cores / ((1 - ioFraction) * meanDemandSeconds);
    }

    public int cores() {
        return cores;
    }

    /** Time integral of the busy fraction so far (CPU-seconds per core). */
    public double busyArea() {
        return busyArea;
    }

    public double now() {
        return now;
    }
}
