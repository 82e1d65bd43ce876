package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.sun.net.httpserver.HttpServer;
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
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.l4.HaproxyProcess;
import org.arbiter.haproxy.cli.AgentCommand;
import org.arbiter.runtime.net.Ports;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/**
 * The agent as its own process ({@code arbiter agent haproxy}, here from the test classpath), killed with
 * SIGKILL under load and started again, against a real HAProxy 2.6 and a real broker; allocations are
 * written to the allocation topic as the GRM writes them. HAProxy keeps serving on the settings last
 * applied while the agent is dead, nothing is lost, and the new agent — reading the compacted topic from its
 * start — applies the allocation published meanwhile and publishes statistics again within two control
 * periods of its start (skipped without HAProxy).
 */
class AgentProcessTest {

    /** The agent's command in a JVM of its own. */
    public static final class Main {
        public static void main(String[] args) {
            int code = new CommandLine(new AgentCommand.Haproxy()).execute(args);
            System.exit(code);
        }
    }

    @TempDir
    Path dir;

    private static Process agent(Path yaml, Path socket, Path log) throws Exception {
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), Main.class.getName(),
                "--config", yaml.toString(), "--gateway", "g1", "--socket", socket.toString(), "--sample", "0.2")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private static Map<String, Long> maxconn(RuntimeApi api) throws Exception {
        StatCsv.Table t = StatCsv.parse(api.call("show stat"));
        Map<String, Long> out = new LinkedHashMap<>();
        for (String c : List.of("premium", "basic")) {
            out.put(c, t.row(HaproxyNames.backend(c), "s1").slim());
        }
        return out;
    }

    @Test
    void killedUnderLoadHaproxyKeepsServing_restartedItResumesWithinTwoPeriods() throws Exception {
        Assumptions.assumeTrue(HaproxyProcess.binary().isPresent(), "haproxy is not installed");
        List<AutoCloseable> closing = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(12); // the clients
        ExecutorService serverThreads = Executors.newFixedThreadPool(16); // the backend's
        AtomicBoolean running = new AtomicBoolean(true);
        Map<String, AtomicInteger> statuses = new ConcurrentHashMap<>();
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"));
        Process first = null;
        Process second = null;
        try {
            int[] ports = Ports.free(3);
            HttpServer backend = SlowBackend.start(ports[0], 30, "ok", serverThreads);
            closing.add(() -> backend.stop(0));
            Path yaml = dir.resolve("cluster.yaml");
            Files.writeString(yaml, """
                    classes:
                      - {name: premium, target: 2s, weight: 5, match: {header: {X-Class: premium}}}
                      - {name: basic, target: 3s, weight: 5, default: true}
                    servers:
                      - {id: s1, url: "http://127.0.0.1:%d", concurrency: 10}
                    gateways:
                      - {id: g1, kind: haproxy, port: %d, adminPort: %d}
                    control: {period: 5s, reportPeriod: 1s, statsWindow: 10s}
                    kafka: {bootstrap: "%s", topicPrefix: "kill."}
                    """.formatted(ports[0], ports[1], ports[2], kafka.bootstrap()));
            ClusterConfig cluster = ConfigLoader.load(yaml);
            double period = cluster.control().periodSeconds();
            Path socket = dir.resolve("admin.sock");
            Path config = dir.resolve("haproxy.cfg");
            Files.writeString(config, HaproxyGatewayConfig.generate(cluster, "g1",
                    new HaproxyGatewayConfig.Options(socket.toString(), dir.resolve("state").toString(), "test")));
            HaproxyProcess haproxy = HaproxyProcess.start(config, new InetSocketAddress("127.0.0.1", ports[1]), 10_000);
            closing.add(0, haproxy);
            RuntimeApi api = RuntimeApi.of(socket.toString(), 2000);
            closing.add(0, api);

            KafkaBus grm = KafkaBus.connect(cluster.kafka(), "as-grm", null); // writes allocations as the GRM does
            closing.add(0, grm);
            List<Instant> reports = new java.util.concurrent.CopyOnWriteArrayList<>();
            grm.subscribe(grm.topics().stats(), GatewayStats.class, Subscriber.Start.END, (k, s) -> {
                if (s != null && s.gateway().equals("g1")) {
                    reports.add(Instant.now());
                }
            });
            long epoch = System.currentTimeMillis() - 1000;
            grm.publisher(grm.topics().allocation()).publish(new Allocation(1, Instant.ofEpochMilli(epoch + 1), "g1", 1,
                    Map.of("premium", 8.0, "basic", 2.0), Map.of("s1", 10), "grm", epoch)).get();

            first = agent(yaml, socket, dir.resolve("agent1.log"));
            await().atMost(Duration.ofSeconds(30)).until(() -> maxconn(api).equals(Map.of("premium", 8L, "basic", 2L)));

            HttpClient client = HttpClient.newHttpClient();
            for (int i = 0; i < 12; i++) {
                String cls = i % 2 == 0 ? "premium" : "basic";
                threads.execute(() -> {
                    while (running.get()) {
                        String status;
                        try {
                            status = Integer.toString(client.send(HttpRequest.newBuilder(
                                    URI.create("http://127.0.0.1:" + ports[1] + "/")).header("X-Class", cls)
                                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.discarding())
                                    .statusCode());
                        } catch (InterruptedException e) {
                            return;
                        } catch (Exception e) {
                            status = e.getClass().getSimpleName();
                        }
                        statuses.computeIfAbsent(status, s -> new AtomicInteger()).incrementAndGet();
                    }
                });
            }
            Thread.sleep(1000);
            first.destroyForcibly().waitFor(10, TimeUnit.SECONDS); // SIGKILL
            Thread.sleep(2000);
            assertThat(maxconn(api)).as("HAProxy keeps the caps last applied").isEqualTo(Map.of("premium", 8L, "basic", 2L));
            // the GRM decides meanwhile
            grm.publisher(grm.topics().allocation()).publish(new Allocation(1, Instant.ofEpochMilli(epoch + 2), "g1", 2,
                    Map.of("premium", 3.0, "basic", 7.0), Map.of("s1", 10), "grm", epoch)).get();
            Thread.sleep(1000);
            assertThat(maxconn(api)).as("nobody applies it while the agent is dead").containsEntry("premium", 8L);

            long start = System.nanoTime();
            Instant started = Instant.now();
            second = agent(yaml, socket, dir.resolve("agent2.log"));
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> maxconn(api).equals(Map.of("premium", 3L, "basic", 7L)));
            double applied = (System.nanoTime() - start) / 1e9;
            await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(50))
                    .until(() -> reports.stream().anyMatch(t -> t.isAfter(started)));
            double publishing = Duration.between(started, reports.stream().filter(t -> t.isAfter(started)).findFirst()
                    .orElseThrow()).toMillis() / 1000.0;
            Thread.sleep(1000);
            running.set(false);
            threads.shutdown();
            threads.awaitTermination(15, TimeUnit.SECONDS);
            System.out.printf("restarted agent (a new JVM): applied after %.2f s, publishing after %.2f s "
                    + "(control period %.0f s); answers %s%n", applied, publishing, period, statuses);
            assertThat(applied).as("applied within two periods of the restart").isLessThan(2 * period);
            assertThat(publishing).as("publishing within two periods of the restart").isLessThan(2 * period);
            assertThat(statuses.keySet()).as("every request answered 200: %s", statuses).containsExactly("200");
            assertThat(statuses.get("200").get()).isGreaterThan(200);
        } finally {
            running.set(false);
            for (Process p : new Process[] {first, second}) {
                if (p != null) {
                    p.destroyForcibly();
                }
            }
            for (AutoCloseable c : closing) {
                c.close();
            }
            threads.shutdownNow();
            serverThreads.shutdownNow();
            kafka.close();
        }
    }
}
