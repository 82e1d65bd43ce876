package org.arbiter.dist.metrics;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConsoleConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.console.server.Console;
import org.arbiter.dist.metrics.PrometheusText.Exposition;
import org.arbiter.dist.metrics.PrometheusText.Sample;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;
import org.arbiter.grm.service.GrmProcess;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Observed as operators observe: a broker, a simserver, a GRM (as {@code arbiter grm} runs it,
 * {@link GrmProcess}), a gateway and the console, each scraped over HTTP at its {@code /metrics};
 * every exposition parsed strictly ({@link PrometheusText}). Checks the JVM and process meters of
 * each, the GRM's meters (leadership, epoch, Ω, utility per class, desired servers), the gateway's
 * (a bucket exactly at each class target and twice it, responses by class and code, backend up),
 * and that every metric the Grafana dashboard {@code deploy/grafana/arbiter.json} queries is served.
 */
final class MetricsEndToEndTest {

    static final Path DASHBOARD = Path.of("..", "deploy", "grafana", "arbiter.json");
    static final int REQUESTS = 40;
    static final String TOKEN = "prometheus-scrape-token";
    /** Meters every process endpoint has (Micrometer's JVM and process binders). */
    static final List<String> JVM_METERS = List.of("jvm_memory_used_bytes", "jvm_memory_max_bytes", "jvm_threads_live_threads",
            "jvm_classes_loaded_classes", "jvm_gc_memory_allocated_bytes_total", "process_cpu_usage", "system_cpu_count",
            "process_uptime_seconds", "process_start_time_seconds", "process_files_open_files");

    @TempDir
    Path dir;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void gatewayGrmAndConsole_serveTheirMeters_andEveryDashboardMetric() throws Exception {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"));
             SimServer server = SimServer.start(SimServerOptions.defaults().withDemand(4, 0.005, 0))) {
            ClusterConfig cluster = cluster(kafka.bootstrap(), server.port());
            try (GrmProcess grm = GrmProcess.start("grm-m", cluster, cluster.kafka(), 0);
                 Gateway g1 = Gateway.start(cluster, "g1", GatewayOptions.defaults());
                 Console console = Console.start(cluster, kafka.bootstrap(), 0)) {
                await("the GRM leads and g1 follows its allocation").atMost(Duration.ofSeconds(60))
                        .until(() -> grm.service().isLeader() && g1.allocation().version() > 0);
                URI front = URI.create("http://127.0.0.1:" + g1.port() + "/");
                for (int i = 0; i < REQUESTS; i++) {
                    for (String cls : List.of("premium", "basic")) {
                        HttpResponse<String> r = http.send(HttpRequest.newBuilder(front).header("X-Class", cls)
                                .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString());
                        assertThat(r.statusCode()).as("response through g1").isEqualTo(200);
                    }
                }
                URI gatewayMetrics = URI.create("http://127.0.0.1:" + g1.adminPort() + "/metrics");
                URI grmMetrics = URI.create(grm.metricsUrl());
                URI consoleMetrics = URI.create(console.url() + "metrics");

                // The GRM decided with statistics that hold the requests: Ω and both utilities are numbers.
                await("a decision over both classes").atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                    Exposition e = scrape(grmMetrics, null);
                    assertThat(value(e, "arbiter_grm_objective", Map.of())).isFinite();
                    assertThat(value(e, "arbiter_grm_class_utility", Map.of("class", "premium"))).isFinite();
                    assertThat(value(e, "arbiter_grm_class_utility", Map.of("class", "basic"))).isFinite();
                });
                Exposition gw = scrape(gatewayMetrics, null);
                Exposition gr = scrape(grmMetrics, null);
                Exposition co = scrape(consoleMetrics, TOKEN);

                for (Exposition e : List.of(gw, gr, co)) {
                    for (String m : JVM_METERS) {
                        assertThat(e.serves(m)).as(m).isTrue();
                    }
                    List<Sample> heap = e.samples("jvm_memory_used_bytes").stream()
                            .filter(x -> "heap".equals(x.labels().get("area"))).toList();
                    assertThat(heap).as("heap pools").isNotEmpty()
                            .allSatisfy(x -> assertThat(x.labels()).containsKey("pool"));
                    assertThat(heap.stream().mapToDouble(Sample::value).sum()).isPositive();
                    for (PrometheusText.Family f : e.families().values()) {
                        if (f.type().equals("counter")) {
                            assertThat(f.name()).as("a counter's name").endsWith("_total");
                        }
                        if (f.name().startsWith("arbiter_")) {
                            assertThat(f.name()).as("units in base units").doesNotContain("_percent", "_millis", "requests_s");
                        }
                    }
                }
                assertComponent(gw, "gateway", "g1");
                assertComponent(gr, "grm", "grm-m");
                assertComponent(co, "console", "console");

