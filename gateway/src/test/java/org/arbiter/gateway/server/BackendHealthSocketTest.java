package org.arbiter.gateway.server;

import org.arbiter.runtime.net.Ports;
import static org.assertj.core.api.Assertions.assertThat;

import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
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
import io.netty.util.concurrent.GlobalEventExecutor;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BooleanSupplier;
import org.apache.logging.log4j.Level;
import org.apache.logging.log4j.LogManager;
import org.apache.logging.log4j.core.LogEvent;
import org.apache.logging.log4j.core.LoggerContext;
import org.apache.logging.log4j.core.appender.AbstractAppender;
import org.apache.logging.log4j.core.config.LoggerConfig;
import org.apache.logging.log4j.core.config.Property;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue #15's acceptance test over real sockets: two real backends, the real gateway, 24
 * closed-loop GET clients; one backend is killed (its listener and every connection closed with
 * an RST, as the kernel does for a killed process) and restarted on the same port.
 */
final class BackendHealthSocketTest {

    @RegisterExtension
    final GatewayTestSupport.Closing closing = new GatewayTestSupport.Closing();
    private final List<String> transitions = new CopyOnWriteArrayList<>();
    private AbstractAppender capture;
    private LoggerConfig captured;

    @BeforeEach
    void captureTransitions() {
        LoggerContext ctx = (LoggerContext) LogManager.getContext(false);
        capture = new AbstractAppender("health-capture", null, null, true, Property.EMPTY_ARRAY) {
            @Override
            public void append(LogEvent event) {
                String m = event.getMessage().getFormattedMessage();
                if (m.startsWith("server ")) {
                    transitions.add(m);
                }
            }
        };
        capture.start();
        captured = ctx.getConfiguration().getLoggerConfig("org.arbiter.gateway.netty.ServerChecks"); // logs each health transition
        captured.addAppender(capture, Level.INFO, null);
        ctx.updateLoggers();
    }

    @AfterEach
    void tearDown() throws Exception {
        captured.removeAppender(capture.getName());
        capture.stop();
        ((LoggerContext) LogManager.getContext(false)).updateLoggers();
    }

    private <T extends AutoCloseable> T keep(T t) {
        return closing.keep(t);
    }

    private static ClusterConfig cluster(String serverExtra, String... urls) {
        StringBuilder y = new StringBuilder("""
                classes:
                  - {name: basic, target: 1s, default: true, queue: {limit: 1000, timeout: 10s}}
                gateways:
                  - {id: g1, port: 0, adminPort: 0}
                control: {reportPeriod: 1s, statsWindow: 10s}
                dispatch:
                  backendTimeout: 5s
                  ejection: {threshold: 3, baseBackoff: 200ms, maxBackoff: 1s}
                servers:
                """);
        for (int i = 0; i < urls.length; i++) {
            y.append("  - {id: s").append(i + 1).append(", url: '").append(urls[i]).append("', concurrency: 10")
                    .append(serverExtra).append("}\n");
        }
        return ConfigLoader.parse(y.toString());
    }

