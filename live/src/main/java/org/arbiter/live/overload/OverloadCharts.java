package org.arbiter.live.overload;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;

/** Per spike: goodput and the admitted p99 over time, one line per contender (run 1). */
public final class OverloadCharts {

    private OverloadCharts() {
    }

    public static List<Path> write(OverloadBenchmark.Outcome o, Path dir) throws IOException {
        List<Path> out = new ArrayList<>();
        OverloadReport r = o.report();
        double phase = r.settings().phaseSeconds();
        for (var spike : o.series().entrySet()) {
            String k = OverloadBenchmark.trim(spike.getKey());
            XYChart g = chart("Goodput (answers within target per second), spike to " + k + " × capacity from "
                    + OverloadBenchmark.trim(phase) + " s to " + OverloadBenchmark.trim(2 * phase) + " s", "requests/s");
            XYChart p = chart("Admitted requests' p99 (all classes), spike to " + k + " × capacity", "seconds (log)");
            p.getStyler().setYAxisLogarithmic(true);
            boolean first = true;
            boolean anyP99 = false;
            for (Map.Entry<String, List<OverloadAnalysis.Bin>> c : spike.getValue().entrySet()) {
                List<Double> t = new ArrayList<>();
                List<Double> goodput = new ArrayList<>();
                List<Double> pt = new ArrayList<>();
                List<Double> p99 = new ArrayList<>();
                for (OverloadAnalysis.Bin b : c.getValue()) {
                    double mid = b.startSeconds() + r.settings().binSeconds() / 2;
                    t.add(mid);
                    goodput.add(b.goodputPerSecond());
                    if (!Double.isNaN(b.p99All()) && b.p99All() > 0) {
                        pt.add(mid);
                        p99.add(b.p99All());
                    }
                }
                if (first) {
                    g.addSeries("capacity", List.of(0.0, 3 * phase), List.of(r.capacityPerSecond(), r.capacityPerSecond()));
                    first = false;
                }
                String label = label(c.getKey());
                g.addSeries(label, t, goodput);
                if (!pt.isEmpty()) {
                    p.addSeries(label, pt, p99);
                    anyP99 = true;
                }
            }
            out.add(save(g, dir.resolve("overload-goodput-" + k + "x.png")));
            if (anyP99) {
                out.add(save(p, dir.resolve("overload-p99-" + k + "x.png")));
            }
        }
        return out;
    }

    private static String label(String key) {
        for (Contender c : Contender.values()) {
            if (c.key().equals(key)) {
                return c.label();
            }
        }
        return key;
    }

    private static XYChart chart(String title, String unit) {
        XYChart c = new XYChartBuilder().width(1000).height(450).title(title).xAxisTitle("time (s)").yAxisTitle(unit).build();
        c.getStyler().setMarkerSize(0);
        c.getStyler().setXAxisDecimalPattern("#");
        return c;
    }

    private static Path save(XYChart chart, Path file) throws IOException {
        BitmapEncoder.saveBitmap(chart, file.toString(), BitmapEncoder.BitmapFormat.PNG);
        return file;
    }
}
