package org.arbiter.grm.sizing;

/*
 * Design note — cluster sizing (000 §7.5).
 *
 * Each period the policy sees the demand forecast λ̂ (req/s, T_c = the start-up delay ahead), the
 * capacity c of one server, and how many servers are ON, BOOTING and DRAINING; it answers how many
 * should be on. The controller around it (SizingController) turns the answer into power orders:
 * at most one change at a time, a warm-up after a power-on before the next change, and a server
 * is turned off only when the rest carry the load.
 *
 *   off       always every server (the always-on baseline);
 *   queue     ⌈λ̂ / c⌉ with c from an estimator (static or queue monitoring): 000 §7.5's dynamic controller;
 *   schedule  a timetable: the number given for the time of day (000's fixed-schedule comparison);
 *   utility   the smallest set whose optimal Ω stays above a floor (needs the GRM's solver; see
 *             UtilitySizing).
 *
 * Core classes: time passed in; not thread-safe.
 */

/** How many servers should be on. See the design note. */
@FunctionalInterface
public interface SizingPolicy {

    /**
     * @param nowSeconds         time
     * @param forecastRate       λ̂, req/s expected T_c ahead
     * @param capacityPerServer  c, req/s one server sustains at the drop-ratio bound (0 = unknown)
     * @param servers            servers that exist
     * @return servers wanted on (the controller clamps to [minServers, maxServers])
     */
    int wanted(double nowSeconds, double forecastRate, double capacityPerServer, int servers);

    /** The always-on baseline. */
    static SizingPolicy alwaysOn() {
        return (now, rate, c, servers) -> servers;
    }

    /** ⌈λ̂ / c⌉ with head-room {@code margin} (e.g. 1.0 = none); all servers while c is unknown. */
    static SizingPolicy byCapacity(double margin) {
        return (now, rate, c, servers) -> c <= 0 ? servers : (int) Math.ceil(rate * margin / c - 1e-9);
    }

    /** A timetable: {@code counts[i]} servers during the i-th slot of {@code slotSeconds}, cycling. */
    static SizingPolicy schedule(double slotSeconds, int[] counts) {
        int[] copy = counts.clone();
        return (now, rate, c, servers) -> copy[(int) Math.floor(now / slotSeconds) % copy.length];
    }
}
