package org.arbiter.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import java.util.function.Supplier;
import org.arbiter.grm.concurrency.ConcurrencyController;

/*
 * Design note — the admission experiment (004 §5.3, Fig. 6-8).
 *
 * Testbed: ClosedLoop — N closed-loop clients (think time Exp(4 s)), an admission proxy that
 * rejects at once what arrives while MPL requests are in the server (004's abandon), a
 * processor-sharing server with one CPU (004 §5.1: "a 3 GHz processor") and a contention loss
 * above 4 requests in service. One CPU, not several: a multi-CPU server's latency is flat up to
 * its CPU count, which 004's quadratic (eq. 7) cannot follow — see FluidExperiment.
 *
 * Mixes (004 §5.1: M1 read-write, M2 read-only). 004's own results say which is harder at high
 * concurrency: under AM-C at N = 80, M2 abandons 9 % and M1 0 %; under PM-C, M2's latency is 8 s
 * and M1's 4 s. We choose the demands to match that ordering: M1's requests are heavier and more
 * variable (half Exp(0.05 s), half Exp(0.15 s): mean 0.1 s, squared coefficient of variation 1.5,
 * contention 0.005 per request above the knee), M2's lighter (Exp(0.0625 s)) but contend more
 * (0.036: read-only scans competing for the buffer cache), so M2's latency grows faster with N_e
 * and crosses M1's — without control about 5.5 s for M1 and 10-12 s for M2 at N = 80, as the
 * uncontrolled runs of 004 Fig. 6 and 8 suggest (well above the controlled 8 s).
 *
 * Scenarios, each phase `secondsPerPhase` long: "mix" — M1 → M2 → M1 at N = 80 (004 Fig. 6, 8);
 * "amount" — M1 with N stepping 30, 50, 70, 90, 110, 125 (004 Fig. 7's ramp, up to where the
 * uncontrolled latency reaches about 004's 14.4 s); "clients" — M1 with N = 10, 20, … 100, for 004 Fig. 7's
 * abandon rate against the number of clients ("below 5 % with up to 75 clients").
 *
 * Runs, on the same seed: "uncontrolled" (no concurrency limit), AM-C (ofLatencyBound, 004 eq. 10,
 * L_max = 8 s, γ'_L = 0.1 as 004 §5.1 initialises it; again at 0.3, the project's gain before, as amcFast) and PM-C (ofAbandonBound, 004 eq. 13 moved from the limit in force — see
 * AbandonBoundControl — α_max = 0.1). Each law is wrapped in ConcurrencyController.smoothed (an
 * exponential filter with 0.8 on the past, a stand-in for 004 §5.1's Kalman filter) and bounded
 * (limit in [1, 300], ±5 per 10 s period); it starts at 20.
 *
 * "After convergence" is the second half of every phase; figures are request-weighted over those
 * halves (latency over completions, α over arrivals).
 *
 * Not modelled: the Kalman filter itself; PostgreSQL and TPC-C (a processor-sharing server with
 * two demand distributions and a contention coefficient instead); an admission queue (004 has none).
 *
 * Deterministic under the seed; not thread-safe (runs on the caller's thread).
 */

/** 004 §5: AM-C and PM-C against an uncontrolled server under a mix change and an amount ramp. See the design note. */
public final class AdmissionExperiment {

    static final double LATENCY_MAX_SECONDS = 8.0;
    static final double ABANDON_MAX = 0.1;
    /** 004 §5.1: "AM-C and PM-C were initialized with respectively γ = 0.1 and γ = 0.3". */
    static final double AMC_GAIN = 0.1;
    /** The AM-C gain the project ran before issue 35, reported beside 004's ({@code amcFast}). */
    static final double AMC_FAST_GAIN = 0.3;
    static final double PMC_GAIN = 0.3;
    static final double CONTROL_SECONDS = 10;
    static final double SMOOTHING = 0.8;
    static final int MAX_STEP = 5;
    static final int MAX_LIMIT = 300;
    static final int INITIAL_LIMIT = 20;
    static final double THINK_SECONDS = 4;
    static final ClosedLoop.Server SERVER = new ClosedLoop.Server(1, 4);
    static final ClosedLoop.Mix M1 = new ClosedLoop.Mix("M1", 0.5, 0.05, 0.15, 0.005);
    static final ClosedLoop.Mix M2 = new ClosedLoop.Mix("M2", 1.0, 0.0625, 0.0625, 0.036);
    /** Above any N of the scenarios: the uncontrolled server never rejects. */
    static final int UNLIMITED = 1_000_000;

