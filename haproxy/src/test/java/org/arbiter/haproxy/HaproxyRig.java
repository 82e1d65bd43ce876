package org.arbiter.haproxy;

import com.sun.net.httpserver.HttpServer;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.l4.HaproxyProcess;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.service.GrmService;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.arbiter.runtime.net.Ports;

/**
 * A whole HAProxy gateway on loopback for the end-to-end tests: a real broker, {@code servers} JDK HTTP
 * backends (s1, s2, … of N_s {@code concurrency}, answering 200 after {@code delayMillis}), a real
 * HAProxy 2.6 on the file {@code arbiter haproxy config} writes, the GRM service and the agent (sampling every 0.1 s), and
 * closed-loop clients of both classes counting every answer. {@code extraYaml} is appended to the cluster
 * file (control, sizing, console keys). Closed in reverse order.
 */
final class HaproxyRig implements AutoCloseable {

    final EmbeddedKafka kafka;
    final ClusterConfig cluster;
    final RuntimeApi api;
    final HaproxyAgent agent;
    final int port;
    final Map<String, AtomicInteger> answers = new ConcurrentHashMap<>();
    private final List<AutoCloseable> closing = new ArrayList<>();
    private final ExecutorService serverThreads = Executors.newFixedThreadPool(32);
    private final ExecutorService clientThreads = Executors.newFixedThreadPool(16);
    private final AtomicBoolean running = new AtomicBoolean(true);

    HaproxyRig(Path dir, int servers, int concurrency, long delayMillis, String extraYaml) throws Exception {
        kafka = EmbeddedKafka.start(dir.resolve("kafka"));
        try {
            int[] ports = Ports.free(servers + 2);
            StringBuilder serverLines = new StringBuilder();
            for (int i = 0; i < servers; i++) {
                HttpServer backend = SlowBackend.start(ports[i], delayMillis, "ok", serverThreads);
                closing.add(0, () -> backend.stop(0));
                serverLines.append("  - {id: s").append(i + 1).append(", url: \"http://127.0.0.1:").append(ports[i])
                        .append("\", concurrency: ").append(concurrency).append("}\n");
            }
            port = ports[servers];
            Path yaml = dir.resolve("cluster.yaml");
            Files.writeString(yaml, """
                    classes:
                      - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
                      - {name: basic, target: 3s, default: true}
                    servers:
                    %sgateways:
                      - {id: g1, kind: haproxy, port: %d, adminPort: %d}
                    kafka: {bootstrap: "%s", topicPrefix: "rig."}
                    %s""".formatted(serverLines, port, ports[servers + 1], kafka.bootstrap(), extraYaml));
            cluster = ConfigLoader.load(yaml);
            Path socket = dir.resolve("admin.sock");
            Path config = dir.resolve("haproxy.cfg");
            Files.writeString(config, HaproxyGatewayConfig.generate(cluster, "g1",
                    new HaproxyGatewayConfig.Options(socket.toString(), dir.resolve("state").toString(), "test")));
            closing.add(0, HaproxyProcess.start(config, new InetSocketAddress("127.0.0.1", port), 10_000));
            api = RuntimeApi.of(socket.toString(), 2000);
            closing.add(0, api);
            ProcessMetrics m = ProcessMetrics.create("grm", "grm-rig");
            KafkaBus grmBus = KafkaBus.connect(cluster.kafka(), "grm-rig", m.registry());
            GrmService grm = GrmService.start("grm-rig", cluster, grmBus, Clock.systemUTC(),
                    new GrmStep(cluster, "grm-rig", System::nanoTime), m);
            closing.add(0, m);
            closing.add(0, grmBus);
            closing.add(0, grm);
            agent = HaproxyAgent.start(cluster, "g1", api, new HaproxyAgent.Options(null, 0, 0.1));
            closing.add(0, agent);
        } catch (Exception | Error e) {
            close();
            throw e;
        }
    }

    /** {@code clients} closed-loop clients, half premium, half basic, thinking {@code thinkMillis}. */
    void load(int clients, long thinkMillis) {
        HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
        for (int i = 0; i < clients; i++) {
            String cls = i % 2 == 0 ? "premium" : "basic";
            clientThreads.execute(() -> {
                while (running.get()) {
                    String status;
                    try {
                        status = Integer.toString(client.send(HttpRequest.newBuilder(
                                URI.create("http://127.0.0.1:" + port + "/")).header("X-Class", cls)
                                .timeout(Duration.ofSeconds(20)).build(), HttpResponse.BodyHandlers.discarding())
                                .statusCode());
                        Thread.sleep(thinkMillis);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        status = e.getClass().getSimpleName();
                    }
                    answers.computeIfAbsent(status, k -> new AtomicInteger()).incrementAndGet();
                }
            });
        }
    }

    /** Stops the clients and waits for their last answers. */
    void stopLoad() {
        running.set(false);
        clientThreads.shutdown();
        try {
            clientThreads.awaitTermination(30, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** HAProxy's {@code show stat} now. */
    StatCsv.Table stat() throws Exception {
        return StatCsv.parse(api.call("show stat"));
    }

    @Override
    public void close() {
        running.set(false);
        clientThreads.shutdownNow();
        for (AutoCloseable c : closing) {
            try {
                c.close();
            } catch (Exception e) {
                // closing everything regardless
            }
        }
        serverThreads.shutdownNow();
        kafka.close();
    }
}
