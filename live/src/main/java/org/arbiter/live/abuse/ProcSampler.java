package org.arbiter.live.abuse;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;
import java.util.stream.Stream;

/**
 * Samples one process's resident memory ({@code VmRSS} in {@code /proc/PID/status}) and open
 * descriptors (entries of {@code /proc/PID/fd}) every {@code intervalMillis} on its own daemon
 * thread, each sample tagged with the phase the campaign is in. The process id is asked for at
 * each sample, so a restarted process is followed; a sample of a process that is not running is
 * skipped. Thread-safe: {@link #phase} and {@link #stop} from any thread.
 */
final class ProcSampler implements AutoCloseable {

    /** Where the campaign is in one run. */
    enum Phase { BEFORE, DURING, AFTER }

    /** One sample. */
    record Sample(long atMillis, Phase phase, long rssBytes, int fds) {
    }

    private final LongSupplier pid;
    private final long intervalMillis;
    private final List<Sample> samples = new ArrayList<>();
    private final long t0 = System.nanoTime();
    private volatile Phase phase = Phase.BEFORE;
    private volatile boolean running = true;
    private final Thread thread;

    private ProcSampler(LongSupplier pid, long intervalMillis) {
        this.pid = pid;
        this.intervalMillis = intervalMillis;
        this.thread = new Thread(this::loop, "abuse-sampler");
        thread.setDaemon(true);
    }

    /** Starts sampling the process {@code pid} names (-1: none running) in phase BEFORE. */
    static ProcSampler start(LongSupplier pid, long intervalMillis) {
        ProcSampler s = new ProcSampler(pid, intervalMillis);
        s.thread.start();
        return s;
    }

    /** Tags later samples with {@code p}; takes one sample at once so that each phase has at least one. */
    void phase(Phase p) {
        phase = p;
        sampleOnce();
    }

    private void loop() {
        while (running) {
            sampleOnce();
            try {
                Thread.sleep(intervalMillis);
            } catch (InterruptedException e) {
                return;
            }
        }
    }

    private void sampleOnce() {
        long p = pid.getAsLong();
        if (p < 0) {
            return;
        }
        long rss = rssBytes(p);
        int fds = fds(p);
        if (rss < 0 || fds < 0) {
            return;
        }
        synchronized (samples) {
            samples.add(new Sample((System.nanoTime() - t0) / 1_000_000, phase, rss, fds));
        }
    }

    /** Stops sampling and summarises. */
    Resources stop() throws InterruptedException {
        running = false;
        thread.interrupt();
        thread.join(5_000);
        List<Sample> all;
        synchronized (samples) {
            all = List.copyOf(samples);
        }
        return summarise(all);
    }

    static Resources summarise(List<Sample> all) {
        long[] baseRss = all.stream().filter(s -> s.phase() == Phase.BEFORE).mapToLong(Sample::rssBytes).sorted().toArray();
        int[] baseFds = all.stream().filter(s -> s.phase() == Phase.BEFORE).mapToInt(Sample::fds).sorted().toArray();
        long peakRss = all.stream().filter(s -> s.phase() != Phase.BEFORE).mapToLong(Sample::rssBytes).max().orElse(-1);
        int peakFds = all.stream().filter(s -> s.phase() != Phase.BEFORE).mapToInt(Sample::fds).max().orElse(-1);
        Sample last = all.stream().filter(s -> s.phase() == Phase.AFTER).reduce((a, b) -> b).orElse(null);
        return new Resources(baseRss.length == 0 ? -1 : baseRss[baseRss.length / 2], peakRss,
                last == null ? -1 : last.rssBytes(), baseFds.length == 0 ? -1 : baseFds[baseFds.length / 2], peakFds,
                last == null ? -1 : last.fds(), all.size());
    }

    @Override
    public void close() throws InterruptedException {
        stop();
    }

    /** VmRSS of {@code pid} in bytes, or -1 if it cannot be read (the process ended). */
    static long rssBytes(long pid) {
        try {
            for (String line : Files.readAllLines(Path.of("/proc", Long.toString(pid), "status"))) {
                if (line.startsWith("VmRSS:")) {
                    String[] p = line.substring(6).trim().split("\\s+");
                    return Long.parseLong(p[0]) * 1024;
                }
            }
            return -1;
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /**
     * CPU seconds {@code pid} has used (user + system, from {@code /proc/PID/stat} in clock ticks of
     * 1/100 s, the Linux default), or -1 if they cannot be read.
     */
    static double cpuSeconds(long pid) {
        try {
            String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
            String[] f = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
            return (Long.parseLong(f[11]) + Long.parseLong(f[12])) / 100.0; // fields 14 and 15 of proc(5)
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }

    /** Open descriptors of {@code pid}, or -1 if they cannot be read. */
    static int fds(long pid) {
        try (Stream<Path> s = Files.list(Path.of("/proc", Long.toString(pid), "fd"))) {
            return (int) s.count();
        } catch (IOException | RuntimeException e) {
            return -1;
        }
    }
}
