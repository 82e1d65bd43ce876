package org.arbiter.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.arbiter.grm.concurrency.ConcurrencyController;
import org.arbiter.loadgen.model.PsServer;
import org.arbiter.loadgen.workload.Distributions;
import org.arbiter.loadgen.workload.ThinkTime;

/*
 * Design note — the admission experiment (004 §5.3, Fig. 6-8).
 *
 * Model (004 §2.1): N closed-loop clients (think time Exp(3 s), as TPC-C's emulated clients)
 * send requests to one server through an admission proxy with a limit MPL. A request that arrives
 * while MPL requests are in the server is rejected at once — 004's "abandon" — and its client
 * thinks and tries again; there is no admission queue. The server is the loadgen PsServer:
 * processor sharing over 4 virtual CPUs with a 1 % efficiency loss per request above 8, so the
 * latency grows about quadratically in N_e, as 004 eq. 7 models it. Latency L is the time a
 * request spends in the server (004: "the time needed by the server to process a request").
 *
 * Workload (the phases, each `--seconds` long): 004 Fig. 6/8 change the mix M1 (read-write) →
 * M2 (read-only) → M1 at 80 clients; Fig. 7 changes the amount N with M1. Here M1 is half reads
 * (demand Exp(0.3 s)) and half writes (Exp(0.7 s)), M2 only reads; the phases are M1/80, M2/80,
 * M1/80, M1/110, M1/50 clients. Every phase overloads the server without control (so the latency
 * bound binds for AM-C in all of them).
 *
 * Control: every control period (10 s) the proxy measures N_e (time-average of requests in the
 * server), L (mean latency of the requests completed in the period), the throughput and α
 * (rejected / arrived in the period). The grm's controllers are used unchanged:
 *   amc  ConcurrencyController.ofLatencyBound (004 eq. 10), L_max 2 s, γ'_L = 1 /s
 *   pmc  ConcurrencyController.ofAbandonBound (004 eq. 13, sign as derived there), α_max 0.1, γ'_α = 1
 * each wrapped in ConcurrencyController.smoothed (weight 0.9 on the past: a stand-in for the
 * Kalman filter 004 §5.1 runs on its measurements) and ConcurrencyController.bounded (limit in
 * [1, 300], at most ±5 per period). 004 used γ = 0.1 (AM-C) and 0.3 (PM-C) on its PostgreSQL
 * server; with N_e below the limit (always, under stochastic arrivals) eq. 10's fixed point is
 * L = L_max − (1 − N_e/MPL)/γ'_L and eq. 13's is α = α_max γ' / (γ' − (1 − N_e/MPL)), so small
 * gains settle below the latency bound and above the abandon bound (docs/experiments.md has the
 * measured sensitivity).
 * "After convergence" is the second half of every phase; the figures are request-weighted over
 * those halves (latency over completions, α over arrivals).
 *
 * Not modelled: 004's Kalman filter itself (an exponential filter instead), the database's real
 * latency curve (PsServer's processor-sharing curve with a linear efficiency loss), TPC-C's
 * transaction types beyond two demand classes.
 *
 * Deterministic under the seed; not thread-safe (runs on the caller's thread).
 */

/** 004 §5: AM-C and PM-C moving a server's concurrency limit under changing load and mix. See the design note. */
public final class AdmissionExperiment {

    static final double LATENCY_MAX_SECONDS = 2.0;
    static final double ABANDON_MAX = 0.1;
    static final double AMC_GAIN = 1.0;
    static final double PMC_GAIN = 1.0;
    static final double CONTROL_SECONDS = 10;
    static final double SMOOTHING = 0.9;
    static final int MAX_STEP = 5;
    static final int MAX_LIMIT = 300;
    static final int INITIAL_LIMIT = 20;
    static final double THINK_SECONDS = 3;
    static final int CORES = 4;
    static final double OVERHEAD = 0.01;
    static final int KNEE = 8;
    static final double READ_SECONDS = 0.3;
    static final double WRITE_SECONDS = 0.7;

    /** A phase: {@code clients} closed-loop clients; {@code writeShare} of their requests are writes. */
    record Phase(String name, int clients, double writeShare) {
    }

