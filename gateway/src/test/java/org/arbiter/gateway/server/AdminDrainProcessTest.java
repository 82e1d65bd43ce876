package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A gateway process drained over its admin port exits 75 (the packaged unit's
 * {@code RestartForceExitStatus=75} starts it again), or 0 with {@code final=true}; a refused
 * {@code POST /drain} leaves it running. SIGTERM's exit 0 is DrainProcessTest's.
 */
final class AdminDrainProcessTest {

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
        try (GatewayTestSupport.GatewayProcess g = GatewayTestSupport.GatewayProcess.start(config, "g1",
                "-Xmx128m", "-XX:TieredStopAtLevel=1")) {
            assertThat(AdminAuthSocketTest.post(g.adminPort(), path)).startsWith("HTTP/1.1 401 ");
            assertThat(g.waitFor(0.3)).as("running after a refused drain").isFalse();
            assertThat(AdminAuthSocketTest.post(g.adminPort(), path, "Authorization: Bearer " + GatewayTestSupport.ADMIN_TOKEN))
                    .startsWith("HTTP/1.1 202 ");
            assertThat(g.waitFor(30)).as("exited; output %s", g.output()).isTrue();
            return g.process().exitValue();
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
