package org.arbiter.live.overload;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.function.Consumer;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.live.ChildProcess;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.loadgen.client.LoadSummary;
import org.arbiter.loadgen.client.ResultRecorder;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.loadgen.client.StatusTally;
import org.arbiter.runtime.net.Ports;

/*
 * Design note — the overload benchmark (docs/performance.md, "Overload").
 *
 * 1. Capacity, measured: a fresh simserver, `knee` closed-loop clients with no think time sent
 *    to it directly for `calibrateSeconds`; completions ÷ time. (Below the knee the server's
 *    throughput is flat at cores ÷ demand, so this is its best; the figure includes the loopback's
 *    round trips, as every contender's does.)
 * 2. Load runs: for each run, each spike, each contender — a fresh simserver (the run's seed)
 *    and the contender's processes; the live load generator, open loop, Poisson: premium
 *    `premiumShare` of the arrivals, basic the rest, at baseLoad × capacity for a phase, then the
 *    spike × capacity, then baseLoad × capacity again; every request kept. Then the processes
 *    stop. Contenders run back to back inside each spike, so one spike's rows are minutes apart.
 * 3. Figures: OverloadAnalysis per load run; medians over the runs per spike and contender.
 *
 * The broker (when a GRM row runs) lives in this JVM for the whole benchmark; each GRM load run
 * has its own topic prefix. Progress: a line when each load run starts and one with its figures.
 */

/** Runs the overload benchmark. See the design note. */
public final class OverloadBenchmark {

    /** The report, and run 1's series per spike and contender for the charts. */
    public record Outcome(OverloadReport report, Map<Double, Map<String, List<OverloadAnalysis.Bin>>> series) {
    }

    private OverloadBenchmark() {
    }

    public static Outcome run(OverloadSettings s, Path out, Consumer<String> progress) throws Exception {
        Files.createDirectories(out);
        long t0 = System.nanoTime();
        Consumer<String> say = line -> progress.accept(String.format(Locale.ROOT, "[%6.1f s] %s",
                (System.nanoTime() - t0) / 1e9, line));
        double capacity = calibrate(s, out.resolve("calibrate"), say);
        say.accept(String.format(Locale.ROOT, "capacity %.1f requests/s (%d cores, mean demand %s, %d clients)", capacity,
                s.cores(), OverloadReport.secs(s.meanDemandSeconds()), s.knee()));
        EmbeddedKafka kafka = s.contenders().stream().anyMatch(Contender::usesGrm)
                ? EmbeddedKafka.start(Files.createDirectories(out.resolve("kafka"))) : null;
        List<OverloadReport.Row> rows = new ArrayList<>();
        Map<Double, Map<String, List<OverloadAnalysis.Bin>>> series = new LinkedHashMap<>();
        int n = 0;
        int total = s.runs() * s.spikes().size() * s.contenders().size();
        try {
            for (int run = 1; run <= s.runs(); run++) {
                for (double spike : s.spikes()) {
                    for (Contender c : s.contenders()) {
                        n++;
                        say.accept(String.format(Locale.ROOT, "load run %d/%d: run %d, spike %s ×, %s", n, total, run,
                                trim(spike), c.key()));
                        Path dir = out.resolve(String.format(Locale.ROOT, "run%d/spike-%s/%s", run, trim(spike), c.key()));
                        OverloadAnalysis.Figures f;
                        StatusTally tally;
                        long seed = s.seed() + run - 1;
                        int serverPort = Ports.free();
                        ChildProcess server = OverloadFronts.simserver(s, serverPort, seed, Files.createDirectories(dir));
                        try {
                            try (OverloadFronts.Front front = OverloadFronts.start(c, s, serverPort,
                                    kafka == null ? null : kafka.bootstrap(), "ovl" + n + ".", dir)) {
                                LoadGenerator load = new LoadGenerator(scenario(s, capacity, spike, seed),
                                        List.of(URI.create("http://127.0.0.1:" + front.port())), null);
                                load.recorder().keepRequests("premium");
                                load.recorder().keepRequests("basic");
                                load.run(Files.createDirectories(dir.resolve("load")));
                                tally = load.tally();
                                Map<String, List<ResultRecorder.Request>> requests = new LinkedHashMap<>();
                                requests.put("premium", load.recorder().requests("premium"));
                                requests.put("basic", load.recorder().requests("basic"));
                                f = OverloadAnalysis.analyse(requests, Map.of("premium", s.premiumTarget(), "basic",
                                        s.basicTarget()), s.phaseSeconds(), 2 * s.phaseSeconds(), 3 * s.phaseSeconds(),
                                        capacity, s.binSeconds());
                            }
                        } finally {
                            server.destroy();
                        }
                        OverloadReport.Row row = new OverloadReport.Row(run, spike, c.key(), c.label(), f.goodputPerSecond(),
                                f.goodputOfCapacity(), f.classes().get("premium"), f.classes().get("basic"), f.p50(),
                                f.p99(), f.p99BackSeconds(), f.goodputBackSeconds(), tally.statuses(), tally.timedOut(),
                                tally.lost(), tally.connectionErrors());
                        rows.add(row);
                        if (run == 1) {
                            series.computeIfAbsent(spike, k -> new LinkedHashMap<>()).put(c.key(), f.series());
                        }
                        say.accept(String.format(Locale.ROOT, "  %s at %s ×: goodput %.3f of capacity, premium %.4f, basic"
                                        + " %.3f within target, admitted p99 %s, p99 back %s, goodput back %s, %s",
                                c.key(), trim(spike), f.goodputOfCapacity(), row.premium().success(), row.basic().success(),
                                OverloadReport.secs(f.p99()), back(f.p99BackSeconds()), back(f.goodputBackSeconds()),
                                tally.statuses()));
                    }
                }
            }
        } finally {
            if (kafka != null) {
                kafka.close();
            }
        }
        return new Outcome(new OverloadReport(capacity, OverloadReport.Setup.of(s), rows, OverloadReport.medians(rows)),
                series);
    }

