package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.l4.HaproxyProcess;
import org.arbiter.runtime.net.Ports;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The agent against a real HAProxy 2.6 (skipped where HAProxy is not installed; CI installs it): two
 * backends, two classes, the configuration {@code arbiter haproxy config} writes, the agent on the
 * Runtime API socket. Allocations are offered directly (the agent runs without Kafka here; the bus path is
 * the gateway's own {@code AllocationFollower}); everything read back from HAProxy.
 */
class HaproxyAgentTest {

    @TempDir
    Path dir;

    private final List<HttpServer> backends = new ArrayList<>();
    private ExecutorService backendThreads;
    private HaproxyProcess haproxy;
    private HaproxyAgent agent;
    private ClusterConfig cluster;
    private Path config;
    private Path socket;
    private InetSocketAddress listen;

    @BeforeEach
    void start() throws Exception {
        Assumptions.assumeTrue(HaproxyProcess.binary().isPresent(), "haproxy is not installed");
        backendThreads = Executors.newFixedThreadPool(64);
        int[] ports = Ports.free(4);
        for (int i = 0; i < 2; i++) {
            HttpServer s = SlowBackend.start(ports[i], 40, "s" + (i + 1), backendThreads);
            backends.add(s);
        }
        socket = dir.resolve("admin.sock");
        Path yaml = dir.resolve("cluster.yaml");
        Files.writeString(yaml, """
                classes:
                  - {name: premium, target: 1s, weight: 6, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 2s, weight: 4, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:%d", concurrency: 5}
                  - {id: s2, url: "http://127.0.0.1:%d", concurrency: 5}
                gateways:
                  - {id: g1, kind: haproxy, port: %d, adminPort: %d}
                control: {period: 1s, reportPeriod: 1s, statsWindow: 5s}
                """.formatted(ports[0], ports[1], ports[2], ports[3]));
        cluster = ConfigLoader.load(yaml);
        config = dir.resolve("haproxy.cfg");
        Files.writeString(config, HaproxyGatewayConfig.generate(cluster, "g1",
                new HaproxyGatewayConfig.Options(socket.toString(), dir.resolve("state").toString(), yaml.toString())));
        listen = new InetSocketAddress("127.0.0.1", ports[2]);
        haproxy = HaproxyProcess.start(config, listen, 10_000);
        agent = HaproxyAgent.start(cluster, "g1", RuntimeApi.of(socket.toString(), 2000),
                new HaproxyAgent.Options(null, 0, 0.2));
    }

    @AfterEach
    void stop() {
        if (agent != null) {
            agent.close();
        }
        if (haproxy != null) {
            haproxy.close();
        }
        backends.forEach(s -> s.stop(0));
        if (backendThreads != null) {
            backendThreads.shutdownNow();
        }
    }

    /** HAProxy's maxconn per class backend and server, read back with show stat ({@link StatCsv#ABSENT}: none). */
    private Map<String, Long> maxconn() throws Exception {
        StatCsv.Table t = StatCsv.parse(RuntimeApi.of(socket.toString(), 2000).call("show stat"));
        Map<String, Long> out = new LinkedHashMap<>();
        for (String c : List.of("premium", "basic")) {
            for (String s : List.of("s1", "s2")) {
                StatCsv.Row r = t.row(HaproxyNames.backend(c), s);
                out.put(c + "/" + s, r.weight() == 0 ? 0 : r.slim());
            }
        }
        return out;
    }

    private Map<String, String> adminStates() throws Exception {
        Map<String, Map<String, ServersState.Server>> st = ServersState.parse(
                RuntimeApi.of(socket.toString(), 2000).call("show servers state"));
        Map<String, String> out = new LinkedHashMap<>();
        st.forEach((b, m) -> m.forEach((s, v) -> out.put(b + "/" + s, v.admin().word())));
        return out;
    }

    private static Allocation allocation(long epoch, long version, double premium, double basic, int s1, int s2) {
        Map<String, Integer> caps = new LinkedHashMap<>();
        caps.put("s1", s1);
        caps.put("s2", s2);
        return new Allocation(1, Instant.ofEpochMilli(epoch + version), "g1", version,
                Map.of("premium", premium, "basic", basic), caps, "grm", epoch);
    }

    @Test
    void appliesEachAllocationAndReadsItBack() throws Exception {
        // the configured allocation (6:4 of 5 + 5 slots) is what the file starts with: nothing to change
        await().atMost(Duration.ofSeconds(5)).until(() -> agent.verified() != null);
        assertThat(maxconn()).containsEntry("premium/s1", 3L).containsEntry("premium/s2", 3L)
                .containsEntry("basic/s1", 2L).containsEntry("basic/s2", 2L);

        long epoch = System.currentTimeMillis() - 10_000;
        assertThat(agent.offer(allocation(epoch, 1, 8, 2, 5, 5))).isTrue();
        // two sampling intervals at most: one to send, one to verify
        await().atMost(Duration.ofMillis(1500)).until(() -> agent.verified() != null && agent.verified().version() == 1);
        assertThat(maxconn()).containsEntry("premium/s1", 4L).containsEntry("premium/s2", 4L)
                .containsEntry("basic/s1", 1L).containsEntry("basic/s2", 1L);

        // stale: an older version of the same epoch changes nothing
        assertThat(agent.offer(allocation(epoch, 0, 2, 8, 5, 5))).isFalse();
        Thread.sleep(600);
        assertThat(maxconn()).containsEntry("premium/s1", 4L).containsEntry("basic/s1", 1L);

        // s2 powered down by the GRM: N(g,s2) = 0 drains it in every class backend
        assertThat(agent.offer(allocation(epoch, 2, 6, 4, 10, 0))).isTrue();
        await().atMost(Duration.ofMillis(1500)).until(() -> agent.verified() != null && agent.verified().version() == 2);
        assertThat(adminStates()).containsEntry("class.premium/s2", "drain").containsEntry("class.basic/s2", "drain")
                .containsEntry("class.premium/s1", "ready");
        assertThat(maxconn()).containsEntry("premium/s1", 6L).containsEntry("basic/s1", 4L);
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        for (int i = 0; i < 10; i++) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + listen.getPort()
                    + "/x")).header("X-Class", i % 2 == 0 ? "premium" : "basic").build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).as("a drained server gets no new request").isEqualTo("s1");
        }
        // and the published statistics report it with cap 0, as a gateway that stopped sending
        await().atMost(Duration.ofSeconds(2)).untilAsserted(() -> {
            GatewayStats s = agent.stats();
            assertThat(s.servers().getOrDefault("s2", new GatewayStats.ServerStats(0, 0, 0, 0, 0, 0, true)).cap()).isZero();
            assertThat(s.servers().get("s1").cap()).isEqualTo(10);
            assertThat(s.classes().get("premium").arrivalRate()).isPositive();
        });
    }

    @Test
    void killedAgentLeavesHaproxyServingAndARestartedOneResumes() throws Exception {
        long epoch = System.currentTimeMillis() - 10_000;
        agent.offer(allocation(epoch, 1, 8, 2, 5, 5));
        await().atMost(Duration.ofSeconds(3)).until(() -> agent.verified() != null && agent.verified().version() == 1);
        Load load = new Load(listen.getPort(), 12);
        try {
            Thread.sleep(500);
            agent.close(); // as kill -9: nothing is sent to HAProxy on the way out
            agent = null;
            Map<String, Long> before = maxconn();
            Thread.sleep(1000);
            assertThat(maxconn()).as("HAProxy keeps the settings last applied").isEqualTo(before);
            agent = HaproxyAgent.start(cluster, "g1", RuntimeApi.of(socket.toString(), 2000),
                    new HaproxyAgent.Options(null, 0, 0.2));
            // a new agent starts from the configured allocation (here no Kafka replays the newer one) and applies it
            await().atMost(Duration.ofMillis(1500)).until(() -> agent.verified() != null);
            assertThat(maxconn()).containsEntry("premium/s1", 3L).containsEntry("basic/s1", 2L);
            Thread.sleep(500);
        } finally {
            load.stop();
        }
        assertThat(load.failed.get()).as("requests not answered 200: %s", load.statuses).isZero();
        assertThat(load.ok.get()).isGreaterThan(100);
    }

    @Test
    void reloadedHaproxyGetsTheAllocationBackWithinOnePeriod() throws Exception {
        long epoch = System.currentTimeMillis() - 10_000;
        agent.offer(allocation(epoch, 1, 8, 2, 5, 5));
        await().atMost(Duration.ofSeconds(3)).until(() -> agent.verified() != null && agent.verified().version() == 1);
        Load load = new Load(listen.getPort(), 12);
        long reapplied;
        try {
            Thread.sleep(500);
            haproxy = HaproxyProcess.reload(config, socket, haproxy, listen, 20_000);
            long reloadedAt = System.nanoTime();
            // the new process starts from the file's caps (the configured 6:4); the agent sees the difference
            await().atMost(Duration.ofSeconds(2)).pollInterval(Duration.ofMillis(20))
                    .until(() -> maxconn().get("premium/s1") == 4L && maxconn().get("basic/s1") == 1L);
            reapplied = System.nanoTime() - reloadedAt;
            Thread.sleep(500);
        } finally {
            load.stop();
        }
        assertThat(TimeUnit.NANOSECONDS.toMillis(reapplied)).as("re-applied within one control period (1 s)")
                .isLessThan(1000);
        assertThat(load.failed.get()).as("requests not answered 200: %s", load.statuses).isZero();
        assertThat(load.ok.get()).isGreaterThan(100);
    }

    /** Closed-loop clients through HAProxy, half premium, half basic; every answer counted by status. */
    private static final class Load {
        final AtomicLong ok = new AtomicLong();
        final AtomicLong failed = new AtomicLong();
        final Map<String, AtomicInteger> statuses = new ConcurrentHashMap<>();
        private final AtomicBoolean running = new AtomicBoolean(true);
        private final ExecutorService threads;

        Load(int port, int clients) {
            threads = Executors.newFixedThreadPool(clients);
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            for (int i = 0; i < clients; i++) {
                String cls = i % 2 == 0 ? "premium" : "basic";
                threads.execute(() -> {
                    while (running.get()) {
                        String status;
                        try {
                            HttpResponse<String> r = client.send(HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + port + "/w")).header("X-Class", cls)
                                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                            status = Integer.toString(r.statusCode());
                        } catch (IOException e) {
                            status = e.getClass().getSimpleName();
                        } catch (InterruptedException e) {
                            return;
                        }
                        statuses.computeIfAbsent(status, k -> new AtomicInteger()).incrementAndGet();
                        (status.equals("200") ? ok : failed).incrementAndGet();
                    }
                });
            }
        }

        void stop() throws InterruptedException {
            running.set(false);
            threads.shutdown();
            threads.awaitTermination(15, TimeUnit.SECONDS);
        }
    }
}
