package org.arbiter.grm.sizing;

import java.util.Arrays;
import java.util.function.IntUnaryOperator;
import org.arbiter.common.config.SizingConfig;
import org.arbiter.common.message.ServerState;
import org.arbiter.grm.capacity.CapacityEstimator;

/**
 * One server's capacity, c: the estimator (sizing.estimator: queue, static, utilization; always
 * static under the static policy) gets one sample per period — the gateways' 000 §5.3 counters
 * summed over every class queue of every gateway and divided by the number of servers that had a
 * cap through the period (a server that finished booting meanwhile served nothing yet). The
 * servers are alike, so one per-server estimate serves them all. Not thread-safe.
 */
final class CapacityTracker {

    /** With several gateways, a backlog counts when each had one for at least this share of the period. */
    static final double SATURATED_SHARE = 0.9;

    private final CapacityEstimator estimator;
    private final boolean[] capped;

    CapacityTracker(SizingConfig sizing, int servers) {
        // policy static is read as by-capacity with the static estimator (the loader requires staticCapacity)
        this.estimator = switch (sizing.estimator()) {
            case STATIC -> CapacityEstimator.ofStatic(sizing.staticCapacity());
            case UTILIZATION -> CapacityEstimator.ofUtilization(0.5);
            case QUEUE -> CapacityEstimator.ofQueueMonitoring(sizing.dropRatio(), sizing.startupDelaySeconds(), 0.9);
        };
        this.capped = new boolean[servers];
        Arrays.fill(capped, true);
    }

    /** Per server: it had a cap through the period (ON at the end of the last step). Read-only for callers. */
    boolean[] capped() {
        return capped;
    }

    /** After a step: the servers that are ON now get caps until the next. */
    void holdCaps(ServerPower power) {
        for (int i = 0; i < capped.length; i++) {
            capped[i] = power.state(i) == ServerState.ON;
        }
    }

    /**
     * One capacity sample, per server: over the servers that had a cap through the period (ON at the
     * end of the last step and not down since) — not one that finished booting during it.
     */
    void sample(FleetSample m, ServerPower power, IntUnaryOperator concurrency) {
        int served = 0;
        double busy = 0;
        for (int i = 0; i < capped.length; i++) {
            ServerState st = power.state(i);
            if (capped[i] && (st == ServerState.ON || st == ServerState.DRAINING)) {
                served++;
                busy += Math.min(1, m.meanInFlight[i] / Math.max(1, concurrency.applyAsInt(i)));
            }
        }
        // the backlog's service rate: while a gateway has a backlog, its slots are all busy — but the
        // servers are saturated only if every gateway's are (a processor-sharing server with idle
        // slots elsewhere serves the busy ones faster). One gateway: its backlog; several: only a
        // period in which each was backlogged nearly throughout, as the sum of their rates.
        double backlogSeconds = 0;
        double backlogAccepted = 0;
        if (served > 0 && m.backlogs.size() == 1) {
            backlogSeconds = m.backlogs.get(0)[0];
            backlogAccepted = m.backlogs.get(0)[1] / served;
        } else if (served > 0 && m.backlogs.size() > 1
                && m.backlogs.stream().allMatch(b -> b[2] > 0 && b[0] >= SATURATED_SHARE * b[2])) {
            backlogSeconds = m.backlogs.stream().mapToDouble(b -> b[0]).min().orElse(0);
            double rate = m.backlogs.stream().mapToDouble(b -> b[1] / b[0]).sum();
            backlogAccepted = rate * backlogSeconds / served;
        }
        if (served > 0 && m.period > 0 && m.arrivals + m.accepted > 0) {
            estimator.update(new CapacityEstimator.Sample(m.period, Math.round((double) m.arrivals / served),
                    Math.round((double) m.accepted / served), Math.round((double) m.dropped / served),
                    m.arrivals == 0 ? 0 : m.queueSeen / m.arrivals / served, m.peak / served,
                    (int) Math.max(1, m.queueLimit / served), busy / served,
                    Math.min(m.period, backlogSeconds), backlogAccepted));
        }
    }

    /** The capacity estimate of one server, req/s (0 = unknown). */
    double estimate() {
        return estimator.estimate();
    }

    /** The service rate measured in the gateways' backlog, req/s per server (0 = none). */
    double serviceRate() {
        return estimator.serviceRate();
    }

    /** Seconds of backlog that measurement covers. */
    double backlogSeconds() {
        return estimator.backlogSeconds();
    }
}
