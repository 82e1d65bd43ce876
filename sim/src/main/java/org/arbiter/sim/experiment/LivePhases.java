package org.arbiter.sim.experiment;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.arbiter.common.bus.KafkaBus;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.kafka.EmbeddedKafka;
import org.arbiter.common.metrics.ProcessMetrics;
import org.arbiter.common.utility.UtilityFunction;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.service.GrmService;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;

/**
 * 003's {@code phases} experiment live: a real Kafka broker (embedded), the GRM service, one Netty
 * gateway, one simserver (10 virtual cores, N_s = 10) and the live load generator, every duration
 * multiplied by the time scale. Same result shape as {@link Experiments#phases}, response times
 * reported in the paper's seconds.
 */
public final class LivePhases {

    private LivePhases() {
    }

    @SuppressWarnings("unchecked")
    public static Map<String, Object> run(long seed, double secondsPerPhase, double scale, Path work,
                                          Consumer<String> progress) throws Exception {
        Path kafkaDir = Files.createTempDirectory(work, "kafka");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(kafkaDir);
             SimServer server = SimServer.start(SimServerOptions.defaults().withDemand(10, scale, 0))) {
            String ms = "ms";
            ClusterConfig cluster = ConfigLoader.parse(String.format(Locale.ROOT, """
                    classes:
                      - {name: premium, target: %1$.3f%2$s, match: {header: {X-Class: premium}}, queue: {limit: 100000, timeout: 1h}}
                      - {name: basic, target: %3$.3f%2$s, default: true, queue: {limit: 100000, timeout: 1h}}
                    servers:
                      - {id: s1, url: "http://127.0.0.1:%4$d", concurrency: 10}
                    gateways:
                      - {id: g1, port: 0, adminPort: 0}
                    control: {period: %5$.3f%2$s, reportPeriod: %5$.3f%2$s, statsWindow: %6$.3f%2$s, combine: min}
                    kafka: {bootstrap: "%7$s", topicPrefix: "live."}
                    """, 2000 * scale, ms, 3000 * scale, server.port(), 5000 * scale, 30000 * scale, kafka.bootstrap()));
            StringBuilder sc = new StringBuilder(String.format(Locale.ROOT, """
                    classes:
                      premium: {headers: {X-Class: premium}}
                      basic: {headers: {X-Class: basic}}
                    think: %.3fms
                    timeout: 60s
                    seed: %d
                    phases:
                    """, 1000 * scale, seed));
            String[][] phases = {{"A", "5", "5"}, {"B", "20", "20"}, {"C", "5", "20"}, {"D", "20", "5"}};
            for (String[] p : phases) {
                sc.append(String.format(Locale.ROOT, "  - {name: %s, duration: %.3fms, clients: {premium: %s, basic: %s}}%n",
                        p[0], secondsPerPhase * scale * 1000, p[1], p[2]));
            }
            try (ProcessMetrics m = ProcessMetrics.create("grm", "live-phases");
                 KafkaBus bus = KafkaBus.connect(cluster.kafka(), "live-phases", m.registry());
                 GrmService grm = GrmService.start("live-phases", cluster, bus, Clock.systemUTC(),
                         new GrmStep(cluster, "live-phases", System::nanoTime), m);
                 Gateway g1 = Gateway.start(cluster, "g1", GatewayOptions.defaults())) {
                long deadline = System.nanoTime() + 30_000_000_000L;
                while (g1.allocation().version() == 0 && System.nanoTime() < deadline) {
                    Thread.sleep(20);
                }
                double phaseWall = secondsPerPhase * scale;
                List<double[]> samples = new ArrayList<>();
                long start = System.nanoTime();
                ScheduledExecutorService sampler = Executors.newSingleThreadScheduledExecutor();
                sampler.scheduleAtFixedRate(() -> {
                    double t = (System.nanoTime() - start) / 1e9;
                    samples.add(new double[] {t, g1.allocation().weights().getOrDefault("premium", 0.0),
                            g1.allocation().weights().getOrDefault("basic", 0.0)});
                }, 0, Math.max(10, (long) (phaseWall * 10)), TimeUnit.MILLISECONDS);
                progress.accept(String.format(Locale.ROOT, "live phases: 4 × %.1f s of wall time (scale %s)", phaseWall, scale));
                Map<String, Object> summary = new LoadGenerator(Scenario.parse(sc.toString()),
                        List.of(URI.create("http://127.0.0.1:" + g1.port())), null).run(work.resolve("load"));
                sampler.shutdownNow();
                UtilityFunction up = UtilityFunction.pacifici(2, 1, 1, 1);
                UtilityFunction ub = UtilityFunction.pacifici(3, 1, 1, 1);
                List<Map<String, Object>> out = new ArrayList<>();
                List<Map<String, Object>> ph = (List<Map<String, Object>>) summary.get("phases");
                for (int i = 0; i < phases.length; i++) {
                    double from = (i + 0.5) * phaseWall;
                    double to = (i + 1) * phaseWall;
                    double wp = 0;
                    double wb = 0;
                    int n = 0;
                    synchronized (samples) {
                        for (double[] s : List.copyOf(samples)) {
                            if (s[0] >= from && s[0] < to) {
                                wp += s[1];
                                wb += s[2];
                                n++;
                            }
                        }
                    }
                    Map<String, Object> cls = (Map<String, Object>) ph.get(i).get("classes");
                    double rp = ((Number) ((Map<String, Object>) cls.get("premium")).get("meanResponseSeconds")).doubleValue() / scale;
                    double rb = ((Number) ((Map<String, Object>) cls.get("basic")).get("meanResponseSeconds")).doubleValue() / scale;
                    double x = (((Number) ((Map<String, Object>) cls.get("premium")).get("throughputPerSecond")).doubleValue()
                            + ((Number) ((Map<String, Object>) cls.get("basic")).get("throughputPerSecond")).doubleValue()) * scale;
                    Map<String, Object> m2 = new LinkedHashMap<>();
                    m2.put("name", phases[i][0]);
                    m2.put("clients", Map.of("premium", Integer.parseInt(phases[i][1]), "basic", Integer.parseInt(phases[i][2])));
                    m2.put("weights", Map.of("premium", Experiments.round(n == 0 ? 0 : wp / n), "basic", Experiments.round(n == 0 ? 0 : wb / n)));
                    m2.put("meanResponseSeconds", Map.of("premium", Experiments.round(rp), "basic", Experiments.round(rb)));
                    m2.put("throughputPerSecond", Experiments.round(x));
                    m2.put("utility", Map.of("premium", Experiments.round(up.utility(rp)), "basic", Experiments.round(ub.utility(rb))));
                    out.add(m2);
                    progress.accept(String.format(Locale.ROOT, "live phase %s: weights (%.2f, %.2f), R (%.2f s, %.2f s), X %.2f/s",
                            phases[i][0], n == 0 ? 0 : wp / n, n == 0 ? 0 : wb / n, rp, rb, x));
                }
                Map<String, Object> result = new LinkedHashMap<>();
                result.put("phases", out);
                result.put("timeScale", scale);
                return result;
            }
        }
    }
}
