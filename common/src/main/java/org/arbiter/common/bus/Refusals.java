package org.arbiter.common.bus;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import org.slf4j.Logger;

/**
 * Records a reader refused, counted by reason as {@code arbiter.bus.refused{topic, reason}}
 * (Prometheus {@code arbiter_bus_refused_total}), with at most one log line per reason per
 * {@link #LOG_INTERVAL_NANOS} (the line says how many were refused since the last one). Used by
 * the subscriber for records that do not decode ({@code reason=malformed}) and by the gateway and
 * the GRM for control records they decode but refuse (stale, implausible, …).
 *
 * <p>Thread-safe.
 */
public final class Refusals {

    /** One log line per reason per minute at most. */
    public static final long LOG_INTERVAL_NANOS = 60_000_000_000L;

    private final MeterRegistry registry;
    private final String topic;
    private final Logger log;
    private final LongSupplier nanoTicker;
    private final Map<String, Reason> reasons = new ConcurrentHashMap<>();

    private static final class Reason {
        final Counter counter;
        final AtomicLong count = new AtomicLong();
        final AtomicLong suppressed = new AtomicLong();
        volatile long lastLogNanos;
        volatile boolean logged;

        Reason(Counter counter) {
            this.counter = counter;
        }
    }

    /**
     * @param registry   where the counters go
     * @param topic      the {@code topic} tag
     * @param log        where the rate-limited lines go (WARN)
     * @param nanoTicker {@code System::nanoTime} live
     */
    public Refusals(MeterRegistry registry, String topic, Logger log, LongSupplier nanoTicker) {
        this.registry = requireNonNull(registry, "registry");
        this.topic = requireNonNull(topic, "topic");
        this.log = requireNonNull(log, "log");
        this.nanoTicker = requireNonNull(nanoTicker, "nanoTicker");
    }

    /** Counts one refused record; logs {@code detail} unless this reason was logged within the interval. */
    public void refuse(String reason, String detail) {
        Reason r = counted(reason);
        long now = nanoTicker.getAsLong();
        synchronized (r) {
            if (r.logged && now - r.lastLogNanos < LOG_INTERVAL_NANOS) {
                r.suppressed.incrementAndGet();
                return;
            }
            r.logged = true;
            r.lastLogNanos = now;
        }
        long more = r.suppressed.getAndSet(0);
        log.warn("refused a record on {} ({}): {}{}", topic, reason, detail,
                more > 0 ? " (and " + more + " more since the last line)" : "");
    }

    /** Counts one refused record without logging (a refusal that is routine, e.g. another gateway's key). */
    public void refuseQuietly(String reason) {
        counted(reason);
    }

    private Reason counted(String reason) {
        Reason r = reasons.computeIfAbsent(reason, k -> new Reason(Counter.builder("arbiter.bus.refused")
                .tag("topic", topic).tag("reason", k).description("records refused by reason").register(registry)));
        r.counter.increment();
        r.count.incrementAndGet();
        return r;
    }

    /** Records refused for {@code reason} so far. */
    public long count(String reason) {
        Reason r = reasons.get(reason);
        return r == null ? 0 : r.count.get();
    }

    /** Records refused so far, by reason (sorted). */
    public Map<String, Long> counts() {
        Map<String, Long> out = new TreeMap<>();
        reasons.forEach((k, r) -> out.put(k, r.count.get()));
        return out;
    }
}
