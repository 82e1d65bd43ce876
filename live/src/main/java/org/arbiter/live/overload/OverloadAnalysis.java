package org.arbiter.live.overload;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.loadgen.client.ResultRecorder.Outcome;
import org.arbiter.loadgen.client.ResultRecorder.Request;

/*
 * Design note — what one spike's requests say (docs/performance.md, "Overload").
 *
 * Input: every request of one load run by class (intended start, response time, outcome: the
 * load generator's records, response = answer − intended start, so a request that waited in a
 * client-side backlog is not flattered), the classes' targets, the spike's window [start, end)
 * and the capacity. Requests are attributed to the moment they were meant to be sent, so a spike's
 * requests are those that arrived during it, however late they were answered.
 *
 * Good:     answered below 500 and not 503 (the load generator's OK: the simserver answers 200, so
 *           these are the 2xx) within the class's target. Goodput = good answers given during the
 *           spike (answer time = intended start + response) ÷ its length, also as a fraction of the
 *           measured capacity: answers per second, so a queue filled in the spike's first second
 *           and served over the next does not count as more than the server can do in that second.
 * Success:  per class, good ÷ sent among the spike's arrivals (so per request, by arrival).
 * Admitted: the OK requests; p50 and p99 of their response time, per class and over all classes.
 * p99 back: bins of `bin` seconds from the spike's start; a bin is late when some class's
 *           admitted p99 in it exceeds 2 × its target (a bin with no admitted request of a class
 *           says nothing about that class). The time back is the end of the last late bin, from
 *           the spike's start (0: no late bin), or null when the spike's last bin is still late.
 * Goodput back: bins from the spike's end to the run's end; a bin is short when fewer than 95 %
 *           of its arrivals were good (answered in time: the offered load is being served). The time back is the end of the last short bin, from the
 *           spike's end (0: none), or null when the run's last bin is still short.
 * Series:   per bin over the whole run, goodput per second (by answer time) and the admitted p99
 *           of each class and of all (by arrival), for the charts.
 *
 * Pure: no clock, no I/O.
 */

/** One overload run's figures from its requests. See the design note. */
public final class OverloadAnalysis {

    /** A bin is short of the offered load when fewer than this share of its arrivals were good. */
    static final double GOOD_SHARE = 0.95;
    /** A bin is late when a class's admitted p99 exceeds this multiple of its target. */
    static final double LATE_FACTOR = 2;

    private OverloadAnalysis() {
    }

    /**
     * The figures of one class during the spike.
     *
     * @param sent    arrivals
     * @param good    answered OK within target
     * @param success good ÷ sent (1 when nothing was sent)
     * @param p50     admitted (OK) requests' median response, seconds (0: none admitted)
     * @param p99     their 99th percentile
     */
    public record ClassFigures(long sent, long good, double success, double p50, double p99) {
    }

    /**
     * One bin of the series: its start (seconds from the run's start), goodput per second, the admitted p99 per class
     * and over all classes (NaN: none admitted).
     */
    public record Bin(double startSeconds, double goodputPerSecond, Map<String, Double> p99, double p99All) {
    }

    /**
     * @param goodputPerSecond   good answers given during the spike ÷ its length
     * @param goodputOfCapacity  that ÷ the capacity
     * @param classes            per class, in the order given
     * @param p50                admitted requests' median over all classes, seconds
     * @param p99                their 99th percentile
     * @param p99BackSeconds     see the design note (null: still late at the spike's end)
     * @param goodputBackSeconds see the design note (null: still short at the run's end)
     * @param series             the whole run in bins
     */
    public record Figures(double goodputPerSecond, double goodputOfCapacity, Map<String, ClassFigures> classes, double p50,
                         double p99, Double p99BackSeconds, Double goodputBackSeconds, List<Bin> series) {
    }

