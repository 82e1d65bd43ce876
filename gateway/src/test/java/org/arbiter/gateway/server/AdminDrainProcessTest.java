package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.arbiter.gateway.GatewayTestSupport;
import org.arbiter.gateway.cli.GatewayCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway process drained over its admin port exits 75 (the packaged unit's
 * {@code RestartForceExitStatus=75} starts it again), or 0 with {@code final=true}; a refused
 * {@code POST /drain} leaves it running. SIGTERM's exit 0 is DrainProcessTest's.
 */
final class AdminDrainProcessTest {

    private static final Pattern READY = Pattern.compile("gateway g1 ready on [0-9.]+:(\\d+) \\(admin 127\\.0\\.0\\.1:(\\d+)\\)");

    @TempDir
    Path dir;

    /** Starts {@code arbiter gateway}, posts {@code path} to its admin port (after a refused one), returns its exit status. */
    private int drainOverTheAdminPort(String backendUrl, String path) throws Exception {
        Path config = dir.resolve("cluster.yaml");
        Files.writeString(config, """
                classes:
                  - {name: basic, target: 2s, default: true}
                servers:
                  - {id: s1, url: "%s", concurrency: 4}
                gateways:
                  - {id: g1, port: 0, adminPort: 0, drainTimeout: 2s}
                gateway: {adminTokenFile: '%s'}
                """.formatted(backendUrl, GatewayTestSupport.adminTokenFile()));
        Process p = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx128m", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                GatewayCommand.class.getName(), "--config", config.toString(), "--id", "g1")
                .redirectErrorStream(true).start();
        List<String> output = new CopyOnWriteArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
            Matcher ready = CompletableFuture.supplyAsync(() -> {
                try {
                    for (String line; (line = out.readLine()) != null; ) {
                        output.add(line);
                        Matcher m = READY.matcher(line);
                        if (m.find()) {
                            return m;
                        }
                    }
                } catch (IOException ignored) {
                    // ended
                }
                return null;
            }).get(60, TimeUnit.SECONDS);
            assertThat(ready).as("ready line in %s", output).isNotNull();
            int adminPort = Integer.parseInt(ready.group(2));
            CompletableFuture.runAsync(() -> {
                try {
                    for (String line; (line = out.readLine()) != null; ) {
                        output.add(line);
                    }
                } catch (IOException ignored) {
                    // ended
                }
            });
            assertThat(AdminAuthSocketTest.post(adminPort, path)).startsWith("HTTP/1.1 401 ");
            assertThat(p.waitFor(300, TimeUnit.MILLISECONDS)).as("running after a refused drain").isFalse();
            assertThat(AdminAuthSocketTest.post(adminPort, path, "Authorization: Bearer " + GatewayTestSupport.ADMIN_TOKEN))
                    .startsWith("HTTP/1.1 202 ");
            assertThat(p.waitFor(30, TimeUnit.SECONDS)).as("exited; output %s", output).isTrue();
            return p.exitValue();
        } finally {
            p.destroyForcibly();
        }
    }

    @Test
    void aDrainOverTheAdminPort_exits75_andAFinalOne_exits0() throws Exception {
        try (var backend = GatewayTestSupport.backend(0)) {
            assertThat(drainOverTheAdminPort(backend.url(), "/drain")).isEqualTo(Gateway.EXIT_RESTART).isEqualTo(75);
            assertThat(drainOverTheAdminPort(backend.url(), "/drain?final=true")).isZero();
        }
    }
}
