package org.arbiter.live.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import org.arbiter.common.config.Choice;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.sim.experiment.ResultJson;
import org.arbiter.sim.experiment.ScaleExperiment;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code arbiter experiment NAME}: the papers' experiments, in the simulator or live. The
 * experiments, their names and their lines of {@code --help} come from {@link ExperimentRegistry};
 * this class only reads the options, checks which experiment accepts which, runs it and writes
 * result.json and its charts.
 */
@Command(name = "experiment", mixinStandardHelpOptions = true, modelTransformer = ExperimentCommand.Help.class,
        description = "Runs one of the papers' reference experiments in the simulator (virtual time) and writes"
                + " DIR/result.json and PNG charts. NAME:")
public final class ExperimentCommand implements Callable<Integer> {

    /** Adds every registered experiment's line to the description and lists the names under NAME. */
    public static final class Help implements CommandLine.IModelTransformer {
        @Override
        public CommandSpec transform(CommandSpec spec) {
            List<String> lines = new ArrayList<>(List.of(spec.usageMessage().description()));
            for (Experiment e : ExperimentRegistry.all()) {
                lines.add("  " + e.name() + " (" + e.help().replace("%", "%%") + ")");
            }
            spec.usageMessage().description(lines.toArray(String[]::new));
            return spec;
        }
    }

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "NAME", description = "One of the experiments listed above.")
    String name;

    @Option(names = "--out", required = true, paramLabel = "DIR", description = "Where result.json and the charts go.")
    Path out;

    @Option(names = "--seed", defaultValue = "1", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Option(names = "--live", description = {"concurrency, phases, regions, energy, bursty: run over a real Kafka broker, GRM, gateway and",
            "simservers on loopback, durations multiplied by --time-scale; the simulated run is reported beside it.",
            "energy: policies off, static and queue over a day of --seconds (default 3600).",
            "bursty: model against liu, --seconds each (default 900), a steady second class beside the bursty one."})
    boolean live;

    @Option(names = "--time-scale", defaultValue = "0.05", description = "With --live: multiplies every duration.")
    double timeScale;

    @Option(names = "--combine", defaultValue = "min", paramLabel = "min|sum",
            description = {"phases, regions: how the GRM combines the class utilities, min (003 eq. 2b, the paper's",
                    "choice for Fig. 8-15) or sum (eq. 2a); regions judges every policy by the same combination",
                    "(default: ${DEFAULT-VALUE})."})
    String combine;

    @Option(names = "--seconds", defaultValue = "600", description = "Simulated seconds per phase or point; for capacity, the load sinusoid's period (default: ${DEFAULT-VALUE}).")
    double seconds;

    @Option(names = "--seeds", defaultValue = "0", paramLabel = "N",
            description = {"energy only: also run the standard day's queue and static policies for seeds --seed …",
                    "--seed + N − 1 and report how many reach 38 %% saved with at most 0.002 %% dropped",
                    "(about 3 s per seed; default: ${DEFAULT-VALUE}, none)."})
    int seeds;

    @Option(names = "--faults", defaultValue = "all", paramLabel = "LIST",
            description = {"faults only: all, or a comma list of simserver-kill, simserver-stop, grm-leader-kill,",
                    "grm-leader-term, broker-term, broker-kill, gateway-term (default: ${DEFAULT-VALUE})."})
    String faults;

    @Option(names = "--quick", description = {"faults: 2 s warm-up, 5 s recovery, 5 s stop (CI) instead of 5, 15, 15;",
            "abuse: 1 s idle timeout, shorter windows, a 64 KiB amplifying string (CI);",
            "overload: one run of 8 s phases (a smoke run)."})
    boolean quick;

    @Option(names = "--runs", paramLabel = "N",
            description = "overload only: passes over spikes × contenders, medians over them (default 3; 1 with --quick).")
    Integer runs;

    @Option(names = "--spikes", paramLabel = "LIST",
            description = "overload only: the spikes as multiples of the measured capacity (default 1.4,3,10).")
    String spikes;

    @Option(names = "--contenders", defaultValue = "all", paramLabel = "LIST",
            description = {"overload only: all, or a comma list of arbiter-grm, arbiter-grm-queue, arbiter-static,",
                    "arbiter-gradient2, arbiter-vegas, haproxy, nginx (default: ${DEFAULT-VALUE})."})
    String contenders;

    @Option(names = "--connections", paramLabel = "N",
            description = "abuse only: connections per idle attack (default 2000; 50 with --quick).")
    Integer connections;

    @Option(names = "--points", paramLabel = "N",
            description = {"yield: demand points from 50 %% to 200 %% (default 7; --seconds defaults to 300 there);",
                    "bursty: points of 1 000 requests per run (default 100; the sweep uses at most 50)."})
    Integer points;

    @Option(names = "--layout", defaultValue = "pooled", paramLabel = "pooled|per-node",
            description = {"yield only: pooled (one gateway queue per class, 16 one-request servers; the default) or",
                    "per-node (002's set-up: 16 nodes, each its own queues and 2 threads, random polling of 3)."})
    String layout;

    @Option(names = "--gateways", defaultValue = "arbiter", paramLabel = "arbiter|haproxy",
            description = {"phases --live only: haproxy runs the phases twice in one invocation, with two Arbiter",
                    "gateways and with two HAProxy 2.6 processes driven by `arbiter agent haproxy` (HAProxy installed),",
                    "and writes both side by side; arbiter (the default) runs one Arbiter gateway."})
    String gateways;

    @Option(names = "--arrivals", defaultValue = "poisson", paramLabel = "poisson|mmpp",
            description = "yield only: Poisson (the default) or a two-rate MMPP (rate x (1 +/- 0.15), Exp(30 s) dwell).")
    String arrivals;

    @Option(names = "--size", defaultValue = "100,1000,20", paramLabel = "G,S,C",
            description = "scale only: gateways, servers, classes, or a preset: medium (100,1000,20), large"
                    + " (1000,10000,20; about 6 GB of heap) (default: ${DEFAULT-VALUE}).")
    String size;

    @Option(names = "--pools", defaultValue = "0", paramLabel = "P",
            description = "scale only: split the cluster into P pools, each its own problem (default: none).")
    int pools;

    @Option(names = "--owners", paramLabel = "K",
            description = "scale with --pools: the simulated GRMs that share the pools (default: 3, or P when fewer).")
    Integer owners;

    @Option(names = "--same-jvm", description = {"scale only: at the large sizes (1 000 × 1 000 and up) run in this JVM even",
            "when it lacks -XX:+UseTransparentHugePages -XX:+UseParallelGC; by default the run starts itself",
            "again in a JVM with them (same results, about 30 %% less wall time)."})
    boolean sameJvm;

    @Override
    public Integer call() throws IOException {
        PrintWriter err = spec.commandLine().getErr();
        Optional<Experiment> found = ExperimentRegistry.find(name);
        if (live && !found.map(Experiment::hasLive).orElse(false)) {
            return usage(err, "--live: " + name + " (expected: --live with "
                    + ExperimentRegistry.names(ExperimentRegistry.live(), "or") + ")");
        }
        if (live && !(timeScale > 0 && timeScale <= 1)) {
            return usage(err, "--time-scale: " + timeScale + " (expected: 0 < x <= 1)");
        }
        if (seeds != 0 && !accepts(found, Experiment.Knob.SEEDS)) {
            return usage(err, "--seeds: " + name + " (expected: --seeds with energy)");
        }
        if (seeds < 0 || seeds > 1000) {
            return usage(err, "--seeds: " + seeds + " (expected: 0 to 1000)");
        }
        if (!(seconds > 0)) {
            return usage(err, "--seconds: " + seconds + " (expected: > 0)");
        }
        if (spec.commandLine().getParseResult().hasMatchedOption("--faults") && !accepts(found, Experiment.Knob.FAULTS)) {
            return usage(err, "--faults: " + name + " (expected: with faults)");
        }
        if (quick && !accepts(found, Experiment.Knob.FAULTS) && !accepts(found, Experiment.Knob.ABUSE)
                && !accepts(found, Experiment.Knob.OVERLOAD)) {
            return usage(err, "--quick: " + name + " (expected: with faults, abuse or overload)");
        }
        var overloadOptions = spec.commandLine().getParseResult();
        if ((runs != null || spikes != null || overloadOptions.hasMatchedOption("--contenders"))
                && !accepts(found, Experiment.Knob.OVERLOAD)) {
            return usage(err, "--runs/--spikes/--contenders: " + name + " (expected: with overload)");
        }
        if (runs != null && (runs < 1 || runs > 100)) {
            return usage(err, "--runs: " + runs + " (expected: 1 to 100)");
        }
        if (connections != null && !accepts(found, Experiment.Knob.ABUSE)) {
            return usage(err, "--connections: " + name + " (expected: with abuse)");
        }
        if (connections != null && (connections < 1 || connections > 10_000)) {
            return usage(err, "--connections: " + connections + " (expected: 1 to 10000)");
        }
        var parsed = spec.commandLine().getParseResult();
        if ((parsed.hasMatchedOption("--pools") || parsed.hasMatchedOption("--owners")) && !accepts(found, Experiment.Knob.SIZE)) {
            return usage(err, "--pools/--owners: " + name + " (expected: with scale)");
        }
        if ((parsed.hasMatchedOption("--layout") || parsed.hasMatchedOption("--arrivals")) && !accepts(found, Experiment.Knob.LAYOUT)) {
            return usage(err, "--layout/--arrivals: " + name + " (expected: with yield)");
        }
        if (parsed.hasMatchedOption("--gateways") && (!accepts(found, Experiment.Knob.GATEWAYS) || !live)) {
            return usage(err, "--gateways: " + name + (live ? "" : " without --live") + " (expected: with phases --live)");
        }
        if (Choice.find(GatewayConfig.Kind.class, gateways).isEmpty()) {
            return usage(err, "--gateways: " + gateways + " (expected: arbiter or haproxy)");
        }
        if (owners != null && pools == 0) {
            return usage(err, "--owners: " + owners + " (expected: with --pools P)");
        }
        if (found.isEmpty()) {
            return usage(err, name + " (expected: one of " + ExperimentRegistry.names(ExperimentRegistry.all(), ",") + ")");
        }
        Experiment experiment = found.get();
        if (sameJvm && !accepts(found, Experiment.Knob.SIZE)) {
            return usage(err, "--same-jvm: " + name + " (expected: with scale)");
        }
        if (!live && !sameJvm && accepts(found, Experiment.Knob.SIZE)) {
            Optional<Integer> exit;
            try {
                int[] v = ExperimentRegistry.size(size);
                ScaleExperiment.checkOptions(v[1], v[2], pools, owners != null ? owners : Math.max(1, Math.min(3, pools)));
                exit = ScaleRelaunch.ifWanted(v, spec.root().commandLine().getParseResult().originalArgs(), err);
            } catch (IllegalArgumentException e) {
                return usage(err, e.getMessage());
            }
            if (exit.isPresent()) {
                return exit.get();
            }
        }
        Experiment.Output output;
        try {
            output = live ? runLive(experiment, options(experiment, err)) : experiment.simulated().run(options(experiment, err));
        } catch (IllegalArgumentException e) {
            return usage(err, e.getMessage());
        } catch (Experiment.Failed e) {
            err.println("experiment: " + e.getMessage());
            return 1;
        } catch (RuntimeException | IOException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException(name + " failed: " + e, e);
        }
        return write(output);
    }

    private static boolean accepts(Optional<Experiment> e, Experiment.Knob knob) {
        return e.map(x -> x.accepts().contains(knob)).orElse(false);
    }

    private static int usage(PrintWriter err, String message) {
        err.println("experiment: " + message);
        return 2;
    }

    /** The options typed; --combine is checked only for the experiments that read it. */
    private Experiment.Options options(Experiment e, PrintWriter err) {
        ControlConfig.Combine c = ControlConfig.Combine.MIN;
        if (e.accepts().contains(Experiment.Knob.COMBINE)) {
            c = Choice.find(ControlConfig.Combine.class, combine).orElseThrow(() -> new IllegalArgumentException(
                    "--combine: " + combine + " (expected: " + String.join(" or ", Choice.names(ControlConfig.Combine.class))
                            + ")"));
        }
        boolean secondsGiven = spec.commandLine().getParseResult().hasMatchedOption("--seconds");
        return new Experiment.Options(seed, seconds, secondsGiven, points == null ? 0 : points, points != null, c, seeds,
                size, faults, quick, connections == null ? 0 : connections, timeScale, out, err, spec.commandLine().getOut(),
                pools, owners != null ? owners : Math.max(1, Math.min(3, pools)), layout, arrivals,
                Choice.find(GatewayConfig.Kind.class, gateways).orElseThrow(), runs == null ? 0 : runs, spikes,
                contenders);
    }

    /** The live run, with the simulated one beside it for comparison. */
    private Experiment.Output runLive(Experiment e, Experiment.Options options) {
        try {
            Files.createDirectories(out);
            return e.live().run(options);
        } catch (Exception x) {
            throw new IllegalStateException("live " + name + " failed: " + x, x);
        }
    }

    private int write(Experiment.Output result) throws IOException {
        Files.createDirectories(out);
        ResultJson.write(result.result(), out.resolve("result.json"));
        List<Path> charts = new ArrayList<>(result.charts().write(out));
        spec.commandLine().getOut().println("wrote " + out.resolve("result.json") + (charts.isEmpty() ? "" : " and " + charts));
        return 0;
    }
}
