package org.arbiter.live.overload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * What {@code arbiter experiment overload} measured: the capacity, every load run's figures, and per
 * spike and contender the medians over the runs (result.json; {@link #table()} is table.md).
 *
 * @param capacityPerSecond the simserver's measured completions per second at the knee
 * @param settings          how it ran (the launcher left out)
 * @param rows              every load run, in the order run
 * @param medians           per spike and contender, over the runs
 */
public record OverloadReport(double capacityPerSecond, Setup settings, List<Row> rows, List<Median> medians) {

    /** The settings as result.json shows them. */
    public record Setup(List<String> contenders, List<Double> spikes, int runs, double phaseSeconds, double baseLoad,
                        double premiumShare, double premiumTarget, double basicTarget, int cores, double meanDemandSeconds,
                        int knee, double overhead, double timeoutSeconds, double binSeconds, double haproxyQueueSeconds,
                        double controlPeriodSeconds, long seed) {

        static Setup of(OverloadSettings s) {
            return new Setup(s.contenders().stream().map(Contender::key).toList(), s.spikes(), s.runs(), s.phaseSeconds(),
                    s.baseLoad(), s.premiumShare(), s.premiumTarget(), s.basicTarget(), s.cores(), s.meanDemandSeconds(),
                    s.knee(), s.overhead(), s.timeoutSeconds(), s.binSeconds(), s.haproxyQueueSeconds(),
                    s.controlPeriodSeconds(), s.seed());
        }
    }

    /**
     * One load run.
     *
     * @param statuses   answers by HTTP status over the whole run (all three phases)
     * @param timedOut   requests unanswered within the clients' timeout
     * @param lost       requests still unanswered when the run ended
     * @param connectionErrors requests whose connection failed
     */
    public record Row(int run, double spike, String contender, String label, double goodputPerSecond,
                      double goodputOfCapacity, OverloadAnalysis.ClassFigures premium, OverloadAnalysis.ClassFigures basic,
                      double p50, double p99, Double p99BackSeconds, Double goodputBackSeconds,
                      SortedMap<Integer, Long> statuses, long timedOut, long lost, long connectionErrors) {
    }

    /**
     * Medians over the runs of one spike and contender; recovery times that never came count as
     * infinite, and a median that is infinite is null.
     */
    public record Median(double spike, String contender, String label, int runs, double goodputOfCapacity,
                         double goodputMin, double goodputMax, double premiumSuccess, double premiumSuccessMin,
                         double basicSuccess, double premiumP99, double basicP99, double p50, double p99,
                         Double p99BackSeconds, Double goodputBackSeconds, SortedMap<Integer, Long> statuses,
                         long timedOut, long lost, long connectionErrors) {
    }

    /** Medians of {@code rows} per spike and contender, in the order first seen. */
    static List<Median> medians(List<Row> rows) {
        List<Median> out = new ArrayList<>();
        List<String> seen = new ArrayList<>();
        for (Row r : rows) {
            String key = r.spike() + "/" + r.contender();
            if (seen.contains(key)) {
                continue;
            }
            seen.add(key);
            List<Row> g = rows.stream().filter(x -> x.spike() == r.spike() && x.contender().equals(r.contender())).toList();
            SortedMap<Integer, Long> statuses = new TreeMap<>();
            g.forEach(x -> x.statuses().forEach((k, v) -> statuses.merge(k, v, Long::sum)));
            out.add(new Median(r.spike(), r.contender(), r.label(), g.size(),
                    median(g.stream().mapToDouble(Row::goodputOfCapacity).toArray()),
                    g.stream().mapToDouble(Row::goodputOfCapacity).min().orElse(0),
                    g.stream().mapToDouble(Row::goodputOfCapacity).max().orElse(0),
                    median(g.stream().mapToDouble(x -> x.premium().success()).toArray()),
                    g.stream().mapToDouble(x -> x.premium().success()).min().orElse(0),
                    median(g.stream().mapToDouble(x -> x.basic().success()).toArray()),
                    median(g.stream().mapToDouble(x -> x.premium().p99()).toArray()),
                    median(g.stream().mapToDouble(x -> x.basic().p99()).toArray()),
                    median(g.stream().mapToDouble(Row::p50).toArray()),
                    median(g.stream().mapToDouble(Row::p99).toArray()),
                    finite(median(g.stream().mapToDouble(x -> x.p99BackSeconds() == null ? Double.POSITIVE_INFINITY
                            : x.p99BackSeconds()).toArray())),
                    finite(median(g.stream().mapToDouble(x -> x.goodputBackSeconds() == null ? Double.POSITIVE_INFINITY
                            : x.goodputBackSeconds()).toArray())),
                    statuses, g.stream().mapToLong(Row::timedOut).sum(), g.stream().mapToLong(Row::lost).sum(),
                    g.stream().mapToLong(Row::connectionErrors).sum()));
        }
        return List.copyOf(out);
    }

    /** The median (the lower middle of an even count, so it is a value measured). */
    static double median(double[] v) {
        if (v.length == 0) {
            return 0;
        }
        double[] a = v.clone();
        Arrays.sort(a);
        return a[(a.length - 1) / 2];
    }

    private static Double finite(double v) {
        return Double.isInfinite(v) ? null : v;
    }

    /** The medians as Markdown, one table per spike. */
    public String table() {
        StringBuilder b = new StringBuilder();
        b.append(String.format(Locale.ROOT, "Capacity (measured): %.1f requests/s. Phases %.0f s at %.1f × capacity, the spike,"
                + " %.0f s at %.1f ×; premium %.0f %% of arrivals, target %s; basic target %s. Medians of %d run(s), min–max"
                + " in brackets.%n%n", capacityPerSecond, settings.phaseSeconds(), settings.baseLoad(),
                settings.phaseSeconds(), settings.baseLoad(), settings.premiumShare() * 100, secs(settings.premiumTarget()),
                secs(settings.basicTarget()), settings.runs()));
        for (double spike : settings.spikes()) {
            b.append(String.format(Locale.ROOT, "### Spike to %s × capacity%n%n", OverloadBenchmark.trim(spike)));
            b.append("| contender | goodput ÷ capacity | premium within target | basic within target | admitted p99 premium"
                    + " / basic | admitted p50 / p99 | p99 < 2 × target after | goodput back after | answers |\n");
            b.append("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |\n");
            for (Median m : medians) {
                if (m.spike() != spike) {
                    continue;
                }
                b.append(String.format(Locale.ROOT, "| %s | %.3f (%.3f–%.3f) | %.4f (min %.4f) | %.3f | %s / %s | %s / %s |"
                                + " %s | %s | %s |%n", m.label(), m.goodputOfCapacity(), m.goodputMin(), m.goodputMax(),
                        m.premiumSuccess(), m.premiumSuccessMin(), m.basicSuccess(), secs(m.premiumP99()),
                        secs(m.basicP99()), secs(m.p50()), secs(m.p99()), back(m.p99BackSeconds()),
                        back(m.goodputBackSeconds()), answers(m)));
            }
            b.append('\n');
        }
        return b.toString();
    }

    private static String answers(Median m) {
        List<String> parts = new ArrayList<>();
        for (Map.Entry<Integer, Long> e : m.statuses().entrySet()) {
            parts.add(e.getKey() + ": " + e.getValue());
        }
        if (m.timedOut() > 0) {
            parts.add("timed out: " + m.timedOut());
        }
        if (m.lost() > 0) {
            parts.add("unanswered at the end: " + m.lost());
        }
        if (m.connectionErrors() > 0) {
            parts.add("connection errors: " + m.connectionErrors());
        }
        return String.join(", ", parts);
    }

    private static String back(Double s) {
        return s == null ? "not within the phase" : String.format(Locale.ROOT, "%.2f s", s);
    }

    static String secs(double s) {
        return s < 1 ? String.format(Locale.ROOT, "%.0f ms", s * 1000) : String.format(Locale.ROOT, "%.2f s", s);
    }
}
