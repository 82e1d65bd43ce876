package org.arbiter.grm;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.arbiter.common.utility.UtilityFunction;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * Solve time of the GRM core ({@link GrmSolver#solve}: flow models, optimiser, N(g,s) partition)
 * for F flows sharing N slots, both objectives, granularity q (1 = 003's integer weights).
 * Flows: 10 gateways × (F/10) classes, random loads around saturation (some flows unstable at
 * their fair share), N_s = 10 per server. Run with (common installed in ~/.m2, or add {@code -am}):
 *
 * <pre>
 * ./mvnw -B -pl grm -Pbenchmarks package -DskipTests
 * java -jar grm/target/benchmarks.jar OptimizerBenchmark -f 1 -wi 2 -w 1s -i 5 -r 2s -jvmArgs -Xmx2g
 * java -jar grm/target/benchmarks.jar OptimizerBenchmark -p size=100:1000 -p granularity=10 -f 1 -wi 2 -i 5
 * </pre>
 *
 * Results and the machine they were measured on: docs/grm.md.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
@Warmup(iterations = 2, time = 2)
@Measurement(iterations = 3, time = 2)
@Fork(1)
public class OptimizerBenchmark {

    /** "flows:N". */
    @Param({"10:100", "100:1000", "1000:10000"})
    public String size;

    @Param({"MIN", "SUM"})
    public String combine;

    /** q: weights in units of 1/q. */
    @Param({"1"})
    public int granularity;

    /** fast: {@link GrmSolver#solve} (the fast exact paths where they apply, else the DP); dp: the DP alone. */
    @Param({"fast", "dp"})
    public String path;

    private Problem problem;

    @Setup(Level.Trial)
    public void setUp() {
        String[] p = size.split(":");
        int flows = Integer.parseInt(p[0]);
        int n = Integer.parseInt(p[1]);
        problem = problem(flows, n, Problem.Combine.valueOf(combine), granularity, 7);
    }

    /** A reproducible instance: 10 gateways (or fewer), classes with targets 1-4 s. */
    public static Problem problem(int flows, int n, Problem.Combine combine, int granularity, long seed) {
        Random rnd = new Random(seed);
        int gateways = Math.min(10, flows);
        int classes = (flows + gateways - 1) / gateways;
        List<Problem.ClassSpec> cs = new ArrayList<>();
        for (int c = 0; c < classes; c++) {
            double tau = 1 + rnd.nextInt(4);
            cs.add(new Problem.ClassSpec("c" + c, tau, UtilityFunction.pacifici(tau, 1, 1, 1), 0, 10));
        }
        List<Problem.Flow> fs = new ArrayList<>();
        double w = (double) n / flows;
        for (int i = 0; i < flows; i++) {
            double lambda = w * (0.5 + rnd.nextDouble());
            fs.add(new Problem.Flow("g" + (i % gateways), "c" + (i / gateways), lambda, 0.5 + 3 * rnd.nextDouble(), w, 0));
        }
        List<Problem.Server> servers = new ArrayList<>();
        for (int s = 0; s < n / 10; s++) {
            servers.add(new Problem.Server("s" + s, 10));
        }
        return new Problem(servers, cs, fs, new Problem.Parameters(combine, granularity, 1, Problem.Prediction.MM1, 5, 1), Map.of());
    }

    @Benchmark
    public Solution solve() {
        return "dp".equals(path) ? GrmSolver.solveByDp(problem) : GrmSolver.solve(problem);
    }
}