    /** A phase of a scenario: {@code clients} closed-loop clients sending {@code mix}. */
    record Phase(int clients, ClosedLoop.Mix mix) {

        String name() {
            return mix.name() + "/" + clients;
        }
    }

    static final List<Phase> MIX = List.of(new Phase(80, M1), new Phase(80, M2), new Phase(80, M1));
    static final List<Phase> AMOUNT = List.of(new Phase(30, M1), new Phase(50, M1), new Phase(70, M1),
            new Phase(90, M1), new Phase(110, M1), new Phase(125, M1));
    /** 004 Fig. 7's statement "below 5 % with up to 75 clients", measured per client count: M1, N = 10 … 100. */
    static final List<Phase> CLIENTS = java.util.stream.IntStream.rangeClosed(1, 10).mapToObj(i -> new Phase(10 * i, M1))
            .toList();

    private AdmissionExperiment() {
    }

    /** Runs both scenarios, each uncontrolled, under AM-C and under PM-C (same seed), each phase {@code secondsPerPhase} long. */
    public static AdmissionResult run(long seed, double secondsPerPhase, Consumer<String> progress) {
        if (!(secondsPerPhase >= 2 * CONTROL_SECONDS)) {
            throw new IllegalArgumentException("secondsPerPhase: " + secondsPerPhase + " (expected: >= " + 2 * CONTROL_SECONDS + ")");
        }
        List<AdmissionResult.Scenario> scenarios = new ArrayList<>();
        scenarios.add(scenario("mix", MIX, seed, secondsPerPhase, progress));
        scenarios.add(scenario("amount", AMOUNT, seed, secondsPerPhase, progress));
        scenarios.add(scenario("clients", CLIENTS, seed, secondsPerPhase, progress));
        return new AdmissionResult(new AdmissionResult.Amc(LATENCY_MAX_SECONDS, AMC_GAIN, AMC_FAST_GAIN),
                new AdmissionResult.Pmc(ABANDON_MAX, PMC_GAIN), scenarios, setup(secondsPerPhase));
    }

    private static AdmissionResult.Scenario scenario(String name, List<Phase> phases, long seed, double secondsPerPhase,
                                                     Consumer<String> progress) {
        AdmissionResult.Run none = simulate(phases, () -> null, seed, secondsPerPhase);
        AdmissionResult.Run amc = simulate(phases, () -> controller(
                ConcurrencyController.ofLatencyBound(INITIAL_LIMIT, LATENCY_MAX_SECONDS, AMC_GAIN)), seed, secondsPerPhase);
        AdmissionResult.Run pmc = simulate(phases, () -> controller(
                ConcurrencyController.ofAbandonBound(INITIAL_LIMIT, ABANDON_MAX, PMC_GAIN)), seed, secondsPerPhase);
        AdmissionResult.Run amcFast = simulate(phases, () -> controller(
                ConcurrencyController.ofLatencyBound(INITIAL_LIMIT, LATENCY_MAX_SECONDS, AMC_FAST_GAIN)), seed,
                secondsPerPhase);
        progress.accept(String.format(Locale.ROOT,
                "admission %s: uncontrolled L %.2f s; amc (gain %.1f) L %.2f s (bound %.0f s), abandon %.3f; amc (gain %.1f)"
                        + " L %.2f s, abandon %.3f; pmc abandon %.3f (bound %.2f), L %.2f s",
                name, none.meanLatencyAfterConvergence(), AMC_GAIN, amc.meanLatencyAfterConvergence(), LATENCY_MAX_SECONDS,
                amc.abandonAfterConvergence(), AMC_FAST_GAIN, amcFast.meanLatencyAfterConvergence(),
                amcFast.abandonAfterConvergence(), pmc.abandonAfterConvergence(), ABANDON_MAX,
                pmc.meanLatencyAfterConvergence()));
        if (name.equals("clients")) {
            for (int i = 0; i < phases.size(); i++) {
                AdmissionResult.Phase a = amc.phases().get(i);
                AdmissionResult.Phase f = amcFast.phases().get(i);
                progress.accept(String.format(Locale.ROOT, "admission clients N = %d: amc abandon %.3f, L %.2f s; gain %.1f:"
                        + " abandon %.3f, L %.2f s; uncontrolled L %.2f s", phases.get(i).clients(), a.abandon(),
                        a.meanLatency(), AMC_FAST_GAIN, f.abandon(), f.meanLatency(), none.phases().get(i).meanLatency()));
            }
        }
        return new AdmissionResult.Scenario(name, none, amc, pmc, amcFast);
    }

