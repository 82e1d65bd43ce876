package org.arbiter.live.cli;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.GrmConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.live.FaultCampaign;
import org.arbiter.live.FaultReport;
import org.arbiter.live.LiveBursty;
import org.arbiter.live.LiveEnergy;
import org.arbiter.live.LiveExperiments;
import org.arbiter.live.LiveResult;
import org.arbiter.live.abuse.AbuseCampaign;
import org.arbiter.live.overload.Contender;
import org.arbiter.live.overload.OverloadBenchmark;
import org.arbiter.live.overload.OverloadCharts;
import org.arbiter.live.overload.OverloadReport;
import org.arbiter.live.overload.OverloadSettings;
import org.arbiter.live.abuse.AbuseReport;
import org.arbiter.live.abuse.AbuseSettings;
import org.arbiter.live.cli.Experiment.Knob;
import org.arbiter.live.cli.Experiment.Output;
import org.arbiter.sim.experiment.AdmissionExperiment;
import org.arbiter.sim.experiment.AdmissionResult;
import org.arbiter.sim.experiment.BurstyExperiment;
import org.arbiter.sim.experiment.BurstyResult;
import org.arbiter.sim.experiment.CapacityExperiment;
import org.arbiter.sim.experiment.CapacityResult;
import org.arbiter.sim.experiment.Charts;
import org.arbiter.sim.experiment.ConcurrencyResult;
import org.arbiter.sim.experiment.DistributionResult;
import org.arbiter.sim.experiment.EnergyExperiment;
import org.arbiter.sim.experiment.EnergyResult;
import org.arbiter.sim.experiment.Experiments;
import org.arbiter.sim.experiment.FluidExperiment;
import org.arbiter.sim.experiment.FluidResult;
import org.arbiter.sim.experiment.NeptuneExperiments;
import org.arbiter.sim.experiment.PhasesResult;
import org.arbiter.sim.experiment.RegionsResult;
import org.arbiter.sim.experiment.ScaleExperiment;
import org.arbiter.sim.experiment.SpikeResult;
import org.arbiter.sim.experiment.YieldExperiment;
import org.arbiter.sim.experiment.YieldResult;

/** Every experiment of {@code arbiter experiment}, each registered once, in the order --help lists them. */
public final class ExperimentRegistry {

    private ExperimentRegistry() {
    }

