package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.netty.bootstrap.ServerBootstrap;
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
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http.websocketx.TextWebSocketFrame;
import io.netty.handler.codec.http.websocketx.WebSocketServerProtocolHandler;
import io.netty.handler.ssl.SslContext;
import io.netty.handler.ssl.SslContextBuilder;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.WebSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

/**
 * TLS, HTTP/2, WebSocket and https:// servers through the real gateway, over real sockets on port
 * 0, with curl and the JDK's HTTP and WebSocket clients.
 */
final class ProtocolSocketTest {

    @TempDir
    Path dir;

    @RegisterExtension
    final GatewayTestSupport.Closing closing = new GatewayTestSupport.Closing();


    private <T extends AutoCloseable> T keep(T t) {
        return closing.keep(t);
    }

    /**
     * A backend on 127.0.0.1:0: HTTP/1.1 answering {@code delayMillis} later with the class header
     * and the forwarded proto in the body, counting its peak of concurrent requests; WebSocket echo
     * on /ws; TLS with {@code tls} when not null.
     */
    static final class Backend implements AutoCloseable {
        final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        final Channel channel;
        final AtomicInteger inFlight = new AtomicInteger();
        final AtomicInteger peak = new AtomicInteger();
        final AtomicInteger served = new AtomicInteger();
        /** While set, answers wait for {@link #release} (then their delay). */
        final java.util.concurrent.atomic.AtomicBoolean gated = new java.util.concurrent.atomic.AtomicBoolean();
        final CompletableFuture<Void> release = new CompletableFuture<>();
        final boolean https;

