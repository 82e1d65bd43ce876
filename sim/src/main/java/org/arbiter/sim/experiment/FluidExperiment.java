package org.arbiter.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.arbiter.grm.model.FluidModel;

/*
 * Design note — the fluid experiment (004 §3 and §5.2, Fig. 3-5): 004's fluid model (grm's
 * FluidModel, eq. 4-7) against the simulated server it models.
 *
 * Testbed: the admission experiment's (ClosedLoop: closed-loop clients with think time Exp(4 s),
 * an admission proxy, the processor-sharing server with one CPU, as 004's one-processor
 * PostgreSQL host), mix M1. Each steady-state point is `pointSeconds` long and measured over its
 * last two thirds; each Fig. 5 segment is `segmentSeconds` long. Points are long (default 9 000 s)
 * because near saturation (N ≈ 50, where T_o reaches capacity) the closed loop's N_e is
 * N − Z·T_o: a 1 % error in T_o is a 4 % error in N_e, and a 600 s point's own noise is ±5 %.
 *
 * Fig. 4: without a limit, N = 10, 20 … 120: the measured (N_e, L) and L = a N_e² + b N_e + c
 * fitted by non-negative least squares of the relative error (FluidModel.Latency.fit) — the
 * model's only calibration.
 * Fig. 3: with MPL = 40, N = 20, 30 … 120: the measured α, and ᾱ evaluated on the measured N_e,
 * T_o and T_i, naive and improved (FluidModel.Abandon). Beside them, the model's steady state
 * (N_e, T_o) for the same N and MPL, and its relative error against the measured values.
 * Fig. 5: open loop, (N, MPL) stepping (40, 60), (80, 60), (80, 30), (120, 30), (120, 70),
 * (60, 70); the model (improved ᾱ, Δ = 10 s) integrated from an idle server through the same
 * inputs, averaged over the same 10 s periods as the measurements; mean absolute and relative
 * error (mean |model − measured| over the mean measured value) for N_e, T_o and α.
 *
 * Deterministic under the seed; not thread-safe (runs on the caller's thread).
 */

/** 004 Fig. 3-5: the fluid model against the simulated server. See the design note. */
public final class FluidExperiment {

    static final double THINK_SECONDS = AdmissionExperiment.THINK_SECONDS;
    static final ClosedLoop.Server SERVER = AdmissionExperiment.SERVER;
    static final ClosedLoop.Mix MIX = AdmissionExperiment.M1;
    static final double DELTA_SECONDS = 10;
    static final double PERIOD_SECONDS = 10;
    static final int SWEEP_MPL = 40;
    static final int[][] DYNAMICS = {{40, 60}, {80, 60}, {80, 30}, {120, 30}, {120, 70}, {60, 70}};

    private FluidExperiment() {
    }

    /** The default length of a steady-state point (Fig. 3-4), in simulated seconds. */
    public static final double POINT_SECONDS = 9000;
    /** The default length of a Fig. 5 segment, in simulated seconds. */
    public static final double SEGMENT_SECONDS = 600;

