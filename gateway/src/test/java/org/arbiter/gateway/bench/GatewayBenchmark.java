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
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;

/**
 * Throughput and latency through the gateway, side by side with the same backend direct and with
 * HAProxy configured with the same per-server maxconn and queue, all driven by {@code wrk} on 64
 * keep-alive connections. Needs {@code wrk} and {@code haproxy} on the PATH (Debian packages;
 * HAProxy is started here on 127.0.0.1 with a generated configuration, never as a service).
 *
 * <pre>
 * apt-get install -y wrk haproxy
 * ./mvnw -B -o -pl gateway test -Dtest=GatewayBenchmarkRun -Dbench.args="--duration 15 --out target/bench.md"
 * </pre>
 *
 * (Surefire is the launcher because it is the one runner available offline here; the benchmark
 * switches Netty's leak detection off, which the test configuration sets to paranoid.)
 *
 * Arguments: {@code --duration S} per target (default 15), {@code --connections C} (64),
 * {@code --cap N} per-server maxconn N(g,s) (32), {@code --queue Q} queue bound (1024),
 * {@code --out FILE} to write the Markdown table.
 */
public final class GatewayBenchmark {

    private GatewayBenchmark() {
    }

    record Result(String target, double requestsPerSecond, String p50, String p99, long non2xx, long errors) {
    }

    public static void main(String[] args) throws Exception {
        io.netty.util.ResourceLeakDetector.setLevel(io.netty.util.ResourceLeakDetector.Level.DISABLED);
        int duration = 15;
        int connections = 64;
        int cap = 32;
        int queue = 1024;
        Path out = null;
        for (int i = 0; i < args.length; i += 2) {
            switch (args[i]) {
                case "--duration" -> duration = Integer.parseInt(args[i + 1]);
                case "--connections" -> connections = Integer.parseInt(args[i + 1]);
                case "--cap" -> cap = Integer.parseInt(args[i + 1]);
                case "--queue" -> queue = Integer.parseInt(args[i + 1]);
                case "--out" -> out = Path.of(args[i + 1]);
                default -> throw new IllegalArgumentException(args[i] + " (expected: --duration, --connections, --cap, --queue, --out)");
            }
        }
        EventLoopGroup backendGroup = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        Channel backend = new ServerBootstrap().group(backendGroup).channel(NioServerSocketChannel.class)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20), new Ok());
                    }
                }).bind("127.0.0.1", 0).sync().channel();
        int backendPort = ((InetSocketAddress) backend.localAddress()).getPort();
        String yaml = """
                classes:
                  - {name: premium, target: 1s, weight: 8, match: {header: {X-Class: premium}}, queue: {limit: %d, timeout: 30s}}
                  - {name: basic, target: 2s, weight: 2, default: true, queue: {limit: %d, timeout: 30s}}
                servers:
                  - {id: s1, url: 'http://127.0.0.1:%d', concurrency: %d}
                gateways:
                  - {id: g1, port: 0, adminPort: 0}
                dispatch: {backendTimeout: 30s, idleTimeout: 60s}
                """.formatted(queue, queue, backendPort, cap);
        Gateway gateway = Gateway.start(ConfigLoader.parse(yaml), "g1",
                GatewayOptions.defaults().standalone().withPorts(0, 0));
        int haproxyPort = freePort();
        Path dir = Files.createTempDirectory("arbiter-bench");
        Path cfg = dir.resolve("haproxy.cfg");
        Files.writeString(cfg, """
                global
                    maxconn 4096
                defaults
                    mode http
                    option http-keep-alive
                    http-reuse always
                    timeout connect 5s
                    timeout client 60s
                    timeout server 30s
                    timeout queue 30s
                frontend fe
                    bind 127.0.0.1:%d
                    default_backend be
                backend be
                    balance leastconn
                    server s1 127.0.0.1:%d maxconn %d maxqueue %d
                """.formatted(haproxyPort, backendPort, cap, queue));
        Process haproxy = new ProcessBuilder("haproxy", "-f", cfg.toString(), "-db").redirectErrorStream(true)
                .redirectOutput(dir.resolve("haproxy.log").toFile()).start();
        List<Result> results = new ArrayList<>();
        try {
            Thread.sleep(500);
            warm(backendPort);
            warm(haproxyPort);
            warm(gateway.port());
            warm(gateway.port());
            results.add(wrk("backend direct", backendPort, connections, duration));
            results.add(wrk("HAProxy 2.6 (maxconn " + cap + ", maxqueue " + queue + ")", haproxyPort, connections, duration));
            results.add(wrk("Arbiter gateway (N(g,s) " + cap + ", queue " + queue + ")", gateway.port(), connections, duration));
        } finally {
            haproxy.destroy();
            haproxy.waitFor(5, TimeUnit.SECONDS);
            gateway.close();
            backend.close().sync();
            backendGroup.shutdownGracefully(0, 1, TimeUnit.SECONDS).sync();
        }
        StringBuilder table = new StringBuilder();
        table.append("| target | requests/s | p50 | p99 | non-2xx | socket errors |\n");
        table.append("| --- | ---: | ---: | ---: | ---: | ---: |\n");
        for (Result r : results) {
            table.append(String.format("| %s | %.0f | %s | %s | %d | %d |%n", r.target(), r.requestsPerSecond(), r.p50(),
                    r.p99(), r.non2xx(), r.errors()));
        }
        double ratio = results.get(2).requestsPerSecond() / results.get(1).requestsPerSecond();
        table.append(String.format("%nGateway / HAProxy throughput: %.2f (%d connections, %d s per target, %d cores)%n",
                ratio, connections, duration, Runtime.getRuntime().availableProcessors()));
        System.out.print(table);
        if (out != null) {
            Files.writeString(out, table);
        }
    }

    private static void warm(int port) throws Exception {
        Process p = new ProcessBuilder("wrk", "-t1", "-c8", "-d2s", "http://127.0.0.1:" + port + "/")
                .redirectErrorStream(true).start();
        p.getInputStream().readAllBytes();
        p.waitFor();
    }

    private static Result wrk(String target, int port, int connections, int seconds) throws Exception {
        Process p = new ProcessBuilder("wrk", "-t2", "-c" + connections, "-d" + seconds + "s", "--latency",
                "-H", "X-Class: premium", "http://127.0.0.1:" + port + "/").redirectErrorStream(true).start();
        String text = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        p.waitFor();
        System.err.println("== " + target + "\n" + text);
        double rps = Double.parseDouble(find(text, "Requests/sec:\\s+([0-9.]+)", "0"));
        String p50 = find(text, "\\s50%\\s+(\\S+)", "?");
        String p99 = find(text, "\\s99%\\s+(\\S+)", "?");
        long non2xx = Long.parseLong(find(text, "Non-2xx or 3xx responses:\\s+(\\d+)", "0"));
        Matcher m = Pattern.compile("Socket errors: connect (\\d+), read (\\d+), write (\\d+), timeout (\\d+)").matcher(text);
        long errors = 0;
        if (m.find()) {
            for (int i = 1; i <= 4; i++) {
                errors += Long.parseLong(m.group(i));
            }
        }
        return new Result(target, rps, p50, p99, non2xx, errors);
    }

    private static String find(String text, String regex, String otherwise) {
        Matcher m = Pattern.compile(regex).matcher(text);
        return m.find() ? m.group(1) : otherwise;
    }

    private static int freePort() throws IOException {
        try (ServerSocket s = new ServerSocket(0)) {
            return s.getLocalPort();
        }
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
