package org.arbiter.live.overload;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.arbiter.gateway.l4.HaproxyProcess;
import org.arbiter.gateway.l4.NginxProcess;
import org.arbiter.live.ChildProcess;
import org.arbiter.runtime.net.Ports;

/*
 * Design note — the contenders as processes.
 *
 * Each contender is started fresh for each load run, in front of a simserver also started fresh
 * (so no run inherits another's backlog), and stopped after it:
 *   Arbiter   `arbiter gateway` as its own JVM on a generated cluster.yaml: classes premium
 *             (X-Class: premium) and basic, each queue timing out at its target (a request that
 *             waited longer cannot be answered in time), one server with N_s = the knee (static),
 *             or `concurrency: gradient2 | vegas`. With the GRM: `arbiter grm` as its own JVM on the
 *             broker, the gateway on the same file; the run starts once the gateway is ready (it
 *             has the GRM's first allocation). `dispatch.admission` on for the GRM row, off else.
 *   HAProxy   Debian's 2.6, one backend, `maxconn` = the knee, `timeout queue`, leastconn.
 *   NGINX     Debian's 1.22, `worker_processes auto`, no cap and no queue (NGINX open source has
 *             none), upstream keep-alive, `proxy_read_timeout` above the clients' timeout.
 * Every process binds 127.0.0.1; logs go to the run's directory.
 */

/** Starts one contender in front of a simserver. See the design note. */
final class OverloadFronts {

    /** A running contender: the port clients send to; close stops every process it started. */
    record Front(int port, Runnable stop) implements AutoCloseable {
        @Override
        public void close() {
            stop.run();
        }
    }

    private static final double READY_SECONDS = 60;

    private OverloadFronts() {
    }

    /** The simserver of one run, with the benchmark's server model. */
    static ChildProcess simserver(OverloadSettings s, int port, long seed, Path logs) throws Exception {
        ChildProcess p = new ChildProcess("simserver-" + port, jvm(s), List.of("simserver", "--port", Integer.toString(port),
                "--admin-port", Integer.toString(Ports.free()), "--cores", Integer.toString(s.cores()), "--mean-demand",
                ms(s.meanDemandSeconds()), "--knee", Integer.toString(s.knee()), "--overhead", num(s.overhead()),
                "--boot-delay", "0s", "--shutdown-delay", "0s", "--seed", Long.toString(seed)), "simserver ready on", logs);
        p.start();
        try {
            p.awaitReady(READY_SECONDS);
        } catch (Exception e) {
            p.destroy();
            throw e;
        }
        return p;
    }

    /** Starts {@code c} in front of the simserver on {@code serverPort}; {@code bootstrap} is the broker's (GRM rows). */
    static Front start(Contender c, OverloadSettings s, int serverPort, String bootstrap, String prefix, Path dir)
            throws Exception {
        Files.createDirectories(dir);
        return switch (c) {
            case HAPROXY -> haproxy(s, serverPort, dir);
            case NGINX -> nginx(serverPort, dir);
            default -> arbiter(c, s, serverPort, bootstrap, prefix, dir);
        };
    }

    /** The cluster.yaml an Arbiter contender runs on. */
    static String clusterYaml(Contender c, OverloadSettings s, int serverPort, int port, int adminPort, String bootstrap,
                              String prefix) {
        String concurrency = switch (c) {
            case GRADIENT2 -> "gradient2";
            case VEGAS -> "vegas";
            default -> Integer.toString(s.knee());
        };
        StringBuilder y = new StringBuilder();
        y.append("classes:\n");
        y.append("  - name: premium\n    target: ").append(ms(s.premiumTarget())).append('\n');
        y.append("    utility: {phi: 4}\n    match: {header: {X-Class: premium}}\n");
        y.append("    queue: {limit: 100000, timeout: ").append(ms(s.premiumTarget())).append("}\n");
        y.append("  - name: basic\n    target: ").append(ms(s.basicTarget())).append("\n    default: true\n");
        y.append("    queue: {limit: 100000, timeout: ").append(ms(s.basicTarget())).append("}\n");
        y.append("servers:\n  - {id: s1, url: \"http://127.0.0.1:").append(serverPort).append("\", concurrency: ")
                .append(concurrency).append("}\n");
        y.append("gateways:\n  - {id: g1, port: ").append(port).append(", adminPort: ").append(adminPort).append("}\n");
        y.append("dispatch:\n  backendTimeout: 60s\n");
        y.append("  admission: {mode: ").append(c == Contender.GRM ? "deadline" : "off").append("}\n");
        y.append("control:\n  period: ").append(ms(s.controlPeriodSeconds())).append("\n  reportPeriod: ")
                .append(ms(s.controlPeriodSeconds() / 2)).append("\n  statsWindow: ")
                .append(ms(3 * s.controlPeriodSeconds())).append('\n');
        if (c.usesGrm()) {
            y.append("kafka:\n  bootstrap: \"").append(bootstrap).append("\"\n  topicPrefix: \"").append(prefix)
                    .append("\"\n");
        }
        return y.toString();
    }