    private static final List<Experiment> ALL = List.of(
            new Experiment("concurrency", "003 Fig. 7", Set.of(), o -> {
                ConcurrencyResult r = Experiments.concurrency(o.seed(), o.seconds(), o::progress);
                return new Output(r, dir -> Charts.concurrency(r, dir));
            }, o -> {
                ConcurrencyResult live = LiveExperiments.concurrency(o.seed(), o.seconds(), o.timeScale(), o.out(),
                        o::progress);
                ConcurrencyResult simulated = Experiments.concurrency(o.seed(), o.seconds(), s -> { });
                return new Output(new LiveResult.Concurrency(live, o.timeScale(), simulated),
                        dir -> Charts.concurrency(live, simulated, dir));
            }),
            new Experiment("phases", "003 Fig. 8-12; the flow model and 003's own (grm.model: paper), each on both"
                    + " utility scales", EnumSet.of(Knob.COMBINE, Knob.GATEWAYS), o -> {
                PhasesResult r = Experiments.phases(o.seed(), o.seconds(), o.combine(), o::progress)
                        .withRelative(Experiments.phases(o.seed(), o.seconds(), o.combine(),
                                ClassConfig.UtilitySpec.Scale.RELATIVE, o::progress))
                        .withPaperModel(Experiments.phases(o.seed(), o.seconds(), o.combine(),
                                ClassConfig.UtilitySpec.Scale.ABSOLUTE, GrmConfig.Model.PAPER, o::progress)
                                .withRelative(Experiments.phases(o.seed(), o.seconds(), o.combine(),
                                        ClassConfig.UtilitySpec.Scale.RELATIVE, GrmConfig.Model.PAPER, o::progress)));
                return new Output(r, dir -> {
                    List<Path> charts = new ArrayList<>(Charts.phases(r.phases(), r.timeline(),
                            "Response time, simulated (003 Fig. 9 against time): measured, predicted, target", dir));
                    charts.add(Charts.queues(r.queues(), "Queue length per class and gateway, flow model (003 Fig. 10)",
                            dir.resolve("phases-queues.png")));
                    PhasesResult rel = r.paperModel().relative();
                    charts.add(Charts.queues(rel.queues(), "Queue length per class and gateway, 003's model, relative"
                            + " (003 Fig. 10)", dir.resolve("phases-queues-paper-relative.png")));
                    return charts;
                });
            }, o -> {
                LiveExperiments.Phases live = LiveExperiments.phasesWithTimeline(o.seed(), o.seconds(), o.timeScale(),
                        o.out(), o::progress);
                LiveExperiments.GatewaysComparison haproxy = o.gateways() == GatewayConfig.Kind.HAPROXY
                        ? LiveExperiments.phasesAgainstHaproxy(o.seed(), o.seconds(), o.timeScale(),
                                o.out().resolve("haproxy-runs"), o::progress) : null;
                PhasesResult simulated = Experiments.phases(o.seed(), o.seconds(), s -> { });
                return new Output(new LiveResult.Phases(live.phases(), live.timeline(), o.timeScale(), simulated, haproxy),
                        dir -> {
                            List<Path> charts = new ArrayList<>(Charts.phases(live.phases(), live.timeline(),
                                    "Response time, live (003 Fig. 9 against time): measured, predicted, target", dir));
                            if (haproxy != null) { // the two runs side by side, and each run's own charts
                                charts.addAll(Charts.phasesSideBySide("Arbiter gateways", haproxy.arbiter().phases(),
                                        "HAProxy gateways", haproxy.haproxy().phases(), dir));
                                charts.addAll(Charts.phases(haproxy.arbiter().phases(), null, "",
                                        Files.createDirectories(dir.resolve("gateways-arbiter"))));
                                charts.addAll(Charts.phases(haproxy.haproxy().phases(), null, "",
                                        Files.createDirectories(dir.resolve("gateways-haproxy"))));
                            }
                            return charts;
                        });
            }),
            new Experiment("regions", "003 Fig. 13-15", EnumSet.of(Knob.COMBINE), o -> {
                RegionsResult r = Experiments.regions(o.seed(), o.seconds(), o.combine(), o::progress);
                return new Output(r, dir -> Charts.regions(r, dir));
            }, o -> {
                RegionsResult live = LiveExperiments.regions(o.seed(), o.seconds(), o.timeScale(), o.out(), o::progress);
                RegionsResult simulated = Experiments.regions(o.seed(), o.seconds(), s -> { });
                return new Output(new LiveResult.Regions(live, o.timeScale(), simulated),
                        dir -> Charts.regions(live, simulated, dir));
            }),
            Experiment.simulated("capacity", "000 §7.4: --seconds is the sinusoid's period, two are run", Set.of(), o -> {
                CapacityResult r = CapacityExperiment.run(o.seed(), o.seconds(), o::progress);
                return new Output(r, dir -> Charts.capacity(r, dir));
            }),
            Experiment.simulated("admission", "004 §5: --seconds per phase", Set.of(), o -> {
                AdmissionResult r = AdmissionExperiment.run(o.seed(), o.seconds(), o::progress);
                return new Output(r, dir -> Charts.admission(r, dir));
            }),
            Experiment.simulated("fluid", "004 Fig. 3-5: --seconds per steady-state point, default 9000; Fig. 5 segments"
                    + " min(600, --seconds)", Set.of(), o -> {
                double point = o.secondsOr(FluidExperiment.POINT_SECONDS);
                FluidResult r = FluidExperiment.run(o.seed(), point, Math.min(point, FluidExperiment.SEGMENT_SECONDS),
                        o::progress);
                return new Output(r, dir -> Charts.fluid(r, dir));
            }),
            new Experiment("energy", "000 §7.5: a compressed diurnal day; --seconds: the live day only",
                    EnumSet.of(Knob.SEEDS), o -> {
                EnergyResult one = EnergyExperiment.run(o.seed(), o::progress);
                EnergyResult r = o.seeds() > 0 ? one.withSeeds(EnergyExperiment.seeds(o.seed(), o.seeds(), o::progress))
                        : one;
                return new Output(r, dir -> Charts.energy(r, dir));
            }, o -> Output.withoutCharts( // the live day has no per-minute series, so no chart
                    LiveEnergy.run(o.seed(), o.secondsOr(3600), o.timeScale(), o.out(), o::progress))),
            Experiment.simulated("scale", "100 gateways, 1 000 servers, 20 classes, one simulated hour",
                    EnumSet.of(Knob.SIZE), o -> {
                int[] v = size(o.size());
                return Output.withoutCharts(ScaleExperiment.run(v[0], v[1], v[2], o.pools(), o.owners(),
                        o.secondsOr(3600), o.seed(), o::progress));
            }),
            Experiment.simulated("faults", "a fault campaign against real processes — broker, two GRMs, two gateways,"
                    + " two simservers (grm-member-kill: on a second rig with two pools) — under load; writes result.json"
                    + " and table.md; --faults picks faults, --quick shortens every phase", EnumSet.of(Knob.FAULTS),
                    ExperimentRegistry::faults),
            Experiment.simulated("abuse", "issue 30's abuse campaign against a real simserver and three gateways (plain,"
                    + " TLS, one before a WebSocket backend) under ordinary load: idle h2c and h2 connections, slowloris,"
                    + " h2 bodies, WebSocket tunnels, a pipelined 413, admin"
                    + " reload flood and drain, an amplifying config; writes result.json and abuse.md; --connections N"
                    + " per idle attack, --quick shortens every window", EnumSet.of(Knob.ABUSE), ExperimentRegistry::abuse),
            Experiment.simulated("overload", "issue 34's spike benchmark on real processes: Arbiter's gateway (GRM with and"
                    + " without local admission, a static cap, concurrency-limits' Gradient2 and Vegas), HAProxy and NGINX"
                    + " before one simserver, 0.7 × capacity, a spike, 0.7 × again; --seconds per phase (default 30),"
                    + " --spikes, --runs, --contenders, --quick; writes result.json, table.md and charts",
                    EnumSet.of(Knob.OVERLOAD), ExperimentRegistry::overload),
            Experiment.simulated("yield", "002 Fig. 8-10: edf, yid, greedy, adaptive over demand 50-200 %; --points"
                    + " demand points, --seconds measured per run, default 300; --layout pooled|per-node, --arrivals"
                    + " poisson|mmpp", EnumSet.of(Knob.POINTS, Knob.LAYOUT), o -> {
                YieldExperiment.Layout layout = YieldExperiment.Layout.parse(o.layout());
                YieldExperiment.ArrivalProcess arrivals = YieldExperiment.ArrivalProcess.parse(o.arrivals());
                YieldResult r = YieldExperiment.run(o.seed(), o.pointsOr(7), o.secondsOr(300), layout, arrivals, o::progress);
                return new Output(r, dir -> Charts.yield(r, dir));
            }),
            Experiment.simulated("distribution", "002 Fig. 11: Neptune's random polling against server partitioning"
                    + " on 2-16 servers; --seconds measured per run, default 300", Set.of(), o -> {
                DistributionResult r = NeptuneExperiments.distribution(o.seed(), o.secondsOr(300), o::progress);
                return new Output(r, dir -> Charts.distribution(r, dir));
            }),
            Experiment.simulated("spike", "002 Fig. 12: a Silver spike and a server failure on 16 servers, 300 s",
                    Set.of(), o -> {
                SpikeResult r = NeptuneExperiments.spike(o.seed(), o::progress);
                return new Output(r, dir -> Charts.spike(r, dir));
            }),
            new Experiment("bursty", "001 Fig. 1, 3, Table 1: one queue under Pareto on/off load, the queueing-model"
                    + " predictor against 001's queue-length feedback control; --points points of 1 000 requests,"
                    + " default 100", EnumSet.of(Knob.POINTS), o -> {
                BurstyResult r = BurstyExperiment.run(o.seed(), o.pointsOr(100), o::progress);
                return new Output(r, dir -> Charts.bursty(r, dir));
            }, o -> Output.withoutCharts(
                    LiveBursty.run(o.seed(), o.secondsOr(900), o.timeScale(), o.out(), o::progress))));