                // Gateway: a bucket exactly at each class target and at twice it; exact counts.
                assertThat(bounds(gw, "premium")).contains("0.2", "0.4");
                assertThat(bounds(gw, "basic")).contains("0.5", "1.0");
                assertThat(value(gw, "arbiter_gateway_target_seconds", Map.of("class", "premium"))).isEqualTo(0.2);
                for (String cls : List.of("premium", "basic")) {
                    assertThat(value(gw, "arbiter_gateway_responses_total", Map.of("class", cls, "code", "200")))
                            .as(cls + " responses with 200").isEqualTo(REQUESTS);
                    assertThat(value(gw, "arbiter_gateway_response_time_seconds_count", Map.of("class", cls))).isEqualTo(REQUESTS);
                    assertThat(value(gw, "arbiter_gateway_response_time_seconds_bucket", Map.of("class", cls, "le", "+Inf")))
                            .isEqualTo(REQUESTS);
                    assertThat(value(gw, "arbiter_gateway_rejections_total", Map.of("class", cls, "reason", "queueFull"))).isZero();
                }
                double within = value(gw, "arbiter_gateway_response_time_seconds_bucket", Map.of("class", "premium", "le", "0.2"));
                assertThat(within).as("premium responses within 0.2 s (5 ms demand)").isBetween(1.0, (double) REQUESTS);
                assertThat(value(gw, "arbiter_gateway_server_up", Map.of("server", "s1"))).isEqualTo(1.0);

                // GRM: leader, epoch, the fleet (sizing off: the one server on and desired), solve time, energy.
                assertThat(value(gr, "arbiter_grm_leader", Map.of())).isEqualTo(1.0);
                assertThat(value(gr, "arbiter_grm_epoch", Map.of())).isPositive();
                assertThat(value(gr, "arbiter_fleet_desired_servers", Map.of())).isEqualTo(1.0);
                assertThat(value(gr, "arbiter_fleet_servers", Map.of("state", "on"))).isEqualTo(1.0);
                assertThat(value(gr, "arbiter_fleet_servers", Map.of("state", "booting"))).isZero();
                assertThat(value(gr, "arbiter_grm_servers_on", Map.of())).isEqualTo(1.0);
                assertThat(value(gr, "arbiter_fleet_powered_servers", Map.of())).isEqualTo(1.0);
                assertThat(value(gr, "arbiter_grm_solve_seconds_count", Map.of())).isPositive();
                assertThat(value(gr, "arbiter_grm_energy_joules_total", Map.of())).isNotNegative();
                assertThat(gr.families().get("arbiter_grm_energy_joules_total").type()).isEqualTo("counter");
                for (String m : List.of("arbiter_grm_power_watts", "arbiter_grm_energy_saved_ratio",
                        "arbiter_grm_capacity_requests_per_second", "arbiter_grm_leader_changes_total",
                        "arbiter_grm_allocation_version", "arbiter_grm_solve_last_seconds", "arbiter_bus_received_total",
                        "arbiter_grm_prediction_error")) {
                    assertThat(gr.serves(m)).as(m).isTrue();
                }
                assertThat(co.serves("arbiter_console_event_streams")).isTrue();

                // The console's /metrics is a read like its API: refused without credentials when publicRead is off.
                HttpResponse<String> anonymous = http.send(HttpRequest.newBuilder(consoleMetrics).build(),
                        HttpResponse.BodyHandlers.ofString());
                assertThat(anonymous.statusCode()).isEqualTo(401);

