package org.arbiter.sim.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.internal.chartpart.Chart;

/**
 * PNG charts mirroring the papers' figures (003, 000, 004), drawn with XChart from the
 * experiments' result records. Each method writes its charts into {@code dir} and returns their
 * paths. Stateless and thread-safe.
 */
public final class Charts {

    private Charts() {
    }

    /** 003 Fig. 7 from a simulated run. */
    public static List<Path> concurrency(ConcurrencyResult simulated, Path dir) throws IOException {
        return concurrency(Map.of("simulated", simulated), dir);
    }

    /** 003 Fig. 7 from a live run, with the simulated run of the same seed beside it. */
    public static List<Path> concurrency(ConcurrencyResult live, ConcurrencyResult simulated, Path dir) throws IOException {
        Map<String, ConcurrencyResult> runs = new LinkedHashMap<>();
        runs.put("live", live);
        runs.put("simulated", simulated);
        return concurrency(runs, dir);
    }

    private static List<Path> concurrency(Map<String, ConcurrencyResult> runs, Path dir) throws IOException {
        XYChart c = new XYChartBuilder().width(800).height(500).title("Throughput against N_s (003 Fig. 7)")
                .xAxisTitle("N_s (concurrent requests at the server)").yAxisTitle("throughput (req/s)").build();
        for (var run : runs.entrySet()) {
            List<ConcurrencyResult.Point> pts = run.getValue().points();
            c.addSeries(run.getKey(), pts.stream().map(p -> (double) p.concurrency()).toList(),
                    pts.stream().map(ConcurrencyResult.Point::throughput).toList());
        }
        return List.of(save(c, dir.resolve("concurrency.png")));
    }

