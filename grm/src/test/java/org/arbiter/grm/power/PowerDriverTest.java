package org.arbiter.grm.power;

import org.arbiter.grm.control.GrmCore.Seen;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.ServerState;
import org.arbiter.grm.sizing.Fleet;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The driver: retries with back-off, gives up after the last attempt, never blocks the caller, supersedes. */
final class PowerDriverTest {

    @TempDir
    Path dir;

    final List<PowerDriver.Report> reports = new CopyOnWriteArrayList<>();

    static final List<ServerConfig> SERVERS = List.of(PowerActuatorTest.server("s1", null), PowerActuatorTest.server("s2", null));

    /** Fails until the n-th run (a counter file), then succeeds. */
    String failsUntil(int n) {
        Path f = dir.resolve("count-" + n);
        return "n=$(cat '" + f + "' 2>/dev/null || echo 0); n=$((n+1)); echo $n > '" + f + "'; "
                + "[ $n -ge " + n + " ] || { echo \"bmc busy ($n)\" >&2; exit 1; }; echo off";
    }

    @Test
    void failedAttempt_isRetriedWithBackOff_andEachAttemptIsReported() {
        try (PowerDriver d = new PowerDriver(new ExecActuator(failsUntil(3), Duration.ofSeconds(10)), SERVERS, 3, 0.1,
                reports::add)) {
            long started = System.nanoTime();
            d.submit(new Fleet.Actuation("s1", ServerState.OFF, "drained"));
            assertThat((System.nanoTime() - started) / 1e9).as("submit returns at once").isLessThan(0.1);
            await().atMost(Duration.ofSeconds(10)).until(() -> reports.size() == 3);
            assertThat((System.nanoTime() - started) / 1e9).as("back-off 0.1 s then 0.2 s").isGreaterThanOrEqualTo(0.3);
            assertThat(reports).extracting(PowerDriver.Report::attempt, PowerDriver.Report::ok, PowerDriver.Report::last)
                    .containsExactly(org.assertj.core.groups.Tuple.tuple(1, false, false),
                            org.assertj.core.groups.Tuple.tuple(2, false, false),
                            org.assertj.core.groups.Tuple.tuple(3, true, true));
            assertThat(reports.get(0).detail()).endsWith("exited 1: bmc busy (1)");
            assertThat(reports.get(2).seen()).isEqualTo(Seen.DOWN);
            assertThat(d.isLatest(reports.get(2))).isTrue();
        }
    }

    @Test
    void afterTheLastAttempt_theFailureIsFinal() {
        try (PowerDriver d = new PowerDriver(new ExecActuator(failsUntil(99), Duration.ofSeconds(10)), SERVERS, 2, 0.01,
                reports::add)) {
            d.submit(new Fleet.Actuation("s2", ServerState.ON, "sizing"));
            await().atMost(Duration.ofSeconds(10)).until(() -> reports.size() == 2);
            assertThat(reports.get(1).ok()).isFalse();
            assertThat(reports.get(1).last()).isTrue();
            assertThat(reports.get(1).detail()).endsWith("bmc busy (2)");
        }
    }

    @Test
    void aNewerActionForAServer_supersedesAnOlderOneNotYetRun_andStaleReportsAreMarked() throws Exception {
        try (SimServer s = SimServer.start(SimServerOptions.defaults().withDelays(0.3, 0.3));
             PowerDriver d = new PowerDriver(new HttpActuator(Duration.ofSeconds(5), Duration.ofSeconds(5), Duration.ofMillis(20)),
                     List.of(PowerActuatorTest.server("s1", URI.create("http://127.0.0.1:" + s.adminPort()))), 3, 0.05,
                     reports::add)) {
            d.submit(new Fleet.Actuation("s1", ServerState.OFF, "drained"));
            await().atMost(Duration.ofSeconds(10)).until(() -> reports.size() == 1);
            assertThat(reports.get(0).seen()).isEqualTo(Seen.DOWN);
            assertThat(s.state()).isEqualTo(PowerModel.State.OFF);
            // Two orders in a row: the ON acts last; the OFF either never ran (superseded) or ran
            // first, and its report is stale either way.
            d.submit(new Fleet.Actuation("s1", ServerState.OFF, "drained"));
            d.submit(new Fleet.Actuation("s1", ServerState.ON, "sizing"));
            await().atMost(Duration.ofSeconds(10)).until(() -> reports.get(reports.size() - 1).actuation().action() == ServerState.ON);
            PowerDriver.Report on = reports.get(reports.size() - 1);
            assertThat(on.ok()).isTrue();
            assertThat(on.seen()).isEqualTo(Seen.UP);
            assertThat(d.isLatest(on)).isTrue();
            assertThat(reports.subList(0, reports.size() - 1)).allSatisfy(r -> assertThat(d.isLatest(r)).isFalse());
            assertThat(s.state()).isEqualTo(PowerModel.State.ON);
        }
    }
}