                // The dashboard: every metric its PromQL uses is served by one of the three.
                Set<String> used = dashboardMetrics();
                assertThat(used).contains("arbiter_gateway_response_time_seconds_bucket", "arbiter_fleet_desired_servers",
                        "arbiter_grm_objective", "arbiter_grm_class_utility", "arbiter_grm_leader",
                        "arbiter_gateway_rejections_total", "arbiter_gateway_queue_length", "arbiter_gateway_weight",
                        "arbiter_gateway_server_cap", "arbiter_grm_energy_joules_total", "arbiter_grm_servers_on",
                        "arbiter_grm_prediction_error");
                List<String> missing = new ArrayList<>();
                for (String m : used) {
                    if (!gw.serves(m) && !gr.serves(m) && !co.serves(m)) {
                        missing.add(m);
                    }
                }
                assertThat(missing).as("dashboard metrics no process serves").isEmpty();
                assertThat(gw.serves("arbiter_no_such_metric") || gr.serves("arbiter_gateway_weight")).isFalse();
                System.out.printf("metrics: gateway %d families, GRM %d, console %d; dashboard uses %d metrics: %s%n",
                        gw.families().size(), gr.families().size(), co.families().size(), used.size(), used);
            }
        }
    }

    @Test
    void dashboard_isGrafanaJson_withAPrometheusDatasourceVariable() throws Exception {
        JsonNode d = new ObjectMapper().readTree(Files.readString(DASHBOARD));
        assertThat(d.path("title").asText()).isEqualTo("Arbiter");
        assertThat(d.path("uid").asText()).isNotEmpty();
        assertThat(d.path("schemaVersion").asInt()).isPositive();
        JsonNode ds = null;
        for (JsonNode v : d.path("templating").path("list")) {
            if (v.path("type").asText().equals("datasource")) {
                ds = v;
            }
        }
        assertThat(ds).as("a datasource variable").isNotNull();
        assertThat(ds.path("query").asText()).isEqualTo("prometheus");
        String ref = "${" + ds.path("name").asText() + "}";
        int panels = 0;
        for (JsonNode p : d.path("panels")) {
            if (p.path("type").asText().equals("row")) {
                continue;
            }
            panels++;
            assertThat(p.path("datasource").path("uid").asText()).as(p.path("title").asText()).isEqualTo(ref);
            assertThat(p.path("targets")).as(p.path("title").asText()).isNotEmpty();
            for (JsonNode t : p.path("targets")) {
                assertThat(t.path("expr").asText()).isNotBlank();
                assertThat(t.path("datasource").path("uid").asText()).isEqualTo(ref);
            }
        }
        assertThat(panels).isGreaterThanOrEqualTo(10);
        Set<Integer> ids = new TreeSet<>();
        d.path("panels").forEach(p -> assertThat(ids.add(p.path("id").asInt())).as("panel ids unique").isTrue());
    }

    /** Every metric name the dashboard's expressions and variable queries select. */
    static Set<String> dashboardMetrics() throws Exception {
        JsonNode d = new ObjectMapper().readTree(Files.readString(DASHBOARD));
        Set<String> out = new TreeSet<>();
        for (JsonNode p : d.path("panels")) {
            for (JsonNode t : p.path("targets")) {
                out.addAll(PromQl.metricNames(t.path("expr").asText()));
            }
        }
        Pattern labelValues = Pattern.compile("label_values\\(\\s*([a-zA-Z_:][a-zA-Z0-9_:]*)\\s*,");
        for (JsonNode v : d.path("templating").path("list")) {
            String q = v.path("query").isObject() ? v.path("query").path("query").asText() : v.path("query").asText();
            Matcher m = labelValues.matcher(q);
            while (m.find()) {
                out.add(m.group(1));
            }
        }
        return out;
    }

    private Exposition scrape(URI uri, String token) throws Exception {
        HttpRequest.Builder b = HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(10));
        if (token != null) {
            b.header("Authorization", "Bearer " + token);
        }
        HttpResponse<String> r = http.send(b.build(), HttpResponse.BodyHandlers.ofString(StandardCharsets.UTF_8));
        assertThat(r.statusCode()).as(uri.toString()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type").orElse("")).as(uri + " content type").startsWith("text/plain; version=0.0.4");
        return PrometheusText.parse(r.body());
    }

    /** The one sample of {@code name} whose labels include {@code labels}. */
    static double value(Exposition e, String name, Map<String, String> labels) {
        List<Sample> s = e.samples(name).stream().filter(x -> x.labels().entrySet().containsAll(labels.entrySet())).toList();
        assertThat(s).as(name + labels).hasSize(1);
        return s.get(0).value();
    }

    static Set<String> bounds(Exposition e, String cls) {
        Set<String> out = new TreeSet<>();
        e.samples("arbiter_gateway_response_time_seconds_bucket").stream()
                .filter(s -> cls.equals(s.labels().get("class"))).forEach(s -> out.add(s.labels().get("le")));
        return out;
    }

    static void assertComponent(Exposition e, String component, String id) {
        for (PrometheusText.Family f : e.families().values()) {
            for (Sample s : f.samples()) {
                assertThat(s.labels()).as(s.toString()).containsEntry("component", component).containsEntry("id", id);
            }
        }
    }

    static ClusterConfig cluster(String bootstrap, int serverPort) throws Exception {
        ClassConfig.QueueConfig queue = new ClassConfig.QueueConfig(1000, 10);
        String sha = HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(TOKEN.getBytes(StandardCharsets.UTF_8)));
        return ClusterConfig.builder()
                .addClass(ClassConfig.builder("premium", 0.2).matchHeader("X-Class", "premium").queue(queue).build())
                .addClass(ClassConfig.builder("basic", 0.5).isDefault(true).queue(queue).build())
                .addServer(ServerConfig.builder("s1", URI.create("http://127.0.0.1:" + serverPort)).concurrency(4).build())
                .addGateway(GatewayConfig.builder("g1").port(0).adminPort(0).build())
                .control(ControlConfig.builder().periodSeconds(0.5).reportPeriodSeconds(0.5).statsWindowSeconds(5).build())
                .kafka(KafkaConfig.builder().bootstrap(bootstrap).topicPrefix("metrics.").build())
                .console(ConsoleConfig.builder().port(0).publicRead(false)
                        .tokens(List.of(new ConsoleConfig.Token("prometheus", sha, ConsoleConfig.Role.VIEWER))).build())
                .build();
    }
}