    /** The control law, fed smoothed samples, its output bounded. */
    private static ConcurrencyController controller(ConcurrencyController law) {
        return ConcurrencyController.bounded(ConcurrencyController.smoothed(law, SMOOTHING), 1, MAX_LIMIT, MAX_STEP, 1);
    }

    private static AdmissionResult.Setup setup(double secondsPerPhase) {
        return new AdmissionResult.Setup(secondsPerPhase, CONTROL_SECONDS, SMOOTHING, THINK_SECONDS, SERVER.cores(),
                SERVER.knee(), List.of(mix(M1, "read-write"), mix(M2, "read-only")),
                new AdmissionResult.Limit(INITIAL_LIMIT, 1, MAX_LIMIT, MAX_STEP));
    }

    private static AdmissionResult.Mix mix(ClosedLoop.Mix m, String kind) {
        return new AdmissionResult.Mix(m.name(), kind, m.lightShare(), m.lightSeconds(), m.heavySeconds(), m.contention());
    }

    private static AdmissionResult.Run simulate(List<Phase> phases, Supplier<ConcurrencyController> law, long seed,
                                                double secondsPerPhase) {
        ConcurrencyController controller = law.get();
        List<ClosedLoop.Segment> segments = phases.stream().map(p -> new ClosedLoop.Segment(p.name(), secondsPerPhase,
                p.clients(), p.mix(), UNLIMITED)).toList();
        List<ClosedLoop.Period> periods = ClosedLoop.run(seed, THINK_SECONDS, SERVER, segments, CONTROL_SECONDS, controller);
        List<AdmissionResult.Phase> out = new ArrayList<>();
        List<AdmissionResult.Row> series = new ArrayList<>();
        long arrivals = 0;
        long rejected = 0;
        long completions = 0;
        double latencySum = 0;
        for (int i = 0; i < phases.size(); i++) {
            double half = (i + 0.5) * secondsPerPhase;
            long a = 0;
            long r = 0;
            long c = 0;
            double l = 0;
            double limitSum = 0;
            int n = 0;
            for (ClosedLoop.Period p : periods) {
                if (p.segment() == i && p.t() - p.seconds() >= half - 1e-9) {
                    a += p.arrivals();
                    r += p.rejected();
                    c += p.completions();
                    l += p.latencySum();
                    limitSum += Math.min(p.limit(), phases.get(i).clients());
                    n++;
                }
            }
            Phase ph = phases.get(i);
            out.add(new AdmissionResult.Phase(ph.name(), ph.clients(), ph.mix().name(), Experiments.round(c == 0 ? 0 : l / c),
                    Experiments.round(a == 0 ? 0 : (double) r / a), Experiments.round(n == 0 ? 0 : limitSum / n),
                    Experiments.round(c / (secondsPerPhase / 2))));
            arrivals += a;
            rejected += r;
            completions += c;
            latencySum += l;
        }
        for (ClosedLoop.Period p : periods) {
            int clients = phases.get(p.segment()).clients();
            series.add(new AdmissionResult.Row(Experiments.round(p.t()), clients, Math.min(p.limit(), clients),
                    Experiments.round(p.inFlight()), Experiments.round(p.latency()), Experiments.round(p.abandon())));
        }
        return new AdmissionResult.Run(Experiments.round(completions == 0 ? 0 : latencySum / completions),
                Experiments.round(arrivals == 0 ? 0 : (double) rejected / arrivals), out, series);
    }
}
