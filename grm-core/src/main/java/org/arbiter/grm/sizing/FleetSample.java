package org.arbiter.grm.sizing;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.GatewayStats;

/**
 * What the live gateways' latest statistics say in one period, summed over gateways (per server)
 * and over every class queue: the fleet's one read of its input. Pure data; not thread-safe.
 */
final class FleetSample {

    final double[] inFlight;
    final boolean[] sending;
    final double[] meanInFlight;
    final double[] throughput;
    final double[] serviceWeighted;
    long arrivals;
    long accepted;
    long dropped;
    double queueSeen;
    double peak;
    long queueLimit;
    double period;
    double rate;
    double windowArrivals;
    double windowDrops;
    /** Per gateway holding caps on a server that served the period: (backlog seconds, dispatched, period). */
    final List<double[]> backlogs = new ArrayList<>();

    private FleetSample(int n) {
        inFlight = new double[n];
        sending = new boolean[n];
        meanInFlight = new double[n];
        throughput = new double[n];
        serviceWeighted = new double[n];
    }

    /** Share of the window's arrivals that were dropped. */
    double abandon() {
        return windowArrivals <= 0 ? 0 : Math.min(1, windowDrops / windowArrivals);
    }

    /**
     * @param serverIndex   each configured server's place in the configured order
     * @param live          the live gateways' latest statistics
     * @param capped        per server: it had a cap through the period (see CapacityTracker)
     * @param queueTimeouts queue timeout per class, for the effective queue bound
     */
    static FleetSample of(Map<String, Integer> serverIndex, Map<String, GatewayStats> live, boolean[] capped,
                          Map<String, Double> queueTimeouts) {
        FleetSample m = new FleetSample(capped.length);
        for (GatewayStats g : live.values()) {
            boolean holdsCaps = false; // on a server that served the period
            // the servers this gateway reports (a report lists the servers it uses, not the cluster's):
            // each server's sums still take the gateways in the same order
            for (Map.Entry<String, GatewayStats.ServerStats> e : g.servers().entrySet()) {
                Integer at = serverIndex.get(e.getKey());
                if (at == null) {
                    continue; // not a configured server
                }
                int i = at;
                GatewayStats.ServerStats s = e.getValue();
                m.inFlight[i] += s.inFlight();
                m.sending[i] |= s.cap() > 0;
                m.meanInFlight[i] += s.meanInFlight();
                m.throughput[i] += s.throughput();
                m.serviceWeighted[i] += s.throughput() * s.meanServiceTime();
                holdsCaps |= capped[i] && s.cap() > 0;
            }
            if (holdsCaps) {
                m.backlogs.add(new double[] {g.backlog().seconds(), g.backlog().dispatched(), g.backlog().periodSeconds()});
            }
            for (Map.Entry<String, GatewayStats.ClassStats> e : g.classes().entrySet()) {
                GatewayStats.ClassStats c = e.getValue();
                m.rate += c.arrivalRate();
                m.windowArrivals += c.arrivalRate() * g.windowSeconds();
                m.windowDrops += c.dropped();
                GatewayStats.PeriodCounters p = c.period();
                m.arrivals += p.arrivals();
                m.accepted += p.accepted();
                m.dropped += p.dropped();
                m.queueSeen += p.meanQueueSeenByArrivals() * p.arrivals();
                m.peak += p.peakArrivalRate();
                // K as the estimator means it: the backlog that overflows. With a queue timeout a
                // request also "overflows" once it would wait longer than the timeout, i.e. beyond
                // timeout × service rate requests; the smaller bound is the effective K (000's accept
                // queue had no timeout).
                double timeout = queueTimeouts.getOrDefault(e.getKey(), Double.POSITIVE_INFINITY);
                double served = p.periodSeconds() > 0 ? p.accepted() / p.periodSeconds() : 0;
                m.queueLimit += served > 0 ? (long) Math.min(p.queueLimit(), Math.max(1, timeout * served)) : p.queueLimit();
                m.period = Math.max(m.period, p.periodSeconds());
            }
        }
        return m;
    }
}