    private static Front arbiter(Contender c, OverloadSettings s, int serverPort, String bootstrap, String prefix,
                                 Path dir) throws Exception {
        int port = Ports.free();
        int admin = Ports.free();
        Path config = dir.resolve("cluster.yaml");
        Files.writeString(config, clusterYaml(c, s, serverPort, port, admin, bootstrap, prefix));
        List<ChildProcess> started = new ArrayList<>();
        try {
            if (c.usesGrm()) {
                ChildProcess grm = new ChildProcess("grm", jvm(s), List.of("grm", "--config", config.toString(), "--id",
                        "grm-" + prefix.replace(".", ""), "--admin-port", Integer.toString(Ports.free())),
                        "grm grm-", dir);
                started.add(grm);
                grm.start();
                grm.awaitReady(READY_SECONDS);
            }
            ChildProcess gw = new ChildProcess("gateway", jvm(s), List.of("gateway", "--config", config.toString(), "--id",
                    "g1"), "gateway g1 ready on", dir);
            started.add(gw);
            gw.start();
            gw.awaitReady(READY_SECONDS);
            awaitReady(admin, READY_SECONDS);
        } catch (Exception e) {
            started.forEach(ChildProcess::destroy);
            throw e;
        }
        return new Front(port, () -> {
            for (int i = started.size() - 1; i >= 0; i--) {
                started.get(i).destroy();
            }
        });
    }

    /** Polls the gateway's {@code /ready} until 200 (with a GRM: its first allocation is in force). */
    private static void awaitReady(int adminPort, double seconds) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();
        long until = System.nanoTime() + (long) (seconds * 1e9);
        String last = "no answer";
        while (System.nanoTime() < until) {
            try {
                HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + adminPort
                        + "/ready")).timeout(Duration.ofSeconds(2)).build(), HttpResponse.BodyHandlers.ofString());
                if (r.statusCode() == 200) {
                    return;
                }
                last = r.statusCode() + " " + r.body().strip();
            } catch (IOException e) {
                last = e.toString();
            }
            Thread.sleep(200);
        }
        throw new IllegalStateException("gateway not ready after " + seconds + " s: /ready answered " + last);
    }

    private static Front haproxy(OverloadSettings s, int serverPort, Path dir) throws Exception {
        int port = Ports.free();
        Path cfg = dir.resolve("haproxy.cfg");
        Files.writeString(cfg, """
                global
                    maxconn 8000
                defaults
                    mode http
                    option http-keep-alive
                    timeout connect 2s
                    timeout client 120s
                    timeout server 120s
                    timeout queue %s
                frontend overload
                    bind 127.0.0.1:%d
                    default_backend s
                backend s
                    balance leastconn
                    http-reuse always
                    server s1 127.0.0.1:%d maxconn %d
                """.formatted(ms(s.haproxyQueueSeconds()), port, serverPort, s.knee()));
        HaproxyProcess p = HaproxyProcess.start(cfg, new InetSocketAddress("127.0.0.1", port), 10_000);
        return new Front(port, () -> {
            p.close();
            try {
                Files.writeString(dir.resolve("haproxy.log"), p.output());
            } catch (IOException e) {
                // the log is a convenience
            }
        });
    }

    private static Front nginx(int serverPort, Path dir) throws Exception {
        int port = Ports.free();
        if (NginxProcess.binary().isEmpty()) {
            throw new IllegalStateException("nginx: not installed (apt-get install nginx), or leave it out with --contenders");
        }
        NginxProcess n = NginxProcess.start(dir, 0, 65536, """
                access_log off;
                keepalive_requests 100000000;
                upstream be {
                    server 127.0.0.1:%d;
                    keepalive 1024;
                }
                server {
                    listen 127.0.0.1:%d;
                    location / {
                        proxy_pass http://be;
                        proxy_http_version 1.1;
                        proxy_set_header Connection "";
                        proxy_read_timeout 120s;
                    }
                }
                """.formatted(serverPort, port), port);
        return new Front(port, n::close);
    }

    /** The launcher with small heaps: several JVMs share two cores. */
    private static List<String> jvm(OverloadSettings s) {
        List<String> jvm = new ArrayList<>(s.launcher());
        jvm.addAll(1, List.of("-Xmx512m"));
        return jvm;
    }

    static String ms(double seconds) {
        return Math.round(seconds * 1000) + "ms";
    }

    private static String num(double v) {
        return String.format(Locale.ROOT, "%s", v);
    }
}
