package org.arbiter.gateway.bench;

import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * CPU time from Linux's /proc: a process's {@code utime + stime} (/proc/PID/stat fields 14 and 15,
 * in clock ticks; all its threads), optionally with its direct children's (NGINX's workers), and
 * the whole machine's busy time from /proc/stat.
 */
final class ProcCpu {

    /** Clock ticks per second ({@code getconf CLK_TCK}); 100 on every Linux this runs on. */
    static final long TICKS = clockTicks();

    private ProcCpu() {
    }

    /** CPU seconds used so far by {@code pid}, plus its direct children's when asked. */
    static double seconds(long pid, boolean withChildren) throws IOException {
        long ticks = ticks(pid);
        if (withChildren) {
            for (long child : children(pid)) {
                ticks += ticks(child);
            }
        }
        return (double) ticks / TICKS;
    }

    /** The machine's busy and total jiffies so far (first line of /proc/stat): {busy, total}. */
    static long[] machine() throws IOException {
        String line = Files.readAllLines(Path.of("/proc/stat")).get(0);
        String[] f = line.trim().split("\\s+");
        long total = 0;
        for (int i = 1; i < f.length && i <= 8; i++) { // user nice system idle iowait irq softirq steal
            total += Long.parseLong(f[i]);
        }
        long idle = Long.parseLong(f[4]) + Long.parseLong(f[5]);
        return new long[] {total - idle, total};
    }

    private static long ticks(long pid) throws IOException {
        String[] f = fieldsAfterComm(pid);
        if (f == null) {
            return 0;
        }
        // after "pid (comm)" the fields start at 3 (state): utime is field 14, stime 15
        return Long.parseLong(f[14 - 3]) + Long.parseLong(f[15 - 3]);
    }

    private static String[] fieldsAfterComm(long pid) throws IOException {
        String stat;
        try {
            stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        } catch (NoSuchFileException e) {
            return null;
        }
        return stat.substring(stat.lastIndexOf(')') + 2).trim().split(" ");
    }

    private static List<Long> children(long parent) throws IOException {
        List<Long> out = new ArrayList<>();
        try (DirectoryStream<Path> dirs = Files.newDirectoryStream(Path.of("/proc"), "[0-9]*")) {
            for (Path d : dirs) {
                long pid = Long.parseLong(d.getFileName().toString());
                String[] f = fieldsAfterComm(pid);
                if (f != null && Long.parseLong(f[4 - 3]) == parent) {
                    out.add(pid);
                }
            }
        }
        return out;
    }

    private static long clockTicks() {
        try {
            Process p = new ProcessBuilder("getconf", "CLK_TCK").redirectErrorStream(true).start();
            String s = new String(p.getInputStream().readAllBytes()).trim();
            p.waitFor();
            return Long.parseLong(s);
        } catch (IOException | NumberFormatException e) {
            return 100;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return 100;
        }
    }
}
