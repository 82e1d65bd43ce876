package org.arbiter.live.cli;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.GatewayConfig;

/**
 * One experiment of {@code arbiter experiment}: its name, its line of help, the options it reads
 * beyond the common ones, how it runs in the simulator and (where it can) live. Registered once,
 * in {@link ExperimentRegistry}; the command, its validation and its {@code --help} come from there.
 *
 * @param name      what follows {@code arbiter experiment}
 * @param help      one line for {@code --help}: the paper and figure, and what its options mean here
 * @param accepts   the options beyond --out, --seed and --seconds that it reads
 * @param simulated the simulated run
 * @param live      the live run ({@link Runner#NONE} when there is none)
 */
public record Experiment(String name, String help, Set<Knob> accepts, Runner simulated, Runner live) {

    public Experiment {
        requireNonNull(name, "name");
        requireNonNull(help, "help");
        accepts = accepts.isEmpty() ? Set.of() : Set.copyOf(EnumSet.copyOf(accepts));
        requireNonNull(simulated, "simulated");
        requireNonNull(live, "live");
    }

    /** An experiment that runs in the simulator only. */
    static Experiment simulated(String name, String help, Set<Knob> accepts, Runner simulated) {
        return new Experiment(name, help, accepts, simulated, Runner.NONE);
    }

    /** True when {@code --live} runs it over real processes. */
    public boolean hasLive() {
        return live != Runner.NONE;
    }

    /** Options that only some experiments read. */
    public enum Knob {
        /** --combine min|sum */
        COMBINE,
        /** --points N */
        POINTS,
        /** --seeds N */
        SEEDS,
        /** --size G,S,C, --pools P and --owners K */
        SIZE,
        /** --faults LIST and --quick */
        FAULTS,
        /** --connections N and --quick */
        ABUSE,
        /** --layout pooled|per-node and --arrivals poisson|mmpp */
        LAYOUT,
        /** --gateways arbiter|haproxy (with --live) */
        GATEWAYS,
        /** --runs N, --spikes LIST, --contenders LIST and --quick */
        OVERLOAD
    }

    /**
     * What the command line gave, typed.
     *
     * @param seconds      --seconds (its default, 600, when not given: see {@link #secondsOr})
     * @param points       --points, or 0 when not given (see {@link #pointsOr})
     * @param size         --size as given (the scale experiment parses it)
     * @param pools        --pools (0: none)
     * @param owners       --owners
     * @param faults       --faults as given (the fault campaign parses it)
     * @param connections  --connections, or 0 when not given (the abuse campaign's default then)
     * @param layout       --layout as given (default "pooled"; the yield experiment parses it)
     * @param arrivals     --arrivals as given (default "poisson"; the yield experiment parses it)
     * @param gateways     --gateways: the live phases' gateways ({@code arbiter} default)
     * @param runs         --runs, or 0 when not given (the overload benchmark's default then)
     * @param spikes       --spikes as given, or null (the overload benchmark parses it)
     * @param contenders   --contenders as given (default "all"; the overload benchmark parses it)
     * @param progress     where progress lines go
     */
    public record Options(long seed, double seconds, boolean secondsGiven, int points, boolean pointsGiven,
                          ControlConfig.Combine combine, int seeds, String size, String faults, boolean quick,
                          int connections, double timeScale, Path out, PrintWriter progress, PrintWriter stdout,
                          int pools, int owners, String layout, String arrivals, GatewayConfig.Kind gateways,
                          int runs, String spikes, String contenders) {

        public Options {
            requireNonNull(combine, "combine");
            requireNonNull(out, "out");
            requireNonNull(progress, "progress");
            requireNonNull(stdout, "stdout");
            requireNonNull(layout, "layout");
            requireNonNull(arrivals, "arrivals");
            requireNonNull(gateways, "gateways");
        }

        /** --seconds if given, else {@code fallback}. */
        public double secondsOr(double fallback) {
            return secondsGiven ? seconds : fallback;
        }

        /** --points if given, else {@code fallback}. */
        public int pointsOr(int fallback) {
            return pointsGiven ? points : fallback;
        }

        /** Progress lines, one per call. */
        public void progress(String line) {
            progress.println(line);
        }
    }

    /** What a run produced: the record result.json is written from, and how to draw its charts. */
    public record Output(Record result, ChartWriter charts) {

        public Output {
            requireNonNull(result, "result");
            requireNonNull(charts, "charts");
        }

        /** A result with no charts. */
        static Output withoutCharts(Record result) {
            return new Output(result, dir -> List.of());
        }
    }

    /** Writes a run's charts (or other files beside result.json) into a directory; returns what it wrote. */
    @FunctionalInterface
    public interface ChartWriter {
        List<Path> write(Path dir) throws IOException;
    }

    /** Runs an experiment with the given options. */
    @FunctionalInterface
    public interface Runner {
        /** No such run. */
        Runner NONE = options -> {
            throw new UnsupportedOperationException("no such run");
        };

        Output run(Options options) throws Exception;
    }

    /** The experiment ran but failed (the command exits 1 with this message). */
    public static final class Failed extends Exception {
        private static final long serialVersionUID = 1L;

        public Failed(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