    /** Step 1 of the design note. */
    private static double calibrate(OverloadSettings s, Path dir, Consumer<String> say) throws Exception {
        Files.createDirectories(dir);
        say.accept("measuring the capacity: " + s.knee() + " closed-loop clients against a simserver for "
                + trim(s.calibrateSeconds()) + " s");
        int port = Ports.free();
        ChildProcess server = OverloadFronts.simserver(s, port, s.seed(), dir);
        try {
            Map<String, Scenario.RequestShape> classes = Map.of("basic", Scenario.RequestShape.get(Map.of(), 0));
            Scenario sc = new Scenario(classes, 0, 60, s.seed(), List.of(
                    new Scenario.Phase("warm-up", Math.max(1, s.calibrateSeconds() / 3), Map.of("basic", s.knee()), Map.of(),
                            Map.of(), Map.of()),
                    new Scenario.Phase("measure", s.calibrateSeconds(), Map.of("basic", s.knee()), Map.of(), Map.of(),
                            Map.of())), List.of());
            LoadSummary summary = new LoadGenerator(sc, List.of(URI.create("http://127.0.0.1:" + port)), null)
                    .run(Files.createDirectories(dir.resolve("load")));
            LoadSummary.PhaseSummary measured = summary.phases().get(1);
            long ok = measured.cls("basic").ok();
            if (ok == 0) {
                throw new IllegalStateException("capacity: the simserver answered nothing in " + s.calibrateSeconds()
                        + " s (see " + dir + ")");
            }
            return ok / (measured.endSeconds() - measured.startSeconds());
        } finally {
            server.destroy();
        }
    }

    /** The load of one spike: three phases, open loop. */
    static Scenario scenario(OverloadSettings s, double capacity, double spike, long seed) {
        Map<String, Scenario.RequestShape> classes = new LinkedHashMap<>();
        classes.put("premium", Scenario.RequestShape.get(Map.of("X-Class", "premium"), s.premiumTarget()));
        classes.put("basic", Scenario.RequestShape.get(Map.of("X-Class", "basic"), s.basicTarget()));
        List<Scenario.Phase> phases = new ArrayList<>();
        String[] names = {"before", "spike", "after"};
        double[] loads = {s.baseLoad(), spike, s.baseLoad()};
        for (int i = 0; i < 3; i++) {
            double rate = loads[i] * capacity;
            Map<String, Double> rates = new LinkedHashMap<>();
            rates.put("premium", rate * s.premiumShare());
            rates.put("basic", rate * (1 - s.premiumShare()));
            phases.add(new Scenario.Phase(names[i], s.phaseSeconds(), Map.of(), rates, Map.of(), Map.of()));
        }
        return new Scenario(classes, 0, s.timeoutSeconds(), seed, phases, List.of());
    }

    private static String back(Double s) {
        return s == null ? "never" : String.format(Locale.ROOT, "%.2f s", s);
    }

    static String trim(double v) {
        return v == Math.rint(v) ? Long.toString((long) v) : Double.toString(v);
    }
}
