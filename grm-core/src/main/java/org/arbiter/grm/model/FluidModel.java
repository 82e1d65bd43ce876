package org.arbiter.grm.model;

import java.util.Objects;

/*
 * Design note — 004's fluid model of a server behind an admission limit (004 §3, eq. 4-7).
 *
 * State: N_e, the requests admitted and in the server; T_o, its outgoing throughput (req/s);
 * α, the share of arriving requests rejected by the limit MPL. Inputs: N, the closed-loop
 * clients (each thinks Z seconds between an answer — or a rejection — and its next request); MPL;
 * the mix, through the latency curve L(N_e) = a N_e² + b N_e + c (eq. 7). Equations:
 *
 *     dN_e/dt = (1 − α) T_i − T_o                                    (eq. 4)
 *     dT_o/dt = −(T_o − N_e / L(N_e)) / Δ                            (eq. 5, Little's law)
 *     dα/dt   = −(α − ᾱ) / Δ                                          (eq. 6)
 *
 * with 0 ≤ N_e ≤ min(N, MPL). T_i, the incoming throughput, is not an input of 004's model; with
 * closed-loop clients it is the rate at which those not in the server send: T_i = (N − N_e)/Z.
 * ᾱ, the steady abandon rate, comes in two forms (004 §3 and Fig. 3):
 *   naive     ᾱ = 0 while N_e < MPL, and 1 − T_o/T_i once N_e = MPL;
 *   improved  ᾱ = (N_e / MPL) (1 − T_o/T_i)  — the closer the average N_e is to the limit, the
 *             likelier a burst of arrivals finds the server full.
 * Both are clamped to [0, 1] (T_o > T_i means nothing is rejected); with T_i = 0 there is nothing
 * to reject (ᾱ = 0). Note: at a fixed point eq. 4 forces α = 1 − T_o/T_i, so with the improved
 * ᾱ the model's steady state still has α > 0 only once N_e = MPL; the improved form changes the
 * transients, and as an estimator evaluated on measured N_e, T_o, T_i (004 Fig. 3) its values.
 *
 * Integration: explicit Euler, in substeps of at most dtMax (0.01 s, small against Δ and against
 * N_e's own time scale L); N_e is clamped after each substep (the limit rejects the excess).
 *
 * Thread-safety: immutable (records); every method is a pure function.
 */

/**
 * 004's fluid model (eq. 4-7) of one server with closed-loop clients and an admission limit.
 * Immutable and thread-safe. See the design note.
 *
 * @param thinkSeconds Z, the clients' mean think time (> 0)
 * @param latency      L(N_e), the mix's latency curve (eq. 7)
 * @param deltaSeconds Δ, the time constant of T_o and α (> 0)
 * @param abandon      which ᾱ drives eq. 6
 */
public record FluidModel(double thinkSeconds, Latency latency, double deltaSeconds, Abandon abandon) {

    private static final double DT_MAX_SECONDS = 0.01;

    public FluidModel {
        if (!(thinkSeconds > 0)) {
            throw new IllegalArgumentException("thinkSeconds: " + thinkSeconds + " (expected: > 0)");
        }
        if (!(deltaSeconds > 0)) {
            throw new IllegalArgumentException("deltaSeconds: " + deltaSeconds + " (expected: > 0)");
        }
        Objects.requireNonNull(latency, "latency");
        Objects.requireNonNull(abandon, "abandon");
    }

    /** The same model with the other ᾱ. */
    public FluidModel with(Abandon other) {
        return new FluidModel(thinkSeconds, latency, deltaSeconds, other);
    }

    /**
     * 004 eq. 7, L(N_e) = a N_e² + b N_e + c, in seconds; a, b, c ≥ 0 and c > 0 (a request alone
     * still takes time).
     */
    public record Latency(double a, double b, double c) {

        public Latency {
            if (!(a >= 0) || !(b >= 0) || !(c > 0)) {
                throw new IllegalArgumentException("latency: a " + a + ", b " + b + ", c " + c
                        + " (expected: a >= 0, b >= 0, c > 0)");
            }
        }

        /** L at {@code inFlight} requests (s). */
        public double at(double inFlight) {
            double n = Math.max(0, inFlight);
            return a * n * n + b * n + c;
        }

