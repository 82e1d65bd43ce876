package org.arbiter.grm.sizing;

import java.util.Map;

/**
 * Ω for a set of servers: what the utility sizing policy asks of the optimiser. The fleet hands it
 * the servers it is weighing (id → N_s, in configuration order, the first k of them); the GRM's
 * step answers with the optimal cluster utility over just those servers, or −∞ when no feasible
 * allocation exists. Sizing learns nothing else about the solver, and the solver nothing about
 * sizing.
 */
@FunctionalInterface
public interface UtilityOfSize {

    /** Optimal Ω with exactly {@code servers} on (id → N_s); −∞ when infeasible or empty. */
    double omega(Map<String, Integer> servers);
}
