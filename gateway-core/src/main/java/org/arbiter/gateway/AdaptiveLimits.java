package org.arbiter.gateway;

import com.netflix.concurrency.limits.Limit;
import com.netflix.concurrency.limits.limit.Gradient2Limit;
import com.netflix.concurrency.limits.limit.VegasLimit;
import java.util.Arrays;
import java.util.List;
import org.arbiter.common.config.ServerConfig;

/*
 * Design note — adaptive per-server caps (docs/gateway.md, "Adaptive per-server limits").
 *
 * A server with `concurrency: gradient2 | vegas` has, at each gateway, one of Netflix's
 * concurrency-limits Limit objects. Every request of that server that ends with an answer (OK) or
 * a server failure (backend timeout or error: the library's "drop") is one sample: when it was
 * dispatched, its round trip (dispatch to end) and the server's in-flight count when it ended, all
 * in the core's nanoseconds. The limit's value, clamped to [min, max], replaces the server's cap
 * N(g,s) whenever the allocation in force gives the server a cap above 0; an allocation's 0 (a
 * server powered off, drained or retired) still wins, so power-off drains work as before.
 * Cancelled and requeued requests are not samples: they say nothing about the server's latency.
 *
 * Gradient2 and Vegas read no clock: they take the times given. Vegas draws its probe jitter from
 * ThreadLocalRandom, so two runs of a Vegas server can differ.
 * Not thread-safe: the core's thread only.
 */

/** Per server: its adaptive limit, or none. See the design note. */
final class AdaptiveLimits {

    private Limit[] limits;
    private int[] min;
    private int[] max;
    private boolean any;

    AdaptiveLimits(List<ServerConfig> servers) {
        limits = new Limit[servers.size()];
        min = new int[servers.size()];
        max = new int[servers.size()];
        for (int s = 0; s < servers.size(); s++) {
            set(s, servers.get(s));
        }
    }

    /** A server a reload added at index {@code s} (the next one). */
    void add(int s, ServerConfig server) {
        if (s >= limits.length) {
            limits = Arrays.copyOf(limits, s + 1);
            min = Arrays.copyOf(min, s + 1);
            max = Arrays.copyOf(max, s + 1);
        }
        set(s, server);
    }

    private void set(int s, ServerConfig server) {
        ServerConfig.AdaptiveLimit a = server.adaptiveLimit();
        if (a == null) {
            limits[s] = null;
            return;
        }
        any = true;
        min[s] = a.min();
        max[s] = a.max();
        limits[s] = switch (a.algorithm()) {
            case GRADIENT2 -> Gradient2Limit.newBuilder().initialLimit(a.initial()).minLimit(a.min())
                    .maxConcurrency(a.max()).build();
            case VEGAS -> VegasLimit.newBuilder().initialLimit(a.initial()).maxConcurrency(a.max()).build();
        };
    }

    /** Whether any server is adaptive. */
    boolean any() {
        return any;
    }

    /** Whether server s is adaptive. */
    boolean adaptive(int s) {
        return s < limits.length && limits[s] != null;
    }

    /** Server s's current limit, clamped (-1: not adaptive). */
    int limit(int s) {
        return adaptive(s) ? Math.max(min[s], Math.min(max[s], limits[s].getLimit())) : -1;
    }

    /**
     * One sample of server s: a request dispatched at {@code dispatchNanos} ended at {@code nowNanos} with
     * {@code inFlight} requests at the server, {@code dropped} if the server failed it.
     */
    void sample(int s, long dispatchNanos, long nowNanos, int inFlight, boolean dropped) {
        if (adaptive(s)) {
            limits[s].onSample(dispatchNanos, Math.max(1, nowNanos - dispatchNanos), inFlight, dropped);
        }
    }

    /** Puts every adaptive server's limit in place of its cap where the allocation gives it one. */
    void applyTo(ServerSlots slots) {
        if (!any) {
            return;
        }
        for (int s = 0; s < limits.length && s < slots.count(); s++) {
            if (limits[s] != null) {
                slots.adapt(s, limit(s));
            }
        }
    }
}