        /**
         * a, b ≥ 0, c > 0 minimising the relative error Σ ((a N² + b N + c − L) / L)² over the
         * points (exact over the active sets of the three-parameter problem: the best
         * non-negative solution). Relative, because the model's throughput is N_e / L: a given
         * relative error in L is the same relative error in T_o at any load, where an absolute
         * fit lets the slowest points (seconds) set the curve and misses the light end.
         *
         * @throws IllegalArgumentException with fewer than three points, arrays of different
         *                                  lengths, a latency that is not positive, or no fit with c > 0
         */
        public static Latency fit(double[] inFlight, double[] latencySeconds) {
            if (inFlight.length != latencySeconds.length || inFlight.length < 3) {
                throw new IllegalArgumentException("points: " + inFlight.length + " N_e, " + latencySeconds.length
                        + " L (expected: as many of each, at least 3)");
            }
            double[] weight = new double[latencySeconds.length];
            for (int i = 0; i < weight.length; i++) {
                if (!(latencySeconds[i] > 0) || !Double.isFinite(latencySeconds[i]) || !Double.isFinite(inFlight[i])) {
                    throw new IllegalArgumentException("point " + i + ": N_e " + inFlight[i] + ", L " + latencySeconds[i]
                            + " (expected: finite, L > 0)");
                }
                weight[i] = 1 / latencySeconds[i];
            }
            double[] best = null;
            double bestErr = Double.POSITIVE_INFINITY;
            for (int mask = 1; mask < 8; mask++) {
                if ((mask & 4) == 0) {
                    continue; // c is always fitted: it is the zero-load latency
                }
                double[] p = QuadraticLeastSquares.solve(mask, inFlight, latencySeconds, weight, inFlight.length);
                if (p == null || p[0] < 0 || p[1] < 0 || !(p[2] > 0)) {
                    continue;
                }
                double err = QuadraticLeastSquares.squaredError(p, inFlight, latencySeconds, weight, inFlight.length);
                if (err < bestErr) {
                    bestErr = err;
                    best = p;
                }
            }
            if (best == null) {
                throw new IllegalArgumentException("points: no fit with a >= 0, b >= 0, c > 0");
            }
            return new Latency(best[0], best[1], best[2]);
        }
    }

    /** The steady abandon rate ᾱ that eq. 6 relaxes to. */
    public enum Abandon {
        /** 0 while N_e < MPL, 1 − T_o/T_i at the limit (004 §3, "naive model" of Fig. 3). */
        NAIVE,
        /** (N_e / MPL)(1 − T_o/T_i) (004 eq. 6). */
        IMPROVED;

        /** ᾱ for the given state and inputs, in [0, 1]. */
        public double steady(double inFlight, double mpl, double throughput, double incoming) {
            if (!(incoming > 0) || !(mpl > 0)) {
                return 0;
            }
            double shortfall = Math.max(0, Math.min(1, 1 - throughput / incoming));
            return switch (this) {
                case NAIVE -> inFlight >= mpl - 1e-9 ? shortfall : 0;
                case IMPROVED -> Math.min(1, Math.max(0, inFlight / mpl)) * shortfall;
            };
        }
    }

    /** (N_e, T_o, α): requests in the server, completions/s, rejected share of arrivals. */
    public record State(double inFlight, double throughput, double abandon) {

        /** An idle server: nothing in it, nothing out, nothing rejected. */
        public static final State IDLE = new State(0, 0, 0);
    }

    /** T_i with {@code clients} closed-loop clients, {@code inFlight} of them in the server: (N − N_e)/Z. */
    public double incoming(double clients, double inFlight) {
        return Math.max(0, clients - inFlight) / thinkSeconds;
    }

    /**
     * The state {@code seconds} later with {@code clients} and {@code mpl} held constant
     * (eq. 4-6, Euler substeps of at most 0.01 s).
     */
    public State advance(State s, double clients, double mpl, double seconds) {
        if (!(clients >= 0) || !(mpl > 0) || !(seconds >= 0)) {
            throw new IllegalArgumentException("clients " + clients + ", mpl " + mpl + ", seconds " + seconds
                    + " (expected: clients >= 0, mpl > 0, seconds >= 0)");
        }
        int steps = (int) Math.ceil(seconds / DT_MAX_SECONDS);
        double dt = steps == 0 ? 0 : seconds / steps;
        double ne = s.inFlight();
        double to = s.throughput();
        double a = s.abandon();
        double cap = Math.min(clients, mpl);
        for (int i = 0; i < steps; i++) {
            double ti = incoming(clients, ne);
            double dNe = (1 - a) * ti - to;
            double dTo = -(to - ne / latency.at(ne)) / deltaSeconds;
            double dA = -(a - abandon.steady(ne, mpl, to, ti)) / deltaSeconds;
            ne = Math.max(0, Math.min(cap, ne + dt * dNe));
            to = Math.max(0, to + dt * dTo);
            a = Math.max(0, Math.min(1, a + dt * dA));
        }
        return new State(ne, to, a);
    }

    /**
     * The steady state with {@code clients} and {@code mpl} held: N_e the root of
     * (N − N_e)/Z = N_e/L(N_e) capped at min(N, MPL), T_o = N_e/L(N_e), α = 1 − T_o/T_i at the cap
     * and 0 below it (eq. 4-6 at rest; the same for both ᾱ, see the design note).
     */
    public State steadyState(double clients, double mpl) {
        if (!(clients >= 0) || !(mpl > 0)) {
            throw new IllegalArgumentException("clients " + clients + ", mpl " + mpl
                    + " (expected: clients >= 0, mpl > 0)");
        }
        // (N − n)/Z − n/L(n) falls strictly in n: bisection on [0, N]
        double lo = 0;
        double hi = clients;
        for (int i = 0; i < 200 && hi - lo > 1e-12; i++) {
            double mid = (lo + hi) / 2;
            if (incoming(clients, mid) - mid / latency.at(mid) > 0) {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        double free = (lo + hi) / 2;
        if (free <= mpl) {
            return new State(free, free / latency.at(free), 0);
        }
        double to = mpl / latency.at(mpl);
        double ti = incoming(clients, mpl);
        return new State(mpl, to, ti > 0 ? Math.max(0, 1 - to / ti) : 0);
    }
}
