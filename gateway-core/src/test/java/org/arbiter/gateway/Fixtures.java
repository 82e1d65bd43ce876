package org.arbiter.gateway;

import java.time.Instant;
import java.util.Arrays;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;

/** Shared configurations for gateway tests. */
final class Fixtures {

    private Fixtures() {
    }

    /** premium (X-Class: premium) 8, basic (default) 2; servers s1 (N=10), optional s2. */
    static ClusterConfig twoClasses(int limit, String timeout, String... serverUrls) {
        return withDispatch("{backendTimeout: 5s, idleTimeout: 5s}", limit, timeout, serverUrls);
    }

    static ClusterConfig withDispatch(String dispatch, int limit, String timeout, String... serverUrls) {
        StringBuilder y = new StringBuilder();
        y.append("""
                classes:
                  - name: premium
                    target: 1s
                    weight: 8
                    match: {header: {X-Class: premium}}
                    queue: {limit: %d, timeout: %s}
                  - name: basic
                    target: 2s
                    weight: 2
                    default: true
                    queue: {limit: %d, timeout: %s}
                servers:
                """.formatted(limit, timeout, limit, timeout));
        String[] urls = serverUrls.length == 0 ? new String[] {"http://127.0.0.1:9"} : serverUrls;
        for (int i = 0; i < urls.length; i++) {
            y.append("  - {id: s").append(i + 1).append(", url: '").append(urls[i]).append("', concurrency: 10}\n");
        }
        y.append("""
                gateways:
                  - {id: g1, port: 0, adminPort: 0}
                control: {reportPeriod: 1s, statsWindow: 10s}
                dispatch: %s
                """.formatted(dispatch));
        return ConfigLoader.parse(y.toString());
    }

    static ClusterConfig parse(String yaml) {
        return ConfigLoader.parse(yaml);
    }

    static <R> GatewayCore<R> core(ClusterConfig cluster, Scheduler scheduler) {
        return new GatewayCore<>(cluster, "g1", ConfiguredAllocation.of(cluster, "g1", true, Instant.EPOCH), scheduler,
                Balancers.leastOutstanding(), 0);
    }

    static Allocation allocation(long version, Map<String, Double> weights, Map<String, Integer> caps) {
        return new Allocation(1, Instant.EPOCH.plusSeconds(version), "g1", version, weights, caps, "grm");
    }

    /** A recorder snapshot's live figures from per-server arrays (index order), every server a candidate. */
    static StatsRecorder.Live live(double[] weights, int[] queueLengths, int[] classInFlight, int[] serverInFlight,
                                   int[] caps, boolean[] up) {
        long[] all = new long[(serverInFlight.length + 63) >>> 6];
        Arrays.fill(all, -1L);
        return new StatsRecorder.Live(weights, queueLengths, classInFlight, new StatsRecorder.ServerLive() {
            @Override
            public int inFlight(int s) {
                return serverInFlight[s];
            }

            @Override
            public int cap(int s) {
                return caps[s];
            }

            @Override
            public boolean up(int s) {
                return up[s];
            }
        }, all);
    }
}
