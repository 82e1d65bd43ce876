package org.arbiter.grm.power;

import org.arbiter.runtime.net.Ports;
import org.arbiter.grm.control.GrmCore.Seen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.ServerState;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Each actuator against the real thing: a real {@code sh -c} process, a real simserver on 127.0.0.1. */
final class PowerActuatorTest {

    @TempDir
    Path dir;

    static ServerConfig server(String id, URI admin) {
        return new ServerConfig(id, URI.create("http://127.0.0.1:1"), 10, false, ServerConfig.PowerDraw.DEFAULT, admin,
                ServerConfig.SimSpec.DEFAULT);
    }

    @Test
    void log_switchesNothing_andSeesNothing() throws Exception {
        assertThat(new LogActuator().actuate(server("s1", null), ServerState.OFF)).isEqualTo(Seen.UNKNOWN);
    }

    @Test
    void exec_runsTheTemplate_withServerAndAction_andReadsWhatTheCommandSaw() throws Exception {
        Path log = dir.resolve("orders.log");
        ExecActuator a = new ExecActuator("echo {server} {action} $ARBITER_SERVER_URL >> '" + log + "'; echo on",
                Duration.ofSeconds(10));
        assertThat(a.actuate(server("s-1.a", null), ServerState.ON)).isEqualTo(Seen.UP);
        ExecActuator quiet = new ExecActuator("echo {server} {action} >> '" + log + "'", Duration.ofSeconds(10));
        assertThat(quiet.actuate(server("s2", null), ServerState.OFF)).isEqualTo(Seen.UNKNOWN);
        assertThat(Files.readAllLines(log)).containsExactly("s-1.a on http://127.0.0.1:1", "s2 off");
    }

    @Test
    void exec_nonZeroExit_failsWithTheTailOfStderr() {
        ExecActuator a = new ExecActuator("echo starting; echo 'ipmi: {server}: connection timed out' >&2; exit 3",
                Duration.ofSeconds(10));
        assertThatThrownBy(() -> a.actuate(server("s1", null), ServerState.ON))
                .isInstanceOf(ActuationException.class)
                .hasMessage("'echo starting; echo 'ipmi: s1: connection timed out' >&2; exit 3' exited 3: ipmi: s1: connection timed out");
    }

    @Test
    void exec_pastTheTimeout_isKilled_andFails() {
        ExecActuator a = new ExecActuator("sleep 30", Duration.ofMillis(300));
        long started = System.nanoTime();
        assertThatThrownBy(() -> a.actuate(server("s1", null), ServerState.OFF))
                .isInstanceOf(ActuationException.class)
                .hasMessageStartingWith("'sleep 30' still running after 0.3 s");
        // killed, not waited out: well before the command's own 30 s
        assertThat((System.nanoTime() - started) / 1e9).as("seconds until it failed").isLessThan(25);
    }

    @Test
    void http_powersARealSimserverOffAndOn_andReportsWhatItSaw() throws Exception {
        try (SimServer s = SimServer.start(SimServerOptions.defaults().withDelays(0.3, 0.3))) {
            ServerConfig cfg = server("s1", URI.create("http://127.0.0.1:" + s.adminPort()));
            HttpActuator a = new HttpActuator(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofMillis(20));
            long started = System.nanoTime();
            assertThat(a.actuate(cfg, ServerState.OFF)).isEqualTo(Seen.DOWN);
            assertThat((System.nanoTime() - started) / 1e9).isGreaterThanOrEqualTo(0.3); // it waited for the real OFF
            assertThat(s.state()).isEqualTo(PowerModel.State.OFF);
            assertThat(a.actuate(cfg, ServerState.ON)).isEqualTo(Seen.UP);
            assertThat(s.state()).isEqualTo(PowerModel.State.ON);
            assertThat(a.actuate(cfg, ServerState.ON)).isEqualTo(Seen.UP); // idempotent
        }
    }

    @Test
    void http_serverSlowerThanTheWait_failsWithTheStateItSaw() throws Exception {
        try (SimServer s = SimServer.start(SimServerOptions.defaults().withDelays(30, 0))) {
            ServerConfig cfg = server("s1", URI.create("http://127.0.0.1:" + s.adminPort()));
            HttpActuator a = new HttpActuator(Duration.ofMillis(300), Duration.ofSeconds(5), Duration.ofMillis(20));
            assertThat(a.actuate(cfg, ServerState.OFF)).isEqualTo(Seen.DOWN);
            assertThatThrownBy(() -> a.actuate(cfg, ServerState.ON))
                    .isInstanceOfSatisfying(ActuationException.class, e -> {
                        assertThat(e.getMessage()).startsWith("s1: BOOTING ").endsWith("(expected: ON)");
                        assertThat(e.seen()).isEqualTo(Seen.UNKNOWN);
                    });
        }
    }

    @Test
    void http_unreachableAdminApi_failsAtOnce() throws Exception {
        int port = Ports.free();
        HttpActuator a = new HttpActuator(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofMillis(20));
        assertThatThrownBy(() -> a.actuate(server("s1", URI.create("http://127.0.0.1:" + port)), ServerState.ON))
                .isInstanceOfSatisfying(ActuationException.class, e -> {
                    assertThat(e.getMessage()).startsWith("POST http://127.0.0.1:" + port + "/power/on: java.net.ConnectException");
                    assertThat(e.seen()).isEqualTo(Seen.UNKNOWN);
                });
    }
}
