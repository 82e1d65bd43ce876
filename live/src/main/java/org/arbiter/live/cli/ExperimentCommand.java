package org.arbiter.live.cli;

import org.arbiter.live.*;
import org.arbiter.sim.experiment.*;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import org.arbiter.sim.experiment.AdmissionExperiment;
import org.arbiter.sim.experiment.CapacityExperiment;
import org.arbiter.sim.experiment.Charts;
import org.arbiter.sim.experiment.Experiments;
import org.arbiter.live.LiveExperiments;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/** {@code arbiter experiment NAME}: 003 §V's experiments, in the simulator. */
@Command(name = "experiment", mixinStandardHelpOptions = true,
        description = {"Runs one of the papers' reference experiments in the simulator (virtual time) and writes",
                "DIR/result.json and PNG charts. NAME: concurrency (003 Fig. 7), phases (003 Fig. 8-12), regions",
                "(003 Fig. 13-15), capacity (000 §7.4: --seconds is the sinusoid's period, two are run), admission",
                "(004 §5: --seconds per phase), fluid (004 Fig. 3-5: --seconds per steady-state point, default 9000; Fig. 5 segments min(600, --seconds)), energy (000 §7.5: a compressed diurnal day; --seconds: the live day only),",
                "scale (100 gateways, 1 000 servers, 20 classes, one simulated hour), faults (a fault campaign against",
                "real processes — broker, two GRMs, two gateways, two simservers — under load; writes result.json and",
                "table.md; --faults picks faults, --quick shortens every phase), yield (002 Fig. 8-10: edf, yid, greedy,",
                "adaptive over demand 50-200 %%; --points demand points, --seconds measured per run, default 300),",
                "distribution (002 Fig. 11: Neptune's random polling against server partitioning on 2-16 servers;",
                "--seconds measured per run, default 300), spike (002 Fig. 12: a Silver spike and a server failure on 16",
                "servers, 300 s),",
                "bursty (001 Fig. 1, 3, Table 1: one queue under Pareto on/off load, the queueing-model predictor",
                "against 001's queue-length feedback control; --points points of 1 000 requests, default 100)."})