    /** Every experiment, in --help order. */
    public static List<Experiment> all() {
        return ALL;
    }

    /** The experiment called {@code name}. */
    public static Optional<Experiment> find(String name) {
        return ALL.stream().filter(e -> e.name().equals(name)).findFirst();
    }

    /** Names as a list for messages: "a, b, c or d" ({@code last} "or") or "a, b, c, d" ({@code last} ","). */
    static String names(List<Experiment> experiments, String last) {
        List<String> names = new ArrayList<>(experiments.stream().map(Experiment::name).toList());
        if (names.size() < 2 || last.equals(",")) {
            return String.join(", ", names);
        }
        String tail = names.remove(names.size() - 1);
        return String.join(", ", names) + " " + last + " " + tail;
    }

    /** The experiments that run live too. */
    static List<Experiment> live() {
        return ALL.stream().filter(Experiment::hasLive).toList();
    }

    /** --size presets: the scale run's default cluster and issue 32's large one. */
    private static final Map<String, String> SIZES = Map.of("medium", "100,1000,20", "large", "1000,10000,20");

    /** {@code --size}: gateways, servers, classes. @throws IllegalArgumentException naming what is wrong */
    static int[] size(String given) {
        String size = SIZES.getOrDefault(given.trim().toLowerCase(java.util.Locale.ROOT), given);
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
            throw new IllegalArgumentException("--size: " + given
                    + " (expected: G,S,C whole numbers, G >= 1, S >= 1, C >= 2, or medium (100,1000,20) or large (1000,10000,20))");
        }
        return v;
    }

    /** The abuse campaign: result.json, plus abuse.md written and printed beside it. */
    private static Output abuse(Experiment.Options o) throws Experiment.Failed {
        List<String> launcher = FaultCampaign.javaLauncher(System.getProperty("java.class.path"));
        AbuseSettings settings = o.quick() ? AbuseSettings.quick(launcher, o.connections() > 0 ? o.connections() : 50)
                : AbuseSettings.full(launcher, o.connections() > 0 ? o.connections() : 2000);
        AbuseReport report;
        try {
            report = AbuseCampaign.run(settings, o.out(), line -> {
                o.progress(line);
                o.progress().flush();
            });
        } catch (Exception e) {
            throw new Experiment.Failed("abuse: " + e.getMessage(), e);
        }
        return new Output(report, dir -> {
            Files.writeString(dir.resolve("abuse.md"), report.table());
            o.stdout().print(report.table());
            return List.of(dir.resolve("abuse.md"));
        });
    }

    /** The overload benchmark: result.json, table.md (printed too) and the charts. */
    private static Output overload(Experiment.Options o) throws Experiment.Failed {
        List<String> launcher = FaultCampaign.javaLauncher(System.getProperty("java.class.path"));
        OverloadSettings settings = o.quick() ? OverloadSettings.quick(launcher, o.seed())
                : OverloadSettings.full(launcher, o.seed());
        if (o.runs() > 0 || o.secondsGiven()) {
            settings = settings.with(o.runs() > 0 ? o.runs() : settings.runs(), o.secondsOr(settings.phaseSeconds()));
        }
        settings = settings.with(Contender.parseList(o.contenders()),
                o.spikes() == null ? settings.spikes() : spikes(o.spikes()));
        OverloadBenchmark.Outcome outcome;
        try {
            outcome = OverloadBenchmark.run(settings, o.out(), line -> {
                o.progress(line);
                o.progress().flush();
            });
        } catch (IllegalArgumentException e) {
            throw e;
        } catch (Exception e) {
            throw new Experiment.Failed("overload: " + e.getMessage(), e);
        }
        OverloadReport report = outcome.report();
        return new Output(report, dir -> {
            Files.writeString(dir.resolve("table.md"), report.table());
            o.stdout().print(report.table());
            List<Path> files = new ArrayList<>(List.of(dir.resolve("table.md")));
            files.addAll(OverloadCharts.write(outcome, dir));
            return files;
        });
    }

    /** {@code --spikes}: multiples > 0, comma-separated. @throws IllegalArgumentException naming what is wrong */
    static List<Double> spikes(String given) {
        List<Double> out = new ArrayList<>();
        for (String p : given.split(",")) {
            double v;
            try {
                v = Double.parseDouble(p.trim());
            } catch (NumberFormatException e) {
                v = Double.NaN;
            }
            if (!(v > 0 && v <= 100)) {
                throw new IllegalArgumentException("--spikes: " + given + " (expected: multiples of the capacity, each"
                        + " above 0 and at most 100, comma-separated, e.g. 1.4,3,10)");
            }
            out.add(v);
        }
        return out;
    }

    /** The fault campaign: result.json, plus table.md written and printed beside it. */
    private static Output faults(Experiment.Options o) throws Experiment.Failed {
        List<FaultCampaign.Fault> list = FaultCampaign.Fault.parseList(o.faults()); // IllegalArgumentException: exit 2
        List<String> launcher = FaultCampaign.javaLauncher(System.getProperty("java.class.path"));
        FaultCampaign.Settings settings = o.quick() ? FaultCampaign.Settings.quick(launcher, list, o.seed())
                : FaultCampaign.Settings.full(launcher, list, o.seed());
        FaultReport report;
        try {
            report = FaultCampaign.run(settings, o.out(), line -> {
                o.progress(line);
                o.progress().flush();
            });
        } catch (Exception e) {
            throw new Experiment.Failed("faults: " + e.getMessage(), e);
        }
        return new Output(report, dir -> {
            Files.writeString(dir.resolve("table.md"), report.table());
            o.stdout().print(report.table());
            return List.of(dir.resolve("table.md"));
        });
    }
}