    static final List<Phase> PHASES = List.of(
            new Phase("M1/80", 80, 0.5),
            new Phase("M2/80", 80, 0),
            new Phase("M1/80 again", 80, 0.5),
            new Phase("M1/110", 110, 0.5),
            new Phase("M1/50", 50, 0.5));

    private AdmissionExperiment() {
    }

    /** Runs AM-C and PM-C on the same workload (same seed), each phase {@code secondsPerPhase} long. */
    public static AdmissionResult run(long seed, double secondsPerPhase, Consumer<String> progress) {
        if (!(secondsPerPhase > 0)) {
            throw new IllegalArgumentException("secondsPerPhase: " + secondsPerPhase + " (expected: > 0)");
        }
        AdmissionResult.Run amc = simulate(controller(
                ConcurrencyController.ofLatencyBound(INITIAL_LIMIT, LATENCY_MAX_SECONDS, AMC_GAIN)), seed, secondsPerPhase);
        progress.accept(String.format(Locale.ROOT, "admission amc: mean latency after convergence %.3f s (bound %.1f s), abandon %.3f",
                amc.meanLatencyAfterConvergence(), LATENCY_MAX_SECONDS, amc.abandonAfterConvergence()));
        AdmissionResult.Run pmc = simulate(controller(
                ConcurrencyController.ofAbandonBound(INITIAL_LIMIT, ABANDON_MAX, PMC_GAIN)), seed, secondsPerPhase);
        progress.accept(String.format(Locale.ROOT, "admission pmc: abandon after convergence %.3f (bound %.2f), mean latency %.3f s",
                pmc.abandonAfterConvergence(), ABANDON_MAX, pmc.meanLatencyAfterConvergence()));
        return new AdmissionResult(new AdmissionResult.Amc(LATENCY_MAX_SECONDS, AMC_GAIN, amc),
                new AdmissionResult.Pmc(ABANDON_MAX, PMC_GAIN, pmc), setup(secondsPerPhase));
    }

    /** The control law, fed smoothed samples, its output bounded. */
    private static ConcurrencyController controller(ConcurrencyController law) {
        return ConcurrencyController.bounded(ConcurrencyController.smoothed(law, SMOOTHING), 1, MAX_LIMIT, MAX_STEP, 1);
    }

    private static AdmissionResult.Setup setup(double secondsPerPhase) {
        return new AdmissionResult.Setup(secondsPerPhase, CONTROL_SECONDS, SMOOTHING, THINK_SECONDS, CORES, OVERHEAD, KNEE,
                READ_SECONDS, WRITE_SECONDS, new AdmissionResult.Limit(INITIAL_LIMIT, 1, MAX_LIMIT, MAX_STEP));
    }

    /** A request in the server. */
    private record Request(int client, double startSeconds) {
    }

    /** Per-phase accumulators over the phase's second half. */
    private static final class Half {
        long arrivals;
        long rejected;
        long completions;
        double latencySum;
        double limitSum;
        long limitSamples;
    }

