package org.arbiter.console;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Where bus messages enter the console: each one updates the {@link ConsoleState} and is passed
 * on to the live event stream as {@code stats}, {@code allocation}, {@code decision},
 * {@code power} or {@code override}. A sink that throws is logged, never passed to the caller
 * (the bus's consumer loop).
 *
 * <p>A report dated after it arrives (a gateway clock ahead of the console's) counts as made when
 * it arrived, and is logged as a warning: the first at once, then at most one line per
 * {@link #FUTURE_WARNING_INTERVAL} saying how many more there were. Reports less than
 * {@link #FUTURE_TOLERANCE} ahead are counted as received without a warning (ordinary skew).
 *
 * <p>Thread-safe as far as its state and sink are.
 */
public final class ConsoleFeed {

    /** Receives live events. */
    @FunctionalInterface
    public interface EventSink {
        void emit(String type, Object payload);

        EventSink NONE = (type, payload) -> { };
    }

    /** How far ahead a report may be without a warning. */
    public static final Duration FUTURE_TOLERANCE = Duration.ofSeconds(1);
    /** At most one warning about reports from the future per this interval. */
    public static final Duration FUTURE_WARNING_INTERVAL = Duration.ofMinutes(1);

    private static final Logger LOG = LoggerFactory.getLogger(ConsoleFeed.class);

    /** A gateway's snapshots kept waiting for their pools' parts (beyond: the oldest shown incomplete). */
    static final int MAX_PENDING_SNAPSHOTS = 1_024;

    private final ConsoleState state;
    private final PoolReportJoiner joiner;
    private final EventSink sink;
    private final Clock clock;
    private Instant nextFutureWarning = Instant.MIN;  // guarded by this
    private long futureSuppressed;                     // guarded by this

    public ConsoleFeed(ConsoleState state, EventSink sink) {
        this(state, sink, Clock.systemUTC());
    }

    /** A feed that takes the time reports are received from {@code clock}. */
    public ConsoleFeed(ConsoleState state, EventSink sink, Clock clock) {
        this.state = requireNonNull(state, "state");
        int pools = state.config().pools().size();
        this.joiner = pools == 0 ? null : new PoolReportJoiner(pools, MAX_PENDING_SNAPSHOTS);
        this.sink = requireNonNull(sink, "sink");
        this.clock = requireNonNull(clock, "clock");
    }

    public ConsoleState state() {
        return state;
    }

    /**
     * A statistics record. With pools a gateway's snapshot comes as one record per pool (key
     * {@code gateway@pool}): they are joined into the gateway's whole report first ({@link PoolReportJoiner}).
     */
    public void onStats(String key, GatewayStats stats) {
        if (stats != null && joiner != null && key != null && key.indexOf('@') >= 0) {
            List<GatewayStats> whole;
            synchronized (joiner) {
                whole = joiner.offer(stats);
            }
            whole.forEach(this::takeStats);
            return;
        }
        takeStats(stats);
    }

    private void takeStats(GatewayStats stats) {
        Instant now = clock.instant();
        if (stats != null && stats.at().isAfter(now.plus(FUTURE_TOLERANCE))) {
            warnFuture(stats, now);
        }
        ConsoleState.StatsPoint p = state.onStats(stats, now);
        if (p != null) {
            emit("stats", p);
        }
    }

    public void onAllocation(String key, Allocation allocation) {
        if (state.onAllocation(key, allocation)) {
            // with pools a record is one pool's: the event carries the gateway's, every pool's together
            String gateway = allocation != null ? allocation.gateway() : key.contains("@") ? key.substring(0, key.indexOf('@')) : key;
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("gateway", gateway);
            m.put("allocation", state.allocationOf(gateway));
            emit("allocation", m);
        }
    }

    public void onPower(String key, PowerOrder order) {
        state.onPower(key, order);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("server", order != null ? order.server() : key);
        m.put("order", order);
        emit("power", m);
    }

    public void onDecision(String key, Decision decision) {
        state.onDecision(decision);
        if (decision != null) {
            emit("decision", decision);
        }
    }

    public void onOverride(String key, OperatorOverride override) {
        state.onOverride(key, override);
        Map<String, Object> m = new LinkedHashMap<>();
        m.put("id", key);
        m.put("override", override != null && override.active() ? override : null);
        emit("override", m);
    }

    private void warnFuture(GatewayStats stats, Instant now) {
        long more;
        synchronized (this) {
            if (now.isBefore(nextFutureWarning)) {
                futureSuppressed++;
                return;
            }
            nextFutureWarning = now.plus(FUTURE_WARNING_INTERVAL);
            more = futureSuppressed;
            futureSuppressed = 0;
        }
        LOG.warn("gateway {} reports from {} s in the future (at {}, console clock {}): counted as received now; "
                + "check its clock{}", stats.gateway(), Duration.between(now, stats.at()).toSeconds(), stats.at(), now,
                more > 0 ? " (" + more + " more such reports since the last warning)" : "");
    }

    private void emit(String type, Object payload) {
        try {
            sink.emit(type, payload);
        } catch (RuntimeException e) {
            LOG.warn("live {} event not sent: {}", type, e.toString());
        }
    }
}
