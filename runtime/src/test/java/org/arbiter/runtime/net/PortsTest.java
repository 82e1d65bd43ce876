package org.arbiter.runtime.net;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

final class PortsTest {

    @Test
    void candidates_avoidTheEphemeralRange_takingTheLargerGap() {
        assertThat(Ports.candidateRange(new int[] {32768, 60999})).containsExactly(10_000, 32767);
        assertThat(Ports.candidateRange(new int[] {10_500, 50_000})).containsExactly(50_001, 65_535);
        assertThat(Ports.candidateRange(new int[] {1024, 65_000})).containsExactly(10_000, 65_535);
    }

    @Test
    void portsHandedOut_areDistinct_bindable_andOutsideTheEphemeralRange() throws Exception {
        int[] ephemeral = Ports.ephemeralRange();
        int[] ports = Ports.free(40);
        assertThat(Arrays.stream(ports).distinct().count()).isEqualTo(40);
        assertThat(Arrays.stream(Ports.free(40)).boxed().toList())
                .as("never handed out twice by one JVM").doesNotContainAnyElementsOf(Arrays.stream(ports).boxed().toList());
        for (int p : ports) {
            assertThat(p).isGreaterThanOrEqualTo(Ports.LOWEST);
            assertThat(p < ephemeral[0] || p > ephemeral[1]).as(p + " outside " + Arrays.toString(ephemeral)).isTrue();
            try (ServerSocket s = new ServerSocket()) {
                s.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), p), 1);
            }
        }
    }

    @Test
    @EnabledOnOs(OS.LINUX)
    void portsAnotherJvmHolds_areNotTaken_untilItExits() throws Exception {
        Process other = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-cp", System.getProperty("java.class.path"), Ports.class.getName(), "30")
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
        List<Integer> theirs = new ArrayList<>();
        try {
            BufferedReader out = new BufferedReader(new InputStreamReader(other.getInputStream(), StandardCharsets.UTF_8));
            for (int i = 0; i < 30; i++) {
                theirs.add(Integer.parseInt(out.readLine().trim()));
            }
            for (int p : theirs) {
                assertThat(Ports.take(p)).as("port " + p + " is held by the other JVM").isFalse();
            }
        } finally {
            other.getOutputStream().close();
            assertThat(other.waitFor(30, TimeUnit.SECONDS)).isTrue();
        }
        int taken = 0;
        for (int p : theirs) {
            taken += Ports.take(p) ? 1 : 0;
        }
        // Its locks went with it; a port some other program bound meanwhile is the only miss allowed.
        assertThat(taken).isGreaterThanOrEqualTo(theirs.size() - 2);
    }
}
