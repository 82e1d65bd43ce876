package org.arbiter.loadgen.server;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
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
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.loadgen.model.PsServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Design note — the synthetic service.
 *
 * Emulated (default): the processor-sharing model PsServer (the simulator's, shared) driven in
 * real time by one scheduler thread ("simserver-clock"), which owns the model, the power model
 * and the random generator: a request read on a Netty event loop is handed to that thread, which
 * draws its exponential demand, admits it, and arms one timer for the model's next completion;
 * finished requests are answered from that thread (Netty hands the write to the channel's loop).
 * So the machine's CPU is not loaded: a 10-core, 1-second server costs almost nothing. Real mode
 * spins the CPU for the CPU part and sleeps the I/O part, on a pool of `cores` threads, like 003's
 * synthetic service.
 *
 * Power (PowerModel, 000 §7.5): POST /power/off → SHUTTING_DOWN (new requests are refused by
 * closing their connection) → after the shutdown delay OFF: the request port is closed (connections
 * refused) and open connections and requests in flight are dropped, like a machine that is down.
 * POST /power/on → BOOTING (port still closed) → after the boot delay ON, port open again. The admin
 * port stays up throughout. Energy integrates the draw by state, busy in proportion to the CPU busy
 * fraction (requests holding virtual CPU; I/O waits do not count).
 *
 * Faults: crash = the machine stops at once (OFF, no delay; every connection dropped, new ones
 * refused; POST /power/on boots it again); slow = demands multiplied by a factor; errors = answer
 * 500 with a probability; none = clear slow and errors.
 *
 * Thread-safety: the models live on the scheduler thread; every public method is thread-safe.
 */

/** An emulated HTTP service with a known capacity. See the design note. */
public final class SimServer implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(SimServer.class);
    private static final ObjectMapper JSON = new ObjectMapper();

    /** Power states, as 000 §7.5. Only ON serves. */

    private final SimServerOptions options;
    private final EventLoopGroup group = new MultiThreadIoEventLoopGroup(2, NioIoHandler.newFactory());
    private final ScheduledExecutorService clock;
    private final ScheduledExecutorService realPool;
    private final PsServer<Pending> model;
    private final PowerModel power;
    private final SplittableRandom random;
    private final ChannelGroup connections = new DefaultChannelGroup(GlobalEventExecutor.INSTANCE);
    private final Set<Pending> open = new LinkedHashSet<>();
    private final AtomicInteger spinning = new AtomicInteger();
    private final long startNanos = System.nanoTime();
    private final int port;
    private final Channel admin;
    private volatile Channel listener;
    private volatile PowerModel.State state = PowerModel.State.ON;
    private volatile String fault = "none";
    private double slowFactor = 1;
    private double errorRate;
    private ScheduledFuture<?> wake;
    private double wakeAt = Double.POSITIVE_INFINITY;
    private long completed;

    private record Pending(ChannelHandlerContext ctx, boolean keepAlive) {
    }

    private SimServer(SimServerOptions options) throws InterruptedException {
        this.options = options;
        this.model = new PsServer<>(options.cores(), options.overhead(), options.knee(), options.ioFraction());
        this.power = new PowerModel(options.watts(), options.bootDelaySeconds(), options.shutdownDelaySeconds(),
                PowerModel.State.ON, 0);
        this.random = new SplittableRandom(options.seed());
        this.clock = Executors.newSingleThreadScheduledExecutor(r -> daemon(r, "simserver-clock"));
        this.realPool = options.real() ? Executors.newScheduledThreadPool(options.cores(), r -> daemon(r, "simserver-cpu")) : null;
        try {
            this.listener = bind(options.port(), true);
            this.port = ((InetSocketAddress) listener.localAddress()).getPort();
            this.admin = bind(options.adminPort(), false);
        } catch (InterruptedException | RuntimeException e) {
            clock.shutdownNow();
            if (realPool != null) {
                realPool.shutdownNow();
            }
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS);
            throw e;
        }
    }

    /**
     * Starts a simserver; returns once both ports listen on 127.0.0.1.
     *
     * @throws io.netty.channel.ChannelException or another exception when a port cannot be bound
     */
    public static SimServer start(SimServerOptions options) throws InterruptedException {
        return new SimServer(requireNonNull(options, "options"));
    }

    private static Thread daemon(Runnable r, String name) {
        Thread t = new Thread(r, name);
        t.setDaemon(true);
        return t;
    }

    private Channel bind(int p, boolean requests) throws InterruptedException {
        ServerBootstrap b = new ServerBootstrap().group(group).channel(NioServerSocketChannel.class)
                .option(ChannelOption.SO_BACKLOG, 1024)
                .option(ChannelOption.SO_REUSEADDR, true)
                .childOption(ChannelOption.TCP_NODELAY, true)
                .childHandler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        if (requests) {
                            connections.add(ch);
                        }
                        ch.pipeline().addLast(new HttpServerCodec(), new HttpObjectAggregator(1 << 20),
                                requests ? new RequestHandler() : new AdminHandler());
                    }
                });
        return b.bind("127.0.0.1", p).sync().channel();
    }

    /** The request port. */
    public int port() {
        return port;
    }

    /** The admin port (status, power, faults). */
    public int adminPort() {
        return ((InetSocketAddress) admin.localAddress()).getPort();
    }

    /** The power state now. */
    public PowerModel.State state() {
        return state;
    }

    private double now() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private final class RequestHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) {
            boolean keepAlive = HttpUtil.isKeepAlive(req);
            double mean = options.meanDemandOf(req.headers().get(options.classHeader()));
            clock.execute(() -> admit(new Pending(ctx, keepAlive), mean));
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    // ---- on the clock thread ----

    private void admit(Pending p, double mean) {
        if (state != PowerModel.State.ON) {
            p.ctx().close();
            return;
        }
        double demand = mean * slowFactor * -Math.log(1 - random.nextDouble());
        open.add(p);
        if (options.real()) {
            double cpuSeconds = (1 - options.ioFraction()) * demand;
            double ioSeconds = options.ioFraction() * demand;
            realPool.execute(() -> spin(p, cpuSeconds, ioSeconds));
            return;
        }
        double t = now();
        for (PsServer.Done<Pending> d : model.admit(p, demand, t)) {
            respond(d.request());
        }
        power.busyFraction(model.busyFraction(), t);
        rearm();
    }

    private void spin(Pending p, double cpuSeconds, double ioSeconds) {
        clock.execute(() -> power.busyFraction((double) spinning.incrementAndGet() / options.cores(), now()));
        long until = System.nanoTime() + (long) (cpuSeconds * 1e9);
        while (System.nanoTime() < until) {
            Thread.onSpinWait();
        }
        clock.execute(() -> power.busyFraction((double) spinning.decrementAndGet() / options.cores(), now()));
        clock.schedule(() -> respond(p), (long) (ioSeconds * 1e9), TimeUnit.NANOSECONDS);
    }

    private void rearm() {
        double next = model.nextCompletionTime();
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
        long delayNanos = Math.max(0, (long) Math.ceil((next - now()) * 1e9));
        wake = clock.schedule(this::onWake, delayNanos, TimeUnit.NANOSECONDS);
    }

    private void onWake() {
        wakeAt = Double.POSITIVE_INFINITY;
        wake = null;
        double t = now();
        for (PsServer.Done<Pending> d : model.advanceTo(t)) {
            respond(d.request());
        }
        power.busyFraction(model.busyFraction(), t);
        rearm();
    }

    private void respond(Pending p) {
        if (!open.remove(p)) {
            return; // dropped by a crash or power-off
        }
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

    /** The machine goes down: port closed, connections and requests in flight dropped. */
    private void down() {
        double t = now();
        model.advanceTo(t).forEach(d -> respond(d.request()));
        model.drain(t);
        open.clear();
        rearm();
        listener.close().awaitUninterruptibly();
        connections.close().awaitUninterruptibly();
    }

    /**
     * Applies the power model's transition to the machine (port closed or opened). Compared with
     * what the machine shows, not with the model's state before this call: a status read or a busy
     * change on the clock thread may already have advanced the model past its transition time, and
     * that transition must still be applied (it used to be lost, leaving the server SHUTTING_DOWN or
     * BOOTING for good).
     */
    private void syncPower() {
        double due = power.nextTransitionTime();
        PowerModel.State after = power.advanceTo(Double.isFinite(due) ? Math.max(now(), due) : now());
        if (after == PowerModel.State.OFF && state != PowerModel.State.OFF) {
            down(); // first: whoever reads OFF finds the port closed
            state = PowerModel.State.OFF;
        } else if (after == PowerModel.State.ON && state != PowerModel.State.ON) {
            try {
                listener = bind(port, true);
                state = PowerModel.State.ON;
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            } catch (RuntimeException e) {
                LOG.warn("simserver: cannot reopen port {}: {}", port, e.toString());
            }
        }
    }

    private void schedulePowerSync() {
        long delayNanos = Math.max(0, (long) Math.ceil((power.nextTransitionTime() - now()) * 1e9));
        clock.schedule(this::syncPower, delayNanos, TimeUnit.NANOSECONDS);
    }

    // ---- public, thread-safe ----

    /** Orders power-off (ON only): refuses requests now, closes the port after the shutdown delay. */
    public void powerOff() {
        clock.execute(() -> {
            if (power.powerOff(now())) {
                state = PowerModel.State.SHUTTING_DOWN;
                schedulePowerSync();
            }
        });
    }

    /** Orders power-on (OFF only): the port opens after the boot delay. */
    public void powerOn() {
        clock.execute(() -> {
            if (power.powerOn(now())) {
                state = PowerModel.State.BOOTING;
                schedulePowerSync();
            }
        });
    }

    /**
     * Applies a fault: {@code crash}, {@code slow} (value = factor, > 0), {@code errors} (value =
     * rate, 0..1), {@code none}.
     *
     * @throws IllegalArgumentException for another kind or a value out of range
     */
    public void fault(String kind, double value) {
        switch (kind) {
            case "crash", "none" -> { }
            case "slow" -> {
                if (!(value > 0)) {
                    throw new IllegalArgumentException("factor: " + value + " (expected: > 0)");
                }
            }
            case "errors" -> {
                if (!(value >= 0 && value <= 1)) {
                    throw new IllegalArgumentException("rate: " + value + " (expected: 0 <= x <= 1)");
                }
            }
            default -> throw new IllegalArgumentException("kind: " + kind + " (expected: one of crash, slow, errors, none)");
        }
        clock.execute(() -> {
            fault = kind;
            switch (kind) {
                case "crash" -> {
                    power.crash(now());
                    down(); // first: whoever reads OFF finds the port closed
                    state = PowerModel.State.OFF;
                }
                case "slow" -> slowFactor = value;
                case "errors" -> errorRate = value;
                default -> {
                    slowFactor = 1;
                    errorRate = 0;
                }
            }
        });
    }

    /**
     * The {@code /status} document, as the admin API writes it (keys in this order). Immutable.
     *
     * @param state           the power state
     * @param inFlight        requests held (on a core or queued)
     * @param completed       requests answered since the start
     * @param cpuBusyFraction busy cores over cores, to 0.001
     * @param watts           the power drawn now, to 0.001 W
     * @param joules          the energy metered since the start, to 0.001 J
     * @param fault           the fault in force: crash, slow, errors or none
     */
    @JsonPropertyOrder({"state", "inFlight", "completed", "cpuBusyFraction", "watts", "joules", "fault"})
    public record Status(PowerModel.State state, int inFlight, long completed, double cpuBusyFraction, double watts,
                         double joules, String fault) {

        public Status {
            requireNonNull(state, "state");
            requireNonNull(fault, "fault");
        }
    }

    /** The {@code /status} document (see {@link Status}). */
    public Status status() {
        try {
            return clock.submit(this::statusNow).get(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("status: interrupted", e);
        } catch (Exception e) {
            throw new IllegalStateException("status: " + e, e);
        }
    }

    /** The status document; on the clock thread. */
    private Status statusNow() {
        double t = now();
        if (!options.real()) {
            model.advanceTo(t).forEach(d -> respond(d.request()));
            power.busyFraction(model.busyFraction(), t);
            rearm();
        }
        power.advanceTo(t);
        double busy = options.real() ? Math.min(1.0, (double) spinning.get() / options.cores()) : model.busyFraction();
        return new Status(state, open.size(), completed, Math.round(busy * 1000) / 1000.0,
                Math.round(power.watts() * 1000) / 1000.0, Math.round(power.joules() * 1000) / 1000.0, fault);
    }

    private final class AdminHandler extends SimpleChannelInboundHandler<FullHttpRequest> {
        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpRequest req) throws Exception {
            String path = req.uri();
            HttpResponseStatus status = HttpResponseStatus.OK;
            Object body;
            if (req.method() == HttpMethod.GET && path.equals("/load")) {
                // a gateway's load poll (002 §3): requests held, as active (on a core) and queued (beyond the cores)
                try {
                    clock.execute(() -> {
                        try {
                            int held = open.size();
                            int active = Math.min(held, options.cores());
                            reply(ctx, HttpResponseStatus.OK, Map.of("active", active, "queued", held - active));
                        } catch (Exception e) {
                            ctx.close();
                        }
                    });
                } catch (RejectedExecutionException e) {
                    ctx.close(); // closing
                }
                return;
            } else if (req.method() == HttpMethod.GET && path.equals("/status")) {
                // Built on the clock thread and answered from there: an event loop must never wait
                // for the clock, which may itself be waiting for this loop (closing the request
                // port at power-off).
                try {
                    clock.execute(() -> {
                        try {
                            reply(ctx, HttpResponseStatus.OK, statusNow());
                        } catch (Exception e) {
                            ctx.close();
                        }
                    });
                } catch (RejectedExecutionException e) {
                    ctx.close(); // closing
                }
                return;
            } else if (req.method() == HttpMethod.POST && path.equals("/power/off")) {
                powerOff();
                body = Map.of("order", "off");
            } else if (req.method() == HttpMethod.POST && path.equals("/power/on")) {
                powerOn();
                body = Map.of("order", "on");
            } else if (req.method() == HttpMethod.POST && path.equals("/fault")) {
                JsonNode f;
                try {
                    f = JSON.readTree(req.content().toString(StandardCharsets.UTF_8));
                } catch (Exception e) {
                    f = null;
                }
                String kind = f == null ? null : f.path("kind").asText(null);
                try {
                    if (kind == null) {
                        throw new IllegalArgumentException("kind: " + kind + " (expected: one of crash, slow, errors, none)");
                    }
                    double v = kind.equals("slow") ? f.path("factor").asDouble(5) : f.path("rate").asDouble(0.1);
                    fault(kind, v);
                    body = Map.of("fault", kind);
                } catch (IllegalArgumentException e) {
                    status = HttpResponseStatus.BAD_REQUEST;
                    body = Map.of("error", e.getMessage());
                }
            } else {
                status = HttpResponseStatus.NOT_FOUND;
                body = Map.of("error", req.method() + " " + path + " (expected: GET /status, POST /power/off, POST /power/on, POST /fault)");
            }
            reply(ctx, status, body);
        }

        private void reply(ChannelHandlerContext ctx, HttpResponseStatus status, Object body) throws Exception {
            ByteBuf buf = Unpooled.wrappedBuffer(JSON.writeValueAsBytes(body));
            FullHttpResponse r = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, status, buf);
            r.headers().set(HttpHeaderNames.CONTENT_TYPE, "application/json");
            r.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, buf.readableBytes());
            ctx.writeAndFlush(r);
        }
    }

    /** Stops both ports and every thread; idempotent. */
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
