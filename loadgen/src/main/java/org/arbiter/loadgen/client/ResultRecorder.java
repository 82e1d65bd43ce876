package org.arbiter.loadgen.client;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.HdrHistogram.Histogram;
import org.knowm.xchart.BitmapEncoder;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.XYChart;
import org.knowm.xchart.XYChartBuilder;
import org.knowm.xchart.style.lines.SeriesLines;
import org.knowm.xchart.style.markers.SeriesMarkers;

/**
 * Records every request's outcome by class and phase and writes summary.json, timeseries.jsonl
 * and PNG charts — the same outputs for the live load generator and the simulator, which feed it
 * with (class, phase, intended start, end, outcome) on their own clocks (seconds since the run
 * started). Response time = end − intended start, so coordinated omission is not hidden; latency
 * percentiles come from an HdrHistogram (microsecond resolution, 3 significant digits) over the ok
 * requests; sent = ok + rejected + errors + timedOut + lost by construction.
 *
 * <p>Thread-safe (every method synchronized).
 */
public final class ResultRecorder {

    /** How a request ended. */
    public enum Outcome { OK, REJECTED, ERROR, TIMED_OUT, LOST }

    private static final class Counts {
        long sent;
        long ok;
        long rejected;
        long errors;
        long timedOut;
        long lost;
        double sum;
        double sumSq;
        final Histogram h = new Histogram(3_600_000_000L, 3);

        void add(Outcome o, double seconds) {
            sent++;
            switch (o) {
                case OK -> {
                    ok++;
                    sum += seconds;
                    sumSq += seconds * seconds;
                    h.recordValue(Math.max(0, Math.min(3_600_000_000L, Math.round(seconds * 1e6))));
                }
                case REJECTED -> rejected++;
                case ERROR -> errors++;
                case TIMED_OUT -> timedOut++;
                case LOST -> lost++;
            }
        }

        LoadSummary.ClassSummary summary(double seconds) {
            double mean = ok == 0 ? 0 : sum / ok;
            return new LoadSummary.ClassSummary(sent, ok, rejected, errors, timedOut, lost,
                    r(seconds <= 0 ? 0 : ok / seconds), r(mean),
                    r(ok == 0 ? 0 : h.getValueAtPercentile(50) / 1e6),
                    r(ok == 0 ? 0 : h.getValueAtPercentile(95) / 1e6),
                    r(ok == 0 ? 0 : h.getValueAtPercentile(99) / 1e6),
                    r(ok == 0 ? 0 : Math.max(0, sumSq / ok - mean * mean)));
        }
    }

    private final List<String> classes;
    private final List<String> phaseNames;
    private final double[] phaseStarts;
    private final double[] phaseEnds;
    private final Map<String, Counts> total = new LinkedHashMap<>();
    private final List<Map<String, Counts>> perPhase = new ArrayList<>();
    /** Per interval (by end time) and class: sent, ok, rejected, errors, timedOut, lost, Σ ok response seconds. */
    private final TreeMap<Long, Map<String, double[]>> series = new TreeMap<>();
    private final double intervalSeconds;
    /** Per class asked for with {@link #keepRequests}: every request, in the order recorded. */
    private final Map<String, List<Request>> kept = new LinkedHashMap<>();

    /**
     * One request as recorded.
     *
     * @param intendedStartSeconds when it should have been sent, since the run started
     * @param responseSeconds      end − intended start
     */
    public record Request(double intendedStartSeconds, double responseSeconds, Outcome outcome) {
    }

    /**
     * @param phaseDurations seconds of each phase, in order
     */
    public ResultRecorder(List<String> classes, List<String> phaseNames, List<Double> phaseDurations, double intervalSeconds) {
        this.classes = List.copyOf(classes);
        this.phaseNames = List.copyOf(phaseNames);
        this.phaseStarts = new double[phaseNames.size()];
        this.phaseEnds = new double[phaseNames.size()];
        double t = 0;
        for (int i = 0; i < phaseNames.size(); i++) {
            phaseStarts[i] = t;
            t += phaseDurations.get(i);
            phaseEnds[i] = t;
            Map<String, Counts> m = new LinkedHashMap<>();
            classes.forEach(c -> m.put(c, new Counts()));
            perPhase.add(m);
        }
        classes.forEach(c -> total.put(c, new Counts()));
        this.intervalSeconds = intervalSeconds;
    }

    /**
     * A recorder for a scenario's classes and phases, with a time-series interval of about 1/200
     * of the run (between 50 ms and 1 s), and each class's {@code target} drawn on the chart.
     */
    public static ResultRecorder forScenario(Scenario scenario) {
        ResultRecorder r = new ResultRecorder(List.copyOf(scenario.classes().keySet()),
                scenario.phases().stream().map(Scenario.Phase::name).toList(),
                scenario.phases().stream().map(Scenario.Phase::durationSeconds).toList(),
                Math.max(0.05, Math.min(1.0, scenario.totalSeconds() / 200)));
        Map<String, Double> targetSeconds = new LinkedHashMap<>();
        scenario.classes().forEach((c, shape) -> targetSeconds.put(c, shape.targetSeconds()));
        r.targets(targetSeconds);
        return r;
    }

