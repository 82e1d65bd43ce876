package org.arbiter.loadgen.model;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;

/**
 * The processor-sharing model as it was before its requests moved into primitive arrays (issue 32,
 * the simulator's speed): each request an object in a list. {@link PsServerProperties} checks that
 * {@link PsServer} gives exactly what this gives, bit for bit.
 */
final class ReferencePsServer<T> {

    private static final class Job<T> {
        final T request;
        double cpuLeft;
        final double ioSeconds;
        final double contention;
        double ioUntil = Double.NaN;

        Job(T request, double cpu, double io, double contention) {
            this.request = request;
            this.cpuLeft = cpu;
            this.ioSeconds = io;
            this.contention = contention;
        }
    }

    private final int cores;
    private final double overhead;
    private final int knee;
    private final double ioFraction;
    private final List<Job<T>> cpu = new ArrayList<>();
    private final List<Job<T>> io = new ArrayList<>();
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
    ReferencePsServer(int cores, double overhead, int knee, double ioFraction) {
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
    public List<PsServer.Done<T>> admit(T request, double demandSeconds, double t) {
        return admit(request, demandSeconds, overhead, t);
    }

    /**
     * As {@link #admit(Object, double, double)}, the request bringing its own efficiency loss per
     * request above the knee, {@code contention} (>= 0), in place of the server's overhead.
     */
    public List<PsServer.Done<T>> admit(T request, double demandSeconds, double contention, double t) {
        if (!(demandSeconds >= 0)) {
            throw new IllegalArgumentException("demandSeconds: " + demandSeconds + " (expected: >= 0)");
        }
        if (!(contention >= 0)) {
            throw new IllegalArgumentException("contention: " + contention + " (expected: >= 0)");
        }
        List<PsServer.Done<T>> done = advance(t);
        Job<T> job = new Job<>(request, (1 - ioFraction) * demandSeconds, ioFraction * demandSeconds, contention);
        cpu.add(job);
        if (cpu.size() == 1) {
            minCpuLeft = job.cpuLeft;
        } else if (!Double.isNaN(minCpuLeft)) {
            minCpuLeft = Math.min(minCpuLeft, job.cpuLeft);
        }
        contentionSum += contention;
        if (contention != overhead) {
            ownContention++;
        }
        return done;
    }

    /** Per-request CPU progress rate now: rate(n) with the mean contention of the requests holding CPU. */
    private double rateNow() {
        int n = cpu.size();
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
        if (!cpu.isEmpty()) {
            double r = rateNow();
            if (Double.isNaN(minCpuLeft)) {
                double minLeft = Double.POSITIVE_INFINITY;
                for (Job<T> j : cpu) {
                    minLeft = Math.min(minLeft, j.cpuLeft);
                }
                minCpuLeft = minLeft;
            }
            next = now + minCpuLeft / r;
        }
        for (Job<T> j : io) {
            next = Math.min(next, j.ioUntil);
        }
        return next;
    }

    /** Same as {@link #nextEventTime()}: when the next request finishes a stage (+∞ when idle). */
    public double nextCompletionTime() {
        return nextEventTime();
    }

    /** Same as {@link #advance(double)}. */
    public List<PsServer.Done<T>> advanceTo(double t) {
        return advance(t);
    }

    /** Moves to time t; returns the requests that finished by then, in order (an empty, unmodifiable list when none did). */
    public List<PsServer.Done<T>> advance(double t) {
        List<PsServer.Done<T>> out = null;
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

    private void step(double to, List<PsServer.Done<T>> out) {
        progress(to);
        for (Iterator<Job<T>> it = cpu.iterator(); it.hasNext(); ) {
            Job<T> j = it.next();
            if (j.cpuLeft <= 1e-9) {
                it.remove();
                minCpuLeft = Double.NaN;
                contentionSum -= j.contention;
                if (j.contention != overhead) {
                    ownContention--;
                }
                if (cpu.isEmpty()) {
                    contentionSum = 0;
                }
                if (j.ioSeconds > 0) {
                    j.ioUntil = to + j.ioSeconds;
                    io.add(j);
                } else {
                    out.add(new PsServer.Done<>(j.request, to));
                }
            }
        }
        for (Iterator<Job<T>> it = io.iterator(); it.hasNext(); ) {
            Job<T> j = it.next();
            if (j.ioUntil <= to + 1e-12) {
                it.remove();
                out.add(new PsServer.Done<>(j.request, to));
            }
        }
    }

    private void progress(double to) {
        if (to <= now) {
            return;
        }
        double dt = to - now;
        double r = rateNow();
        for (Job<T> j : cpu) {
            j.cpuLeft -= r * dt;
        }
        if (!Double.isNaN(minCpuLeft)) {
            minCpuLeft -= r * dt;
        }
        busyArea += Math.min(1.0, (double) cpu.size() / cores) * dt;
        now = to;
    }

    /**
     * Drops every request in flight at {@code t} (a crash, a power-off) and returns them, oldest
     * first; the server is idle afterwards. Requests that finished by {@code t} are not included:
     * call {@link #advance} first to collect them.
     */
    public List<T> drain(double t) {
        progress(t);
        List<T> dropped = new ArrayList<>(cpu.size() + io.size());
        cpu.forEach(j -> dropped.add(j.request));
        io.forEach(j -> dropped.add(j.request));
        cpu.clear();
        io.clear();
        minCpuLeft = Double.NaN;
        contentionSum = 0;
        ownContention = 0;
        return dropped;
    }

    /** Requests in the server, holding CPU or waiting on I/O. */
    public int inFlight() {
        return cpu.size() + io.size();
    }

    /** Requests holding CPU (the n of the rate formula). */
    public int cpuInFlight() {
        return cpu.size();
    }

    /** Share of the virtual CPUs busy now: min(1, cpuInFlight / cores) — the "CPU utilisation". */
    public double busyFraction() {
        return Math.min(1.0, (double) cpu.size() / cores);
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
