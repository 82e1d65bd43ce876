package org.arbiter.loadgen.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.List;
import java.util.SplittableRandom;
import org.arbiter.loadgen.workload.ArrivalProcess;
import org.arbiter.loadgen.workload.Distributions;
import org.junit.jupiter.api.Test;

/** The processor-sharing model in virtual time, against queueing theory and 003 Fig. 7. */
final class PsServerTest {

    /** Open-loop Poisson run; returns {mean response, throughput, mean busy fraction}. */
    static double[] open(PsServer<Double> s, double rate, double meanDemand, int requests, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        ArrivalProcess arrivals = ArrivalProcess.poisson(rate);
        double t = 0;
        double sum = 0;
        long done = 0;
        for (int i = 0; i < requests; i++) {
            t = arrivals.nextArrival(t, random);
            for (PsServer.Done<Double> d : s.admit(t, Distributions.exponential(random, meanDemand), t)) {
                sum += d.timeSeconds() - d.request();
                done++;
            }
        }
        while (s.inFlight() > 0) {
            for (PsServer.Done<Double> d : s.advanceTo(s.nextCompletionTime())) {
                sum += d.timeSeconds() - d.request();
                done++;
            }
        }
        return new double[] {sum / done, done / s.now(), s.busyArea() / s.now()};
    }

