package org.arbiter.gateway.bench;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioServerSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.arbiter.gateway.l4.NginxProcess;
import org.arbiter.runtime.net.Ports;

/**
 * Side-by-side benchmark of the gateway against HAProxy and NGINX (and Envoy when it is installed)
 * in front of the same backend, each proxy its own OS process so its CPU seconds per 100k requests
 * come from /proc, driven by {@code wrk} on keep-alive HTTP/1.1 connections, plain and TLS (the
 * proxy terminates TLS; the backend is plain HTTP). The method and the numbers are in
 * docs/performance.md.
 *
 * <pre>
 * apt-get install -y wrk haproxy nginx
 * ./mvnw -B -o -pl gateway -am test -Dtest=GatewayBenchmarkRun -Dsurefire.failIfNoSpecifiedTests=false \
 *     -Dfuzz.skip=true -Dbench.args="--out target/bench.md"
 * </pre>
 *
 * Options: {@code --duration S} measured seconds per target (15), {@code --warmup S} unmeasured
 * seconds before each measurement at the same connections (5), {@code --initial-warmup S} once per
 * target after it starts, at the largest connection count (15), {@code --runs R} (3),
 * {@code --threads N} the proxies' threads: HAProxy nbthread, NGINX worker_processes, gateway.threads
 * (2), {@code --connections 64,256}, {@code --tls off|on|both} (both), {@code --cap N} per-server
 * maxconn / N(g,s) (32), {@code --queue Q} (1024), {@code --targets direct,haproxy,nginx,envoy,gateway},
 * {@code --transport auto|epoll|io_uring|nio} (auto), {@code --nginx-max-conns on|off} (off),
 * {@code --jvm-opts A,B} extra options for the gateway's JVM, split at a comma before a {@code -} (none), {@code --haproxy-threads N} HAProxy's
 * nbthread when it should differ from {@code --threads}, {@code --backend netty|nginx} the backend: a one-thread
 * Netty server in this JVM (the cap binds), or NGINX {@code return 200} with one worker in its own process (fast
 * enough that the cap rarely binds: the pass-through set-up) (netty), {@code --out FILE} (Markdown).
 */
public final class GatewayBenchmark {

    private GatewayBenchmark() {
    }


    record Options(int duration, int warmup, int initialWarmup, int runs, int threads, List<Integer> connections, List<Boolean> tls,
            int cap, int queue, Set<Target.Kind> targets, String transport, boolean nginxMaxConns, List<String> jvmOptions,
            int haproxyThreads, String backend, Path out) {
    }

    /** One measured wrk run against one target. */
    record Row(Target.Kind kind, String label, boolean tls, int connections, int run, Wrk.Outcome wrk, double cpuSeconds,
            double machineBusy, double lockAcquired, double lockContended) {
        double cpuPer100k() {
            return Double.isNaN(cpuSeconds) || wrk.requests() == 0 ? Double.NaN : cpuSeconds / wrk.requests() * 1e5;
        }

        double contention() {
            return lockAcquired > 0 ? lockContended / lockAcquired : Double.NaN;
        }
    }

