package org.arbiter.loadgen.client;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a load run measured: per class over the whole run and per phase (the summary.json contract,
 * which {@link #toJson()} gives field for field). Immutable.
 *
 * @param durationSeconds the time actually run
 * @param classes         per class (scenario order) over the whole run
 * @param phases          per phase, in order
 */
public record LoadSummary(double durationSeconds, Map<String, ClassSummary> classes, List<PhaseSummary> phases) {

    public LoadSummary {
        classes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(classes, "classes")));
        phases = List.copyOf(phases);
    }

    /**
     * One class's outcomes over a stretch of the run (response times in seconds, rounded to µs).
     *
     * @param sent requests sent; ok, rejected (503), errors, timedOut and lost are how they ended
     */
    public record ClassSummary(long sent, long ok, long rejected, long errors, long timedOut, long lost,
                               double throughputPerSecond, double meanResponseSeconds, double p50ResponseSeconds,
                               double p95ResponseSeconds, double p99ResponseSeconds, double varianceResponseSeconds) {

        /** A class that saw no request. */
        public static final ClassSummary NONE = new ClassSummary(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        /** Requests that did not end in a response: rejected + errors + timed out + lost. */
        public long dropped() {
            return rejected + errors + timedOut + lost;
        }

        Map<String, Object> toJson() {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("sent", sent);
            m.put("ok", ok);
            m.put("rejected", rejected);
            m.put("errors", errors);
            m.put("timedOut", timedOut);
            m.put("lost", lost);
            m.put("throughputPerSecond", throughputPerSecond);
            m.put("meanResponseSeconds", meanResponseSeconds);
            m.put("p50ResponseSeconds", p50ResponseSeconds);
            m.put("p95ResponseSeconds", p95ResponseSeconds);
            m.put("p99ResponseSeconds", p99ResponseSeconds);
            m.put("varianceResponseSeconds", varianceResponseSeconds);
            return m;
        }
    }

    /** One phase: its name, when it ran (s from the start) and its classes. */
    public record PhaseSummary(String name, double startSeconds, double endSeconds, Map<String, ClassSummary> classes) {

        public PhaseSummary {
            requireNonNull(name, "name");
            classes = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(classes, "classes")));
        }

        /** The class named {@code name}, or {@link ClassSummary#NONE} when the phase has no such class. */
        public ClassSummary cls(String name) {
            return classes.getOrDefault(name, ClassSummary.NONE);
        }
    }

    /** The class named {@code name} over the whole run, or {@link ClassSummary#NONE} when there is no such class. */
    public ClassSummary cls(String name) {
        return classes.getOrDefault(name, ClassSummary.NONE);
    }

    /** The summary.json document: the same keys, order and values as ever. */
    public Map<String, Object> toJson() {
        Map<String, Object> s = new LinkedHashMap<>();
        s.put("durationSeconds", durationSeconds);
        Map<String, Object> cs = new LinkedHashMap<>();
        classes.forEach((c, k) -> cs.put(c, k.toJson()));
        s.put("classes", cs);
        List<Object> ps = new ArrayList<>();
        for (PhaseSummary ph : phases) {
            Map<String, Object> p = new LinkedHashMap<>();
            p.put("name", ph.name());
            p.put("startSeconds", ph.startSeconds());
            p.put("endSeconds", ph.endSeconds());
            Map<String, Object> pc = new LinkedHashMap<>();
            ph.classes().forEach((c, k) -> pc.put(c, k.toJson()));
            p.put("classes", pc);
            ps.add(p);
        }
        s.put("phases", ps);
        return s;
    }
}
