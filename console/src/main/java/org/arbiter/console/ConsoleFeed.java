package org.arbiter.console;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
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
 * <p>Thread-safe as far as its state and sink are.
 */
public final class ConsoleFeed {

    /** Receives live events. */
    @FunctionalInterface
    public interface EventSink {
        void emit(String type, Object payload);

        EventSink NONE = (type, payload) -> { };
    }

    private static final Logger LOG = LoggerFactory.getLogger(ConsoleFeed.class);

    private final ConsoleState state;
    private final EventSink sink;

    public ConsoleFeed(ConsoleState state, EventSink sink) {
        this.state = requireNonNull(state, "state");
        this.sink = requireNonNull(sink, "sink");
    }

    public ConsoleState state() {
        return state;
    }

    public void onStats(String key, GatewayStats stats) {
        ConsoleState.StatsPoint p = state.onStats(stats);
        if (p != null) {
            emit("stats", p);
        }
    }

    public void onAllocation(String key, Allocation allocation) {
        if (state.onAllocation(key, allocation)) {
            Map<String, Object> m = new LinkedHashMap<>();
            m.put("gateway", allocation != null ? allocation.gateway() : key);
            m.put("allocation", allocation);
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

    private void emit(String type, Object payload) {
        try {
            sink.emit(type, payload);
        } catch (RuntimeException e) {
            LOG.warn("live {} event not sent: {}", type, e.toString());
        }
    }
}
