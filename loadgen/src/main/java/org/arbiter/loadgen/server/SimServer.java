package org.arbiter.loadgen.server;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.bootstrap.ServerBootstrap;
import io.netty.buffer.ByteBuf;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFutureListener;
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
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpServerCodec;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.arbiter.loadgen.model.PsServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Design note — the synthetic service.
 *
 * Emulated (default): the processor-sharing model PsServer (the simulator's, shared) driven in
 * real time by one scheduler thread, which owns the model: a request read on a Netty event loop is
 * handed to that thread with its exponential demand, the model says when the next request
 * finishes, and a timer wakes the thread then; finished requests are answered 200 from it (Netty
 * writes are thread-safe). So the machine's CPU is not loaded: a 10-core, 1-second server costs
 * almost nothing. Real mode spins the CPU for the CPU part and sleeps the I/O part, on a pool of
 * `cores` threads, like 003's synthetic service.
 *
 * Power: OFF and BOOTING close the request port (connections refused, open ones dropped), like a
 * machine that is down; the admin port stays up. Energy integrates off/boot/idle/busy watts, busy
 * in proportion to the CPU busy fraction. Faults: crash (drop every connection, refuse new
 * ones), slow (multiply demands), errors (answer 500 with a probability), none.
 *
 * Thread-safety: the model and power state live on the scheduler thread; public methods are
 * thread-safe.
 */

/** An emulated HTTP service with a known capacity. See the design note. */
public final class SimServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SimServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Power states, as 000 §7.5. */
    public enum State { ON, OFF, BOOTING, SHUTTING_DOWN }

    private final SimServerOptions options;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final ScheduledExecutorService clock;
    private final ScheduledExecutorService realPool;
    private final PsServer<Pending> model;
    private final SplittableRandom random;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final long startNanos = System.nanoTime();
    private final int port;
    private final Channel admin;
    private volatile Channel listener;
    private volatile State state = State.ON;
    private volatile double slowFactor = 1;
    private volatile double errorRate;
    private ScheduledFuture<?> wake;
    private double wakeAt = Double.POSITIVE_INFINITY;
    private long completed;
    private double joules;
    private double lastEnergySeconds;
    private int inFlight;

    private record Pending(ChannelHandlerContext ctx, boolean keepAlive) {
    }

    private SimServer(SimServerOptions options) throws InterruptedException {
        this.options = options;
        this.model = new PsServer<>(options.cores(), options.overhead(), options.knee(), options.ioFraction());
        this.random = new SplittableRandom(options.seed());
        this.clock = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "simserver-clock"));
        this.realPool = options.real() ? Executors.newScheduledThreadPool(options.cores(), r -> daemon(r, "simserver-cpu")) : null;
        this.listener = bind(options.port(), new RequestHandler());
        this.port = ((InetSocketAddress) listener.localAddress()).getPort();
        this.admin = bind(options.adminPort(), new AdminHandler());
    }

    /** Starts a simserver; returns once both ports listen on 127.0.0.1. */
    public static SimServer start(SimServerOptions options) throws InterruptedException {
        return new SimServer(requireNonNull(options, "options"));
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private Channel bind(int p, SimpleChannelInboundHandler<FullHttpRequest> handler) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (handler instanceof RequestHandler) {
                            connections.add(ch);
                        }
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                                handler instanceof RequestHandler ? new RequestHandler() : new AdminHandler());
                    }
                });
        return b.bind("127.0.0.1", p).sync().channel();
    }

    public int port() {
        return port;
    }

    public int adminPort() {
        return ((InetSocketAddress) admin.localAddress()).getPort();
    }

    public State state() {
        return state;
    }

    private double now() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private final class RequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            String cls = req.headers().get(options.classHeader());
            double mean = cls == null ? options.meanDemandSeconds() : options.demandSeconds().getOrDefault(cls, options.meanDemandSeconds());
            clock.execute(() -> admit(new Pending(ctx, keepAlive), mean));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    private void admit(Pending p, double mean) {
        if (state != State.ON) {
            p.ctx().close();
            return;
        }
        double demand = -mean * slowFactor * Math.log(1 - random.nextDouble());
        inFlight++;
        if (options.real()) {
            double cpu = (1 - options.ioFraction()) * demand;
            double io = options.ioFraction() * demand;
            realPool.execute(() -> {
                long until = System.nanoTime() + (long) (cpu * 1e9);
                while (System.nanoTime() < until) {
                    Thread.onSpinWait();
                }
                realPool.schedule(() -> clock.execute(() -> respond(p)), (long) (io * 1e6), TimeUnit.MICROSECONDS);
            });
            return;
        }
        energy();
        for (PsServer.Done<Pending> d : model.admit(p, demand, now())) {
            respond(d.request());
        }
        rearm();
    }

    private void rearm() {
        double next = model.nextEventTime();
        if (next == wakeAt) {
            return;
        }
        if (wake != null) {
            wake.cancel(false);
        }
        wakeAt = next;
        if (Double.isInfinite(next)) {
            wake = null;
            return;
        }
        long delayNanos = Math.max(0, (long) ((next - now()) * 1e9));
        wake = clock.schedule(this::onWake, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void onWake() {
        wakeAt = Double.POSITIVE_INFINITY;
        wake = null;
        energy();
        List<PsServer.Done<Pending>> done = model.advance(now());
        for (PsServer.Done<Pending> d : done) {
            respond(d.request());
        }
        rearm();
    }

    private void respond(Pending p) {
        inFlight--;
        completed++;
        boolean error = errorRate > 0 && random.nextDouble() < errorRate;
        HttpResponseStatus status = error ? HttpResponseStatus.INTERNAL_SERVER_ERROR : HttpResponseStatus.OK;
        ByteBuf body = Unpooled.copiedBuffer(error ? "injected error\n" : "ok\n", StandardCharsets.UTF_8);
        FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, body);
        r.headers().set(HttpHeaderNames.CONTENT_TYPE, "text/plain; charset=utf-8");
        r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, body.readableBytes());
        if (!p.keepAlive()) {
            r.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
            p.ctx().writeAndFlush(r).addListener(ChannelFutureListener.CLOSE);
        } else {
            p.ctx().writeAndFlush(r);
        }
    }

    private void energy() {
        double t = now();
        double watts = switch (state) {
            case OFF -> options.watts()[0];
            case BOOTING -> options.watts()[1];
            default -> options.watts()[2] + (options.watts()[3] - options.watts()[2]) * busyFraction();
        };
        joules += watts * (t - lastEnergySeconds);
        lastEnergySeconds = t;
    }

    private double busyFraction() {
        return Math.min(1.0, (double) inFlight / options.cores());
    }

    /** Powers off: the request port closes after the shutdown delay. */
    public void powerOff() {
        clock.execute(() -> {
            if (state != State.ON) {
                return;
            }
            energy();
            state = State.SHUTTING_DOWN;
            clock.schedule(() -> {
                energy();
                state = State.OFF;
                closeListener();
            }, (long) (options.shutdownDelaySeconds() * 1000), TimeUnit.MILLISECONDS);
        });
    }

    /** Powers on: the request port opens after the boot delay. */
    public void powerOn() {
        clock.execute(() -> {
            if (state != State.OFF) {
                return;
            }
            energy();
            state = State.BOOTING;
            clock.schedule(() -> {
                try {
                    listener = bind(port, new RequestHandler());
                    energy();
                    state = State.ON;
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                } catch (RuntimeException e) {
                    LOG.warn("simserver: cannot reopen port {}: {}", port, e.toString());
                }
            }, (long) (options.bootDelaySeconds() * 1000), TimeUnit.MILLISECONDS);
        });
    }

    private void closeListener() {
        listener.close().awaitUninterruptibly();
        connections.close().awaitUninterruptibly();
    }

    /** Applies a fault: crash, slow (factor), errors (rate), none. */
    public void fault(String kind, double value) {
        clock.execute(() -> {
            switch (kind) {
                case "crash" -> {
                    energy();
                    state = State.OFF;
                    closeListener();
                }
                case "slow" -> slowFactor = value;
                case "errors" -> errorRate = value;
                case "none" -> {
                    slowFactor = 1;
                    errorRate = 0;
                }
                default -> throw new IllegalArgumentException(kind);
            }
        });
    }

    /** The {@code /status} document. */
    public Map<String, Object> status() {
        try {
            return clock.submit(() -> {
                energy();
                Map<String, Object> m = new LinkedHashMap<>();
                m.put("state", state.name());
                m.put("inFlight", inFlight);
                m.put("completed", completed);
                m.put("cpuBusyFraction", Math.round(busyFraction() * 1000) / 1000.0);
                double watts = switch (state) {
                    case OFF -> options.watts()[0];
                    case BOOTING -> options.watts()[1];
                    default -> options.watts()[2] + (options.watts()[3] - options.watts()[2]) * busyFraction();
                };
                m.put("watts", watts);
                m.put("joules", Math.round(joules * 10) / 10.0);
                return m;
            }).get(5, TimeUnit.SECONDS);
        } catch (Exception e) {
            throw new IllegalStateException("status: " + e, e);
        }
    }

    private final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) throws Exception {
            String path = req.uri();
            HttpResponseStatus status = HttpResponseStatus.OK;
            Object body;
            if (req.method() == HttpMethod.GET && path.equals("/status")) {
                body = status();
            } else if (req.method() == HttpMethod.POST && path.equals("/power/off")) {
                powerOff();
                body = Map.of("state", "SHUTTING_DOWN");
            } else if (req.method() == HttpMethod.POST && path.equals("/power/on")) {
                powerOn();
                body = Map.of("state", "BOOTING");
            } else if (req.method() == HttpMethod.POST && path.equals("/fault")) {
                JsonNode f;
                try {
                    f = JSON.readTree(req.content().toString(StandardCharsets.UTF_8));
                } catch (Exception e) {
                    f = null;
                }
                String kind = f == null ? null : f.path("kind").asText(null);
                if (kind == null || !List.of("crash", "slow", "errors", "none").contains(kind)) {
                    status = HttpResponseStatus.BAD_REQUEST;
                    body = Map.of("error", "kind: " + kind + " (expected: one of crash, slow, errors, none)");
                } else {
                    double v = kind.equals("slow") ? f.path("factor").asDouble(5) : f.path("rate").asDouble(0.1);
                    fault(kind, v);
                    body = Map.of("fault", kind);
                }
            } else {
                status = HttpResponseStatus.NOT_FOUND;
                body = Map.of("error", req.method() + " " + path + " (expected: GET /status, POST /power/off, POST /power/on, POST /fault)");
            }
            ByteBuf buf = Unpooled.wrappedBuffer(JSON.writeValueAsBytes(body));
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, buf);
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, buf.readableBytes());
            ctx.writeAndFlush(r);
        }
    }

    @Override
    public void close() {
        try {
            listener.close().awaitUninterruptibly();
            admin.close().awaitUninterruptibly();
            connections.close().awaitUninterruptibly();
        } finally {
            clock.shutdownNow();
            if (realPool != null) {
                realPool.shutdownNow();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
    }
}