public final class ExperimentCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(paramLabel = "NAME", description = "concurrency, phases, regions, capacity, admission, fluid, energy, scale, faults, yield, distribution, spike or bursty")
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

    private org.arbiter.common.config.ControlConfig.Combine combine() {
        return switch (combine) {
            case "min" -> org.arbiter.common.config.ControlConfig.Combine.MIN;
            case "sum" -> org.arbiter.common.config.ControlConfig.Combine.SUM;
            default -> throw new IllegalArgumentException("--combine: " + combine + " (expected: min or sum)");
        };
    }

    @Option(names = "--seconds", defaultValue = "600", description = "Simulated seconds per phase or point; for capacity, the load sinusoid's period (default: ${DEFAULT-VALUE}).")
    double seconds;

    /** What an experiment produced: the record result.json is written from, and how to draw its charts. */
    private record Output(Object result, ChartWriter charts) {
    }

    /** Draws an experiment's charts into a directory. */
    @FunctionalInterface
    private interface ChartWriter {
        List<Path> write(Path dir) throws IOException;
    }

    /** The live run, with the simulated one beside it for comparison. */
    private Output live(java.io.PrintWriter err) {
        try {
            Files.createDirectories(out);
            return switch (name) {
                case "energy" -> {
                    boolean given = spec.commandLine().getParseResult().hasMatchedOption("--seconds");
                    // the live day has no per-minute series, so no chart
                    yield new Output(LiveEnergy.run(seed, given ? seconds : 3600, timeScale, out, err::println),
                            dir -> List.of());
                }
                case "bursty" -> {
                    boolean given = spec.commandLine().getParseResult().hasMatchedOption("--seconds");
                    yield new Output(LiveBursty.run(seed, given ? seconds : 900, timeScale, out, err::println),
                            dir -> List.of());
                }
                case "phases" -> {
                    LiveExperiments.Phases live = LiveExperiments.phasesWithTimeline(seed, seconds, timeScale, out,
                            err::println);
                    PhasesResult simulated = Experiments.phases(seed, seconds, s -> { });
                    yield new Output(new LiveResult.Phases(live.phases(), live.timeline(), timeScale, simulated),
                            dir -> Charts.phases(live.phases(), live.timeline(),
                                    "Response time, live (003 Fig. 9 against time): measured, predicted, target", dir));
                }
                case "concurrency" -> {
                    ConcurrencyResult live = LiveExperiments.concurrency(seed, seconds, timeScale, out, err::println);
                    ConcurrencyResult simulated = Experiments.concurrency(seed, seconds, s -> { });
                    yield new Output(new LiveResult.Concurrency(live, timeScale, simulated),
                            dir -> Charts.concurrency(live, simulated, dir));
                }
                default -> {
                    RegionsResult live = LiveExperiments.regions(seed, seconds, timeScale, out, err::println);
                    RegionsResult simulated = Experiments.regions(seed, seconds, s -> { });
                    yield new Output(new LiveResult.Regions(live, timeScale, simulated),
                            dir -> Charts.regions(live, simulated, dir));
                }
            };
        } catch (Exception e) {
            throw new IllegalStateException("live " + name + " failed: " + e, e);
        }
    }

    @Option(names = "--seeds", defaultValue = "0", paramLabel = "N",
            description = {"energy only: also run the standard day's queue and static policies for seeds --seed …",
                    "--seed + N − 1 and report how many reach 38 %% saved with at most 0.002 %% dropped",
                    "(about 3 s per seed; default: ${DEFAULT-VALUE}, none)."})
    int seeds;

    @Option(names = "--faults", defaultValue = "all", paramLabel = "LIST",
            description = {"faults only: all, or a comma list of simserver-kill, simserver-stop, grm-leader-kill,",
                    "grm-leader-term, broker-term, broker-kill, gateway-term (default: ${DEFAULT-VALUE})."})
    String faults;

    @Option(names = "--quick", description = "faults only: 2 s warm-up, 5 s recovery, 5 s stop (CI) instead of 5, 15, 15.")
    boolean quick;

    private int faults(java.io.PrintWriter err) throws IOException {
        java.util.List<org.arbiter.live.FaultCampaign.Fault> list;
        try {
            list = org.arbiter.live.FaultCampaign.Fault.parseList(faults);
        } catch (IllegalArgumentException e) {
            err.println("experiment: " + e.getMessage());
            return 2;
        }
        var launcher = org.arbiter.live.FaultCampaign.javaLauncher(System.getProperty("java.class.path"));
        var settings = quick ? org.arbiter.live.FaultCampaign.Settings.quick(launcher, list, seed)
                : org.arbiter.live.FaultCampaign.Settings.full(launcher, list, seed);
        org.arbiter.live.FaultReport report;
        try {
            report = org.arbiter.live.FaultCampaign.run(settings, out, line -> {
                err.println(line);
                err.flush();
            });
        } catch (Exception e) {
            err.println("experiment: faults: " + e.getMessage());
            return 1;
        }
        Files.createDirectories(out);
        ResultJson.write(report, out.resolve("result.json"));
        Files.writeString(out.resolve("table.md"), report.table());
        spec.commandLine().getOut().print(report.table());
        spec.commandLine().getOut().println("wrote " + out.resolve("result.json") + " and " + out.resolve("table.md"));
        return 0;
    }

    @Option(names = "--points", paramLabel = "N",
            description = {"yield: demand points from 50 %% to 200 %% (default 7; --seconds defaults to 300 there);",
                    "bursty: points of 1 000 requests per run (default 100; the sweep uses at most 50)."})
    Integer points;

    @Option(names = "--size", defaultValue = "100,1000,20", paramLabel = "G,S,C",
            description = "scale only: gateways, servers, classes (default: ${DEFAULT-VALUE}).")
    String size;

    private ScaleResult scale(java.io.PrintWriter err) {
        String[] p = size.split(",");
        int[] v = new int[3];
        for (int i = 0; i < 3; i++) {
            try {
                v[i] = p.length == 3 ? Integer.parseInt(p[i].trim()) : 0;
            } catch (NumberFormatException e) {
                v[i] = 0;
            }
        }
        if (v[0] < 1 || v[1] < 1 || v[2] < 2) {
            throw new IllegalArgumentException("--size: " + size + " (expected: G,S,C whole numbers, G >= 1, S >= 1, C >= 2)");
        }
        boolean given = spec.commandLine().getParseResult().hasMatchedOption("--seconds");
        return org.arbiter.sim.experiment.ScaleExperiment.run(v[0], v[1], v[2], given ? seconds : 3600, seed, err::println);
    }

    @Override
    public Integer call() throws IOException {
        if (live && !List.of("concurrency", "phases", "regions", "energy", "bursty").contains(name)) {
            spec.commandLine().getErr().println("experiment: --live: " + name
                    + " (expected: --live with concurrency, phases, regions, energy or bursty)");
            return 2;
        }
        if (live && !(timeScale > 0 && timeScale <= 1)) {
            spec.commandLine().getErr().println("experiment: --time-scale: " + timeScale + " (expected: 0 < x <= 1)");
            return 2;
        }
        if (seeds != 0 && !"energy".equals(name)) {
            spec.commandLine().getErr().println("experiment: --seeds: " + name + " (expected: --seeds with energy)");
            return 2;
        }
        if (seeds < 0 || seeds > 1000) {
            spec.commandLine().getErr().println("experiment: --seeds: " + seeds + " (expected: 0 to 1000)");
            return 2;
        }
        if (!(seconds > 0)) {
            spec.commandLine().getErr().println("experiment: --seconds: " + seconds + " (expected: > 0)");
            return 2;
        }
        var err = spec.commandLine().getErr();
        if ("faults".equals(name)) {
            return faults(err);
        }
        if (quick || spec.commandLine().getParseResult().hasMatchedOption("--faults")) {
            err.println("experiment: --faults/--quick: " + name + " (expected: with faults)");
            return 2;
        }
        Output result;
        try {
            result = result(err);
        } catch (IllegalArgumentException e) {
            err.println("experiment: " + e.getMessage());
            return 2;
        }
        if (result == null) {
            err.println("experiment: " + name
                    + " (expected: one of concurrency, phases, regions, capacity, admission, fluid, energy, scale, faults, yield, distribution, spike, bursty)");
            return 2;
        }
        return write(result);
    }

    /** The experiment {@code name} names, or null if it names none. */
    private Output result(java.io.PrintWriter err) {
        if (live) {
            return live(err);
        }
        return switch (name) {
            case "concurrency" -> {
                ConcurrencyResult r = Experiments.concurrency(seed, seconds, err::println);
                yield new Output(r, dir -> Charts.concurrency(r, dir));
            }
            case "phases" -> {
                PhasesResult r = Experiments.phases(seed, seconds, combine(), err::println);
                yield new Output(r, dir -> Charts.phases(r.phases(), r.timeline(),
                        "Response time, simulated (003 Fig. 9 against time): measured, predicted, target", dir));
            }
            case "regions" -> {
                RegionsResult r = Experiments.regions(seed, seconds, combine(), err::println);
                yield new Output(r, dir -> Charts.regions(r, dir));
            }
            case "scale" -> new Output(scale(err), dir -> List.of());
            case "capacity" -> {
                CapacityResult r = CapacityExperiment.run(seed, seconds, err::println);
                yield new Output(r, dir -> Charts.capacity(r, dir));
            }
            case "admission" -> {
                AdmissionResult r = AdmissionExperiment.run(seed, seconds, err::println);
                yield new Output(r, dir -> Charts.admission(r, dir));
            }
            case "fluid" -> {
                double point = spec.commandLine().getParseResult().hasMatchedOption("--seconds")
                        ? seconds : FluidExperiment.POINT_SECONDS;
                FluidResult r = FluidExperiment.run(seed, point, Math.min(point, FluidExperiment.SEGMENT_SECONDS), err::println);
                yield new Output(r, dir -> Charts.fluid(r, dir));
            }
            case "energy" -> {
                EnergyResult r = energy(err);
                yield new Output(r, dir -> Charts.energy(r, dir));
            }
            case "yield" -> {
                boolean given = spec.commandLine().getParseResult().hasMatchedOption("--seconds");
                org.arbiter.sim.experiment.YieldResult r = org.arbiter.sim.experiment.YieldExperiment.run(seed,
                        points == null ? 7 : points,
                        given ? seconds : 300, err::println);
                yield new Output(r, dir -> Charts.yield(r, dir));
            }
            case "distribution" -> {
                boolean given = spec.commandLine().getParseResult().hasMatchedOption("--seconds");
                DistributionResult r = NeptuneExperiments.distribution(seed, given ? seconds : 300, err::println);
                yield new Output(r, dir -> Charts.distribution(r, dir));
            }
            case "spike" -> {
                SpikeResult r = NeptuneExperiments.spike(seed, err::println);
                yield new Output(r, dir -> Charts.spike(r, dir));
            }
            case "bursty" -> {
                BurstyResult r = BurstyExperiment.run(seed, points == null ? 100 : points, err::println);
                yield new Output(r, dir -> Charts.bursty(r, dir));
            }
            default -> null;
        };
    }

    private EnergyResult energy(java.io.PrintWriter err) {
        EnergyResult r = EnergyExperiment.run(seed, err::println);
        return seeds > 0 ? r.withSeeds(EnergyExperiment.seeds(seed, seeds, err::println)) : r;
    }

    private int write(Output result) throws IOException {
        Files.createDirectories(out);
        ResultJson.write(result.result(), out.resolve("result.json"));
        List<Path> charts = new ArrayList<>(result.charts().write(out));
        spec.commandLine().getOut().println("wrote " + out.resolve("result.json") + (charts.isEmpty() ? "" : " and " + charts));
        return 0;
    }
}
