package org.arbiter.gateway.bench;

import org.arbiter.gateway.l4.NginxProcess;
import org.arbiter.runtime.net.Ports;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One thing wrk is pointed at: the backend itself, or a proxy running as its own OS process
 * (HAProxy, NGINX, the gateway's JVM) in front of it, so its CPU can be read from /proc.
 */
final class Target implements AutoCloseable {

    /** Settings every proxy gets alike. */
    record Setup(Path dir, int backendPort, int threads, int cap, int queue, int maxConnections, Path cert, Path key,
            Path certAndKey, boolean nginxMaxConns, String transport, List<String> jvmOptions, int haproxyThreads) {
    }

    /** What a target is; {@link #key} is its name in {@code --targets} and in file names. */
    enum Kind {
        DIRECT("direct"), HAPROXY("haproxy"), NGINX("nginx"), ENVOY("envoy"), GATEWAY("gateway");

        final String key;

        Kind(String key) {
            this.key = key;
        }

        static Kind of(String key) {
            for (Kind k : values()) {
                if (k.key.equals(key)) {
                    return k;
                }
            }
            throw new IllegalArgumentException("--targets: " + key + " (expected: direct, haproxy, nginx, envoy, gateway)");
        }
    }

    final Kind kind;
    final String label;
    final boolean tls;
    final int port;
    private final Process process;
    private final boolean withChildren;
    private final int adminPort;

    private Target(Kind kind, String label, boolean tls, int port, Process process, boolean withChildren,
            int adminPort) {
        this.kind = kind;
        this.label = label;
        this.tls = tls;
        this.port = port;
        this.process = process;
        this.withChildren = withChildren;
        this.adminPort = adminPort;
    }

    String url() {
        return (tls ? "https" : "http") + "://127.0.0.1:" + port + "/";
    }

    boolean hasProcess() {
        return process != null;
    }

    /** The proxy's CPU seconds so far (its children's too for NGINX's workers); 0 for the backend. */
    double cpuSeconds() throws IOException {
        return process == null ? 0 : ProcCpu.seconds(process.pid(), withChildren);
    }

    /** The gateway's core-lock counters {acquired, contended} from its /metrics, or null. */
    double[] lockCounters() {
        if (adminPort <= 0) {
            return null;
        }
        try {
            HttpClient client = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();
            String text = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort + "/metrics"))
                    .timeout(Duration.ofSeconds(10)).build(), HttpResponse.BodyHandlers.ofString()).body();
            return new double[] {metric(text, "arbiter_gateway_core_lock_acquired_total"),
                    metric(text, "arbiter_gateway_core_lock_contended_total")};
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    private static double metric(String text, String name) {
        Matcher m = Pattern.compile("(?m)^" + name + "(\\{[^}]*\\})?\\s+(\\S+)").matcher(text);
        return m.find() ? Double.parseDouble(m.group(2)) : Double.NaN;
    }

    static Target direct(int backendPort) {
        return new Target(Kind.DIRECT, "backend direct", false, backendPort, null, false, -1);
    }

    /**
     * HAProxy's global maxconn: generous. HAProxy sizes its file descriptors (maxsock) from it and keeps an idle
     * server connection only while idle connections hold under tune.pool-low-fd-ratio / pool-high-fd-ratio (20 / 25 %)
     * of them; at 2 × connections + 100 (this harness until 2026-11-28) 64 client and 32 server connections were
     * over that line, so it closed server connections as they went idle and opened a new one for about one request
     * in two (strace: 5 327 connect() for about 10 500 requests; 12.5 % of its CPU in connect), at twice its CPU per
     * request. At 4 096 it opens none after the warm-up.
     */
    static int haproxyGlobalMaxconn(Setup s) {
        return Math.max(4096, 10 * (s.maxConnections() + s.cap()));
    }

    static Target haproxy(Setup s, boolean tls) throws IOException {
        int port = Ports.free();
        String name = tls ? "haproxy-tls" : "haproxy";
        Path cfg = s.dir().resolve(name + ".cfg");
        Files.writeString(cfg, """
                global
                    maxconn %d
                    nbthread %d
                defaults
                    mode http
                    option http-keep-alive
                    http-reuse always
                    timeout connect 5s
                    timeout client 60s
                    timeout server 30s
                    timeout queue 30s
                frontend fe
                    bind 127.0.0.1:%d%s
                    default_backend be
                backend be
                    balance leastconn
                    server s1 127.0.0.1:%d maxconn %d maxqueue %d
                """.formatted(haproxyGlobalMaxconn(s), s.haproxyThreads(), port,
                tls ? " ssl crt " + s.certAndKey() : "", s.backendPort(), s.cap(), s.queue()));
        Process p = new ProcessBuilder("haproxy", "-f", cfg.toString(), "-db").redirectErrorStream(true)
                .redirectOutput(s.dir().resolve(name + ".log").toFile()).start();
        awaitListening(p, port, s.dir().resolve(name + ".log"));
        return new Target(Kind.HAPROXY, "HAProxy " + version("haproxy", "-v", "HAProxy version (\\S+)") + " (nbthread "
                + s.haproxyThreads() + ", maxconn " + s.cap() + ", maxqueue " + s.queue() + ")", tls, port, p, false, -1);
    }

    static Target nginx(Setup s, boolean tls) throws IOException {
        int port = Ports.free();
        String name = tls ? "nginx-tls" : "nginx";
        // no upstream queue in NGINX open source: with max_conns a request finding the cap taken is
        // answered 502; without it NGINX opens as many backend connections as it has requests
        String server = "server 127.0.0.1:" + s.backendPort() + (s.nginxMaxConns() ? " max_conns=" + s.cap() : "");
        int keepalive = s.nginxMaxConns() ? s.cap() : Math.max(s.cap(), s.maxConnections());
        NginxProcess n;
        try {
            n = NginxProcess.start(s.dir().resolve(name), s.threads(), s.maxConnections() * 2 + 100, """
                    access_log off;
                    keepalive_requests 100000000;
                    keepalive_timeout 60s;
                    upstream be {
                        %s;
                        keepalive %d;
                        keepalive_requests 100000000;
                        keepalive_timeout 60s;
                    }
                    server {
                        listen 127.0.0.1:%d%s;
                        %s
                        location / {
                            proxy_pass http://be;
                            proxy_http_version 1.1;
                            proxy_set_header Connection "";
                            proxy_read_timeout 30s;
                        }
                    }
                    """.formatted(server, keepalive, port, tls ? " ssl" : "",
                    tls ? "ssl_certificate " + s.cert() + "; ssl_certificate_key " + s.key() + ";" : ""), port);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted", e);
        }
        return new Target(Kind.NGINX, "NGINX " + version("nginx", "-v", "nginx/(\\S+)") + " (worker_processes "
                + s.threads() + (s.nginxMaxConns() ? ", max_conns " + s.cap() + ", no queue" : ", no cap, no queue")
                + ")", tls, port, n.process(), true, -1);
    }

    /**
     * The pass-through backend: NGINX with one worker answering {@code 200 ok} itself ({@code return 200}), its own
     * process, keep-alive without a request limit.
     */
    static NginxProcess nginxBackend(Path dir, int port) throws IOException, InterruptedException {
        return NginxProcess.start(dir.resolve("nginx-backend"), 1, 4096, """
                access_log off;
                keepalive_requests 100000000;
                keepalive_timeout 60s;
                server {
                    listen 127.0.0.1:%d;
                    location / { default_type text/plain; return 200 "ok"; }
                }
                """.formatted(port), port);
    }

    static Target gateway(Setup s, boolean tls) throws IOException {
        String name = tls ? "gateway-tls" : "gateway";
        Path yaml = s.dir().resolve(name + ".yaml");
        Files.writeString(yaml, """
                gateway: {threads: %d, transport: %s}
                classes:
                  - {name: premium, target: 1s, weight: 8, match: {header: {X-Class: premium}}, queue: {limit: %d, timeout: 30s}}
                  - {name: basic, target: 2s, weight: 2, default: true, queue: {limit: %d, timeout: 30s}}
                servers:
                  - {id: s1, url: 'http://127.0.0.1:%d', concurrency: %d}
                gateways:
                  - {id: g1, host: 127.0.0.1, port: 0, adminPort: 0%s}
                dispatch: {backendTimeout: 30s, idleTimeout: 60s}
                """.formatted(s.threads(), s.transport(), s.queue(), s.queue(), s.backendPort(), s.cap(),
                tls ? ", tls: {cert: '" + s.cert() + "', key: '" + s.key() + "'}" : ""));
        List<String> cmd = new ArrayList<>();
        cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        cmd.addAll(s.jvmOptions());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), BenchGatewayMain.class.getName(),
                yaml.toString(), "g1"));
        Path log = s.dir().resolve(name + ".log");
        Process p = new ProcessBuilder(cmd).redirectError(log.toFile()).start();
        BufferedReader out = new BufferedReader(new InputStreamReader(p.getInputStream(), StandardCharsets.UTF_8));
        String line;
        while ((line = out.readLine()) != null && !line.startsWith("READY ")) {
            // skip anything printed before the ports
        }
        if (line == null) {
            p.destroy();
            throw new IOException("the gateway JVM exited before listening; see " + log + ":\n" + Files.readString(log));
        }
        Thread drain = new Thread(() -> {
            try {
                out.transferTo(java.io.Writer.nullWriter()); // keep its stdout from filling up
            } catch (IOException ignored) {
                // the process ended
            }
        }, "bench-gateway-stdout");
        drain.setDaemon(true);
        drain.start();
        String[] f = line.split(" ");
        return new Target(Kind.GATEWAY, "Arbiter gateway (threads " + s.threads() + ", transport " + s.transport()
                + ", N(g,s) " + s.cap() + ", queue " + s.queue() + ")", tls, Integer.parseInt(f[1]), p, false,
                Integer.parseInt(f[2]));
    }

    /** The program's version from its {@code -v} output, or "?" */
    static String version(String program, String flag, String regex) {
        try {
            Process p = new ProcessBuilder(program, flag).redirectErrorStream(true).start();
            String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            p.waitFor();
            Matcher m = Pattern.compile(regex).matcher(text);
            return m.find() ? m.group(1) : "?";
        } catch (IOException e) {
            return "?";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "?";
        }
    }

    private static void awaitListening(Process p, int port, Path log) throws IOException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (System.nanoTime() < deadline) {
            if (!p.isAlive()) {
                throw new IOException("exited " + p.exitValue() + " before listening on " + port + "; see " + log + ":\n"
                        + (Files.exists(log) ? Files.readString(log) : ""));
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
                return;
            } catch (IOException notYet) {
                try {
                    Thread.sleep(50); // polling a child process's port; nothing to wait on instead
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    throw new IOException("interrupted", e);
                }
            }
        }
        p.destroy();
        throw new IOException("not listening on " + port + " after 15 s; see " + log);
    }

    @Override
    public void close() {
        if (process == null) {
            return;
        }
        if (kind == Kind.GATEWAY) {
            try {
                process.getOutputStream().close(); // end of input: BenchGatewayMain exits
            } catch (IOException ignored) {
                // destroyed below
            }
        } else {
            process.destroy();
        }
        try {
            if (!process.waitFor(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }
}
