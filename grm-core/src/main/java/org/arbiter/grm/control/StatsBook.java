package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.message.GatewayStats;

/**
 * The latest statistics of every gateway, as the GRM sees them (docs/architecture.md, control loop
 * step 1). A gateway whose last report was received more than {@code 3Γ} ago is not live and
 * leaves the problem. A report is refused and counted by reason ({@link Outcome#tag()}) when it
 * comes from a gateway the configuration does not know, names a class the configuration does not
 * know, is stamped more than {@code control.maxClockSkew} ahead of the GRM's clock ({@code future}),
 * is stamped more than 3Γ behind it ({@code too-old}), or is not newer than the gateway's
 * high-water mark ({@code stale}).
 *
 * <p>Bounded statistics (issue 30): liveness and expiry are judged on the GRM's receive time, never
 * on a record's own {@code at}, and the high-water mark that orders a gateway's reports is
 * {@code min(at, receive time)} of the last report taken. So a record stamped ahead of the GRM's
 * clock — refused beyond the skew, taken within it — advances the mark at most to when it arrived:
 * the gateway's next ordinary report (stamped after that) is taken, and no single record can make
 * a gateway's later reports stale.
 *
 * <p>A gateway that is not live is not forgotten at once: it keeps the slots of its last
 * allocation in force (it enforces them until told otherwise), so the GRM reserves them
 * ({@link CapReserve}). It is <b>gone</b> once nothing has been heard from it for
 * {@value #GONE_AFTER_PERIODS}Γ (counted from its last report, and at the earliest from when this
 * GRM began to lead): then its slots may be handed to others.
 *
 * <p>Core class: time is passed in. Not thread-safe; the GRM service calls it from one thread.
 */
public final class StatsBook {

    /** What became of one report. */
    public enum Outcome {
        ACCEPTED("accepted"),
        /** not newer than the gateway's high-water mark (a duplicate or a reordered report). */
        STALE("stale"),
        /** stamped more than 3Γ before the GRM's clock. */
        TOO_OLD("too-old"),
        /** stamped more than {@code control.maxClockSkew} after the GRM's clock. */
        FUTURE("future"),
        UNKNOWN_GATEWAY("unknown-gateway"),
        UNKNOWN_CLASS("unknown-class");

        private final String tag;

        Outcome(String tag) {
            this.tag = tag;
        }

        /** The {@code reason} tag of {@code arbiter.bus.refused} for a refused report. */
        public String tag() {
            return tag;
        }
    }

    /** A report taken, when it arrived, and the high-water mark it set: min(at, receivedAt). */
    private record Entry(GatewayStats stats, Instant receivedAt, Instant mark) {
    }

    private final Set<String> gateways;
    private final Set<String> classes;
    /** A gateway silent for this many control periods is gone (its slots are handed to others). */
    public static final int GONE_AFTER_PERIODS = 12;

    private final Duration liveness;
    private final Duration expiry;
    private final Duration maxSkew;
    private final Map<String, Entry> latest = new TreeMap<>();
    private final Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);

    /**
     * @param config       the cluster (known gateways and classes)
     * @param periodSeconds Γ; reports live for 3Γ
     * @param maxSkewMillis {@code control.maxClockSkew} in ms: how far a report's {@code at} may lie
     *                      ahead of the GRM's clock
     */
    public StatsBook(ClusterConfig config, double periodSeconds, long maxSkewMillis) {
        requireNonNull(config, "config");
        if (!(periodSeconds > 0)) {
            throw new IllegalArgumentException("periodSeconds: " + periodSeconds + " (expected: > 0)");
        }
        if (maxSkewMillis < 0) {
            throw new IllegalArgumentException("maxSkewMillis: " + maxSkewMillis + " (expected: >= 0)");
        }
        this.maxSkew = Duration.ofMillis(maxSkewMillis);
        this.gateways = Set.copyOf(config.gateways().stream().map(GatewayConfig::id).toList());
        this.classes = Set.copyOf(config.classes().stream().map(ClassConfig::name).toList());
        this.liveness = Duration.ofNanos(Math.round(3 * periodSeconds * 1e9));
        this.expiry = Duration.ofNanos(Math.round(GONE_AFTER_PERIODS * periodSeconds * 1e9));
        for (Outcome o : Outcome.values()) {
            counts.put(o, 0L);
        }
    }

    /** Files a report received at {@code now}; says whether it was taken or why not. */
    public Outcome accept(GatewayStats stats, Instant now) {
        requireNonNull(stats, "stats");
        requireNonNull(now, "now");
        Outcome outcome = classify(stats, now);
        counts.merge(outcome, 1L, Long::sum);
        if (outcome == Outcome.ACCEPTED) {
            Entry held = latest.get(stats.gateway());
            Instant mark = stats.at().isBefore(now) ? stats.at() : now;
            if (held != null && held.mark().isAfter(mark)) {
                mark = held.mark();
            }
            latest.put(stats.gateway(), new Entry(stats, now, mark));
        }
        return outcome;
    }

    private Outcome classify(GatewayStats stats, Instant now) {
        if (!gateways.contains(stats.gateway())) {
            return Outcome.UNKNOWN_GATEWAY;
        }
        for (String c : stats.classes().keySet()) {
            if (!classes.contains(c)) {
                return Outcome.UNKNOWN_CLASS;
            }
        }
        if (stats.at().isAfter(now.plus(maxSkew))) {
            return Outcome.FUTURE;
        }
        if (stats.at().isBefore(now.minus(liveness))) {
            return Outcome.TOO_OLD;
        }
        Entry held = latest.get(stats.gateway());
        if (held != null && !stats.at().isAfter(held.mark())) {
            return Outcome.STALE;
        }
        return Outcome.ACCEPTED;
    }

    /** The latest report of every live gateway (heard from within 3Γ of {@code now}), by gateway id. */
    public Map<String, GatewayStats> live(Instant now) {
        Map<String, GatewayStats> out = new LinkedHashMap<>();
        latest.forEach((g, e) -> {
            if (!e.receivedAt().isBefore(now.minus(liveness))) {
                out.put(g, e.stats());
            }
        });
        return out;
    }

    /** Gateways known to the configuration that are not live at {@code now}, sorted. */
    public List<String> silent(Instant now) {
        Map<String, GatewayStats> live = live(now);
        return gateways.stream().sorted().filter(g -> !live.containsKey(g)).toList();
    }

    /**
     * Gateways known to the configuration that are gone at {@code now}: nothing received from them
     * within {@value #GONE_AFTER_PERIODS}Γ, counting from {@code since} at the earliest (when this
     * GRM began to lead, so a new leader gives every gateway the full expiry), sorted.
     */
    public List<String> gone(Instant now, Instant since) {
        requireNonNull(now, "now");
        requireNonNull(since, "since");
        return gateways.stream().sorted().filter(g -> {
            Entry e = latest.get(g);
            Instant heard = e == null || e.receivedAt().isBefore(since) ? since : e.receivedAt();
            return !heard.isAfter(now.minus(expiry));
        }).toList();
    }

    /** Reports by outcome since this book was made. */
    public Map<Outcome, Long> counts() {
        return Map.copyOf(counts);
    }
}