    /**
     * One request, in the phase its intended start falls in.
     *
     * @param intendedStartSeconds when it should have been sent, since the run started
     * @param endSeconds           when it ended
     */
    public synchronized void record(String cls, double intendedStartSeconds, double endSeconds, Outcome outcome) {
        record(cls, phaseOf(intendedStartSeconds), intendedStartSeconds, endSeconds, outcome);
    }

    /**
     * One request of phase {@code phaseIndex}.
     *
     * @throws IllegalArgumentException for a class or phase the recorder does not know
     */
    public synchronized void record(String cls, int phaseIndex, double intendedStartSeconds, double endSeconds,
                                    Outcome outcome) {
        Counts t = total.get(cls);
        if (t == null) {
            throw new IllegalArgumentException("class: " + cls + " (expected: one of " + String.join(", ", classes) + ")");
        }
        if (phaseIndex < 0 || phaseIndex >= perPhase.size()) {
            throw new IllegalArgumentException("phaseIndex: " + phaseIndex + " (expected: 0.." + (perPhase.size() - 1) + ")");
        }
        double rt = Math.max(0, endSeconds - intendedStartSeconds);
        t.add(outcome, rt);
        List<Request> keep = kept.get(cls);
        if (keep != null) {
            keep.add(new Request(intendedStartSeconds, rt, outcome));
        }
        perPhase.get(phaseIndex).get(cls).add(outcome, rt);
        long bucket = (long) Math.floor(Math.max(0, endSeconds) / intervalSeconds);
        double[] s = series.computeIfAbsent(bucket, b -> new LinkedHashMap<>()).computeIfAbsent(cls, c -> new double[7]);
        s[0]++;
        s[1 + outcome.ordinal()]++;
        if (outcome == Outcome.OK) {
            s[6] += rt;
        }
    }

    /**
     * From now on, keeps every request of {@code cls} (for per-request statistics such as the
     * variance of means over consecutive requests, 001 Fig. 1); memory grows with the run.
     *
     * @throws IllegalArgumentException for a class the recorder does not know
     */
    public synchronized void keepRequests(String cls) {
        if (!total.containsKey(cls)) {
            throw new IllegalArgumentException("class: " + cls + " (expected: one of " + String.join(", ", classes) + ")");
        }
        kept.putIfAbsent(cls, new ArrayList<>());
    }

    /** The requests of {@code cls} kept since {@link #keepRequests}, in the order recorded (empty if not kept). */
    public synchronized List<Request> requests(String cls) {
        return List.copyOf(kept.getOrDefault(cls, List.of()));
    }

    private int phaseOf(double t) {
        for (int i = 0; i < phaseEnds.length; i++) {
            if (t < phaseEnds[i]) {
                return i;
            }
        }
        return phaseEnds.length - 1;
    }

    /** Totals so far per class (for progress lines): sent, ok, mean ok response (ms), Σ ok response (µs). */
    public synchronized Map<String, long[]> progress() {
        Map<String, long[]> m = new LinkedHashMap<>();
        total.forEach((c, k) -> m.put(c, new long[] {k.sent, k.ok, (long) (k.ok == 0 ? 0 : k.sum / k.ok * 1000),
                (long) (k.sum * 1e6)}));
        return m;
    }

    /** The summary document (the loadgen contract). */
    public synchronized LoadSummary summary(double durationSeconds) {
        Map<String, LoadSummary.ClassSummary> cs = new LinkedHashMap<>();
        total.forEach((c, k) -> cs.put(c, k.summary(durationSeconds)));
        List<LoadSummary.PhaseSummary> ps = new ArrayList<>();
        for (int i = 0; i < phaseNames.size(); i++) {
            Map<String, LoadSummary.ClassSummary> pc = new LinkedHashMap<>();
            double len = phaseEnds[i] - phaseStarts[i];
            perPhase.get(i).forEach((c, k) -> pc.put(c, k.summary(len)));
            ps.add(new LoadSummary.PhaseSummary(phaseNames.get(i), r(phaseStarts[i]), r(phaseEnds[i]), pc));
        }
        return new LoadSummary(r(durationSeconds), cs, ps);
    }

