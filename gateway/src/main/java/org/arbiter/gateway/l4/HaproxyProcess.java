package org.arbiter.gateway.l4;

import static java.util.Objects.requireNonNull;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * HAProxy as a child process: found on the {@code PATH} (or {@code /usr/sbin}), run in the
 * foreground ({@code -db}) on a configuration file, its output kept, stopped by {@link #close()}
 * (SIGTERM, then SIGKILL after 5 s). For the demo's switch and the tests; in production HAProxy
 * runs under its own service manager. Thread-safe.
 */
public final class HaproxyProcess implements AutoCloseable {

    /** What {@code haproxy -c -f FILE} said. */
    public record Check(int exitCode, String output) {
    }

    private final Process process;
    private final StringBuffer output = new StringBuffer();

    private HaproxyProcess(Process process) {
        this.process = process;
        Thread pump = new Thread(() -> {
            try (InputStream in = process.getInputStream()) {
                byte[] buf = new byte[4096];
                for (int n; (n = in.read(buf)) > 0; ) {
                    output.append(new String(buf, 0, n, StandardCharsets.UTF_8));
                }
            } catch (IOException e) {
                // the process is gone
            }
        }, "haproxy-output");
        pump.setDaemon(true);
        pump.start();
    }

    /** The haproxy executable, if installed (Debian package {@code haproxy}). */
    public static Optional<Path> binary() {
        List<String> dirs = new ArrayList<>(List.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)));
        dirs.add("/usr/sbin");
        dirs.add("/usr/local/sbin");
        for (String d : dirs) {
            if (d.isEmpty()) {
                continue;
            }
            Path p = Path.of(d, "haproxy");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    private static Path required() {
        return binary().orElseThrow(() -> new IllegalStateException(
                "haproxy is not installed (expected: the haproxy executable on the PATH; Debian: apt-get install haproxy)"));
    }

    /** Runs {@code haproxy -c -f config} (at most 30 s). */
    public static Check check(Path config) throws IOException, InterruptedException {
        Process p = new ProcessBuilder(required().toString(), "-c", "-f", config.toString()).redirectErrorStream(true)
                .start();
        if (!p.waitFor(30, TimeUnit.SECONDS)) {
            p.destroyForcibly();
            return new Check(-1, "haproxy -c did not finish within 30 s");
        }
        return new Check(p.exitValue(), new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8));
    }

    /**
     * Starts {@code haproxy -db -f config} and returns once {@code listen} accepts connections.
     *
     * @throws IOException when HAProxy exits or does not listen within {@code timeoutMillis} (with its output)
     */
    public static HaproxyProcess start(Path config, InetSocketAddress listen, long timeoutMillis)
            throws IOException, InterruptedException {
        requireNonNull(config, "config");
        requireNonNull(listen, "listen");
        Process p = new ProcessBuilder(required().toString(), "-db", "-f", config.toString()).redirectErrorStream(true)
                .start();
        HaproxyProcess h = new HaproxyProcess(p);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (true) {
            if (!p.isAlive()) {
                throw new IOException("haproxy exited with " + p.exitValue() + ": " + h.output());
            }
            try (Socket s = new Socket()) {
                s.connect(listen, 200);
                return h;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    h.close();
                    throw new IOException("haproxy does not listen on " + listen + " after " + timeoutMillis + " ms: "
                            + h.output());
                }
                Thread.sleep(20); // polling a child process's port: there is nothing to wait on
            }
        }
    }

    /**
     * A seamless reload, as a service manager does it: starts {@code haproxy -db -f config -x socket -sf OLD}
     * (the new process takes the listening sockets over from the old one through the Runtime API socket
     * {@code socket}, so no connection is refused meanwhile; the old one finishes what it holds and exits)
     * and returns the new process once {@code listen} accepts and the old process has exited.
     *
     * @throws IOException when the new process exits, or the handover does not finish within {@code timeoutMillis}
     */
    public static HaproxyProcess reload(Path config, Path socket, HaproxyProcess old, InetSocketAddress listen,
                                        long timeoutMillis) throws IOException, InterruptedException {
        requireNonNull(old, "old");
        Process p = new ProcessBuilder(required().toString(), "-db", "-f", config.toString(), "-x", socket.toString(),
                "-sf", Long.toString(old.pid())).redirectErrorStream(true).start();
        HaproxyProcess h = new HaproxyProcess(p);
        long deadline = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(timeoutMillis);
        while (old.isAlive() || !accepts(listen)) {
            if (!p.isAlive()) {
                throw new IOException("haproxy (reload) exited with " + p.exitValue() + ": " + h.output());
            }
            if (System.nanoTime() > deadline) {
                h.close();
                throw new IOException("haproxy reload did not finish within " + timeoutMillis + " ms: " + h.output());
            }
            Thread.sleep(20); // polling child processes: there is nothing to wait on
        }
        return h;
    }

    private static boolean accepts(InetSocketAddress listen) {
        try (Socket s = new Socket()) {
            s.connect(listen, 200);
            return true;
        } catch (IOException e) {
            return false;
        }
    }

    /** What HAProxy printed so far (stdout and stderr). */
    public String output() {
        return output.toString();
    }

    /** The process id. */
    public long pid() {
        return process.pid();
    }

    public boolean isAlive() {
        return process.isAlive();
    }

    /** Stops HAProxy (SIGTERM; SIGKILL after 5 s). */
    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor(5, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
