package org.arbiter.gateway;

import java.io.UncheckedIOException;
import java.nio.file.attribute.PosixFilePermissions;
import java.nio.file.Files;
import java.nio.file.Path;
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
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.arbiter.common.config.ClusterConfig;

/** Shared pieces of the gateway's socket tests: a real backend, a raw HTTP client, configurations. */
public final class GatewayTestSupport {

    private GatewayTestSupport() {
    }

    /**
     * {@code arbiter gateway} as a child JVM ({@code GatewayCommand}'s main on this class path), started
     * and read until its ready line, which names its ports; its output is collected until it ends.
     * {@link #close} kills it if it still runs.
     */
    public static final class GatewayProcess implements AutoCloseable {
        private static final java.util.regex.Pattern READY =
                java.util.regex.Pattern.compile("gateway \\S+ ready on [0-9.]+:(\\d+) \\(admin [0-9.]+:(\\d+)\\)");

        private final Process process;
        private final List<String> output = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final java.util.concurrent.CompletableFuture<java.util.regex.Matcher> ready =
                new java.util.concurrent.CompletableFuture<>();
        private final Thread pump;
        private final int port;
        private final int adminPort;

        private GatewayProcess(Process process) throws Exception {
            this.process = process;
            this.pump = new Thread(this::pump, "gateway-process-output");
            pump.setDaemon(true);
            pump.start();
            java.util.regex.Matcher m;
            try {
                m = ready.get(90, TimeUnit.SECONDS); // a guard for a busy machine, not a verdict
            } catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException e) {
                process.destroyForcibly();
                throw new IllegalStateException("no ready line from the gateway process; its output: " + output, e);
            }
            this.port = Integer.parseInt(m.group(1));
            this.adminPort = Integer.parseInt(m.group(2));
        }

        /** Starts {@code arbiter gateway --config CONFIG --id ID} with {@code jvmArgs} (heap, JIT, ...). */
        public static GatewayProcess start(Path config, String id, String... jvmArgs) throws Exception {
            List<String> cmd = new java.util.ArrayList<>();
            cmd.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            cmd.addAll(List.of(jvmArgs));
            cmd.addAll(List.of("-cp", System.getProperty("java.class.path"),
                    org.arbiter.gateway.cli.GatewayCommand.class.getName(), "--config", config.toString(), "--id", id));
            return new GatewayProcess(new ProcessBuilder(cmd).redirectErrorStream(true).start());
        }

        private void pump() {
            try (java.io.BufferedReader in = new java.io.BufferedReader(
                    new java.io.InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    output.add(line);
                    java.util.regex.Matcher m = READY.matcher(line);
                    if (!ready.isDone() && m.find()) {
                        ready.complete(m);
                    }
                }
            } catch (IOException ended) {
                // the process ended
            }
            ready.completeExceptionally(new IllegalStateException("the gateway process ended"));
        }

        public Process process() {
            return process;
        }

        /** Its data port. */
        public int port() {
            return port;
        }

        /** Its admin port. */
        public int adminPort() {
            return adminPort;
        }

        /** Every line it wrote so far (thread-safe). */
        public List<String> output() {
            return output;
        }

        /** Waits up to {@code seconds} for it to exit, and then for the rest of its output; whether it exited. */
        public boolean waitFor(double seconds) throws InterruptedException {
            if (!process.waitFor(Math.round(seconds * 1000), TimeUnit.MILLISECONDS)) {
                return false;
            }
            pump.join(5_000);
            return true;
        }