    static Options parse(String[] args) {
        int duration = 15;
        int warmup = 5;
        int initialWarmup = 15;
        int runs = 3;
        int threads = 2;
        List<Integer> connections = List.of(64, 256);
        List<Boolean> tls = List.of(false, true);
        int cap = 32;
        int queue = 1024;
        Set<Target.Kind> targets = EnumSet.allOf(Target.Kind.class);
        String transport = "auto";
        boolean nginxMaxConns = false;
        List<String> jvm = List.of();
        int haproxyThreads = 0;
        String backend = "netty";
        Path out = null;
        for (int i = 0; i < args.length; i += 2) {
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(args[i] + ": missing its value");
            }
            String v = args[i + 1];
            switch (args[i]) {
                case "--duration" -> duration = positive(args[i], v);
                case "--warmup" -> warmup = nonNegative(args[i], v);
                case "--initial-warmup" -> initialWarmup = nonNegative(args[i], v);
                case "--runs" -> runs = positive(args[i], v);
                case "--threads" -> threads = positive(args[i], v);
                case "--connections" -> connections = Arrays.stream(v.split(",")).map(c -> positive("--connections", c))
                        .toList();
                case "--tls" -> tls = switch (v) {
                    case "off" -> List.of(false);
                    case "on" -> List.of(true);
                    case "both" -> List.of(false, true);
                    default -> throw new IllegalArgumentException("--tls: " + v + " (expected: off, on, both)");
                };
                case "--cap" -> cap = positive(args[i], v);
                case "--queue" -> queue = positive(args[i], v);
                case "--targets" -> {
                    targets = EnumSet.noneOf(Target.Kind.class);
                    for (String t : v.split(",")) {
                        targets.add(Target.Kind.of(t.trim()));
                    }
                }
                case "--transport" -> {
                    if (!List.of("auto", "epoll", "io_uring", "nio").contains(v)) {
                        throw new IllegalArgumentException("--transport: " + v + " (expected: auto, epoll, io_uring, nio)");
                    }
                    transport = v;
                }
                case "--nginx-max-conns" -> nginxMaxConns = switch (v) {
                    case "on" -> true;
                    case "off" -> false;
                    default -> throw new IllegalArgumentException("--nginx-max-conns: " + v + " (expected: on, off)");
                };
                case "--jvm-opts" -> jvm = Arrays.stream(v.split(",(?=-)")).filter(s -> !s.isBlank()).toList(); // a comma inside one (JFR's) stays
                case "--haproxy-threads" -> haproxyThreads = positive(args[i], v);
                case "--backend" -> {
                    if (!List.of("netty", "nginx").contains(v)) {
                        throw new IllegalArgumentException("--backend: " + v + " (expected: netty, nginx)");
                    }
                    backend = v;
                }
                case "--out" -> out = Path.of(v);
                default -> throw new IllegalArgumentException(args[i] + " (expected: --duration, --warmup, --initial-warmup, --runs, "
                        + "--threads, --connections, --tls, --cap, --queue, --targets, --transport, "
                        + "--nginx-max-conns, --jvm-opts, --haproxy-threads, --backend, --out)");
            }
        }
        return new Options(duration, warmup, initialWarmup, runs, threads, connections, tls, cap, queue, targets, transport,
                nginxMaxConns, jvm, haproxyThreads == 0 ? threads : haproxyThreads, backend, out);
    }

    private static int positive(String name, String v) {
        try {
            int n = Integer.parseInt(v.trim());
            if (n > 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + ": " + v + " (expected: a whole number > 0)");
    }

    private static int nonNegative(String name, String v) {
        try {
            int n = Integer.parseInt(v.trim());
            if (n >= 0) {
                return n;
            }
        } catch (NumberFormatException e) {
            // reported below
        }
        throw new IllegalArgumentException(name + ": " + v + " (expected: a whole number ≥ 0)");
    }

    public static void main(String[] args) throws Exception {
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        Options o = parse(args);
        // the generated configurations, certificate and logs, kept for inspection; `mvn clean` removes them
        Path dir = Files.createTempDirectory(Files.createDirectories(Path.of("target")), "bench-").toAbsolutePath();
        String started = ZonedDateTime.now().format(DateTimeFormatter.ISO_OFFSET_DATE_TIME);
        EventLoopGroup backendGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        Channel backend = new ServerBootstrap().group(backendGroup).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), new Ok());
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        int nginxPort = Ports.free();
        NginxProcess nginxBackend = o.backend().equals("nginx") ? Target.nginxBackend(dir, nginxPort) : null;
        int backendPort = nginxBackend != null ? nginxPort : ((InetSocketAddress) backend.localAddress()).getPort();
        Path cert = dir.resolve("cert.pem");
        Path key = dir.resolve("key.pem");
        Path both = dir.resolve("cert-and-key.pem");
        if (o.tls().contains(true)) {
            selfSignedCertificate(cert, key, both);
        }
        int maxConnections = o.connections().stream().mapToInt(Integer::intValue).max().orElse(256);
        Target.Setup setup = new Target.Setup(dir, backendPort, o.threads(), o.cap(), o.queue(), maxConnections, cert,
                key, both, o.nginxMaxConns(), o.transport(), o.jvmOptions(), o.haproxyThreads());
        String envoy = o.targets().contains(Target.Kind.ENVOY) ? envoyStatus() : null;
        List<Target> targets = new ArrayList<>();
        Thread cleanup = new Thread(() -> targets.forEach(Target::close), "bench-cleanup");
        Runtime.getRuntime().addShutdownHook(cleanup);
        List<Row> rows = new ArrayList<>();
        Wrk wrk = new Wrk(dir, 2);
        try {
            for (boolean tls : o.tls()) {
                if (o.targets().contains(Target.Kind.DIRECT) && !tls) {
                    targets.add(Target.direct(backendPort));
                }
                if (o.targets().contains(Target.Kind.HAPROXY)) {
                    targets.add(Target.haproxy(setup, tls));
                }
                if (o.targets().contains(Target.Kind.NGINX)) {
                    targets.add(Target.nginx(setup, tls));
                }
                if (o.targets().contains(Target.Kind.GATEWAY)) {
                    targets.add(Target.gateway(setup, tls));
                }
            }
            if (o.initialWarmup() > 0) {
                // once per target after it starts, alike for all: a fresh JVM's JIT needs more than
                // the per-measurement warm-up, and the first run would otherwise measure it cold
                for (Target t : targets) {
                    Wrk.Outcome warm = wrk.run(t.url(), maxConnections, o.initialWarmup());
                    Files.writeString(dir.resolve("wrk-initial-" + t.kind.key + (t.tls ? "-tls" : "") + ".txt"), warm.text());
                    System.err.printf(Locale.ROOT, "initial warm-up %s%s: %.0f req/s%n", t.kind.key, t.tls ? " TLS" : "",
                            warm.requestsPerSecond());
                }
            }
            for (int run = 1; run <= o.runs(); run++) {
                for (boolean tls : o.tls()) {
                    for (int c : o.connections()) {
                        for (Target t : targets) {
                            if (t.tls != tls) {
                                continue;
                            }
                            Row row = measure(wrk, t, c, run, o, dir);
                            rows.add(row);
                            System.err.printf(Locale.ROOT, "run %d %s %d conns %s: %.0f req/s, p99 %s, CPU %.3f s/100k%n",
                                    run, tls ? "TLS" : "HTTP", c, t.kind.key, row.wrk().requestsPerSecond(),
                                    latency(row.wrk().p99()), row.cpuPer100k());
                        }
                    }
                }
                String report = BenchReport.markdown(o, rows, started, envoy, dir);
                if (o.out() != null) {
                    Files.createDirectories(o.out().toAbsolutePath().getParent());
                    Files.writeString(o.out(), report);
                }
            }
        } finally {
            targets.forEach(Target::close);
            Runtime.getRuntime().removeShutdownHook(cleanup);
            backend.close().sync();
            backendGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
            if (nginxBackend != null) {
                nginxBackend.close();
            }
        }
        System.out.print(BenchReport.markdown(o, rows, started, envoy, dir));
    }

    private static Row measure(Wrk wrk, Target t, int connections, int run, Options o, Path dir) throws Exception {
        String name = "wrk-run" + run + "-" + t.kind.key + (t.tls ? "-tls-" : "-") + connections;
        if (o.warmup() > 0) {
            Wrk.Outcome warm = wrk.run(t.url(), connections, o.warmup());
            Files.writeString(dir.resolve(name + "-warmup.txt"), warm.text());
        }
        double[] lockBefore = t.lockCounters();
        double cpuBefore = t.cpuSeconds();
        long[] machineBefore = ProcCpu.machine();
        Wrk.Outcome w = wrk.run(t.url(), connections, o.duration());
        Files.writeString(dir.resolve(name + ".txt"), w.text());
        double cpu = t.hasProcess() ? t.cpuSeconds() - cpuBefore : Double.NaN;
        long[] machineAfter = ProcCpu.machine();
        double[] lockAfter = t.lockCounters();
        double busy = (double) (machineAfter[0] - machineBefore[0]) / Math.max(1, machineAfter[1] - machineBefore[1]);
        double acquired = Double.NaN;
        double contended = Double.NaN;
        if (lockBefore != null && lockAfter != null) {
            acquired = lockAfter[0] - lockBefore[0];
            contended = lockAfter[1] - lockBefore[1];
        }
        return new Row(t.kind, t.label, t.tls, connections, run, w, cpu, busy, acquired, contended);
    }

    /** Whether Envoy can be run here: null when it is on the PATH, else why not. */
    static String envoyStatus() {
        try {
            Process which = new ProcessBuilder("sh", "-c", "command -v envoy").redirectErrorStream(true).start();
            String path = new String(which.getInputStream().readAllBytes(), StandardCharsets.UTF_8).trim();
            which.waitFor();
            if (!path.isEmpty()) {
                return "`envoy` is installed (" + path + ") but this harness has no Envoy configuration yet";
            }
            Process policy = new ProcessBuilder("apt-cache", "policy", "envoy").redirectErrorStream(true).start();
            String text = new String(policy.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            policy.waitFor();
            java.util.regex.Matcher m = java.util.regex.Pattern.compile("Candidate:\\s*(\\S+)").matcher(text);
            if (m.find() && !m.group(1).equals("(none)")) {
                return "not installed; `apt-cache policy envoy` offers " + m.group(1)
                        + " (install it; this harness has no Envoy configuration yet)";
            }
            return "not run: no `envoy` package for this system (`apt-cache policy envoy` shows no candidate)";
        } catch (IOException e) {
            return "not run: cannot tell whether Envoy exists (" + e.getMessage() + ")";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "not run";
        }
    }

    private static void selfSignedCertificate(Path cert, Path key, Path both) throws IOException, InterruptedException {
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.toString(), "-out", cert.toString(), "-days",
                "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1")
                .redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (p.waitFor() != 0) {
            throw new IOException("openssl req failed:\n" + text);
        }
        Files.writeString(both, Files.readString(cert) + Files.readString(key));
    }

    static String latency(double micros) {
        if (Double.isNaN(micros)) {
            return "—";
        }
        return micros >= 1000 ? String.format(Locale.ROOT, "%.2f ms", micros / 1000)
                : String.format(Locale.ROOT, "%.0f us", micros);
    }

    /** The fast backend: 200 with a 2-byte body, keep-alive. */
    private static final class Ok extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            ByteBuf body = Unpooled.wrappedBuffer("ok".getBytes(StandardCharsets.US_ASCII));
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, body);
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 2);
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain");
            HttpUtil.setKeepAlive(r, HttpUtil.isKeepAlive(req));
            ctx.write(r);
        }

        @Override
        public void channelReadComplete(ChannelHandlerContext ctx) {
            ctx.flush();
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close(); // wrk resets its connections at the end
        }
    }
}
