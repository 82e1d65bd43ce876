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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicBoolean;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.gateway.l4.HaproxyProcess;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.service.GrmService;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.arbiter.runtime.net.Ports;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * An operator's weight pin — the {@link OperatorOverride} record the console writes to the overrides topic —
 * reaches HAProxy's {@code maxconn} through the GRM and the agent within two control periods: a real broker,
 * the GRM service, a real HAProxy 2.6 and its agent, one backend under light load (skipped without HAProxy).
 */
class HaproxyPinTest {

    @TempDir
    Path dir;

    @Test
    void aWeightPinReachesMaxconnWithinTwoControlPeriods() throws Exception {
        Assumptions.assumeTrue(HaproxyProcess.binary().isPresent(), "haproxy is not installed");
        List<AutoCloseable> closing = new ArrayList<>();
        ExecutorService threads = Executors.newFixedThreadPool(8);
        AtomicBoolean running = new AtomicBoolean(true);
        EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"));
        try {
            int[] ports = Ports.free(3);
            HttpServer backend = HttpServer.create(new InetSocketAddress("127.0.0.1", ports[0]), 64);
            backend.createContext("/", ex -> {
                ex.sendResponseHeaders(200, 2);
                ex.getResponseBody().write("ok".getBytes());
                ex.close();
            });
            backend.setExecutor(threads);
            backend.start();
            closing.add(() -> backend.stop(0));
            Path yaml = dir.resolve("cluster.yaml");
            Files.writeString(yaml, """
                    classes:
                      - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
                      - {name: basic, target: 3s, default: true}
                    servers:
                      - {id: s1, url: "http://127.0.0.1:%d", concurrency: 10}
                    gateways:
                      - {id: g1, kind: haproxy, port: %d, adminPort: %d}
                    control: {period: 1s, reportPeriod: 500ms, statsWindow: 3s, combine: min}
                    kafka: {bootstrap: "%s", topicPrefix: "pin."}
                    """.formatted(ports[0], ports[1], ports[2], kafka.bootstrap()));
            ClusterConfig cluster = ConfigLoader.load(yaml);
            Path socket = dir.resolve("admin.sock");
            Path config = dir.resolve("haproxy.cfg");
            Files.writeString(config, HaproxyGatewayConfig.generate(cluster, "g1",
                    new HaproxyGatewayConfig.Options(socket.toString(), dir.resolve("state").toString(), "test")));
            HaproxyProcess haproxy = HaproxyProcess.start(config, new InetSocketAddress("127.0.0.1", ports[1]), 10_000);
            closing.add(0, haproxy);
            ProcessMetrics m = ProcessMetrics.create("grm", "grm-pin");
            KafkaBus grmBus = KafkaBus.connect(cluster.kafka(), "grm-pin", m.registry());
            GrmService grm = GrmService.start("grm-pin", cluster, grmBus, Clock.systemUTC(),
                    new GrmStep(cluster, "grm-pin", System::nanoTime), m);
            closing.add(0, m);
            closing.add(0, grmBus);
            closing.add(0, grm);
            HaproxyAgent agent = HaproxyAgent.start(cluster, "g1", RuntimeApi.of(socket.toString(), 2000),
                    new HaproxyAgent.Options(null, 0, 0.1));
            closing.add(0, agent);
            HttpClient client = HttpClient.newHttpClient();
            for (int i = 0; i < 4; i++) { // light load of both classes, so the GRM sees the gateway's flows
                String cls = i % 2 == 0 ? "premium" : "basic";
                threads.execute(() -> {
                    while (running.get()) {
                        try {
                            client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + ports[1] + "/"))
                                    .header("X-Class", cls).build(), HttpResponse.BodyHandlers.discarding());
                            Thread.sleep(20);
                        } catch (Exception e) {
                            return;
                        }
                    }
                });
            }
            await().atMost(Duration.ofSeconds(30)).until(() -> agent.allocation().epoch() > 0
                    && agent.verified() != null && agent.verified().epoch() > 0);

            RuntimeApi api = RuntimeApi.of(socket.toString(), 2000);
            closing.add(0, api);
            long before = StatCsv.parse(api.call("show stat")).row("class.premium", "s1").slim();
            int pin = before == 3 ? 7 : 3; // a pin the caps in force do not already meet
            KafkaBus console = KafkaBus.connect(cluster.kafka(), "console-pin", null);
            closing.add(0, console);
            long t0 = System.nanoTime();
            console.publisher(console.topics().overrides()).publish(new OperatorOverride(1, Instant.now(), "pin-1",
                    OperatorOverride.Kind.WEIGHT, "g1", "premium", null, (double) pin, null, null, null, null, true, "operator"))
                    .get();
            await().atMost(Duration.ofSeconds(10)).pollInterval(Duration.ofMillis(20)).until(() -> {
                StatCsv.Table t = StatCsv.parse(api.call("show stat"));
                return t.row("class.premium", "s1").slim() == pin && t.row("class.basic", "s1").slim() == 10 - pin;
            });
            double seconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("pin premium = %d (caps had premium %d) reached HAProxy's maxconn after %.2f s (control period 1 s)%n",
                    pin, before, seconds);
            assertThat(seconds).as("within two control periods").isLessThan(2.0);
        } finally {
            running.set(false);
            for (AutoCloseable c : closing) {
                c.close();
            }
            threads.shutdownNow();
            kafka.close();
        }
    }
}
