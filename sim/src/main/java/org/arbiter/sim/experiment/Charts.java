package org.arbiter.sim.experiment;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/** PNG charts mirroring the papers' figures (003, 000, 004), drawn with XChart. */
public final class Charts {

    private Charts() {
    }

    @SuppressWarnings("unchecked")
    public static List<Path> write(String name, Map<String, Object> result, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        switch (name) {
            case "concurrency" -> {
                List<Map<String, Object>> pts = (List<Map<String, Object>>) result.get("points");
                XYChart c = new XYChartBuilder().width(800).height(500).title("Throughput against N_s (003 Fig. 7)")
                        .xAxisTitle("N_s (concurrent requests at the server)").yAxisTitle("throughput (req/s)").build();
                boolean live = result.containsKey("timeScale");
                c.addSeries(live ? "live" : "simulated", pts.stream().map(p -> ((Number) p.get("concurrency")).doubleValue()).toList(),
                        pts.stream().map(p -> ((Number) p.get("throughput")).doubleValue()).toList());
                if (result.get("simulated") instanceof Map<?, ?> sim) {
                    List<Map<String, Object>> sp = (List<Map<String, Object>>) sim.get("points");
                    c.addSeries("simulated", sp.stream().map(p -> ((Number) p.get("concurrency")).doubleValue()).toList(),
                            sp.stream().map(p -> ((Number) p.get("throughput")).doubleValue()).toList());
                }
                Path p = dir.resolve("concurrency.png");
                BitmapEncoder.saveBitmap(c, p.toString(), BitmapEncoder.BitmapFormat.PNG);
                out.add(p);
            }
            case "phases" -> {
                List<Map<String, Object>> ph = (List<Map<String, Object>>) result.get("phases");
                List<String> names = ph.stream().map(p -> (String) p.get("name")).toList();
                CategoryChart w = new CategoryChartBuilder().width(800).height(500)
                        .title("Weights per phase (003 Fig. 10); paper: B (6,4), C (4,6), D (8,2)")
                        .xAxisTitle("phase").yAxisTitle("w(g,c)").build();
                for (String cls : List.of("premium", "basic")) {
                    w.addSeries(cls, names, ph.stream().map(p -> ((Map<String, Number>) p.get("weights")).get(cls)).toList());
                }
                Path p1 = dir.resolve("phases-weights.png");
                BitmapEncoder.saveBitmap(w, p1.toString(), BitmapEncoder.BitmapFormat.PNG);
                CategoryChart r = new CategoryChartBuilder().width(800).height(500)
                        .title("Mean response time per phase (003 Fig. 9); targets 2 s and 3 s")
                        .xAxisTitle("phase").yAxisTitle("seconds").build();
                for (String cls : List.of("premium", "basic")) {
                    r.addSeries(cls, names, ph.stream().map(p -> ((Map<String, Number>) p.get("meanResponseSeconds")).get(cls)).toList());
                }
                Path p2 = dir.resolve("phases-response.png");
                BitmapEncoder.saveBitmap(r, p2.toString(), BitmapEncoder.BitmapFormat.PNG);
                out.add(p1);
                out.add(p2);
            }
            case "regions" -> {
                Map<String, Map<String, Object>> pol = (Map<String, Map<String, Object>>) result.get("policies");
                XYChart c = new XYChartBuilder().width(900).height(500)
                        .title("Cluster utility over (premium, basic) clients (003 Fig. 13-15)")
                        .xAxisTitle("point (premium·4 + basic), premium-major order").yAxisTitle("min utility").build();
                boolean live = result.containsKey("timeScale");
                Map<String, Map<String, Map<String, Object>>> sources = new java.util.LinkedHashMap<>();
                sources.put(live ? " (live)" : "", pol);
                if (result.get("simulated") instanceof Map<?, ?> sim) {
                    sources.put(" (simulated)", (Map<String, Map<String, Object>>) sim.get("policies"));
                }
                for (var src : sources.entrySet()) {
                    for (var e : src.getValue().entrySet()) {
                        List<Map<String, Object>> pts = (List<Map<String, Object>>) e.getValue().get("points");
                        List<Double> xs = new ArrayList<>();
                        for (int i = 0; i < pts.size(); i++) {
                            xs.add((double) i);
                        }
                        c.addSeries(e.getKey() + src.getKey(), xs,
                                pts.stream().map(p -> ((Number) p.get("clusterUtility")).doubleValue()).toList());
                    }
                }
                Path p = dir.resolve("regions.png");
                BitmapEncoder.saveBitmap(c, p.toString(), BitmapEncoder.BitmapFormat.PNG);
                out.add(p);
            }
            case "capacity" -> {
                Map<String, Map<String, Object>> ws = (Map<String, Map<String, Object>>) result.get("workloads");
                for (var e : ws.entrySet()) {
                    Map<String, List<Number>> s = (Map<String, List<Number>>) e.getValue().get("series");
                    double reference = ((Number) e.getValue().get("reference")).doubleValue();
                    XYChart c = new XYChartBuilder().width(900).height(500)
                            .title("Capacity estimates, " + e.getKey() + "-bound workload (000 Fig. "
                                    + (e.getKey().equals("io") ? "10" : "9") + ")")
                            .xAxisTitle("time (s)").yAxisTitle("req/s").build();
                    List<Double> t = doubles(s.get("timeSeconds"));
                    c.addSeries("arrival rate", t, doubles(s.get("arrivalRate")));
                    c.addSeries("throughput", t, doubles(s.get("throughput")));
                    for (String est : List.of("queue", "utilization", "static")) {
                        c.addSeries(est + " estimate", t, doubles(s.get(est)));
                    }
                    c.addSeries("reference (ramp)", List.of(t.get(0), t.get(t.size() - 1)), List.of(reference, reference));
                    c.getStyler().setMarkerSize(0);
                    c.getStyler().setXAxisDecimalPattern("#");
                    Path p = dir.resolve("capacity-" + e.getKey() + ".png");
                    BitmapEncoder.saveBitmap(c, p.toString(), BitmapEncoder.BitmapFormat.PNG);
                    out.add(p);
                }
            }
            case "admission" -> {
                for (String law : List.of("amc", "pmc")) {
                    Map<String, Object> r = (Map<String, Object>) result.get(law);
                    List<Map<String, Number>> rows = (List<Map<String, Number>>) r.get("series");
                    List<Double> t = rows.stream().map(x -> x.get("t").doubleValue()).toList();
                    XYChart n = new XYChartBuilder().width(900).height(400)
                            .title(law.toUpperCase(java.util.Locale.ROOT) + ": concurrency limit N and admitted N_e (004 Fig. "
                                    + (law.equals("amc") ? "6-7" : "8") + ")")
                            .xAxisTitle("time (s)").yAxisTitle("requests").build();
                    n.addSeries("limit N", t, rows.stream().map(x -> x.get("limit").doubleValue()).toList());
                    n.addSeries("N_e", t, rows.stream().map(x -> x.get("inFlight").doubleValue()).toList());
                    n.getStyler().setMarkerSize(0);
                    n.getStyler().setXAxisDecimalPattern("#");
                    Path p1 = dir.resolve("admission-" + law + "-limit.png");
                    BitmapEncoder.saveBitmap(n, p1.toString(), BitmapEncoder.BitmapFormat.PNG);
                    String key = law.equals("amc") ? "latency" : "abandon";
                    double bound = ((Number) r.get(law.equals("amc") ? "latencyMax" : "abandonMax")).doubleValue();
                    XYChart q = new XYChartBuilder().width(900).height(400)
                            .title(law.toUpperCase(java.util.Locale.ROOT) + ": " + (law.equals("amc") ? "mean latency" : "abandon rate")
                                    + " per control period against its bound")
                            .xAxisTitle("time (s)").yAxisTitle(law.equals("amc") ? "seconds" : "rejected / arrived").build();
                    q.addSeries(key, t, rows.stream().map(x -> x.get(key).doubleValue()).toList());
                    q.addSeries("bound", List.of(t.get(0), t.get(t.size() - 1)), List.of(bound, bound));
                    q.getStyler().setMarkerSize(0);
                    q.getStyler().setXAxisDecimalPattern("#");
                    Path p2 = dir.resolve("admission-" + law + "-" + key + ".png");
                    BitmapEncoder.saveBitmap(q, p2.toString(), BitmapEncoder.BitmapFormat.PNG);
                    out.add(p1);
                    out.add(p2);
                }
            }
            case "energy" -> {
                if (result.containsKey("series")) { // the live run has no per-minute series
                    out.addAll(energy(result, dir));
                }
            }
            default -> { }
        }
        return out;
    }

