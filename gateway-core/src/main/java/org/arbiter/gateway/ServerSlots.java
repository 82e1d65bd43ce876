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
    /**
     * Server id to index: the configured servers' map is built once and shared by every core built from
     * the same list (the simulator's thousand gateways over ten thousand servers would otherwise hold
     * ten million entries), copied before a reload adds a server.
     */
    private Map<String, Integer> index;
    private boolean indexShared;
    /**
     * Per server s, its cap N(g,s) at {@code 2s} and its in-flight count at {@code 2s + 1}: side by side,
     * so a dispatch or a balancer's look at a server reads one cache line, not one in each of two
     * arrays (a gateway of a large cluster uses a few servers spread over thousands).
     */
    private int[] book;
    /** The servers with a cap above 0, index order; null until asked for after the caps changed. */
    private int[] capped;
    /** Servers a reload removed: cap 0 whatever the allocation says; their in-flight requests finish. */
    private boolean[] retired;
    /** Caps of servers a reload added while a GRM allocation is in force, until an allocation names them. */
    private final Map<String, Integer> provisionalCaps = new HashMap<>();

    /** The configured servers, each with its configured concurrency as cap until an allocation is installed. */
    ServerSlots(List<ServerConfig> servers) {
        int ns = servers.size();
        ids = new String[ns];
        book = new int[2 * ns];
        retired = new boolean[ns];
        for (int s = 0; s < ns; s++) {
            ids[s] = servers.get(s).id();
            book[2 * s] = servers.get(s).concurrency();
        }
        index = sharedIndex(servers, ids);
        indexShared = true;
    }

    private static List<ServerConfig> lastServers;
    private static Map<String, Integer> lastIndex;

    /** The index of {@code servers} (by identity: the same list gives the same map), built once. */
    private static synchronized Map<String, Integer> sharedIndex(List<ServerConfig> servers, String[] ids) {
        if (servers != lastServers) {
            Map<String, Integer> m = new HashMap<>();
            for (int s = 0; s < ids.length; s++) {
                m.put(ids[s], s);
            }
            lastIndex = java.util.Collections.unmodifiableMap(m);
            lastServers = servers;
        }
        return lastIndex;
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
        return book[2 * s];
    }

    /** The servers whose cap is above 0, in index order (a shared array: not to be modified). */
    int[] capped() {
        if (capped == null) {
            int n = 0;
            for (int s = 0; s < ids.length; s++) {
                n += book[2 * s] > 0 ? 1 : 0;
            }
            int[] out = new int[n];
            n = 0;
            for (int s = 0; s < ids.length; s++) {
                if (book[2 * s] > 0) {
                    out[n++] = s;
                }
            }
            capped = out;
        }
        return capped;
    }

    /** A copy of the caps, index order. */
    int[] caps() {
        int[] out = new int[ids.length];
        for (int s = 0; s < out.length; s++) {
            out[s] = book[2 * s];
        }
        return out;
    }

    int inFlight(int s) {
        return book[2 * s + 1];
    }

    /** A copy of the in-flight counts, index order. */
    int[] inFlights() {
        int[] out = new int[ids.length];
        for (int s = 0; s < out.length; s++) {
            out[s] = book[2 * s + 1];
        }
        return out;
    }

    /** Whether a reload removed server s. */
    boolean retired(int s) {
        return retired[s];
    }

    /** A slot under N(g,s) is free. */
    boolean hasFreeSlot(int s) {
        return book[2 * s + 1] < book[2 * s];
    }

    /**
     * A request goes to server s: takes a slot, returns the new in-flight count.
     *
     * @throws IllegalStateException when no slot is free (the core's bug, never the request's)
     */
    int take(int s) {
        if (book[2 * s + 1] >= book[2 * s]) {
            throw new IllegalStateException("server " + ids[s] + ": inflight " + book[2 * s + 1]
                    + " (expected: < cap " + book[2 * s] + ")");
        }
        return ++book[2 * s + 1];
    }

    /** A request left server s: frees its slot, returns the new in-flight count. */
    int release(int s) {
        return --book[2 * s + 1];
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
        if (!provisionalCaps.isEmpty() || capped == null) {
            // every server of the scope: its provisional cap, else 0; then the servers the allocation names
            capped = null;
            for (int s = 0; s < ids.length; s++) {
                if (inScope(s, only)) {
                    book[2 * s] = retired[s] || provisionalCaps.isEmpty() ? 0 : provisionalCaps.getOrDefault(ids[s], 0);
                }
            }
            a.serverCaps().forEach((id, n) -> {
                Integer s = index.get(id);
                if (s != null && inScope(s, only) && !retired[s]) {
                    book[2 * s] = n;
                }
            });
            capped(); // made once here, so that the next allocation takes the short way
            return;
        }
        // the same with no provisional cap, costing the servers capped before and those named, not every
        // server of the cluster (an allocation names the few a gateway uses): the scope's capped servers
        // go to 0, the named ones take their caps, and the capped list is made from the two
        int[] before = capped;
        int[] next = new int[before.length + a.serverCaps().size()];
        int n = 0;
        for (int s : before) {
            if (inScope(s, only)) {
                book[2 * s] = 0;
            } else {
                next[n++] = s; // another pool's: keeps its cap
            }
        }
        for (Map.Entry<String, Integer> e : a.serverCaps().entrySet()) {
            Integer s = index.get(e.getKey());
            if (s != null && inScope(s, only) && !retired[s]) {
                book[2 * s] = e.getValue();
                if (e.getValue() > 0) {
                    next[n++] = s;
                }
            }
        }
        // no server twice: a kept one is outside the scope, a named one inside it, and ids are unique
        Arrays.sort(next, 0, n);
        capped = Arrays.copyOf(next, n);
    }

    /**
     * An adaptive limit's value for server s (AdaptiveLimits): its cap while it has one above 0 and is not
     * retired; a cap of 0 (the allocation's, a retirement's) stays 0. The set of capped servers is unchanged.
     */
    void adapt(int s, int n) {
        if (book[2 * s] > 0 && !retired[s]) {
            book[2 * s] = Math.max(1, n);
        }
    }

    private static boolean inScope(int s, boolean[] only) {
        return only == null || s < only.length && only[s];
    }

    // ---------------------------------------------------------------- reload

    /** Retires every server not in {@code kept} and not retired yet (cap 0 at once); returns their ids. */
    List<String> retireAbsent(Set<String> kept) {
        List<String> removed = new ArrayList<>();
        for (int s = 0; s < ids.length; s++) {
            if (!retired[s] && !kept.contains(ids[s])) {
                retired[s] = true;
                book[2 * s] = 0;
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
        book = Arrays.copyOf(book, 2 * n);
        capped = null;
        retired = Arrays.copyOf(retired, n);
        if (indexShared) {
            index = new HashMap<>(index);
            indexShared = false;
        }
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