    /** Closed loop, think 0: N requests always in the server; returns the throughput. */
    static double closed(PsServer<Integer> s, int n, double meanDemand, double seconds, long seed) {
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < n; i++) {
            s.admit(i, Distributions.exponential(random, meanDemand), 0);
        }
        long done = 0;
        double warmup = seconds / 10;
        while (true) {
            double t = s.nextCompletionTime();
            if (t > seconds) {
                break;
            }
            for (PsServer.Done<Integer> d : s.advanceTo(t)) {
                if (t >= warmup) {
                    done++;
                }
                s.admit(d.request(), Distributions.exponential(random, meanDemand), t);
            }
        }
        return done / (seconds - warmup);
    }

    @Test
    void oneCore_atHalfLoad_meanResponseIsMm1() {
        // M/M/1-PS, μ = 10/s, λ = 5/s: E[R] = 1/(μ − λ) = 0.2 s, X = λ, utilisation ρ = 0.5.
        double[] r = open(new PsServer<>(1, 0, 10, 0), 5, 0.1, 200_000, 1);
        assertThat(r[0]).isCloseTo(0.2, within(0.02));
        assertThat(r[1]).isCloseTo(5, within(0.1));
        assertThat(r[2]).isCloseTo(0.5, within(0.02));
    }

    @Test
    void saturatedThroughput_isCoresOverMeanDemand() {
        assertThat(closed(new PsServer<>(10, 0, 10, 0), 40, 0.1, 2_000, 2)).isCloseTo(100, within(2.0));
        assertThat(closed(new PsServer<>(1, 0, 10, 0), 5, 0.1, 2_000, 3)).isCloseTo(10, within(0.2));
        assertThat(new PsServer<Integer>(10, 0, 10, 0).capacityPerSecond(0.1)).isCloseTo(100, within(1e-9));
    }

    @Test
    void fig7_throughputRisesToTheKneeAtCores_isFlatWithoutOverhead_andFallsWithIt() {
        double[] flat = new double[31];
        double[] thrash = new double[31];
        for (int n = 1; n <= 30; n++) {
            flat[n] = closed(new PsServer<>(10, 0, 10, 0), n, 0.1, 1_000, n);
            thrash[n] = closed(new PsServer<>(10, 0.05, 10, 0), n, 0.1, 1_000, n);
        }
        for (int n = 1; n <= 10; n++) {
            // Below the knee every request has a CPU of its own: X = n / demand.
            assertThat(flat[n]).as("N=%d", n).isCloseTo(n * 10.0, within(n * 10.0 * 0.05));
            assertThat(thrash[n]).as("N=%d", n).isCloseTo(flat[n], within(n * 10.0 * 0.05));
        }
        for (int n = 11; n <= 30; n++) {
            assertThat(flat[n]).as("N=%d", n).isCloseTo(100, within(5.0));
            // Above it: X = 100 · eff(n) = 100 / (1 + 0.05 (n − 10)).
            assertThat(thrash[n]).as("N=%d", n).isCloseTo(100 / (1 + 0.05 * (n - 10)), within(5.0));
        }
        int argmax = 1;
        for (int n = 1; n <= 30; n++) {
            argmax = thrash[n] > thrash[argmax] ? n : argmax;
        }
        assertThat(argmax).isBetween(9, 11);
        assertThat(thrash[30]).isLessThan(0.6 * thrash[10]);
    }

    @Test
    void ioBoundWork_holdsLessCpu_atTheSameThroughput() {
        // 000 §7: the same 50 req/s of 100 ms requests; CPU-bound uses 50 % of 10 CPUs, 80 % I/O uses 10 %.
        double[] cpuBound = open(new PsServer<>(10, 0, 10, 0), 50, 0.1, 100_000, 4);
        double[] ioBound = open(new PsServer<>(10, 0, 10, 0.8), 50, 0.1, 100_000, 4);
        assertThat(cpuBound[1]).isCloseTo(50, within(1.0));
        assertThat(ioBound[1]).isCloseTo(50, within(1.0));
        assertThat(cpuBound[2]).isCloseTo(0.5, within(0.02));
        assertThat(ioBound[2]).isCloseTo(0.1, within(0.01));
        // An idle 10-CPU server serves a lone request in exactly its demand, CPU then I/O.
        PsServer<String> s = new PsServer<>(10, 0, 10, 0.8);
        s.admit("a", 1.0, 0);
        assertThat(s.nextCompletionTime()).isCloseTo(0.2, within(1e-9));
        assertThat(s.advanceTo(0.5)).isEmpty();
        assertThat(s.cpuInFlight()).isZero();
        assertThat(s.busyFraction()).isZero();
        assertThat(s.advanceTo(1.0)).containsExactly(new PsServer.Done<>("a", 1.0));
    }

    @Test
    void processorSharing_splitsOneCoreEvenly_andDrainDropsEverything() {
        PsServer<String> s = new PsServer<>(1, 0, 10, 0);
        s.admit("a", 1.0, 0);
        s.admit("b", 1.0, 0);
        assertThat(s.busyFraction()).isEqualTo(1.0);
        // Two requests share one CPU: both finish at 2 s.
        assertThat(s.nextCompletionTime()).isCloseTo(2.0, within(1e-9));
        s.admit("c", 3.0, 1.0);
        // From 1 s, three share: a and b have 0.5 s left each at rate 1/3 → done at 2.5 s.
        List<PsServer.Done<String>> done = s.advanceTo(2.5);
        assertThat(done).extracting(PsServer.Done::request).containsExactly("a", "b");
        assertThat(s.drain(2.6)).containsExactly("c");
        assertThat(s.inFlight()).isZero();
        assertThat(s.nextCompletionTime()).isInfinite();
    }

    @Test
    void badParameters_nameTheirRule() {
        assertThatThrownBy(() -> new PsServer<>(0, 0, 10, 0)).hasMessage("cores: 0 (expected: >= 1)");
        assertThatThrownBy(() -> new PsServer<>(1, -1, 10, 0)).hasMessage("overhead: -1.0 (expected: >= 0)");
        assertThatThrownBy(() -> new PsServer<>(1, 0, 10, 1)).hasMessage("ioFraction: 1.0 (expected: 0 <= x < 1)");
        assertThatThrownBy(() -> new PsServer<String>(1, 0, 10, 0).admit("x", -1, 0))
                .hasMessage("demandSeconds: -1.0 (expected: >= 0)");
    }
}
