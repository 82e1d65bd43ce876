package org.arbiter.grm.service;

/** JMX view of a GRM: {@code arbiter:type=Grm,id=<id>}. */
public interface GrmMBean {

    String getId();

    boolean isLeader();

    long getLeaderChanges();

    /** Ω of the last decision (NaN before the first). */
    double getLastObjective();

    double getLastSolveMillis();

    long getLastAllocationVersion();

    long getPeriods();

    String getLiveGateways();

    long getIgnoredStats();
}
