package org.arbiter.live;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.l4.HaproxyProcess;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;
import org.arbiter.haproxy.HaproxyAgent;
import org.arbiter.haproxy.HaproxyGatewayConfig;
import org.arbiter.haproxy.RuntimeApi;

/**
 * A live run's gateways, of either kind: Arbiter's own (a {@link Gateway} in this JVM) or an HAProxy 2.6
 * process on the configuration {@code arbiter haproxy config} writes, with its {@link HaproxyAgent} on the
 * Runtime API socket (sampling five times per control period, at least every 0.25 s: a period's allocation
 * is applied and read back before the next). Started in the file's order, closed in reverse.
 * Not thread-safe except {@link LiveGateway#allocation()}.
 */
final class LiveGateways implements AutoCloseable {

    /** One running gateway. */
    interface LiveGateway extends AutoCloseable {
        String id();

        int port();

        /** The allocation in force (the newest accepted). */
        Allocation allocation();

        /** HAProxy's agent: allocations seen and read back applied; null for Arbiter's gateway. */
        HaproxyAgent.Applied applied();

        @Override
        void close();
    }

    private final List<LiveGateway> list = new ArrayList<>();

    private LiveGateways() {
    }

    /** Every gateway of {@code cluster}; HAProxy's files and sockets go to {@code work}. */
    static LiveGateways start(ClusterConfig cluster, Path work) throws Exception {
        double sampleSeconds = Math.min(0.25, cluster.control().periodSeconds() / 5);
        LiveGateways g = new LiveGateways();
        try {
            for (GatewayConfig c : cluster.gateways()) {
                g.list.add(c.kind() == GatewayConfig.Kind.HAPROXY ? haproxy(cluster, c, work, sampleSeconds)
                        : arbiter(cluster, c));
            }
        } catch (Exception | Error e) {
            try {
                g.close();
            } catch (RuntimeException suppressed) {
                e.addSuppressed(suppressed);
            }
            throw e;
        }
        return g;
    }

    List<LiveGateway> list() {
        return List.copyOf(list);
    }

    private static LiveGateway arbiter(ClusterConfig cluster, GatewayConfig c) throws InterruptedException {
        Gateway gw = Gateway.start(cluster, c.id(), GatewayOptions.defaults());
        return new LiveGateway() {
            @Override
            public String id() {
                return gw.id();
            }

            @Override
            public int port() {
                return gw.port();
            }

            @Override
            public Allocation allocation() {
                return gw.allocation();
            }

            @Override
            public HaproxyAgent.Applied applied() {
                return null;
            }

            @Override
            public void close() {
                gw.close();
            }
        };
    }

    private static LiveGateway haproxy(ClusterConfig cluster, GatewayConfig c, Path work, double sampleSeconds)
            throws IOException, InterruptedException, HaproxyGatewayConfig.Invalid {
        Path dir = Files.createDirectories(work.resolve("haproxy-" + c.id()));
        Path socket = dir.resolve("admin.sock");
        Path config = dir.resolve("haproxy.cfg");
        Files.writeString(config, HaproxyGatewayConfig.generate(cluster, c.id(), new HaproxyGatewayConfig.Options(
                socket.toString(), dir.resolve("state").toString(), "the live run")));
        HaproxyProcess process = HaproxyProcess.start(config, new InetSocketAddress(c.host(), c.port()), 15_000);
        HaproxyAgent agent;
        try {
            agent = HaproxyAgent.start(cluster, c.id(), RuntimeApi.of(socket.toString(), 2000),
                    new HaproxyAgent.Options(null, 0, sampleSeconds));
        } catch (RuntimeException e) {
            process.close();
            throw e;
        }
        return new LiveGateway() {
            @Override
            public String id() {
                return c.id();
            }

            @Override
            public int port() {
                return c.port();
            }

            @Override
            public Allocation allocation() {
                return agent.allocation();
            }

            @Override
            public HaproxyAgent.Applied applied() {
                return agent.applied();
            }

            @Override
            public void close() {
                try {
                    agent.close();
                } finally {
                    process.close();
                }
            }
        };
    }

    @Override
    public void close() {
        RuntimeException first = null;
        for (int i = list.size() - 1; i >= 0; i--) {
            try {
                list.get(i).close();
            } catch (RuntimeException e) {
                if (first == null) {
                    first = e;
                } else {
                    first.addSuppressed(e);
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