    /** 000 Fig. 11-12: servers up and load over the day per policy (one chart per demand); savings against start-up delay. */
    @SuppressWarnings("unchecked")
    private static List<Path> energy(Map<String, Object> result, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        Map<String, Map<String, Map<String, Object>>> series =
                (Map<String, Map<String, Map<String, Object>>>) result.get("series");
        for (var demand : series.entrySet()) {
            XYChart c = new XYChartBuilder().width(1000).height(550)
                    .title("Servers up (on or booting) over the compressed day, " + demand.getKey() + " requests (000 Fig. 11)")
                    .xAxisTitle("time (s)").yAxisTitle("servers up; load in servers' worth at the benchmark capacity").build();
            boolean first = true;
            double capacity = ((Number) ((Map<String, Object>) result.get("setup")).get("benchmarkCapacityPerServer")).doubleValue();
            for (var policy : demand.getValue().entrySet()) {
                List<Double> t = doubles((List<Number>) policy.getValue().get("timeSeconds"));
                if (first) {
                    c.addSeries("load (req/s ÷ " + capacity + ")", t, doubles((List<Number>) policy.getValue().get("arrivalRate"))
                            .stream().map(x -> x / capacity).toList());
                    first = false;
                }
                c.addSeries(policy.getKey(), t, doubles((List<Number>) policy.getValue().get("serversUp")));
            }
            c.getStyler().setMarkerSize(0);
            Path p = dir.resolve("energy-" + demand.getKey() + ".png");
            BitmapEncoder.saveBitmap(c, p.toString(), BitmapEncoder.BitmapFormat.PNG);
            out.add(p);
        }
        List<Map<String, Object>> sweep = (List<Map<String, Object>>) result.get("startupSweep");
        if (!sweep.isEmpty()) {
            XYChart c = new XYChartBuilder().width(800).height(500)
                    .title("Energy saved against start-up delay, queue policy, standard day (000 Fig. 12)")
                    .xAxisTitle("start-up delay (s)").yAxisTitle("energy saved vs always-on (%)").build();
            c.addSeries("simulated", sweep.stream().map(m -> ((Number) m.get("startupSeconds")).doubleValue()).toList(),
                    sweep.stream().map(m -> ((Number) m.get("savingsPercent")).doubleValue()).toList());
            Path p = dir.resolve("energy-startup.png");
            BitmapEncoder.saveBitmap(c, p.toString(), BitmapEncoder.BitmapFormat.PNG);
            out.add(p);
        }
        return out;
    }

    private static List<Double> doubles(List<? extends Number> xs) {
        return xs.stream().map(Number::doubleValue).toList();
    }
}
