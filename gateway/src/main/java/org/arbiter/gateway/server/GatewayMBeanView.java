package org.arbiter.gateway.server;

import java.util.StringJoiner;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.allocation.AllocationFollower;
import org.arbiter.gateway.netty.DataPlane;

/** A gateway's {@link GatewayMBean}: read through the data plane's locked core and the follower. Thread-safe. */
final class GatewayMBeanView implements GatewayMBean {
    private final String id;
    private final DataPlane plane;
    private final AllocationFollower follower;
    private final GatewayCore<?> core;

    GatewayMBeanView(String id, DataPlane plane, AllocationFollower follower) {
        this.id = id;
        this.plane = plane;
        this.follower = follower;
        this.core = plane.core();
    }

    @Override
    public String getId() {
        return id;
    }

    @Override
    public long getAllocationVersion() {
        return plane.allocation().version();
    }

    @Override
    public long getAllocationEpoch() {
        return plane.allocation().epoch();
    }

    @Override
    public String getRefusedAllocations() {
        StringJoiner j = new StringJoiner(", ");
        follower.refused().forEach((reason, n) -> j.add(reason + "=" + n));
        return j.toString();
    }

    @Override
    public String getAllocationSource() {
        return plane.allocation().source();
    }

    @Override
    public String getWeights() {
        StringJoiner j = new StringJoiner(", ");
        for (int c = 0; c < core.classCount(); c++) {
            j.add(core.className(c) + "=" + core.weight(c));
        }
        return j.toString();
    }

    @Override
    public String getServerCaps() {
        StringJoiner j = new StringJoiner(", ");
        for (int s = 0; s < core.serverCount(); s++) {
            j.add(core.serverId(s) + "=" + core.cap(s));
        }
        return j.toString();
    }

    @Override
    public String getQueueLengths() {
        StringJoiner j = new StringJoiner(", ");
        for (int c = 0; c < core.classCount(); c++) {
            j.add(core.className(c) + "=" + core.queueLength(c));
        }
        return j.toString();
    }

    @Override
    public String getInFlight() {
        StringJoiner j = new StringJoiner(", ");
        for (int c = 0; c < core.classCount(); c++) {
            j.add(core.className(c) + "=" + core.inFlight(c));
        }
        return j.toString();
    }

    @Override
    public int getQueued() {
        return core.queued();
    }
}