    /** Writes summary.json, timeseries.jsonl and charts into {@code dir}. */
    public synchronized void write(Path dir, double durationSeconds) throws IOException {
        Files.createDirectories(dir);
        ObjectMapper json = new ObjectMapper();
        json.enable(SerializationFeature.INDENT_OUTPUT).writeValue(dir.resolve("summary.json").toFile(),
                summary(durationSeconds));
        ObjectMapper line = new ObjectMapper();
        try (Writer w = Files.newBufferedWriter(dir.resolve("timeseries.jsonl"), StandardCharsets.UTF_8)) {
            long last = Math.max(series.isEmpty() ? 0 : series.lastKey(), (long) Math.ceil(durationSeconds / intervalSeconds) - 1);
            for (long b = 0; b <= last; b++) {
                Map<String, double[]> row = series.getOrDefault(b, Map.of());
                for (String c : classes) {
                    double[] v = row.getOrDefault(c, new double[7]);
                    SeriesPoint point = new SeriesPoint(r(b * intervalSeconds), r(intervalSeconds), c, (long) v[0],
                            (long) v[1], (long) v[2], (long) v[3], (long) v[4], (long) v[5], r(v[1] / intervalSeconds),
                            r(v[1] == 0 ? 0 : v[6] / v[1]));
                    w.write(line.writeValueAsString(point));
                    w.write('\n');
                }
            }
        }
        charts(dir);
    }

    /**
     * One line of timeseries.jsonl: one class over one interval, by the interval's start.
     *
     * @param answered requests that ended in the interval; ok, rejected, errors, timedOut and lost are how
     * @param meanResponseSeconds over the ok requests
     */
    @JsonPropertyOrder({"timeSeconds", "intervalSeconds", "class", "answered", "ok", "rejected", "errors", "timedOut",
            "lost", "throughputPerSecond", "meanResponseSeconds"})
    public record SeriesPoint(double timeSeconds, double intervalSeconds, @JsonProperty("class") String className,
                              long answered, long ok, long rejected, long errors, long timedOut, long lost,
                              double throughputPerSecond, double meanResponseSeconds) {
    }

    private final Map<String, Double> targets = new LinkedHashMap<>();

    /** Response-time targets to draw on the chart, by class (optional). */
    public synchronized void targets(Map<String, Double> targetSeconds) {
        targets.putAll(targetSeconds);
    }

    private void charts(Path dir) throws IOException {
        XYChart rt = new XYChartBuilder().width(900).height(450).title("Mean response time per class")
                .xAxisTitle("time (s)").yAxisTitle("seconds").build();
        XYChart x = new XYChartBuilder().width(900).height(450).title("Throughput per class")
                .xAxisTitle("time (s)").yAxisTitle("requests/s").build();
        boolean any = false;
        for (String c : classes) {
            List<Double> ts = new ArrayList<>();
            List<Double> r = new ArrayList<>();
            List<Double> xs = new ArrayList<>();
            for (var e : series.entrySet()) {
                double[] v = e.getValue().get(c);
                if (v == null) {
                    continue;
                }
                ts.add(e.getKey() * intervalSeconds);
                r.add(v[1] == 0 ? 0 : v[6] / v[1]);
                xs.add(v[1] / intervalSeconds);
            }
            if (!ts.isEmpty()) {
                rt.addSeries(c, ts, r);
                x.addSeries(c, ts, xs);
                any = true;
            }
        }
        if (any) {
            double end = series.isEmpty() ? 1 : (series.lastKey() + 1) * intervalSeconds;
            targets.forEach((c, t) -> {
                if (t > 0) {
                    rt.addSeries(c + " target", List.of(0.0, end), List.of(t, t))
                            .setMarker(SeriesMarkers.NONE)
                            .setLineStyle(SeriesLines.DASH_DASH);
                }
            });
            BitmapEncoder.saveBitmap(rt, dir.resolve("response-time.png").toString(), BitmapEncoder.BitmapFormat.PNG);
            BitmapEncoder.saveBitmap(x, dir.resolve("throughput.png").toString(), BitmapEncoder.BitmapFormat.PNG);
        }
        CategoryChart outcomes = new CategoryChartBuilder().width(900).height(450)
                .title("Outcomes per class").xAxisTitle("class").yAxisTitle("requests").build();
        outcomes.getStyler().setStacked(true);
        List<String> names = new ArrayList<>(total.keySet());
        if (!names.isEmpty()) {
            outcomes.addSeries("ok", names, names.stream().map(c -> (Number) total.get(c).ok).toList());
            outcomes.addSeries("rejected", names, names.stream().map(c -> (Number) total.get(c).rejected).toList());
            outcomes.addSeries("errors", names, names.stream().map(c -> (Number) total.get(c).errors).toList());
            outcomes.addSeries("timedOut", names, names.stream().map(c -> (Number) total.get(c).timedOut).toList());
            outcomes.addSeries("lost", names, names.stream().map(c -> (Number) total.get(c).lost).toList());
            BitmapEncoder.saveBitmap(outcomes, dir.resolve("outcomes.png").toString(), BitmapEncoder.BitmapFormat.PNG);
        }
    }

    private static double r(double d) {
        return Math.round(d * 1e6) / 1e6;
    }
}