    /**
     * @param requests    per class, every request of the run
     * @param targets     per class, the target in seconds
     * @param spikeStart  seconds from the run's start
     * @param spikeEnd    seconds from the run's start
     * @param runEnd      seconds from the run's start (the last phase's end)
     * @param capacity    requests per second the server(s) complete at the knee, measured
     * @param bin         bin width, seconds
     */
    public static Figures analyse(Map<String, List<Request>> requests, Map<String, Double> targets, double spikeStart,
                                  double spikeEnd, double runEnd, double capacity, double bin) {
        if (!(spikeEnd > spikeStart) || !(runEnd >= spikeEnd) || !(capacity > 0) || !(bin > 0)) {
            throw new IllegalArgumentException("spike [" + spikeStart + ", " + spikeEnd + "), run end " + runEnd
                    + ", capacity " + capacity + ", bin " + bin + " (expected: start < end <= run end, capacity > 0, bin > 0)");
        }
        int bins = (int) Math.ceil(runEnd / bin);
        long[] goodIn = new long[bins];
        long[] goodArrivalsIn = new long[bins];
        long[] sentIn = new long[bins];
        Map<String, List<List<Double>>> admittedIn = new LinkedHashMap<>();
        Map<String, ClassFigures> classes = new LinkedHashMap<>();
        List<Double> allAdmitted = new ArrayList<>();
        long goodAnswers = 0;
        for (var e : requests.entrySet()) {
            String cls = e.getKey();
            Double target = targets.get(cls);
            if (target == null) {
                throw new IllegalArgumentException("targets: no target for class " + cls);
            }
            List<List<Double>> perBin = new ArrayList<>();
            for (int b = 0; b < bins; b++) {
                perBin.add(new ArrayList<>());
            }
            admittedIn.put(cls, perBin);
            long sent = 0;
            long good = 0;
            List<Double> admitted = new ArrayList<>();
            for (Request r : e.getValue()) {
                double t = r.intendedStartSeconds();
                int b = (int) Math.floor(t / bin);
                boolean ok = r.outcome() == Outcome.OK;
                boolean isGood = ok && r.responseSeconds() <= target;
                double answered = t + r.responseSeconds();
                int a = (int) Math.floor(answered / bin);
                if (b >= 0 && b < bins) {
                    sentIn[b]++;
                    if (isGood) {
                        goodArrivalsIn[b]++;
                    }
                    if (ok) {
                        perBin.get(b).add(r.responseSeconds());
                    }
                }
                if (isGood && a >= 0 && a < bins) {
                    goodIn[a]++;
                }
                if (isGood && answered >= spikeStart && answered < spikeEnd) {
                    goodAnswers++;
                }
                if (t >= spikeStart && t < spikeEnd) {
                    sent++;
                    if (isGood) {
                        good++;
                    }
                    if (ok) {
                        admitted.add(r.responseSeconds());
                    }
                }
            }
            allAdmitted.addAll(admitted);
            double[] a = sorted(admitted);
            classes.put(cls, new ClassFigures(sent, good, sent == 0 ? 1 : (double) good / sent, quantile(a, 0.5),
                    quantile(a, 0.99)));
        }
        List<Bin> series = new ArrayList<>();
        for (int b = 0; b < bins; b++) {
            Map<String, Double> p99 = new LinkedHashMap<>();
            List<Double> inBin = new ArrayList<>();
            for (var e : admittedIn.entrySet()) {
                double[] a = sorted(e.getValue().get(b));
                p99.put(e.getKey(), a.length == 0 ? Double.NaN : quantile(a, 0.99));
                inBin.addAll(e.getValue().get(b));
            }
            double[] all = sorted(inBin);
            series.add(new Bin(b * bin, goodIn[b] / bin, p99, all.length == 0 ? Double.NaN : quantile(all, 0.99)));
        }
        int first = (int) Math.floor(spikeStart / bin);
        int last = (int) Math.ceil(spikeEnd / bin) - 1;
        Double p99Back = 0.0;
        for (int b = first; b <= last && b < bins; b++) {
            for (var e : series.get(b).p99().entrySet()) {
                if (e.getValue() > LATE_FACTOR * targets.get(e.getKey())) {
                    p99Back = b == last ? null : Math.max(0, (b + 1) * bin - spikeStart);
                }
            }
        }
        Double goodBack = 0.0;
        int after = (int) Math.ceil(spikeEnd / bin);
        for (int b = after; b < bins; b++) {
            if (sentIn[b] > 0 && goodArrivalsIn[b] < GOOD_SHARE * sentIn[b]) {
                goodBack = b == bins - 1 ? null : (b + 1) * bin - spikeEnd;
            }
        }
        double goodput = goodAnswers / (spikeEnd - spikeStart);
        double[] all = sorted(allAdmitted);
        return new Figures(goodput, goodput / capacity, classes, quantile(all, 0.5), quantile(all, 0.99), p99Back,
                goodBack, series);
    }

    private static double[] sorted(List<Double> values) {
        double[] a = new double[values.size()];
        for (int i = 0; i < a.length; i++) {
            a[i] = values.get(i);
        }
        Arrays.sort(a);
        return a;
    }

    /** The {@code q} quantile of sorted {@code a} by the nearest rank (0 when empty). */
    static double quantile(double[] a, double q) {
        if (a.length == 0) {
            return 0;
        }
        int rank = (int) Math.ceil(q * a.length);
        return a[Math.max(0, Math.min(a.length - 1, rank - 1))];
    }
}
