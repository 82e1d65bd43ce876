package org.arbiter.gateway.l4;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * NGINX as a child process for the benchmarks (the gateway benchmark's proxy and pass-through backend, the
 * overload benchmark's uncapped contender): a configuration made of the common frame — foreground, a master
 * and {@code workers} workers, pid, error log and temporary paths under {@code prefix} — around the caller's
 * {@code http} block, started and waited for until it listens. Stopped by {@link #close()} (SIGTERM to the
 * master and its workers, SIGKILL after 5 s). Thread-safe.
 */
public final class NginxProcess implements AutoCloseable {

    private final Process process;
    private final Path prefix;

    private NginxProcess(Process process, Path prefix) {
        this.process = process;
        this.prefix = prefix;
    }

    /** The nginx executable, if installed (Debian package {@code nginx}). */
    public static Optional<Path> binary() {
        for (String d : List.of("/usr/sbin", "/usr/bin", "/usr/local/sbin", "/usr/local/bin")) {
            Path p = Path.of(d, "nginx");
            if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                return Optional.of(p);
            }
        }
        return Optional.empty();
    }

    /**
     * Writes {@code prefix/nginx.conf} and starts {@code nginx -p prefix -c prefix/nginx.conf}; returns once port
     * {@code port} on 127.0.0.1 accepts connections.
     *
     * @param workers     {@code worker_processes} (0: {@code auto}, one per core)
     * @param connections {@code worker_connections}
     * @param http        the body of the {@code http} block (upstreams, servers, keep-alive settings)
     * @throws IOException when nginx is not installed, exits, or does not listen within 15 s (with its error log)
     */
    public static NginxProcess start(Path prefix, int workers, int connections, String http, int port)
            throws IOException, InterruptedException {
        requireNonNull(http, "http");
        Path bin = binary().orElseThrow(() -> new IOException(
                "nginx is not installed (expected: the nginx executable; Debian: apt-get install nginx)"));
        Path dir = Files.createDirectories(prefix.toAbsolutePath());
        Files.createDirectories(dir.resolve("logs"));
        Path cfg = dir.resolve("nginx.conf");
        Files.writeString(cfg, """
                daemon off;
                master_process on;
                worker_processes %2$s;
                pid %1$s/nginx.pid;
                error_log %1$s/logs/error.log warn;
                events { worker_connections %3$d; }
                http {
                    client_body_temp_path %1$s/body;
                    proxy_temp_path %1$s/proxy;
                    fastcgi_temp_path %1$s/fastcgi;
                    uwsgi_temp_path %1$s/uwsgi;
                    scgi_temp_path %1$s/scgi;
                %4$s
                }
                """.formatted(dir, workers == 0 ? "auto" : Integer.toString(workers), connections,
                http.strip().indent(4).stripTrailing()));
        Process p = new ProcessBuilder(bin.toString(), "-p", dir.toString(), "-c", cfg.toString(), "-e",
                dir.resolve("logs/error.log").toString()).redirectErrorStream(true)
                .redirectOutput(dir.resolve("logs/stdout.log").toFile()).start();
        NginxProcess n = new NginxProcess(p, dir);
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (true) {
            if (!p.isAlive()) {
                throw new IOException("nginx exited with " + p.exitValue() + " before listening on " + port + ": "
                        + n.errorLog());
            }
            try (Socket s = new Socket()) {
                s.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return n;
            } catch (IOException notYet) {
                if (System.nanoTime() > deadline) {
                    n.close();
                    throw new IOException("nginx does not listen on " + port + " after 15 s: " + n.errorLog());
                }
                Thread.sleep(50); // polling a child process's port: there is nothing to wait on
            }
        }
    }

    /** The master process (its workers are its children). */
    public Process process() {
        return process;
    }

    /** What nginx wrote to its error log so far. */
    public String errorLog() {
        try {
            return Files.readString(prefix.resolve("logs/error.log")).strip();
        } catch (IOException e) {
            return "(no error log)";
        }
    }

    @Override
    public void close() {
        process.descendants().forEach(ProcessHandle::destroy);
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.descendants().forEach(ProcessHandle::destroyForcibly);
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