        Backend(long delayMillis, TestCerts tls) throws Exception {
            SslContext ssl = tls == null ? null : SslContextBuilder.forServer(tls.cert.toFile(), tls.key.toFile()).build();
            https = ssl != null;
            channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            if (ssl != null) {
                                ch.pipeline().addLast(ssl.newHandler(ch.alloc()));
                            }
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                                    new WebSocketServerProtocolHandler("/ws"),
                                    new SimpleChannelInboundHandler<TextWebSocketFrame>() {
                                        @Override
                                        protected void channelRead0(ChannelHandlerContext ctx, TextWebSocketFrame f) {
                                            ctx.writeAndFlush(new TextWebSocketFrame("echo:" + f.text()));
                                        }
                                    },
                                    new SimpleChannelInboundHandler<FullHttpRequest>() {
                                        @Override
                                        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                                            int n = inFlight.incrementAndGet();
                                            peak.accumulateAndGet(n, Math::max);
                                            String body = "proto=" + req.headers().get("X-Forwarded-Proto")
                                                    + " upgrade=" + req.headers().get("Upgrade") + " uri=" + req.uri();
                                            Runnable answer = () -> ctx.executor().schedule(() -> {
                                                inFlight.decrementAndGet();
                                                served.incrementAndGet();
                                                var r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK,
                                                        Unpooled.copiedBuffer(body, StandardCharsets.UTF_8));
                                                r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, r.content().readableBytes());
                                                ctx.writeAndFlush(r);
                                            }, delayMillis, TimeUnit.MILLISECONDS);
                                            if (gated.get()) {
                                                release.thenRun(answer);
                                            } else {
                                                answer.run();
                                            }
                                        }
                                    });
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
        }

        String url() {
            return (https ? "https" : "http") + "://127.0.0.1:" + ((InetSocketAddress) channel.localAddress()).getPort();
        }

        @Override
        public void close() {
            channel.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    private static ClusterConfig config(String gatewayExtra, String dispatchExtra, int concurrency, int limit,
                                        String timeout, String url) {
        return ConfigLoader.parse("""
                classes:
                  - {name: premium, target: 1s, weight: 8, match: {header: {X-Class: premium}}, queue: {limit: %d, timeout: %s}}
                  - {name: basic, target: 2s, weight: 2, default: true, queue: {limit: %d, timeout: %s}}
                servers:
                  - {id: s1, url: '%s', concurrency: %d}
                gateways:
                  - {id: g1, port: 0, adminPort: 0%s}
                dispatch: {backendTimeout: 10s, idleTimeout: 10s%s}
                """.formatted(limit, timeout, limit, timeout, url, concurrency, gatewayExtra, dispatchExtra));
    }

    private Gateway start(ClusterConfig c) throws InterruptedException {
        return keep(Gateway.start(c, "g1", GatewayOptions.defaults().standalone().withPorts(0, 0)));
    }

    private static List<String> curl(String... args) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("curl", "-sS", "--max-time", "20"));
        cmd.addAll(List.of(args));
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertThat(p.waitFor(30, TimeUnit.SECONDS)).isTrue();
        assertThat(p.exitValue()).as("curl %s: %s", cmd, out).isZero();
        return List.of(out.split("\n"));
    }

    @Test
    void curlHttp2OverTls_andPriorKnowledge_andHttp11OverTls_areAnsweredThroughTheClasses() throws Exception {
        TestCerts certs = TestCerts.make(dir, "gw", "localhost");
        Backend backend = keep(new Backend(0, null));
        Gateway g = start(config(", tls: {cert: '" + certs.cert + "', key: '" + certs.key + "', protocols: [TLSv1.3, TLSv1.2]}",
                "", 4, 10, "5s", backend.url()));
        String https = "https://127.0.0.1:" + g.port() + "/x";
        List<String> h2 = curl("--http2", "-k", "-i", "-H", "X-Class: premium", "-w", "\nversion=%{http_version}", https);
        assertThat(h2).anyMatch(l -> l.startsWith("HTTP/2 200"));
        assertThat(h2).anyMatch(l -> l.equalsIgnoreCase("x-arbiter-class: premium\r") || l.equalsIgnoreCase("x-arbiter-class: premium"));
        assertThat(h2).anyMatch(l -> l.contains("proto=https"));
        assertThat(h2).contains("version=2");
        List<String> h11 = curl("--http1.1", "-k", "-i", "-w", "\nversion=%{http_version}", https);
        assertThat(h11).anyMatch(l -> l.startsWith("HTTP/1.1 200"));
        assertThat(h11).contains("version=1.1");
        // TLSv1.2 only from the client: still offered
        assertThat(curl("--http2", "-k", "--tls-max", "1.2", "-w", "\nversion=%{http_version}", https)).contains("version=2");

        Gateway plain = start(config("", "", 4, 10, "5s", backend.url()));
        List<String> pk = curl("--http2-prior-knowledge", "-i", "-w", "\nversion=%{http_version}",
                "http://127.0.0.1:" + plain.port() + "/y");
        assertThat(pk).anyMatch(l -> l.startsWith("HTTP/2 200"));
        assertThat(pk).anyMatch(l -> l.toLowerCase().startsWith("x-arbiter-class: basic"));
        assertThat(pk).contains("version=2");
        List<String> upgrade = curl("--http2", "-i", "-w", "\nversion=%{http_version}", "http://127.0.0.1:" + plain.port() + "/z");
        assertThat(upgrade).contains("version=2");
        assertThat(upgrade).anyMatch(l -> l.startsWith("HTTP/2 200"));
        assertThat(backend.served.get()).isEqualTo(5);
    }

    @Test
    void http2Streams_onOneConnection_respectTheCap_andEachGetsExactlyOneAnswer_includingQueueFull() throws Exception {
        TestCerts certs = TestCerts.make(dir, "gw", "localhost");
        Backend backend = keep(new Backend(100, null));
        Gateway g = start(config(", tls: {cert: '" + certs.cert + "', key: '" + certs.key + "'}", "", 2, 6, "20s",
                backend.url()));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).sslContext(certs.trusting()).build();
        URI uri = URI.create("https://localhost:" + g.port() + "/load");
        // the first request opens the connection (ALPN h2); the rest are streams on it
        assertThat(client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString()).version())
                .isEqualTo(HttpClient.Version.HTTP_2);
        // The backend holds every answer until all streams are in: what is held and what is refused
        // is then a count, whatever the machine's load (a 100 ms backend let a busy machine's late
        // streams find room, and fewer than n - 12 were refused).
        backend.gated.set(true);
        int n = 60;
        List<CompletableFuture<HttpResponse<String>>> all = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            all.add(client.sendAsync(HttpRequest.newBuilder(uri).timeout(Duration.ofSeconds(60)).build(),
                    HttpResponse.BodyHandlers.ofString()));
        }
        // N = 2 at the server and 6 places in the queue: 8 streams held, the other 52 refused at once
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(30))
                .until(() -> all.stream().filter(CompletableFuture::isDone).count() >= n - 8);
        assertThat(backend.inFlight.get()).isEqualTo(2);
        backend.release.complete(null);
        Map<Integer, AtomicInteger> codes = new ConcurrentHashMap<>();
        for (var f : all) {
            HttpResponse<String> r = f.get(60, TimeUnit.SECONDS);
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
            codes.computeIfAbsent(r.statusCode(), k -> new AtomicInteger()).incrementAndGet();
            if (r.statusCode() == 503) {
                assertThat(r.body()).contains("queueFull");
            }
        }
        assertThat(codes.keySet()).containsOnly(200, 503);
        assertThat(codes.get(200).get() + codes.get(503).get()).isEqualTo(n);
        assertThat(codes.get(503).get()).isEqualTo(n - 8);
        assertThat(codes.get(200).get()).isEqualTo(8);
        assertThat(backend.peak.get()).isLessThanOrEqualTo(2);
        assertThat(backend.served.get()).isEqualTo(1 + codes.get(200).get());
    }

    /**
     * Class rules that agree with backends (issue 30, item 6): on a real socket, path parameters are
     * removed before dot segments, so {@code /x/..;/admin} lands in the {@code /admin} class and the
     * backend is sent {@code /admin}; with {@code caseInsensitive}, {@code /ADMIN} lands there too.
     */
    @Test
    void aPathParameterOrCase_cannotLeaveTheAdminClass_andTheBackendGetsThePathThatWasClassified() throws Exception {
        Backend backend = keep(new Backend(0, null));
        Gateway g = start(ConfigLoader.parse("""
                classes:
                  - {name: admin, target: 1s, match: {path: /admin, caseInsensitive: true}}
                  - {name: web, target: 1s, default: true}
                servers:
                  - {id: s1, url: '%s', concurrency: 4}
                gateways:
                  - {id: g1, port: 0, adminPort: 0}
                """.formatted(backend.url())));
        for (String[] c : new String[][] {{"/x/..;/admin", "admin", "/admin"}, {"/x/%2e%2e;/admin?q=1", "admin", "/admin?q=1"},
                {"/ADMIN;jsessionid=1/u", "admin", "/ADMIN/u"}, {"/x/..%3B/admin", "web", "/x/..%3B/admin"}}) {
            try (java.net.Socket s = new java.net.Socket("127.0.0.1", g.port())) {
                s.setSoTimeout(10_000);
                s.getOutputStream().write(("GET " + c[0] + " HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n")
                        .getBytes(StandardCharsets.US_ASCII));
                String answer = new String(s.getInputStream().readAllBytes(), StandardCharsets.US_ASCII);
                assertThat(answer).as(c[0]).startsWith("HTTP/1.1 200").containsIgnoringCase("x-arbiter-class: " + c[1])
                        .endsWith("uri=" + c[2]);
            }
        }
    }

    @Test
    void h2cUpgrade_fromTheJdkClient_isServedOverHttp2() throws Exception {
        Backend backend = keep(new Backend(0, null));
        Gateway g = start(config("", "", 4, 10, "5s", backend.url()));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_2).build();
        URI uri = URI.create("http://127.0.0.1:" + g.port() + "/u");
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).header("X-Class", "premium").build(),
                    HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.version()).isEqualTo(HttpClient.Version.HTTP_2);
            assertThat(r.headers().firstValue("x-arbiter-class")).hasValue("premium");
            assertThat(r.body()).contains("proto=http", "upgrade=null");
        }
    }

    @Test
    void h2cUpgrade_onALaterRequestOfAConnection_isNoUpgrade_theRequestIsServedOverHttp1() throws Exception {
        Backend backend = keep(new Backend(0, null));
        Gateway g = start(config("", "", 4, 10, "5s", backend.url()));
        try (var c = GatewayTestSupport.http(g.port())) {
            assertThat(c.get("/first").status()).isEqualTo(200);
            // the upgrade handler left the pipeline with the first request: this Upgrade is not acted on
            var r = c.get("/second", "Connection: Upgrade, HTTP2-Settings", "Upgrade: h2c", "HTTP2-Settings: AAMAAABkAARAAAAAAAIAAAAA");
            assertThat(r.status()).isEqualTo(200);
            assertThat(r.body()).contains("upgrade=null");
            assertThat(c.get("/third").status()).isEqualTo(200);
        }
    }

    @Test
    void webSocketEcho_throughTheGateway_holdsItsServerSlotUntilClosed() throws Exception {
        Backend backend = keep(new Backend(0, null));
        Gateway g = start(config("", "", 1, 10, "500ms", backend.url()));
        LinkedBlockingQueue<String> received = new LinkedBlockingQueue<>();
        HttpClient client = HttpClient.newHttpClient();
        WebSocket ws = client.newWebSocketBuilder().buildAsync(URI.create("ws://127.0.0.1:" + g.port() + "/ws"),
                new WebSocket.Listener() {
                    @Override
                    public CompletionStage<?> onText(WebSocket w, CharSequence data, boolean last) {
                        received.add(data.toString());
                        w.request(1);
                        return null;
                    }
                }).get(10, TimeUnit.SECONDS);
        for (int i = 0; i < 3; i++) {
            ws.sendText("hello " + i, true).get(5, TimeUnit.SECONDS);
            assertThat(received.poll(10, TimeUnit.SECONDS)).isEqualTo("echo:hello " + i);
        }
        // N = 1: the open WebSocket holds the slot, so a plain request waits and times out in its queue
        HttpResponse<String> held = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + g.port() + "/x"))
                .version(HttpClient.Version.HTTP_1_1).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(held.statusCode()).isEqualTo(503);
        assertThat(held.body()).contains("queueTimeout");
        ws.sendClose(WebSocket.NORMAL_CLOSURE, "bye").get(5, TimeUnit.SECONDS);
        await().atMost(Duration.ofSeconds(10)).until(() -> g.stats().classes().get("basic").inFlight() == 0);
        HttpResponse<String> after = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + g.port() + "/x"))
                .version(HttpClient.Version.HTTP_1_1).build(), HttpResponse.BodyHandlers.ofString());
        assertThat(after.statusCode()).isEqualTo(200);
    }

    @Test
    void httpsServer_isReachedWithVerification_andAnUntrustedOneIsNot() throws Exception {
        TestCerts serverCert = TestCerts.make(dir, "backend", "localhost");
        TestCerts other = TestCerts.make(dir, "other", "localhost");
        Backend backend = keep(new Backend(0, serverCert));
        Gateway g = start(config("", ", tls: {ca: '" + serverCert.cert + "', verify: true}", 4, 10, "1s", backend.url()));
        HttpClient client = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1).build();
        URI uri = URI.create("http://127.0.0.1:" + g.port() + "/secure");
        for (int i = 0; i < 3; i++) {
            HttpResponse<String> r = client.send(HttpRequest.newBuilder(uri).build(), HttpResponse.BodyHandlers.ofString());
            assertThat(r.statusCode()).isEqualTo(200);
            assertThat(r.body()).contains("proto=http");
        }
        assertThat(backend.served.get()).isEqualTo(3);
        // a gateway that trusts another CA never sends the request: it waits and times out (503)
        Gateway wrongCa = start(config("", ", tls: {ca: '" + other.cert + "', verify: true}", 4, 10, "1s", backend.url()));
        HttpResponse<String> r = client.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + wrongCa.port() + "/secure"))
                .build(), HttpResponse.BodyHandlers.ofString());
        assertThat(r.statusCode()).isEqualTo(503);
        assertThat(backend.served.get()).isEqualTo(3);
    }
}
