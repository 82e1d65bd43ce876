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
 * step 1). A gateway whose last report is older than {@code 3Γ} is not live and leaves the
 * problem. A report is ignored and counted when it is stale (not newer than the one held, or
 * older than 3Γ on arrival), comes from a gateway the configuration does not know, or names a
 * class the configuration does not know.
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
    public enum Outcome { ACCEPTED, STALE, UNKNOWN_GATEWAY, UNKNOWN_CLASS }

    private record Entry(GatewayStats stats, Instant receivedAt) {
    }

    private final Set<String> gateways;
    private final Set<String> classes;
    /** A gateway silent for this many control periods is gone (its slots are handed to others). */
    public static final int GONE_AFTER_PERIODS = 12;

    private final Duration liveness;
    private final Duration expiry;
    private final Map<String, Entry> latest = new TreeMap<>();
    private final Map<Outcome, Long> counts = new EnumMap<>(Outcome.class);

    /**
     * @param config       the cluster (known gateways and classes)
     * @param periodSeconds Γ; reports live for 3Γ
     */
    public StatsBook(ClusterConfig config, double periodSeconds) {
        requireNonNull(config, "config");
        if (!(periodSeconds > 0)) {
            throw new IllegalArgumentException("periodSeconds: " + periodSeconds + " (expected: > 0)");
        }
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
            latest.put(stats.gateway(), new Entry(stats, now));
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
        Entry held = latest.get(stats.gateway());
        if (held != null && !stats.at().isAfter(held.stats().at())) {
            return Outcome.STALE;
        }
        if (stats.at().isBefore(now.minus(liveness))) {
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
