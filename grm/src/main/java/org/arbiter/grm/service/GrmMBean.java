package org.arbiter.grm.service;

/** JMX view of a GRM: {@code arbiter:type=Grm,id=<id>}. */
public interface GrmMBean {

    String getId();

    boolean isLeader();

    long getLeaderChanges();

    /** The pools this GRM owns, comma-separated ("" for the single pool of a cluster without pools, or none). */
    String getOwnedPools();

    /** Ω of the last decision (NaN before the first). */
    double getLastObjective();

    double getLastSolveMillis();

    /** The counter of the last allocation published (within {@link #getLastAllocationEpoch()}). */
    long getLastAllocationVersion();

    /** The epoch of the last allocation published (ms since 1970 when it began; 0 before the first). */
    long getLastAllocationEpoch();

    /** Records refused on the allocation and power topics (implausible stamps), all reasons. */
    long getRefusedRecords();

    long getPeriods();

    /**
     * Per class, the flow model's mean absolute relative prediction error over the predictions checked
     * in the last 4 statistics windows, and how many: {@code basic=0.182 (12),premium=0.095 (10)}
     * ("" before any was checked; a class with none lately is left out).
     */
    String getPredictionErrors();

    String getLiveGateways();

    long getIgnoredStats();

    /** Servers ON (getting caps). */
    int getServersOn();

    /** {@code s1=ON,s2=DRAINING,…} as the model has them. */
    String getPowerStates();

    /** Energy the servers used since this GRM's model started, J (the model's estimate). */
    double getEnergyJoules();

    /** Energy saved against every server always on doing the same work, percent (the model's estimate). */
    double getEnergySavedPercent();

    /** Power drawn now, W (the model's estimate). */
    double getPowerWatts();

    /** One server's estimated capacity, req/s (0 = unknown). */
    double getCapacityEstimate();

    /** Service rate of one server measured in the gateways' backlog, req/s (0 = no backlog yet; the estimate uses it from 10 s on). */
    double getCapacityServiceRate();

    /** Seconds of gateway backlog that measurement covers (the last 1 200 s at most). */
    double getCapacityBacklogSeconds();

    /** λ̂, the arrival rate forecast one start-up delay ahead, req/s. */
    double getForecastRate();

    /** log, exec or http. */
    String getPowerActuator();

    /** Actuations that failed after every attempt. */
    long getActuationFailures();

    /** Attempts that failed and were retried. */
    long getActuationRetries();

    /** The last final failure: when, what, why ("" when none). */
    String getLastActuationFailure();
}