    /**
     * Runs the three figures: each steady-state point (Fig. 3-4) {@code pointSeconds} long, each
     * Fig. 5 segment {@code segmentSeconds}.
     */
    public static FluidResult run(long seed, double pointSeconds, double segmentSeconds, Consumer<String> progress) {
        checkLength("pointSeconds", pointSeconds);
        checkLength("segmentSeconds", segmentSeconds);
        // Fig. 4: latency against N_e, no limit
        List<FluidResult.LatencyPoint> latency = new ArrayList<>();
        for (int n = 10; n <= 120; n += 10) {
            Steady s = steady(seed + n, n, AdmissionExperiment.UNLIMITED, pointSeconds);
            latency.add(new FluidResult.LatencyPoint(n, Experiments.round(s.inFlight), Experiments.round(s.latency)));
        }
        FluidModel.Latency fit = FluidModel.Latency.fit(latency.stream().mapToDouble(FluidResult.LatencyPoint::inFlight).toArray(),
                latency.stream().mapToDouble(FluidResult.LatencyPoint::latency).toArray());
        double sq = 0;
        for (FluidResult.LatencyPoint p : latency) {
            sq += Math.pow(fit.at(p.inFlight()) - p.latency(), 2);
        }
        FluidModel model = new FluidModel(THINK_SECONDS, fit, DELTA_SECONDS, FluidModel.Abandon.IMPROVED);
        // Fig. 3: abandon rate against N at a fixed MPL
        List<FluidResult.AbandonPoint> abandon = new ArrayList<>();
        for (int n = 20; n <= 120; n += 10) {
            Steady s = steady(seed + 1000 + n, n, SWEEP_MPL, pointSeconds);
            FluidModel.State m = model.steadyState(n, SWEEP_MPL);
            abandon.add(new FluidResult.AbandonPoint(n, Experiments.round(s.abandon),
                    Experiments.round(FluidModel.Abandon.NAIVE.steady(s.inFlight, SWEEP_MPL, s.throughput, s.incoming)),
                    Experiments.round(FluidModel.Abandon.IMPROVED.steady(s.inFlight, SWEEP_MPL, s.throughput, s.incoming)),
                    Experiments.round(s.inFlight), Experiments.round(m.inFlight()), Experiments.round(s.throughput),
                    Experiments.round(m.throughput()), Experiments.round(s.incoming)));
        }
        // Fig. 5: open loop with N and MPL varying
        List<ClosedLoop.Segment> segments = new ArrayList<>();
        for (int[] d : DYNAMICS) {
            segments.add(new ClosedLoop.Segment("N " + d[0] + ", MPL " + d[1], segmentSeconds, d[0], MIX, d[1]));
        }
        List<ClosedLoop.Period> periods = ClosedLoop.run(seed + 2000, THINK_SECONDS, SERVER, segments, PERIOD_SECONDS, null);
        List<FluidResult.DynamicsRow> rows = new ArrayList<>();
        FluidModel.State state = FluidModel.State.IDLE;
        double[] err = new double[3];
        double[] sum = new double[3];
        for (ClosedLoop.Period p : periods) {
            int[] d = DYNAMICS[p.segment()];
            double ne = 0;
            double to = 0;
            double a = 0;
            int sub = 10;
            for (int i = 0; i < sub; i++) { // the period's average of the model, as the measurement is one
                state = model.advance(state, d[0], d[1], p.seconds() / sub);
                ne += state.inFlight() / sub;
                to += state.throughput() / sub;
                a += state.abandon() / sub;
            }
            rows.add(new FluidResult.DynamicsRow(Experiments.round(p.t()), d[0], d[1], Experiments.round(p.inFlight()),
                    Experiments.round(ne), Experiments.round(p.throughput()), Experiments.round(to),
                    Experiments.round(p.abandon()), Experiments.round(a)));
            err[0] += Math.abs(ne - p.inFlight());
            err[1] += Math.abs(to - p.throughput());
            err[2] += Math.abs(a - p.abandon());
            sum[0] += p.inFlight();
            sum[1] += p.throughput();
            sum[2] += p.abandon();
        }
        int k = periods.size();
        FluidResult.Errors dynamics = new FluidResult.Errors(error(err[0], sum[0], k), error(err[1], sum[1], k),
                error(err[2], sum[2], k));
        FluidResult r = new FluidResult(new FluidResult.Fit(round6(fit.a()), round6(fit.b()),
                round6(fit.c()), Experiments.round(Math.sqrt(sq / latency.size()))), latency, abandon, rows,
                dynamics, new FluidResult.Setup(pointSeconds, segmentSeconds, THINK_SECONDS, SERVER.cores(), SERVER.knee(), MIX.name(),
                DELTA_SECONDS, PERIOD_SECONDS, SWEEP_MPL));
        progress.accept(String.format(Locale.ROOT, "fluid: L = %.5f N² + %.5f N + %.4f; dynamics error N_e %.3f (%.1f %%), T_o %.3f (%.1f %%), α %.3f (%.1f %%)",
                fit.a(), fit.b(), fit.c(), dynamics.inFlight().meanAbsolute(), 100 * dynamics.inFlight().relative(),
                dynamics.throughput().meanAbsolute(), 100 * dynamics.throughput().relative(), dynamics.abandon().meanAbsolute(),
                100 * dynamics.abandon().relative()));
        return r;
    }

    private static void checkLength(String name, double seconds) {
        if (!(seconds >= 3 * PERIOD_SECONDS) || !Double.isFinite(seconds)) {
            throw new IllegalArgumentException(name + ": " + seconds + " (expected: finite, >= " + 3 * PERIOD_SECONDS + ")");
        }
    }

    private static FluidResult.Error error(double absSum, double valueSum, int n) {
        return new FluidResult.Error(Experiments.round(absSum / n), Experiments.round(valueSum == 0 ? 0 : absSum / valueSum));
    }

    private static double round6(double d) {
        return Math.round(d * 1e6) / 1e6;
    }

    private record Steady(double inFlight, double latency, double throughput, double incoming, double abandon) {
    }

    /** One point held {@code seconds}: the measurements over its last two thirds. */
    private static Steady steady(long seed, int clients, int mpl, double seconds) {
        List<ClosedLoop.Period> periods = ClosedLoop.run(seed, THINK_SECONDS, SERVER,
                List.of(new ClosedLoop.Segment("point", seconds, clients, MIX, mpl)), PERIOD_SECONDS, null);
        double from = seconds / 3;
        double area = 0;
        double time = 0;
        long arrivals = 0;
        long rejected = 0;
        long completions = 0;
        double latencySum = 0;
        for (ClosedLoop.Period p : periods) {
            if (p.t() - p.seconds() >= from - 1e-9) {
                area += p.inFlight() * p.seconds();
                time += p.seconds();
                arrivals += p.arrivals();
                rejected += p.rejected();
                completions += p.completions();
                latencySum += p.latencySum();
            }
        }
        return new Steady(area / time, completions == 0 ? 0 : latencySum / completions, completions / time,
                arrivals / time, arrivals == 0 ? 0 : (double) rejected / arrivals);
    }
}