        @Override
        public void close() {
            if (process.isAlive()) {
                process.destroyForcibly();
            }
        }
    }

    /**
     * What a test opened (gateways, backends, sockets), closed after each test in reverse order:
     * {@code @RegisterExtension final GatewayTestSupport.Closing closing = new GatewayTestSupport.Closing();}
     * then {@code closing.keep(x)}. Every one is closed even if one fails; the first failure is thrown.
     */
    public static final class Closing implements org.junit.jupiter.api.extension.AfterEachCallback {
        private final java.util.ArrayList<AutoCloseable> open = new java.util.ArrayList<>();

        /** Closes {@code t} after the test; returns it. */
        public synchronized <T extends AutoCloseable> T keep(T t) {
            open.add(t);
            return t;
        }

        @Override
        public void afterEach(org.junit.jupiter.api.extension.ExtensionContext context) throws Exception {
            Exception first = null;
            List<AutoCloseable> all;
            synchronized (this) {
                all = List.copyOf(open);
                open.clear();
            }
            for (int i = all.size() - 1; i >= 0; i--) {
                try {
                    all.get(i).close();
                } catch (Exception e) {
                    if (first == null) {
                        first = e;
                    } else {
                        first.addSuppressed(e);
                    }
                }
            }
            if (first != null) {
                throw first;
            }
        }
    }

    public static Backend backend(long delayMillis) throws InterruptedException {
        return new Backend(delayMillis);
    }

    public static Http http(int port) throws IOException {
        return new Http(port);
    }

    /** The token in {@link #adminTokenFile()}; admin-port mutations send it as {@code Authorization: Bearer ...}. */
    public static final String ADMIN_TOKEN = "test-admin-token-0123456789abcdef";

    /** {@code Authorization: Bearer} with {@link #ADMIN_TOKEN}, as a header line of a raw request. */
    public static final String ADMIN_AUTHORIZATION = "Authorization: Bearer " + ADMIN_TOKEN + "\r\n";

    private static Path adminTokenFile;

    /** A file holding {@link #ADMIN_TOKEN}, mode 0600 ({@code gateway.adminTokenFile}); one per test JVM. */
    public static synchronized Path adminTokenFile() {
        if (adminTokenFile == null) {
            try {
                Path f = Files.createTempFile("arbiter-admin-token", ".txt",
                        PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Files.writeString(f, ADMIN_TOKEN + "\n", StandardCharsets.US_ASCII);
                f.toFile().deleteOnExit();
                adminTokenFile = f;
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return adminTokenFile;
    }

    public static ClusterConfig twoClasses(int limit, String timeout, String... serverUrls) {
        return Fixtures.twoClasses(limit, timeout, serverUrls);
    }

    public static ClusterConfig withDispatch(String dispatch, int limit, String timeout, String... serverUrls) {
        return Fixtures.withDispatch(dispatch, limit, timeout, serverUrls);
    }

    /**
     * A real HTTP backend for tests: answers after {@code delayMillis}, counts requests in flight per
     * X-Class header, and echoes what the gateway forwarded (X-Forwarded-For, Connection, the method
     * and the body length) in its body.
     */
    public static final class Backend implements AutoCloseable {

        private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        private final Channel channel;
        private final Map<String, AtomicInteger> inFlight = new ConcurrentHashMap<>();
        private final Map<String, AtomicLong> served = new ConcurrentHashMap<>();
        final AtomicInteger connections = new AtomicInteger();

        public int connections() {
            return connections.get();
        }
        public volatile long delayMillis;
        /** While not null, answers wait for it (then their delay): {@link #hold()}, {@link #release()}. */
        private volatile java.util.concurrent.CompletableFuture<Void> gate;

        /** Answers from now on wait until {@link #release()}. */
        public void hold() {
            gate = new java.util.concurrent.CompletableFuture<>();
        }

        /**
         * Lets the answers held so far go and holds every later one: one swap of the gate, so that no
         * request slips between a {@link #release()} and a {@link #hold()}.
         */
        public void releaseAndHold() {
            java.util.concurrent.CompletableFuture<Void> g = gate;
            gate = new java.util.concurrent.CompletableFuture<>();
            if (g != null) {
                g.complete(null);
            }
        }

        /** Lets every held answer (and later ones) go. */
        public void release() {
            java.util.concurrent.CompletableFuture<Void> g = gate;
            gate = null;
            if (g != null) {
                g.complete(null);
            }
        }

        Backend(long delayMillis) throws InterruptedException {
            this.delayMillis = delayMillis;
            channel = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                    .childHandler(new ChannelInitializer<SocketChannel>() {
                        @Override
                        protected void initChannel(SocketChannel ch) {
                            connections.incrementAndGet();
                            ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(64 << 20), new Handler());
                        }
                    }).bind("127.0.0.1", 0).sync().channel();
        }

        public int port() {
            return ((InetSocketAddress) channel.localAddress()).getPort();
        }

        public String url() {
            return "http://127.0.0.1:" + port();
        }

        private final AtomicInteger inFlightTotal = new AtomicInteger();
        private final AtomicInteger maxInFlight = new AtomicInteger();

        /** The most requests this backend held at once since start or the last {@link #resetMax}. */
        public int maxInFlight() {
            return maxInFlight.get();
        }

        public void resetMax() {
            maxInFlight.set(inFlightTotal.get());
        }

        public int inFlightTotal() {
            return inFlightTotal.get();
        }

        public int inFlight(String cls) {
            AtomicInteger n = inFlight.get(cls);
            return n == null ? 0 : n.get();
        }

        public long served(String cls) {
            AtomicLong n = served.get(cls);
            return n == null ? 0 : n.get();
        }

        private final class Handler extends SimpleChannelInboundHandler<FullHttpRequest> {
            @Override
            protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
                String cls = req.headers().get("X-Class", "none");
                AtomicInteger n = inFlight.computeIfAbsent(cls, k -> new AtomicInteger());
                n.incrementAndGet();
                maxInFlight.accumulateAndGet(inFlightTotal.incrementAndGet(), Math::max);
                String body = "method=" + req.method() + " cls=" + cls + " xff=" + req.headers().get("X-Forwarded-For")
                        + " proto=" + req.headers().get("X-Forwarded-Proto") + " connection=" + req.headers().get("Connection")
                        + " hop=" + req.headers().get("X-Hop") + " bytes=" + req.content().readableBytes();
                boolean keepAlive = HttpUtil.isKeepAlive(req);
                long delay = delayMillis;
                Runnable answer = () -> {
                    n.decrementAndGet();
                    inFlightTotal.decrementAndGet();
                    served.computeIfAbsent(cls, k -> new AtomicLong()).incrementAndGet();
                    ByteBuf content = Unpooled.copiedBuffer(body, StandardCharsets.UTF_8);
                    FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, HttpResponseStatus.OK, content);
                    r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, content.readableBytes());
                    r.headers().set("Keep-Alive", "timeout=60");
                    r.headers().set("X-Backend", "yes");
                    HttpUtil.setKeepAlive(r, keepAlive);
                    ctx.writeAndFlush(r);
                };
                Runnable delayed = () -> {
                    if (delay > 0) {
                        ctx.executor().schedule(answer, delay, TimeUnit.MILLISECONDS);
                    } else if (ctx.executor().inEventLoop()) {
                        answer.run();
                    } else {
                        ctx.executor().execute(answer);
                    }
                };
                java.util.concurrent.CompletableFuture<Void> held = gate;
                if (held != null) {
                    held.thenRun(delayed);
                } else {
                    delayed.run();
                }
            }
        }

        @Override
        public void close() {
            channel.close().syncUninterruptibly();
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).syncUninterruptibly();
        }
    }

    /** A minimal blocking HTTP/1.1 client over one socket, to control exactly what is sent. */
    public static final class Http implements AutoCloseable {

        public record Response(int status, Map<String, String> headers, String body) {
            public String header(String name) {
                return headers.get(name.toLowerCase(Locale.ROOT));
            }
        }

        final Socket socket;
        private final InputStream in;
        private final OutputStream out;

        Http(int port) throws IOException {
            socket = new Socket("127.0.0.1", port);
            socket.setSoTimeout(15_000);
            socket.setTcpNoDelay(true);
            in = new java.io.BufferedInputStream(socket.getInputStream());
            out = socket.getOutputStream();
        }

        public void send(String text) throws IOException {
            out.write(text.getBytes(StandardCharsets.ISO_8859_1));
            out.flush();
        }

        public void send(byte[] bytes) throws IOException {
            out.write(bytes);
            out.flush();
        }

        public Response get(String path, String... headers) throws IOException {
            StringBuilder sb = new StringBuilder("GET " + path + " HTTP/1.1\r\nHost: test\r\n");
            for (String h : headers) {
                sb.append(h).append("\r\n");
            }
            send(sb.append("\r\n").toString());
            return read();
        }

        public Response read() throws IOException {
            String status = line();
            if (status == null) {
                throw new IOException("connection closed before a response");
            }
            Map<String, String> headers = new LinkedHashMap<>();
            for (String l; !(l = line()).isEmpty(); ) {
                int c = l.indexOf(':');
                headers.put(l.substring(0, c).trim().toLowerCase(Locale.ROOT), l.substring(c + 1).trim());
            }
            ByteArrayOutputStream body = new ByteArrayOutputStream();
            if (headers.containsKey("content-length")) {
                int n = Integer.parseInt(headers.get("content-length"));
                body.write(in.readNBytes(n));
            } else if ("chunked".equalsIgnoreCase(headers.get("transfer-encoding"))) {
                while (true) {
                    int n = Integer.parseInt(line().split(";")[0].trim(), 16);
                    if (n == 0) {
                        while (!line().isEmpty()) {
                            // trailers
                        }
                        break;
                    }
                    body.write(in.readNBytes(n));
                    line();
                }
            }
            return new Response(Integer.parseInt(status.split(" ")[1]), headers, body.toString(StandardCharsets.UTF_8));
        }

        /** True when the server closed the connection (EOF) within the socket timeout. */
        /** True when the gateway closed the connection (end of stream or a reset); false on the 15 s read timeout. */
        public boolean closedByPeer() {
            try {
                return in.read() < 0;
            } catch (java.net.SocketTimeoutException e) {
                return false;
            } catch (IOException e) {
                return true;
            }
        }

        private String line() throws IOException {
            StringBuilder sb = new StringBuilder();
            int b;
            while ((b = in.read()) >= 0) {
                if (b == '\n') {
                    int len = sb.length();
                    return len > 0 && sb.charAt(len - 1) == '\r' ? sb.substring(0, len - 1) : sb.toString();
                }
                sb.append((char) b);
            }
            return sb.length() == 0 ? null : sb.toString();
        }

        @Override
        public void close() throws IOException {
            socket.close();
        }
    }

    /** Closed-loop clients on keep-alive connections, each sending its class header in a loop. */
    public static final class Load implements AutoCloseable {
        private final List<Thread> threads = new java.util.ArrayList<>();
        private final List<Http> clients = new java.util.concurrent.CopyOnWriteArrayList<>();
        private final AtomicLong[] statusCounts = new AtomicLong[600];
        private volatile boolean running = true;

        public Load(int port, Map<String, Integer> clientsPerClass) {
            for (int i = 0; i < statusCounts.length; i++) {
                statusCounts[i] = new AtomicLong();
            }
            clientsPerClass.forEach((cls, n) -> {
                for (int i = 0; i < n; i++) {
                    Thread t = new Thread(() -> loop(port, cls), "load-" + cls + "-" + i);
                    t.setDaemon(true);
                    threads.add(t);
                    t.start();
                }
            });
        }

        private void loop(int port, String cls) {
            while (running) {
                try (Http c = new Http(port)) {
                    clients.add(c);
                    while (running) {
                        Http.Response r = c.get("/load", "X-Class: " + cls);
                        statusCounts[r.status()].incrementAndGet();
                        if ("close".equalsIgnoreCase(r.header("connection"))) {
                            break;
                        }
                    }
                } catch (IOException e) {
                    // closed by close() or by the gateway: reconnect while running
                }
            }
        }

        public long count(int status) {
            return statusCounts[status].get();
        }

        @Override
        public void close() {
            running = false;
            for (Http c : clients) {
                try {
                    c.close();
                } catch (IOException ignored) {
                    // closing anyway
                }
            }
            for (Thread t : threads) {
                try {
                    t.join(5000);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                    return;
                }
            }
        }
    }

}
