package org.arbiter.loadgen.client;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * What a load run measured: per class over the whole run and per phase. This record is the
 * summary.json contract: Jackson writes it field for field, in the order declared here (durationSeconds,
 * classes, phases; each class's counts, then throughput and response times). Immutable.
 *
 * @param durationSeconds the time actually run
 * @param classes         per class (scenario order) over the whole run
 * @param phases          per phase, in order
 */
@JsonPropertyOrder({"durationSeconds", "classes", "phases"})
public record LoadSummary(double durationSeconds, Map<String, ClassSummary> classes, List<PhaseSummary> phases) {

    public LoadSummary {
        classes = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(classes, "classes")));
        phases = List.copyOf(phases);
    }

    /**
     * One class's outcomes over a stretch of the run (response times in seconds, rounded to µs).
     *
     * @param sent requests sent; ok, rejected (503), errors, timedOut and lost are how they ended
     */
    @JsonPropertyOrder({"sent", "ok", "rejected", "errors", "timedOut", "lost", "throughputPerSecond",
            "meanResponseSeconds", "p50ResponseSeconds", "p95ResponseSeconds", "p99ResponseSeconds",
            "varianceResponseSeconds"})
    public record ClassSummary(long sent, long ok, long rejected, long errors, long timedOut, long lost,
                               double throughputPerSecond, double meanResponseSeconds, double p50ResponseSeconds,
                               double p95ResponseSeconds, double p99ResponseSeconds, double varianceResponseSeconds) {

        /** A class that saw no request. */
        public static final ClassSummary NONE = new ClassSummary(0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);

        /** Requests that did not end in a response: rejected + errors + timed out + lost (not in summary.json). */
        @JsonIgnore
        public long dropped() {
            return rejected + errors + timedOut + lost;
        }
    }

    /** One phase: its name, when it ran (s from the start) and its classes. */
    @JsonPropertyOrder({"name", "startSeconds", "endSeconds", "classes"})
    public record PhaseSummary(String name, double startSeconds, double endSeconds, Map<String, ClassSummary> classes) {

        public PhaseSummary {
            requireNonNull(name, "name");
            classes = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(classes, "classes")));
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
}