    @Test
    void killedBackend_noAnswerButTwoHundred_andItIsBackInUseAfterARestart() throws Exception {
        KillableBackend a = keep(new KillableBackend(20));
        KillableBackend b = keep(new KillableBackend(20));
        Gateway g = keep(Gateway.start(cluster("", a.url(), b.url()),
                "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
        Clients clients = keep(new Clients(g.port(), 24));

        await(() -> a.served.get() > 50 && b.served.get() > 50, 10_000);
        long beforeKill = clients.total();
        a.kill();
        long killedAt = System.nanoTime();
        await(() -> transitions.stream().anyMatch(t -> t.startsWith("server s1 down")), 5_000);
        long downAfterMillis = (System.nanoTime() - killedAt) / 1_000_000;
        assertThat(g.stats().servers().get("s1").up()).isFalse();
        assertThat(g.stats().servers().get("s1").cap()).as("an ejected server's slots are capacity lost").isZero();
        Thread.sleep(2_000); // the outage: every request waits for s2's slots
        long duringOutage = clients.total() - beforeKill;
        long servedByBBefore = b.served.get();

        a.restart();
        long restartedAt = System.nanoTime();
        long servedByA = a.served.get();
        await(() -> a.served.get() > servedByA + 50, 10_000);
        long backAfterMillis = (System.nanoTime() - restartedAt) / 1_000_000;
        assertThat(g.stats().servers().get("s1").up()).isTrue();
        Thread.sleep(500);
        clients.close();

        Map<Integer, Long> statuses = clients.statuses();
        System.out.printf("kill -9 of one of two backends, 24 closed-loop GET clients: answers %s, "
                        + "%d during the 2 s outage, no answer %d; down logged %d ms after the kill, back in use %d ms "
                        + "after the restart; s2 served %d meanwhile; transitions %s%n",
                statuses, duringOutage, clients.errors.sum(), downAfterMillis, backAfterMillis, servedByBBefore, transitions);
        assertThat(clients.errors.sum()).as("requests without an answer").isZero();
        assertThat(statuses).containsOnlyKeys(200);
        // traffic went on through the outage (the counts depend on how busy the machine is; the
        // property is that every one of them is a 200)
        assertThat(statuses.get(200)).isGreaterThan(200);
        assertThat(duringOutage).isGreaterThan(48);
        assertThat(transitions).hasSize(2);
        assertThat(transitions.get(0)).matches("server s1 down: .+ \\(\\d+ in a row\\) \\(out for \\d+ ms\\)");
        assertThat(transitions.get(1)).isEqualTo("server s1 up");
    }

    /** The same with a real process killed by SIGKILL: the kernel closes its sockets, nothing else. */
    @Test
    void killMinus9OfARealBackendProcess_noAnswerButTwoHundred_andItIsBackAfterARestart(@TempDir Path dir)
            throws Exception {
        ProcessBackend a = keep(new ProcessBackend(dir, 20));
        KillableBackend b = keep(new KillableBackend(20));
        Gateway g = keep(Gateway.start(cluster("", a.url(), b.url()),
                "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
        Clients clients = keep(new Clients(g.port(), 24));

        await(() -> b.served.get() > 50 && throughput(g, "s1") > 0, 20_000);
        long beforeKill = clients.total();
        a.kill9();
        long killedAt = System.nanoTime();
        await(() -> transitions.stream().anyMatch(t -> t.startsWith("server s1 down")), 5_000);
        long downAfterMillis = (System.nanoTime() - killedAt) / 1_000_000;
        Thread.sleep(2_000);
        long duringOutage = clients.total() - beforeKill;

        a.start();
        long restartedAt = System.nanoTime();
        await(() -> transitions.contains("server s1 up"), 20_000);
        long upAfterMillis = (System.nanoTime() - restartedAt) / 1_000_000;
        long servedByB = b.served.get();
        Thread.sleep(500);
        clients.close();

        Map<Integer, Long> statuses = clients.statuses();
        System.out.printf("kill -9 of a real backend process, 24 closed-loop GET clients: answers %s, %d during the "
                        + "2 s outage, no answer %d; down logged %d ms after the kill, up %d ms after the restarted "
                        + "process listened; transitions %s%n",
                statuses, duringOutage, clients.errors.sum(), downAfterMillis, upAfterMillis, transitions);
        assertThat(clients.errors.sum()).as("requests without an answer: %s", clients.failures).isZero();
        assertThat(statuses).containsOnlyKeys(200);
        assertThat(duringOutage).isGreaterThan(48);
        assertThat(b.served.get()).as("s2 still serving after s1 came back").isGreaterThanOrEqualTo(servedByB);
        assertThat(transitions).hasSize(2);
        assertThat(transitions.get(0)).matches("server s1 down: .+ \\(\\d+ in a row\\) \\(out for \\d+ ms\\)");
        assertThat(transitions.get(1)).isEqualTo("server s1 up");
    }

    @Test
    void activeHealthCheck_ejectsAnIdleDeadServer_readinessSays503_andAPassingProbeBringsItBack() throws Exception {
        KillableBackend a = keep(new KillableBackend(0));
        Gateway g = keep(Gateway.start(cluster(", health: {path: /health, interval: 100ms, timeout: 100ms}", a.url()),
                "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
        try (GatewayTestSupport.Http admin = GatewayTestSupport.http(g.adminPort())) {
            await(() -> a.probes.get() >= 2, 5_000);
            assertThat(admin.get("/ready").status()).isEqualTo(200);
            a.kill();
            await(() -> transitions.contains("server s1 down: health check failed (3 in a row) (out for 200 ms)"), 5_000);
            // no traffic at all: the probe, not a client's request, is the trial, so it stays out
            Thread.sleep(600);
            GatewayTestSupport.Http.Response r = admin.get("/ready");
            assertThat(r.status()).isEqualTo(503);
            assertThat(r.body()).contains("\"reason\":\"noCapacity\"").contains("no server can take a request");
            a.restart();
            await(() -> transitions.contains("server s1 up"), 5_000);
            await(() -> {
                try {
                    return admin.get("/ready").status() == 200;
                } catch (IOException e) {
                    return false;
                }
            }, 5_000);
        }
        try (GatewayTestSupport.Http c = GatewayTestSupport.http(g.port())) {
            assertThat(c.get("/x").status()).isEqualTo(200);
        }
    }

    @Test
    void serverResettingAfterTheRequestWasSent_idempotentRetriedOnce_postGets502() throws Exception {
        KillableBackend resetting = keep(new KillableBackend(0));
        resetting.resetOnRequest = true;
        GatewayTestSupport.Backend good = keep(GatewayTestSupport.backend(0)); // echoes what it was sent
        Gateway g = keep(Gateway.start(cluster("", resetting.url(), good.url()),
                "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
        try (GatewayTestSupport.Http c = GatewayTestSupport.http(g.port())) {
            // least-outstanding starts at s1: the GET reached it and was reset, then is retried on s2
            GatewayTestSupport.Http.Response r = c.get("/a", "Connection: keep-alive", "X-Hop: 1");
            assertThat(r.status()).isEqualTo(200);
            assertThat(resetting.received.get()).isEqualTo(1);
            // the retry carries the headers as rewritten once: the client once in X-Forwarded-For
            assertThat(r.body()).contains("xff=127.0.0.1 ", "proto=http ", "connection=null");
        }
        try (GatewayTestSupport.Http c = GatewayTestSupport.http(g.port())) {
            // s2 is idle again, the tie goes round-robin to s1: the POST reached it, so it is not retried
            c.send("POST /p HTTP/1.1\r\nHost: t\r\nContent-Length: 2\r\n\r\nhi");
            GatewayTestSupport.Http.Response r = c.read();
            assertThat(r.status()).isEqualTo(502);
            assertThat(r.body()).contains("backendError");
            assertThat(resetting.received.get()).isEqualTo(2);
        }
    }

    private static double throughput(Gateway g, String server) {
        try {
            return g.stats().servers().get(server).throughput();
        } catch (Exception e) {
            return 0;
        }
    }

    /**
     * The gateway tells its core of a response head at the end of the read that brought it, not at the response's
     * end (the two share one locked section only when they arrive together): three 503 heads whose bodies never end
     * eject the server (threshold 3) while all three are still streaming, seconds before the backend timeout.
     */
    @Test
    void fiveHundredHeadsWhoseBodiesNeverEnd_ejectTheServerWhileStillStreaming() throws Exception {
        try (java.net.ServerSocket listener = new java.net.ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            List<java.net.Socket> held = new CopyOnWriteArrayList<>();
            Thread acceptor = new Thread(() -> {
                try {
                    while (!listener.isClosed()) {
                        java.net.Socket s = listener.accept();
                        held.add(s);
                        Thread t = new Thread(() -> stallAfterHead(s), "stalling-backend");
                        t.setDaemon(true);
                        t.start();
                    }
                } catch (IOException closed) {
                    // the test is over
                }
            }, "stalling-acceptor");
            acceptor.setDaemon(true);
            acceptor.start();
            Gateway g = keep(Gateway.start(cluster("", "http://127.0.0.1:" + listener.getLocalPort()),
                    "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
            List<java.net.Socket> clients = new ArrayList<>();
            try {
                for (int i = 0; i < 3; i++) {
                    java.net.Socket c = new java.net.Socket("127.0.0.1", g.port());
                    clients.add(c);
                    c.setSoTimeout(3_000);
                    c.getOutputStream().write("GET /stall HTTP/1.1\r\nHost: x\r\n\r\n".getBytes(StandardCharsets.US_ASCII));
                    byte[] head = new byte[12];
                    int n = 0;
                    while (n < head.length) {
                        int r = c.getInputStream().read(head, n, head.length - n);
                        assertThat(r).as("the 503 head reaches the client").isPositive();
                        n += r;
                    }
                    assertThat(new String(head, StandardCharsets.US_ASCII)).isEqualTo("HTTP/1.1 503");
                }
                long t0 = System.nanoTime();
                await(() -> transitions.stream().anyMatch(t -> t.startsWith("server s1 down")), 3_000);
                System.out.printf("three streamed 503 heads ejected the server %d ms after the third, "
                        + "no response ended; transitions %s%n", (System.nanoTime() - t0) / 1_000_000, transitions);
                assertThat(g.stats().servers().get("s1").up()).isFalse();
            } finally {
                for (java.net.Socket c : clients) {
                    c.close();
                }
                for (java.net.Socket s : held) {
                    s.close();
                }
            }
        }
    }

    /** A backend connection that answers its first request with a 503 head and one chunk, then never ends it. */
    private static void stallAfterHead(java.net.Socket s) {
        try {
            var in = new java.io.BufferedReader(new java.io.InputStreamReader(s.getInputStream(), StandardCharsets.US_ASCII));
            for (String line; (line = in.readLine()) != null && !line.isEmpty(); ) {
                // the request head, read to its blank line
            }
            s.getOutputStream().write(("HTTP/1.1 503 Service Unavailable\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5\r\nhello\r\n").getBytes(StandardCharsets.US_ASCII));
            s.getOutputStream().flush();
            while (in.read() >= 0) {
                // held open until the test closes it
            }
        } catch (IOException closed) {
            // the test is over
        }
    }

    private static void await(BooleanSupplier condition, long millis) {
        org.awaitility.Awaitility.await().atMost(Duration.ofMillis(millis)).pollInterval(Duration.ofMillis(10))
                .until(condition::getAsBoolean);
    }

    /**
     * A backend in a JVM of its own (a small keep-alive HTTP server launched from a single source
     * file), so that {@code kill -9} is a real SIGKILL: {@link Process#destroyForcibly()} on Unix.
     * Each response leaves in one write: a response the kill cuts after its head has begun is not
     * something any proxy can complete (the client connection is cut), so it is kept out of this test.
     */
    private static final class ProcessBackend implements AutoCloseable {
        private static final String SOURCE = """
                import java.io.BufferedInputStream;
                import java.io.InputStream;
                import java.io.OutputStream;
                import java.net.InetAddress;
                import java.net.ServerSocket;
                import java.net.Socket;
                import java.nio.charset.StandardCharsets;

                /** Keep-alive HTTP/1.1 for bodiless requests; each response goes out in one write. */
                public class Backend {
                    public static void main(String[] args) throws Exception {
                        long delay = Long.parseLong(args[1]);
                        ServerSocket server = new ServerSocket();
                        server.setReuseAddress(true);
                        server.bind(new java.net.InetSocketAddress(InetAddress.getByName("127.0.0.1"),
                                Integer.parseInt(args[0])), 128);
                        System.out.println("listening");
                        System.out.flush();
                        byte[] response = "HTTP/1.1 200 OK\\r\\nContent-Length: 2\\r\\n\\r\\nok"
                                .getBytes(StandardCharsets.ISO_8859_1);
                        while (true) {
                            Socket c = server.accept();
                            Thread t = new Thread(() -> {
                                try (c) {
                                    InputStream in = new BufferedInputStream(c.getInputStream());
                                    OutputStream out = c.getOutputStream();
                                    while (readHead(in)) {
                                        Thread.sleep(delay);
                                        out.write(response);
                                        out.flush();
                                    }
                                } catch (Exception e) {
                                    // the gateway closed the connection
                                }
                            });
                            t.setDaemon(true);
                            t.start();
                        }
                    }

                    /** Reads up to the blank line; false at the end of the stream. */
                    static boolean readHead(InputStream in) throws java.io.IOException {
                        int state = 0;
                        for (int b; (b = in.read()) >= 0; ) {
                            state = b == '\\n' ? (state == 1 || state == 3 ? state + 1 : 0)
                                    : b == '\\r' ? (state == 0 || state == 2 ? state + 1 : 0) : 0;
                            if (state == 4) {
                                return true;
                            }
                        }
                        return false;
                    }
                }
                """;

        private final Path source;
        private final int port;
        private final long delayMillis;
        private Process process;

        ProcessBackend(Path dir, long delayMillis) throws Exception {
            this.source = dir.resolve("Backend.java");
            Files.writeString(source, SOURCE);
            this.port = Ports.free();
            this.delayMillis = delayMillis;
            start();
        }

        void start() throws Exception {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            process = new ProcessBuilder(java, "-Xmx64m", source.toString(), Integer.toString(port),
                    Long.toString(delayMillis)).redirectErrorStream(true).start();
            java.io.BufferedReader out = new java.io.BufferedReader(
                    new java.io.InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
            String line = out.readLine();
            if (!"listening".equals(line)) {
                process.destroyForcibly();
                throw new IllegalStateException("backend process did not start: " + line);
            }
        }

        String url() {
            return "http://127.0.0.1:" + port;
        }

        void kill9() throws InterruptedException {
            process.destroyForcibly(); // SIGKILL
            process.waitFor(10, TimeUnit.SECONDS);
        }

        @Override
        public void close() throws InterruptedException {
            kill9();
        }
    }

    /** Closed-loop GET clients that count every status and every request left without an answer. */
    private static final class Clients implements AutoCloseable {
        private final Map<Integer, LongAdder> statuses = new ConcurrentHashMap<>();
        final LongAdder errors = new LongAdder();
        final List<String> failures = new CopyOnWriteArrayList<>();
        private final List<Thread> threads = new ArrayList<>();
        private final List<GatewayTestSupport.Http> open = new CopyOnWriteArrayList<>();
        private volatile boolean running = true;

        Clients(int port, int n) {
            for (int i = 0; i < n; i++) {
                Thread t = new Thread(() -> loop(port), "client-" + i);
                t.setDaemon(true);
                threads.add(t);
                t.start();
            }
        }

        private void loop(int port) {
            while (running) {
                try (GatewayTestSupport.Http c = GatewayTestSupport.http(port)) {
                    open.add(c);
                    while (running) {
                        int status = c.get("/work").status();
                        statuses.computeIfAbsent(status, k -> new LongAdder()).increment();
                    }
                } catch (IOException e) {
                    if (running) {
                        errors.increment();
                        failures.add(e.toString());
                    }
                }
            }
        }

        long total() {
            return statuses.values().stream().mapToLong(LongAdder::sum).sum();
        }

        Map<Integer, Long> statuses() {
            Map<Integer, Long> m = new TreeMap<>();
            statuses.forEach((k, v) -> m.put(k, v.sum()));
            return m;
        }

        @Override
        public void close() throws InterruptedException {
            if (!running) {
                return;
            }
            running = false;
            for (GatewayTestSupport.Http c : open) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
            for (Thread t : threads) {
                t.join(5_000);
            }
        }
    }

    /**
     * A real HTTP backend that can be killed like a process under {@code kill -9} (the listener
     * closed and every connection reset, mid-request or idle) and restarted on the same port.
     * {@code GET /health} answers at once and counts probes; anything else answers 200 after the delay.
     */
    private static final class KillableBackend implements AutoCloseable {
        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
        private final long delayMillis;
        final AtomicLong served = new AtomicLong();
        final AtomicLong probes = new AtomicLong();
        final AtomicLong received = new AtomicLong();
        volatile boolean resetOnRequest;
        private volatile Channel listener;
        private final int port;

        KillableBackend(long delayMillis) throws InterruptedException {
            this.delayMillis = delayMillis;
            this.listener = bind(0);
            this.port = ((InetSocketAddress) listener.localAddress()).getPort();
        }

        private Channel bind(int p) throws InterruptedException {
            return new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .option(ChannelOption.SO_REUSEADDR, true)
                    .childOption(ChannelOption.SO_LINGER, 0) // close = RST, as for a killed process
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            connections.add(ch);
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                                    new SimpleChannelInboundHandler<FullHttpRequest>() {
                                        @Override
                                        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                                            boolean probe = req.uri().equals("/health");
                                            if (!probe) {
                                                received.incrementAndGet();
                                            }
                                            if (resetOnRequest && !probe) {
                                                ctx.close(); // SO_LINGER 0: a reset after reading the request
                                                return;
                                            }
                                            boolean keepAlive = HttpUtil.isKeepAlive(req);
                                            Runnable answer = () -> {
                                                (probe ? probes : served).incrementAndGet();
                                                ByteBuf body = Unpooled.copiedBuffer("ok", StandardCharsets.UTF_8);
                                                FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1,
                                                        HttpResponseStatus.OK, body);
                                                r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
                                                HttpUtil.setKeepAlive(r, keepAlive);
                                                ctx.writeAndFlush(r);
                                            };
                                            if (probe || delayMillis == 0) {
                                                answer.run();
                                            } else {
                                                ctx.executor().schedule(answer, delayMillis, TimeUnit.MILLISECONDS);
                                            }
                                        }
                                    });
                        }
                    }).bind("127.0.0.1", p).sync().channel();
        }

        String url() {
            return "http://127.0.0.1:" + port;
        }

        /** In one task on the backend's only event loop, so no answer slips out between the closes. */
        void kill() {
            group.next().submit(() -> {
                listener.close();
                for (Channel c : connections) {
                    c.close();
                }
            }).syncUninterruptibly();
            connections.close().awaitUninterruptibly(5, TimeUnit.SECONDS);
        }

        void restart() throws InterruptedException {
            listener = bind(port);
        }

        @Override
        public void close() {
            kill();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }
}
