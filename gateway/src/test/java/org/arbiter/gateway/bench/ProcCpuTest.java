package org.arbiter.gateway.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.management.ManagementFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** The benchmark's CPU reading from /proc agrees with the JVM's own count of its process CPU. */
@EnabledOnOs(OS.LINUX)
class ProcCpuTest {

    @Test
    void ownProcessCpuMatchesTheJvmsCount() throws Exception {
        com.sun.management.OperatingSystemMXBean os =
                (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();
        long pid = ProcessHandle.current().pid();
        double procBefore = ProcCpu.seconds(pid, false);
        long jvmBefore = os.getProcessCpuTime();
        long sink = 0;
        // Burn 0.4 s of this thread's CPU, counted by the thread's own CPU clock: a wall-clock 0.4 s
        // gave the thread 0.1 s of CPU on a busy machine, too little to compare (a CI failure).
        java.lang.management.ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long burnt = threads.getCurrentThreadCpuTime() + 400_000_000L;
        while (threads.getCurrentThreadCpuTime() < burnt) {
            for (int i = 0; i < 10_000; i++) {
                sink += Long.numberOfTrailingZeros(sink + i);
            }
        }
        double proc = ProcCpu.seconds(pid, false) - procBefore;
        double jvm = (os.getProcessCpuTime() - jvmBefore) / 1e9;
        assertThat(sink).isNotNegative();
        assertThat(jvm).isGreaterThan(0.1);
        // /proc counts in clock ticks (10 ms at CLK_TCK 100); other JVM threads run meanwhile too
        assertThat(proc).isBetween(jvm * 0.8 - 0.05, jvm * 1.2 + 0.05);
    }

    @Test
    void aMissingProcessHasUsedNothing() throws Exception {
        assertThat(ProcCpu.seconds(Integer.MAX_VALUE, true)).isZero();
    }

    @Test
    void theMachineIsBusierAfterWork() throws Exception {
        long[] before = ProcCpu.machine();
        long end = System.nanoTime() + 100_000_000L;
        long sink = 0;
        while (System.nanoTime() < end) {
            sink++;
        }
        long[] after = ProcCpu.machine();
        assertThat(sink).isPositive();
        assertThat(after[0]).isGreaterThan(before[0]);
        assertThat(after[1]).isGreaterThanOrEqualTo(after[0]);
    }
}