    private static AdmissionResult.Run simulate(ConcurrencyController controller, long seed, double secondsPerPhase) {
        SplittableRandom random = new SplittableRandom(seed);
        ThinkTime think = new ThinkTime(THINK_SECONDS);
        PsServer<Request> server = new PsServer<>(CORES, OVERHEAD, KNEE, 0);
        int maxClients = PHASES.stream().mapToInt(Phase::clients).max().orElse(0);
        // (time, client) of each client's next request; a client beyond the phase's count parks
        PriorityQueue<double[]> wakeUps = new PriorityQueue<>((a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0])
                : Double.compare(a[1], b[1]));
        boolean[] busy = new boolean[maxClients]; // thinking or in the server
        int limit = controller.current();
        List<Half> halves = new ArrayList<>();
        List<AdmissionResult.Row> series = new ArrayList<>();
        double end = secondsPerPhase * PHASES.size();
        double t = 0;
        double nextControl = CONTROL_SECONDS;
        int phaseIndex = -1;
        double nextPhase = 0;
        // control-period accumulators
        long arrivals = 0;
        long rejected = 0;
        long completions = 0;
        double latencySum = 0;
        double inFlightArea = 0;
        double lastT = 0;
        while (true) {
            double tWake = wakeUps.isEmpty() ? Double.POSITIVE_INFINITY : wakeUps.peek()[0];
            double tNext = Math.min(Math.min(tWake, server.nextEventTime()), Math.min(nextControl, nextPhase));
            if (tNext > end) {
                break;
            }
            t = tNext;
            inFlightArea += server.inFlight() * (t - lastT);
            lastT = t;
            Phase phase = phaseIndex < 0 ? null : PHASES.get(phaseIndex);
            Half half = phase != null && t >= (phaseIndex + 0.5) * secondsPerPhase ? halves.get(phaseIndex) : null;
            for (PsServer.Done<Request> d : server.advance(t)) {
                double latency = d.timeSeconds() - d.request().startSeconds();
                completions++;
                latencySum += latency;
                if (half != null) {
                    half.completions++;
                    half.latencySum += latency;
                }
                wakeUps.add(new double[] {think.nextRequest(d.timeSeconds(), random), d.request().client()});
            }
            if (t == nextPhase) {
                phaseIndex++;
                if (phaseIndex >= PHASES.size()) {
                    break;
                }
                halves.add(new Half());
                for (int c = 0; c < PHASES.get(phaseIndex).clients(); c++) {
                    if (!busy[c]) {
                        busy[c] = true;
                        wakeUps.add(new double[] {think.nextRequest(t, random), c});
                    }
                }
                nextPhase = (phaseIndex + 1) * secondsPerPhase;
                continue;
            }
            if (t == tWake) {
                double[] w = wakeUps.poll();
                int client = (int) w[1];
                if (client >= phase.clients()) {
                    busy[client] = false; // this client leaves with the phase
                    continue;
                }
                arrivals++;
                if (half != null) {
                    half.arrivals++;
                }
                if (server.inFlight() < limit) {
                    double demand = Distributions.exponential(random,
                            random.nextDouble() < phase.writeShare() ? WRITE_SECONDS : READ_SECONDS);
                    server.admit(new Request(client, t), demand, t);
                } else {
                    rejected++;
                    if (half != null) {
                        half.rejected++;
                    }
                    wakeUps.add(new double[] {think.nextRequest(t, random), client});
                }
            }
            if (t == nextControl) {
                double ne = inFlightArea / CONTROL_SECONDS;
                double latency = completions == 0 ? 0 : latencySum / completions;
                double abandon = arrivals == 0 ? 0 : (double) rejected / arrivals;
                limit = controller.update(new ConcurrencyController.Sample(ne, latency,
                        completions / CONTROL_SECONDS, abandon));
                if (half != null) {
                    half.limitSum += limit;
                    half.limitSamples++;
                }
                series.add(new AdmissionResult.Row(Experiments.round(t), limit, Experiments.round(ne),
                        Experiments.round(latency), Experiments.round(abandon)));
                arrivals = 0;
                rejected = 0;
                completions = 0;
                latencySum = 0;
                inFlightArea = 0;
                nextControl = t + CONTROL_SECONDS;
            }
        }
        return summarize(halves, series, secondsPerPhase);
    }

    private static AdmissionResult.Run summarize(List<Half> halves, List<AdmissionResult.Row> series,
                                                 double secondsPerPhase) {
        List<AdmissionResult.Phase> phases = new ArrayList<>();
        long arrivals = 0;
        long rejected = 0;
        long completions = 0;
        double latencySum = 0;
        for (int i = 0; i < halves.size(); i++) {
            Half h = halves.get(i);
            Phase p = PHASES.get(i);
            phases.add(new AdmissionResult.Phase(p.name(), p.clients(), p.writeShare(),
                    Experiments.round(h.completions == 0 ? 0 : h.latencySum / h.completions),
                    Experiments.round(h.arrivals == 0 ? 0 : (double) h.rejected / h.arrivals),
                    Experiments.round(h.limitSamples == 0 ? 0 : h.limitSum / h.limitSamples),
                    Experiments.round(h.completions / (secondsPerPhase / 2))));
            arrivals += h.arrivals;
            rejected += h.rejected;
            completions += h.completions;
            latencySum += h.latencySum;
        }
        return new AdmissionResult.Run(Experiments.round(completions == 0 ? 0 : latencySum / completions),
                Experiments.round(arrivals == 0 ? 0 : (double) rejected / arrivals), phases, series);
    }
}
