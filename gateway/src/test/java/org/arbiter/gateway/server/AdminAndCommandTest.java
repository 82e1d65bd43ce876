package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import javax.management.ObjectName;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.GatewayTestSupport;
import org.arbiter.gateway.cli.GatewayCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

/** The admin port, the MBean and the command's argument handling. */
final class AdminAndCommandTest {

    @TempDir
    Path dir;

    @Test
    void adminPort_servesHealthReadyAllocationStatsAndMetrics_andTheMBeanShowsTheAllocation() throws Exception {
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = Gateway.start(GatewayTestSupport.twoClasses(10, "5s", backend.url()), "g1",
                     GatewayOptions.defaults().standalone().withPorts(0, 0))) {
            try (var c = GatewayTestSupport.http(g.port())) {
                assertThat(c.get("/x", "X-Class: premium").status()).isEqualTo(200);
            }
            g.accept(new Allocation(1, Instant.parse("2026-01-01T00:00:00Z"), "g1", 3,
                    Map.of("premium", 6.5, "basic", 3.5), Map.of("s1", 9), "grm"));
            await().atMost(Duration.ofSeconds(30)).until(() -> g.allocation().version() == 3);
            try (var a = GatewayTestSupport.http(g.adminPort())) {
                assertThat(a.get("/health").status()).isEqualTo(200);
                assertThat(a.get("/ready").status()).isEqualTo(200);
                var alloc = a.get("/allocation");
                assertThat(alloc.body()).contains("\"version\":3", "\"at\":\"2026-01-01T00:00:00Z\"", "\"premium\":6.5",
                        "\"s1\":9");
                var stats = a.get("/stats");
                assertThat(stats.body()).contains("\"gateway\":\"g1\"", "\"allocationVersion\":3", "\"premium\"");
                var metrics = a.get("/metrics");
                assertThat(metrics.body()).contains("arbiter_gateway_arrivals_total", "class=\"premium\"",
                        "arbiter_gateway_server_cap", "arbiter_gateway_response_time_seconds_bucket");
                assertThat(a.get("/nope").status()).isEqualTo(404);
            }
            var name = new ObjectName("arbiter:type=Gateway,id=g1");
            var server = ManagementFactory.getPlatformMBeanServer();
            assertThat(server.getAttribute(name, "AllocationVersion")).isEqualTo(3L);
            assertThat((String) server.getAttribute(name, "Weights")).contains("premium=6.5");
            assertThat((String) server.getAttribute(name, "ServerCaps")).isEqualTo("s1=9");
        }
    }

    private static int run(StringWriter err, String... args) {
        CommandLine cl = new CommandLine(new GatewayCommand());
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new StringWriter()));
        return cl.execute(args);
    }

    @Test
    void badArgumentsAndConfigErrors_exit2_withClearLines() throws Exception {
        StringWriter err = new StringWriter();
        assertThat(run(err, "--id", "g1")).isEqualTo(2);
        assertThat(err.toString()).contains("--config");

        Path bad = dir.resolve("bad.yaml");
        Files.writeString(bad, "classes: []\nservers: []\n");
        err = new StringWriter();
        assertThat(run(err, "--config", bad.toString(), "--id", "g1")).isEqualTo(2);
        assertThat(err.toString()).contains("gateway: classes");

        Path good = dir.resolve("good.yaml");
        Files.writeString(good, "classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: 'http://127.0.0.1:9'}]\n"
                + "gateways: [{id: g1, port: 0, adminPort: 0}]\n");
        err = new StringWriter();
        assertThat(run(err, "--config", good.toString(), "--id", "g7")).isEqualTo(2);
        assertThat(err.toString()).contains("--id: g7 (expected: one of the gateways in the file: g1)");
        err = new StringWriter();
        assertThat(run(err, "--config", good.toString(), "--id", "g1", "--port", "70000")).isEqualTo(2);
        assertThat(err.toString()).contains("--port: 70000 (expected: 0..65535)");
    }
}
