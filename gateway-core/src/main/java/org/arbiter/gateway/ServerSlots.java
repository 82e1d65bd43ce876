package org.arbiter.gateway;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;

/*
 * Design note — GatewayCore's per-server slot book (docs/gateway.md, Dispatch and Reload).
 *
 * Model:   per server s its id, N(g,s) in force (the cap) and inflight(g,s). A dispatch takes a
 *          slot only while inflight(g,s) < N(g,s) (take throws otherwise: the core never
 *          over-dispatches); lowering a cap cuts nothing off, the excess drains as requests end.
 * Reload:  indices are never reused, so tickets in flight keep theirs. A server a reload removed is
 *          retired: cap 0 whatever an allocation says, its in-flight requests finish; one that comes
 *          back rejoins under its old index. A server a reload added while a GRM allocation is in
 *          force has a provisional cap (the configured one) until an allocation names it (a GRM
 *          that has not read the new file yet would otherwise give it 0). An allocation names the
 *          servers it gives slots and those the gateway holds a cap on (its last allocation's, or
 *          those its statistics report, a provisional cap among them): a server it does not name
 *          gets 0, or its provisional cap.
 * Threads: none, not thread-safe; confined to the core's thread. The int getters may be read from
 *          other threads (gauges), with no guarantee of freshness.
 */

/** Per server: id, cap N(g,s), in-flight count, retired, provisional cap. See the design note. */
final class ServerSlots {

    private String[] ids;
    private final Map<String, Integer> index = new HashMap<>();
    private int[] caps;
    /** The servers with a cap above 0, index order; null until asked for after the caps changed. */
    private int[] capped;
    private int[] inFlight;
    /** Servers a reload removed: cap 0 whatever the allocation says; their in-flight requests finish. */
    private boolean[] retired;
    /** Caps of servers a reload added while a GRM allocation is in force, until an allocation names them. */
    private final Map<String, Integer> provisionalCaps = new HashMap<>();

    /** The configured servers, each with its configured concurrency as cap until an allocation is installed. */
    ServerSlots(List<ServerConfig> servers) {
        int ns = servers.size();
        ids = new String[ns];
        caps = new int[ns];
        inFlight = new int[ns];
        retired = new boolean[ns];
        for (int s = 0; s < ns; s++) {
            ids[s] = servers.get(s).id();
            index.put(ids[s], s);
            caps[s] = servers.get(s).concurrency();
        }
    }

    int count() {
        return ids.length;
    }

    String id(int s) {
        return ids[s];
    }

    /** The server ids in index order. */
    List<String> ids() {
        return List.of(ids);
    }

    /** The index of server {@code id}, or -1. */
    int indexOf(String id) {
        Integer s = index.get(id);
        return s == null ? -1 : s;
    }

    /** N(g,s) in force. */
    int cap(int s) {
        return caps[s];
    }

    /** The servers whose cap is above 0, in index order (a shared array: not to be modified). */
    int[] capped() {
        if (capped == null) {
            int n = 0;
            for (int cap : caps) {
                n += cap > 0 ? 1 : 0;
            }
            int[] out = new int[n];
            n = 0;
            for (int s = 0; s < caps.length; s++) {
                if (caps[s] > 0) {
                    out[n++] = s;
                }
            }
            capped = out;
        }
        return capped;
    }

    /** A copy of the caps, index order. */
    int[] caps() {
        return caps.clone();
    }

    int inFlight(int s) {
        return inFlight[s];
    }

    /** A copy of the in-flight counts, index order. */
    int[] inFlights() {
        return inFlight.clone();
    }

    /** Whether a reload removed server s. */
    boolean retired(int s) {
        return retired[s];
    }

    /** A slot under N(g,s) is free. */
    boolean hasFreeSlot(int s) {
        return inFlight[s] < caps[s];
    }

    /**
     * A request goes to server s: takes a slot, returns the new in-flight count.
     *
     * @throws IllegalStateException when no slot is free (the core's bug, never the request's)
     */
    int take(int s) {
        if (inFlight[s] >= caps[s]) {
            throw new IllegalStateException("server " + ids[s] + ": inflight " + inFlight[s]
                    + " (expected: < cap " + caps[s] + ")");
        }
        return ++inFlight[s];
    }

    /** A request left server s: frees its slot, returns the new in-flight count. */
    int release(int s) {
        return --inFlight[s];
    }

    /**
     * Takes the caps of {@code a}: a server it does not name gets its provisional cap, else 0; a
     * retired server 0. Provisional caps of servers {@code a} names are forgotten (the GRM knows them now).
     */
    void install(Allocation a) {
        install(a, null);
    }

    /**
     * As {@link #install(Allocation)} for the servers in {@code only} (a pool's; null: every server); the
     * other servers keep their caps.
     */
    void install(Allocation a, boolean[] only) {
        provisionalCaps.keySet().removeAll(a.serverCaps().keySet());
        capped = null;
        // every server of the scope: its provisional cap, else 0; then the servers the allocation names
        // (an allocation names the few a gateway uses, not every server of the cluster)
        for (int s = 0; s < ids.length; s++) {
            if (only == null || s < only.length && only[s]) {
                caps[s] = retired[s] || provisionalCaps.isEmpty() ? 0 : provisionalCaps.getOrDefault(ids[s], 0);
            }
        }
        a.serverCaps().forEach((id, n) -> {
            Integer s = index.get(id);
            if (s != null && (only == null || s < only.length && only[s]) && !retired[s]) {
                caps[s] = n;
            }
        });
    }

    // ---------------------------------------------------------------- reload

    /** Retires every server not in {@code kept} and not retired yet (cap 0 at once); returns their ids. */
    List<String> retireAbsent(Set<String> kept) {
        List<String> removed = new ArrayList<>();
        for (int s = 0; s < ids.length; s++) {
            if (!retired[s] && !kept.contains(ids[s])) {
                retired[s] = true;
                caps[s] = 0;
                capped = null;
                provisionalCaps.remove(ids[s]);
                removed.add(ids[s]);
            }
        }
        return removed;
    }

    /** A new server {@code id} at the next index (cap 0 until an allocation is installed); returns its index. */
    int add(String id) {
        int s = ids.length;
        int n = s + 1;
        ids = Arrays.copyOf(ids, n);
        ids[s] = id;
        caps = Arrays.copyOf(caps, n);
        capped = null;
        inFlight = Arrays.copyOf(inFlight, n);
        retired = Arrays.copyOf(retired, n);
        index.put(id, s);
        return s;
    }

    /** A retired server s is back; false when it was not retired. */
    boolean rejoin(int s) {
        if (!retired[s]) {
            return false;
        }
        retired[s] = false;
        return true;
    }

    /** Server {@code id} has cap {@code cap} until an allocation names it. */
    void provisional(String id, int cap) {
        provisionalCaps.put(id, cap);
    }
}