    /**
     * 003 Fig. 9 against time: per class the measured mean response time (solid) and the flow model's
     * prediction for the same window (dotted, made one statistics window earlier), the targets
     * (dashed) and the phase boundaries (vertical lines, named), in the paper's seconds.
     */
    public static Path timeline(Timeline t, String title, Path file) throws IOException {
        XYChart c = new XYChartBuilder().width(1000).height(500).title(title)
                .xAxisTitle("time (s, the paper's time)").yAxisTitle("mean response time (s)").build();
        c.getStyler().setMarkerSize(3);
        double ymax = 0;
        double xmax = 0;
        java.awt.Color[] palette = {new java.awt.Color(0x1f, 0x5f, 0xd0), new java.awt.Color(0xe0, 0x8a, 0x00),
                new java.awt.Color(0x2a, 0x9d, 0x3a), new java.awt.Color(0xb0, 0x30, 0x90)};
        Map<String, java.awt.Color> colour = new LinkedHashMap<>();
        for (String cls : t.classes().keySet()) {
            colour.put(cls, palette[colour.size() % palette.length]);
        }
        for (String cls : t.targets().keySet()) {
            colour.putIfAbsent(cls, palette[colour.size() % palette.length]);
        }
        for (Map.Entry<String, Timeline.Curves> e : t.classes().entrySet()) {
            Timeline.Curves k = e.getValue();
            java.awt.Color col = colour.get(e.getKey());
            if (!k.measured().isEmpty()) {
                c.addSeries(e.getKey() + " measured", k.measuredSeconds(), k.measured())
                        .setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE).setLineColor(col);
                ymax = Math.max(ymax, k.measured().stream().mapToDouble(Double::doubleValue).max().orElse(0));
                xmax = Math.max(xmax, k.measuredSeconds().get(k.measuredSeconds().size() - 1));
            }
            if (!k.predicted().isEmpty()) {
                c.addSeries(e.getKey() + " predicted", k.predictedSeconds(), k.predicted())
                        .setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE)
                        .setLineStyle(org.knowm.xchart.style.lines.SeriesLines.DOT_DOT).setLineColor(col.darker());
                ymax = Math.max(ymax, k.predicted().stream().mapToDouble(Double::doubleValue).max().orElse(0));
            }
        }
        if (xmax <= 0) {
            xmax = 1;
        }
        for (Map.Entry<String, Double> e : t.targets().entrySet()) {
            c.addSeries(e.getKey() + " target", List.of(0.0, xmax), List.of(e.getValue(), e.getValue()))
                    .setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE)
                    .setLineStyle(org.knowm.xchart.style.lines.SeriesLines.DASH_DASH).setLineColor(colour.get(e.getKey()));
            ymax = Math.max(ymax, e.getValue());
        }
        return savePhased(c, t.phases(), xmax, ymax, file);
    }

    /**
     * 003 Fig. 10: each class's queue length at each gateway against time, with the phases; a line per flow
     * ({@code gateway/class}).
     */
    public static Path queues(QueueLengths q, String title, Path file) throws IOException {
        XYChart c = new XYChartBuilder().width(1000).height(500).title(title)
                .xAxisTitle("time (s, the paper's time)").yAxisTitle("queue length (requests waiting)").build();
        double ymax = 1;
        double xmax = 1;
        int drawn = 0;
        for (Map.Entry<String, QueueLengths.Series> e : q.series().entrySet()) {
            QueueLengths.Series k = e.getValue();
            if (k.seconds().isEmpty()) {
                continue;
            }
            drawn++;
            c.addSeries(e.getKey(), k.seconds(), k.lengths()).setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE);
            ymax = Math.max(ymax, k.lengths().stream().mapToDouble(Double::doubleValue).max().orElse(0));
            xmax = Math.max(xmax, k.seconds().get(k.seconds().size() - 1));
        }
        if (drawn == 0) {
            c.addSeries("none", List.of(0.0), List.of(0.0));
        }
        return savePhased(c, q.phases(), xmax, ymax, file);
    }

    /** A chart against time with each phase's start marked and named above the curves, from 0 up to ymax. */
    private static Path savePhased(XYChart c, List<Timeline.PhaseMark> phases, double xmax, double ymax, Path file)
            throws IOException {
        for (Timeline.PhaseMark m : phases) {
            if (m.startSeconds() > 0) {
                c.addAnnotation(new org.knowm.xchart.AnnotationLine(m.startSeconds(), true, false));
            }
            c.addAnnotation(new org.knowm.xchart.AnnotationText(m.name(), m.startSeconds() + 0.02 * xmax,
                    1.05 * ymax, false));
        }
        c.getStyler().setYAxisMax(1.12 * ymax);
        c.getStyler().setXAxisMin(0.0);
        return save(c, file);
    }

    /** As {@link #phases(List, Path)}, and with a timeline (non-null) its chart, {@code phases-timeline.png}. */
    public static List<Path> phases(List<PhasesResult.Phase> phases, Timeline timeline, String title, Path dir)
            throws IOException {
        List<Path> out = new ArrayList<>(phases(phases, dir));
        if (timeline != null) {
            out.add(timeline(timeline, title, dir.resolve("phases-timeline.png")));
        }
        return out;
    }

    /** 003 Fig. 9-10: weights and mean response times per phase (simulated or live). */
    public static List<Path> phases(List<PhasesResult.Phase> phases, Path dir) throws IOException {
        List<String> names = phases.stream().map(PhasesResult.Phase::name).toList();
        CategoryChart w = new CategoryChartBuilder().width(800).height(500)
                .title("Weights per phase (003 Fig. 8); paper: B (6,4), C (4,6), D (8,2)")
                .xAxisTitle("phase").yAxisTitle("w(g,c)").build();
        w.addSeries("premium", names, phases.stream().map(p -> p.weights().premium()).toList());
        w.addSeries("basic", names, phases.stream().map(p -> p.weights().basic()).toList());
        Path p1 = save(w, dir.resolve("phases-weights.png"));
        CategoryChart r = new CategoryChartBuilder().width(800).height(500)
                .title("Mean response time per phase (003 Fig. 9); targets 2 s and 3 s")
                .xAxisTitle("phase").yAxisTitle("seconds").build();
        r.addSeries("premium", names, phases.stream().map(p -> p.meanResponseSeconds().premium()).toList());
        r.addSeries("basic", names, phases.stream().map(p -> p.meanResponseSeconds().basic()).toList());
        Path p2 = save(r, dir.resolve("phases-response.png"));
        return List.of(p1, p2);
    }

    /**
     * Two runs of the phases side by side (issue 33: Arbiter's gateways against HAProxy's): per phase, each run's
     * premium weight, and each run's mean response time per class; {@code phases-gateways-weights.png} and
     * {@code phases-gateways-response.png}.
     */
    public static List<Path> phasesSideBySide(String nameA, List<PhasesResult.Phase> a, String nameB,
                                              List<PhasesResult.Phase> b, Path dir) throws IOException {
        List<String> names = a.stream().map(PhasesResult.Phase::name).toList();
        CategoryChart w = new CategoryChartBuilder().width(800).height(500)
                .title("Premium weight per phase, pooled over the gateways")
                .xAxisTitle("phase").yAxisTitle("w(g, premium)").build();
        w.addSeries(nameA, names, a.stream().map(p -> p.weights().premium()).toList());
        w.addSeries(nameB, names, b.stream().map(p -> p.weights().premium()).toList());
        Path p1 = save(w, dir.resolve("phases-gateways-weights.png"));
        CategoryChart r = new CategoryChartBuilder().width(800).height(500)
                .title("Mean response time per phase; targets 2 s and 3 s")
                .xAxisTitle("phase").yAxisTitle("seconds").build();
        r.addSeries(nameA + " premium", names, a.stream().map(p -> p.meanResponseSeconds().premium()).toList());
        r.addSeries(nameB + " premium", names, b.stream().map(p -> p.meanResponseSeconds().premium()).toList());
        r.addSeries(nameA + " basic", names, a.stream().map(p -> p.meanResponseSeconds().basic()).toList());
        r.addSeries(nameB + " basic", names, b.stream().map(p -> p.meanResponseSeconds().basic()).toList());
        Path p2 = save(r, dir.resolve("phases-gateways-response.png"));
        return List.of(p1, p2);
    }

    /** 003 Fig. 13-15 from a simulated run. */
    public static List<Path> regions(RegionsResult simulated, Path dir) throws IOException {
        return regions(Map.of("", simulated), dir);
    }

    /** 003 Fig. 13-15 from a live run, with the simulated run of the same seed beside it. */
    public static List<Path> regions(RegionsResult live, RegionsResult simulated, Path dir) throws IOException {
        Map<String, RegionsResult> runs = new LinkedHashMap<>();
        runs.put(" (live)", live);
        runs.put(" (simulated)", simulated);
        return regions(runs, dir);
    }

    /** @param runs by the suffix of their series' names */
    private static List<Path> regions(Map<String, RegionsResult> runs, Path dir) throws IOException {
        XYChart c = new XYChartBuilder().width(900).height(500)
                .title("Cluster utility over (premium, basic) clients (003 Fig. 13-15)")
                .xAxisTitle("point (premium·4 + basic), premium-major order").yAxisTitle("min utility").build();
        for (var run : runs.entrySet()) {
            for (var e : run.getValue().policies().entrySet()) {
                List<RegionsResult.Point> pts = e.getValue().points();
                List<Double> xs = new ArrayList<>();
                for (int i = 0; i < pts.size(); i++) {
                    xs.add((double) i);
                }
                c.addSeries(e.getKey() + run.getKey(), xs, pts.stream().map(RegionsResult.Point::clusterUtility).toList());
            }
        }
        return List.of(save(c, dir.resolve("regions.png")));
    }

    /** 000 Fig. 9-10: the three estimates against the ramps' reference, one chart per workload. */
    public static List<Path> capacity(CapacityResult result, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        for (var e : result.workloads().entrySet()) {
            CapacityResult.Series s = e.getValue().series();
            double reference = e.getValue().reference();
            XYChart c = new XYChartBuilder().width(900).height(500)
                    .title("Capacity estimates, " + e.getKey() + "-bound workload (000 Fig. "
                            + (e.getKey().equals("io") ? "10" : "9") + ")")
                    .xAxisTitle("time (s)").yAxisTitle("req/s").build();
            List<Double> t = s.timeSeconds();
            c.addSeries("arrival rate", t, s.arrivalRate());
            c.addSeries("throughput", t, s.throughput());
            c.addSeries("queue estimate", t, s.queue());
            c.addSeries("utilization estimate", t, s.utilization());
            c.addSeries("static estimate", t, s.fixed());
            c.addSeries("reference (ramp)", List.of(t.get(0), t.get(t.size() - 1)), List.of(reference, reference));
            c.getStyler().setMarkerSize(0);
            c.getStyler().setXAxisDecimalPattern("#");
            out.add(save(c, dir.resolve("capacity-" + e.getKey() + ".png")));
        }
        return out;
    }

    /** 002 Fig. 8-9: LossPercent against demand, one chart per workload and yield shape, one series per policy. */
    public static List<Path> yield(YieldResult result, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        for (var w : result.workloads().entrySet()) {
            for (var shape : w.getValue().entrySet()) {
                YieldResult.Curve curve = shape.getValue();
                XYChart c = new XYChartBuilder().width(800).height(500)
                        .title("LossPercent, " + w.getKey() + ", " + shape.getKey() + " yield (002 Fig. "
                                + ("search".equals(w.getKey()) ? "8" : "9") + ")")
                        .xAxisTitle("demand (1 = the rate at which EDF completes 95 % within D)")
                        .yAxisTitle("LossPercent").build();
                for (var p : curve.lossPercent().entrySet()) {
                    c.addSeries(p.getKey(), curve.demand(), p.getValue());
                }
                out.add(save(c, dir.resolve("yield-" + w.getKey() + "-" + shape.getKey() + ".png")));
            }
        }
        return out;
    }

    /**
     * 004 Fig. 6-8: per scenario and law, (b) the limit and N_e, (c) the latency and (d) the abandon
     * rate of the controlled server against the uncontrolled one, with the law's bound.
     */
    public static List<Path> admission(AdmissionResult result, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        for (AdmissionResult.Scenario s : result.scenarios()) {
            if (s.name().equals("clients")) {
                out.add(admissionClients(s, result.amc(), dir.resolve("admission-clients-abandon.png")));
            }
            String figure = s.name().equals("mix") ? "6" : "7";
            out.addAll(admission(s, "amc", figure, s.amc(), result.amc().latencyMax(), Double.NaN, dir));
            out.addAll(admission(s, "pmc", s.name().equals("mix") ? "8" : "8 (amount: not in 004)", s.pmc(),
                    Double.NaN, result.pmc().abandonMax(), dir));
        }
        return out;
    }

    /** 004 Fig. 7's abandon rate against the number of clients: AM-C at 004's gain and at 0.3, with 5 %. */
    private static Path admissionClients(AdmissionResult.Scenario s, AdmissionResult.Amc amc, Path file)
            throws IOException {
        XYChart c = new XYChartBuilder().width(800).height(500)
                .title("AM-C abandon rate against clients, M1 (004 Fig. 7: below 5 % up to 75 clients)")
                .xAxisTitle("closed-loop clients N").yAxisTitle("abandon rate (phase's second half)").build();
        List<Double> n = s.amc().phases().stream().map(p -> (double) p.clients()).toList();
        c.addSeries("AM-C, gain " + amc.gain(), n, s.amc().phases().stream().map(AdmissionResult.Phase::abandon).toList());
        if (s.amcFast() != null) {
            c.addSeries("AM-C, gain " + amc.fastGain(), n,
                    s.amcFast().phases().stream().map(AdmissionResult.Phase::abandon).toList());
        }
        c.addSeries("5 %", List.of(n.get(0), n.get(n.size() - 1)), List.of(0.05, 0.05))
                .setMarker(org.knowm.xchart.style.markers.SeriesMarkers.NONE)
                .setLineStyle(org.knowm.xchart.style.lines.SeriesLines.DASH_DASH);
        return save(c, file);
    }

    private static List<Path> admission(AdmissionResult.Scenario s, String law, String figure, AdmissionResult.Run run,
                                        double latencyBound, double abandonBound, Path dir) throws IOException {
        String title = law.toUpperCase(Locale.ROOT) + ", " + s.name() + " scenario (004 Fig. " + figure + ")";
        List<Double> t = run.series().stream().map(AdmissionResult.Row::t).toList();
        List<Double> tu = s.uncontrolled().series().stream().map(AdmissionResult.Row::t).toList();
        XYChart n = line(title + ": limit and N_e", "requests");
        n.addSeries("clients N", t, run.series().stream().map(x -> (double) x.clients()).toList());
        n.addSeries("limit (MPL)", t, run.series().stream().map(x -> (double) x.limit()).toList());
        n.addSeries("N_e", t, run.series().stream().map(AdmissionResult.Row::inFlight).toList());
        n.addSeries("N_e uncontrolled", tu, s.uncontrolled().series().stream().map(AdmissionResult.Row::inFlight).toList());
        XYChart l = line(title + ": mean latency per period", "seconds");
        l.addSeries(law, t, run.series().stream().map(AdmissionResult.Row::latency).toList());
        l.addSeries("uncontrolled", tu, s.uncontrolled().series().stream().map(AdmissionResult.Row::latency).toList());
        XYChart a = line(title + ": abandon rate per period", "rejected / arrived");
        a.addSeries(law, t, run.series().stream().map(AdmissionResult.Row::abandon).toList());
        a.addSeries("uncontrolled", tu, s.uncontrolled().series().stream().map(AdmissionResult.Row::abandon).toList());
        if (!Double.isNaN(latencyBound)) {
            l.addSeries("L_max", List.of(t.get(0), t.get(t.size() - 1)), List.of(latencyBound, latencyBound));
        }
        if (!Double.isNaN(abandonBound)) {
            a.addSeries("alpha_max", List.of(t.get(0), t.get(t.size() - 1)), List.of(abandonBound, abandonBound));
        }
        String prefix = "admission-" + s.name() + "-" + law;
        return List.of(save(n, dir.resolve(prefix + "-limit.png")), save(l, dir.resolve(prefix + "-latency.png")),
                save(a, dir.resolve(prefix + "-abandon.png")));
    }

    /** 004 Fig. 3-5: abandon rate against N (measured, naive, improved), latency against N_e with the fit, dynamics. */
    public static List<Path> fluid(FluidResult r, Path dir) throws IOException {
        List<Double> n = r.abandon().stream().map(p -> (double) p.clients()).toList();
        XYChart a = new XYChartBuilder().width(800).height(500).title("Abandon rate at MPL " + r.setup().sweepMpl() + " (004 Fig. 3)")
                .xAxisTitle("clients N").yAxisTitle("abandon rate").build();
        a.addSeries("measured", n, r.abandon().stream().map(FluidResult.AbandonPoint::measured).toList());
        a.addSeries("naive", n, r.abandon().stream().map(FluidResult.AbandonPoint::naive).toList());
        a.addSeries("improved", n, r.abandon().stream().map(FluidResult.AbandonPoint::improved).toList());
        XYChart l = new XYChartBuilder().width(800).height(500).title("Latency against N_e, quadratic fit (004 Fig. 4)")
                .xAxisTitle("N_e").yAxisTitle("latency (s)").build();
        List<Double> ne = r.latency().stream().map(FluidResult.LatencyPoint::inFlight).toList();
        l.addSeries("measured", ne, r.latency().stream().map(FluidResult.LatencyPoint::latency).toList());
        l.addSeries("fit", ne, ne.stream().map(x -> r.fit().a() * x * x + r.fit().b() * x + r.fit().c()).toList());
        List<Double> t = r.dynamics().stream().map(FluidResult.DynamicsRow::t).toList();
        XYChart in = line("N and MPL (004 Fig. 5a)", "clients / requests");
        in.addSeries("N", t, r.dynamics().stream().map(x -> (double) x.clients()).toList());
        in.addSeries("MPL", t, r.dynamics().stream().map(x -> (double) x.mpl()).toList());
        XYChart e = line("N_e: simulated server against the model (004 Fig. 5b)", "requests");
        e.addSeries("server", t, r.dynamics().stream().map(FluidResult.DynamicsRow::inFlight).toList())
                .setXYSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Scatter)
                .setMarker(org.knowm.xchart.style.markers.SeriesMarkers.CROSS);
        e.addSeries("model", t, r.dynamics().stream().map(FluidResult.DynamicsRow::modelInFlight).toList());
        XYChart o = line("T_o: simulated server against the model (004 Fig. 5c)", "req/s");
        o.addSeries("server", t, r.dynamics().stream().map(FluidResult.DynamicsRow::throughput).toList())
                .setXYSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Scatter)
                .setMarker(org.knowm.xchart.style.markers.SeriesMarkers.CROSS);
        o.addSeries("model", t, r.dynamics().stream().map(FluidResult.DynamicsRow::modelThroughput).toList());
        XYChart ab = line("Abandon rate: simulated server against the model (004 Fig. 5d)", "rejected / arrived");
        ab.addSeries("server", t, r.dynamics().stream().map(FluidResult.DynamicsRow::abandon).toList())
                .setXYSeriesRenderStyle(org.knowm.xchart.XYSeries.XYSeriesRenderStyle.Scatter)
                .setMarker(org.knowm.xchart.style.markers.SeriesMarkers.CROSS);
        ab.addSeries("model", t, r.dynamics().stream().map(FluidResult.DynamicsRow::modelAbandon).toList());
        for (XYChart c : List.of(e, o, ab)) {
            c.getStyler().setMarkerSize(5);
        }
        return List.of(save(a, dir.resolve("fluid-abandon.png")), save(l, dir.resolve("fluid-latency.png")),
                save(in, dir.resolve("fluid-inputs.png")), save(e, dir.resolve("fluid-inflight.png")),
                save(o, dir.resolve("fluid-throughput.png")), save(ab, dir.resolve("fluid-abandon-dynamics.png")));
    }

    private static XYChart line(String title, String unit) {
        XYChart c = new XYChartBuilder().width(900).height(400).title(title).xAxisTitle("time (s)").yAxisTitle(unit).build();
        c.getStyler().setMarkerSize(0);
        c.getStyler().setXAxisDecimalPattern("#");
        return c;
    }

    /** 000 Fig. 11-12: servers up and load over the day per policy (one chart per demand); savings against start-up delay. */
    public static List<Path> energy(EnergyResult result, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        double capacity = result.setup().benchmarkCapacityPerServer();
        for (var demand : result.series().entrySet()) {
            XYChart c = new XYChartBuilder().width(1000).height(550)
                    .title("Servers up (on or booting) over the compressed day, " + demand.getKey() + " requests (000 Fig. 11)")
                    .xAxisTitle("time (s)").yAxisTitle("servers up; load in servers' worth at the benchmark capacity").build();
            boolean first = true;
            for (var policy : demand.getValue().entrySet()) {
                List<Double> t = policy.getValue().timeSeconds();
                if (first) {
                    c.addSeries("load (req/s ÷ " + capacity + ")", t,
                            policy.getValue().arrivalRate().stream().map(x -> x / capacity).toList());
                    first = false;
                }
                c.addSeries(policy.getKey(), t, policy.getValue().serversUp());
            }
            c.getStyler().setMarkerSize(0);
            out.add(save(c, dir.resolve("energy-" + demand.getKey() + ".png")));
        }
        List<EnergyResult.SweepPoint> sweep = result.startupSweep();
        if (!sweep.isEmpty()) {
            XYChart c = new XYChartBuilder().width(800).height(500)
                    .title("Energy saved against start-up delay, queue policy, standard day (000 Fig. 12)")
                    .xAxisTitle("start-up delay (s)").yAxisTitle("energy saved vs always-on (%)").build();
            c.addSeries("simulated", sweep.stream().map(EnergyResult.SweepPoint::startupSeconds).toList(),
                    sweep.stream().map(m -> m.day().savingsPercent()).toList());
            out.add(save(c, dir.resolve("energy-startup.png")));
        }
        List<EnergyResult.ShutdownPoint> shutdown = result.shutdownSweep();
        if (!shutdown.isEmpty()) {
            XYChart c = new XYChartBuilder().width(800).height(500)
                    .title("Energy saved against shutdown delay (start-up 60 s), queue policy, standard day (000 Fig. 12)")
                    .xAxisTitle("shutdown delay (s)").yAxisTitle("energy saved vs always-on (%)").build();
            c.addSeries("simulated", shutdown.stream().map(EnergyResult.ShutdownPoint::shutdownSeconds).toList(),
                    shutdown.stream().map(m -> m.day().savingsPercent()).toList());
            out.add(save(c, dir.resolve("energy-shutdown.png")));
        }
        return out;
    }

    /** 002 Fig. 11: normalised aggregate yield against servers, one series per policy and demand, one chart per workload. */
    public static List<Path> distribution(DistributionResult result, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        for (var w : result.workloads().entrySet()) {
            XYChart c = new XYChartBuilder().width(800).height(500)
                    .title("Aggregate yield, " + w.getKey() + " (002 Fig. 11; 1 = Neptune at 200 % on 16 servers)")
                    .xAxisTitle("servers").yAxisTitle("normalised yield").build();
            Map<String, List<DistributionResult.Point>> series = new LinkedHashMap<>();
            for (DistributionResult.Point p : w.getValue()) {
                series.computeIfAbsent(p.policy() + " " + Math.round(p.demand() * 100) + " %", k -> new ArrayList<>()).add(p);
            }
            for (var e : series.entrySet()) {
                c.addSeries(e.getKey(), e.getValue().stream().map(p -> (double) p.servers()).toList(),
                        e.getValue().stream().map(DistributionResult.Point::normalised).toList());
            }
            out.add(save(c, dir.resolve("distribution-" + w.getKey() + ".png")));
        }
        DistributionResult.SchedulerCheck check = result.schedulerCheck();
        XYChart c = new XYChartBuilder().width(800).height(500)
                .title("LossPercent behind random polling, search, " + check.servers() + " servers")
                .xAxisTitle("demand (1 = servers / E[s])").yAxisTitle("LossPercent").build();
        check.lossPercent().forEach((k, v) -> c.addSeries(k, check.demand(), v));
        out.add(save(c, dir.resolve("distribution-schedulers.png")));
        return out;
    }

    /** 002 Fig. 12: per class demand and allocation every 2 s, one chart per policy. */
    public static List<Path> spike(SpikeResult result, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        for (var run : result.runs().entrySet()) {
            XYChart c = new XYChartBuilder().width(1000).height(500)
                    .title("Demand and allocation, " + run.getKey() + " (002 Fig. 12)")
                    .xAxisTitle("time (s)").yAxisTitle("% of the cluster").build();
            SpikeResult.Run r = run.getValue();
            r.demand().forEach((k, v) -> c.addSeries(k + " demand", r.time(), v));
            r.allocation().forEach((k, v) -> c.addSeries(k + " allocation", r.time(), v));
            out.add(save(c, dir.resolve("spike-" + run.getKey() + ".png")));
        }
        return out;
    }

    /**
     * 001 Fig. 1 and Fig. 3: delay against time (each point the mean of 1 000 requests), the
     * queueing-model predictor with its feedback loop and 001's controller, each with D_ref drawn.
     */
    public static List<Path> bursty(BurstyResult result, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        out.add(burstyChart(result.fig1(), "001 Fig. 1: predictor + PI loop, no queue term",
                result.setup().targetSeconds(), dir.resolve("bursty-fig1.png")));
        out.add(burstyChart(result.fig3(), "001 Fig. 3: queue-length feedback, no PI",
                result.setup().targetSeconds(), dir.resolve("bursty-fig3.png")));
        return out;
    }

    private static Path burstyChart(BurstyResult.Run run, String title, double target, Path file) throws IOException {
        XYChart c = new XYChartBuilder().width(900).height(450)
                .title(String.format("%s: mean %.3f s, variance %.4g", title, run.mean(), run.variance()))
                .xAxisTitle("time (s)").yAxisTitle("mean delay of 1 000 requests (s)").build();
        c.addSeries("delay", run.pointSeconds(), run.pointMeans());
        List<Double> ends = List.of(run.pointSeconds().get(0), run.pointSeconds().get(run.pointSeconds().size() - 1));
        c.addSeries("D_ref", ends, List.of(target, target));
        return save(c, file);
    }

    private static Path save(Chart<?, ?> chart, Path file) throws IOException {
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }
}
