package org.arbiter.gateway.allocation;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;

/** The allocation a gateway starts from, before (or without) a GRM. Stateless. */
public final class ConfiguredAllocation {

    private ConfiguredAllocation() {
    }

    /**
     * Version 0, source "configured": weights from {@code classes[].weight}; caps N(g,s) equal to
     * {@code servers[].concurrency} when standalone, or, when the servers are shared with the
     * other gateways of the file, N_s split into integers as equal as possible (remainders go to
     * the gateways in file order, rotated by server so no gateway always gets them).
     */
    public static Allocation of(ClusterConfig cluster, String gatewayId, boolean standalone, Instant at) {
        Map<String, Double> weights = new LinkedHashMap<>();
        for (ClassConfig c : cluster.classes()) {
            weights.put(c.name(), c.weight());
        }
        List<GatewayConfig> gateways = cluster.gateways();
        int g = 0;
        for (int i = 0; i < gateways.size(); i++) {
            if (gateways.get(i).id().equals(gatewayId)) {
                g = i;
            }
        }
        int count = standalone ? 1 : Math.max(1, gateways.size());
        Map<String, Integer> caps = new LinkedHashMap<>();
        List<ServerConfig> servers = cluster.servers();
        for (int s = 0; s < servers.size(); s++) {
            int ns = servers.get(s).concurrency();
            int base = ns / count;
            int extra = ns % count;
            int rank = Math.floorMod(g - s, count);
            caps.put(servers.get(s).id(), base + (rank < extra ? 1 : 0));
        }
        return new Allocation(1, at, gatewayId, 0, weights, caps, "configured");
    }
}
