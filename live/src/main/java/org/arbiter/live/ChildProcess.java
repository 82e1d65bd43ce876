package org.arbiter.live;

import static java.util.Objects.requireNonNull;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.arbiter.sim.experiment.*;

/**
 * One Arbiter component as its own operating-system process ({@code java … arbiter COMMAND}):
 * started, waited for until it prints its ready line, signalled (TERM, KILL, STOP, CONT) and
 * restarted with the same command line. Its output (stdout and stderr) is appended to
 * {@code logs/NAME.log}, one file across restarts, so a fault's effect can be read afterwards.
 *
 * <p>Thread-safe: its state is guarded by the instance lock; the output pump runs on its own daemon thread.
 */
public final class ChildProcess {

    private final String name;
    private final List<String> command;
    private final String readyPrefix;
    private final Path log;
    private Process process;
    private CompletableFuture<String> ready = new CompletableFuture<>();
    /** Copies the current start's output to the log; ends at the process's end of output. */
    private Thread pump;
    private int starts;
    private boolean closed;

    public ChildProcess(String name, List<String> launcher, List<String> args, String readyPrefix, Path logDir) {
        this.name = requireNonNull(name, "name");
        List<String> c = new ArrayList<>(launcher);
        c.addAll(args);
        this.command = List.copyOf(c);
        this.readyPrefix = requireNonNull(readyPrefix, "readyPrefix");
        this.log = logDir.resolve(name + ".log");
    }

    public String name() {
        return name;
    }

    /** The log file of every start ({@code logs/NAME.log}). */
    public Path log() {
        return log;
    }

    /** Starts the process (it must not be running). */
    public synchronized void start() throws IOException {
        if (closed) {
            throw new IllegalStateException(name + ": closed (the campaign is ending)");
        }
        if (alive()) {
            throw new IllegalStateException(name + ": already running (pid " + process.pid() + ")");
        }
        starts++;
        ProcessBuilder pb = new ProcessBuilder(command).redirectErrorStream(true);
        Process p = pb.start();
        CompletableFuture<String> r = new CompletableFuture<>();
        process = p;
        ready = r;
        int start = starts;
        Thread t = new Thread(() -> pump(p, r, start), "pump-" + name);
        t.setDaemon(true);
        pump = t;
        t.start();
    }

    private void pump(Process p, CompletableFuture<String> r, int start) {
        try (BufferedReader in = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
             PrintWriter out = new PrintWriter(Files.newBufferedWriter(log, StandardCharsets.UTF_8,
                     StandardOpenOption.CREATE, StandardOpenOption.APPEND))) {
            out.println("---- start " + start + " pid " + p.pid());
            out.flush();
            String line;
            while ((line = in.readLine()) != null) {
                if (!r.isDone() && line.startsWith(readyPrefix)) {
                    r.complete(line);
                }
                out.println(line);
                out.flush();
            }
            out.println("---- ended");
        } catch (IOException e) {
            // the process ended
        } finally {
            if (!r.isDone()) {
                r.completeExceptionally(new IllegalStateException(name + ": ended before its ready line (see " + log
                        + "); its last lines:\n" + tail(20)));
            }
        }
    }

    /** The last {@code n} lines of the log (where a test's report shows why a process ended; it may be deleted after). */
    public String tail(int n) {
        try {
            List<String> lines = Files.readAllLines(log, StandardCharsets.UTF_8);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - n), lines.size()));
        } catch (IOException | RuntimeException e) {
            return "(log unreadable: " + e + ")";
        }
    }

    /** Waits for the ready line of the current start; throws if the process ended or did not print it in time. */
    public String awaitReady(double seconds) throws Exception {
        CompletableFuture<String> r;
        synchronized (this) {
            r = ready;
        }
        try {
            return r.get((long) (seconds * 1000), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            throw new IllegalStateException(name + ": no ready line ('" + readyPrefix + "…') within " + seconds + " s (see "
                    + log + "); its last lines:\n" + tail(20));
        }
    }

    public synchronized boolean alive() {
        return process != null && process.isAlive();
    }

    public synchronized long pid() {
        return process == null ? -1 : process.pid();
    }

    /** Sends a signal (TERM, KILL, STOP, CONT) with {@code kill(1)}. */
    public void signal(String signal) throws IOException, InterruptedException {
        long pid = pid();
        if (pid < 0) {
            throw new IllegalStateException(name + ": not started");
        }
        Process k = new ProcessBuilder("kill", "-" + signal, Long.toString(pid)).redirectErrorStream(true).start();
        if (!k.waitFor(10, TimeUnit.SECONDS) || k.exitValue() != 0) {
            throw new IllegalStateException(name + ": kill -" + signal + " " + pid + " failed");
        }
    }

    /**
     * Waits up to {@code seconds} for the process to end; true if it has. Once it has, its last lines
     * are in the log too: the pump is given up to 5 s more to copy the output to its end.
     */
    public boolean awaitExit(double seconds) throws InterruptedException {
        Process p;
        Thread t;
        synchronized (this) {
            p = process;
            t = pump;
        }
        if (p != null && !p.waitFor((long) (seconds * 1000), TimeUnit.MILLISECONDS)) {
            return false;
        }
        if (t != null) {
            t.join(5_000);
        }
        return true;
    }

    /**
     * Ends the process whatever its state (SIGCONT first in case it is stopped, then SIGKILL) and
     * refuses any later {@link #start} (a campaign thread still running during JVM shutdown must
     * not start it again); never throws.
     */
    public void destroy() {
        Process p;
        synchronized (this) {
            closed = true;
            p = process;
        }
        if (p == null || !p.isAlive()) {
            return;
        }
        try {
            signal("CONT");
        } catch (Exception ignored) {
            // best effort
        }
        p.destroyForcibly();
        try {
            p.waitFor(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
