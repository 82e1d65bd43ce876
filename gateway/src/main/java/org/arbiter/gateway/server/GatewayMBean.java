package org.arbiter.gateway.server;

/** JMX view {@code arbiter:type=Gateway,id=<id>}: the allocation in force and the queues. */
public interface GatewayMBean {

    String getId();

    /** The counter of the allocation in force, within {@link #getAllocationEpoch()}. */
    long getAllocationVersion();

    /** The epoch of the allocation in force (0: configured, or a legacy record). */
    long getAllocationEpoch();

    /** Allocations refused, by reason, as {@code other-gateway=12, tombstone=0, stale=3, …}. */
    String getRefusedAllocations();

    String getAllocationSource();

    /** w(g,c) per class, as {@code premium=8.0, basic=2.0}. */
    String getWeights();

    /** N(g,s) per server, as {@code s1=10, s2=5}. */
    String getServerCaps();

    /** Queue length per class, as {@code premium=0, basic=12}. */
    String getQueueLengths();

    /** In-flight requests per class. */
    String getInFlight();

    int getQueued();
}
