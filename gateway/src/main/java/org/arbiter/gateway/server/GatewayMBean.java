package org.arbiter.gateway.server;

/** JMX view {@code arbiter:type=Gateway,id=<id>}: the allocation in force and the queues. */
public interface GatewayMBean {

    String getId();

    long getAllocationVersion();

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
