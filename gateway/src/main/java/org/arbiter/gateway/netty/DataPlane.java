package org.arbiter.gateway.netty;

import static java.util.Objects.requireNonNull;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.net.InetSocketAddress;
import java.net.URI;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayHttpConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.Classifier;
import org.arbiter.gateway.DropReason;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.Outcome;
import org.arbiter.gateway.ServerHealth;
import org.arbiter.gateway.Ticket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one {@link GatewayCore} from one Netty event loop: client connections, backend pools,
 * timers. Every client channel and every backend channel of the gateway is registered on that
 * loop, so the core and all handler state are confined to it without locks.
 *
 * <p>Drain: {@link #drain} marks every further response {@code Connection: close}, lets what is
 * queued or at a server finish until the deadline, then answers what is left 503 {@code draining};
 * the 10 ms tick checks for the end. Readiness reads {@link #canServe}, refreshed on the loop.
 *
 * <p>Thread-safety: {@link #applyAllocation}, {@link #snapshot}, {@link #drain} and {@link #close}
 * may be called from any thread (they hand over to the loop), {@link #canServe}, {@link #draining}
 * and {@link #allocation} read volatile fields; everything else runs on the loop.
 */
public final class DataPlane {

    private static final Logger LOG = LoggerFactory.getLogger(DataPlane.class);
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    private final EventLoop loop;
    private final GatewayCore<Exchange> core;
    private Classifier classifier;
    private ClusterConfig cluster;
    private final ClientTls clientTls;
    private final Bootstrap bootstrap;
    /** Client channels of upgraded exchanges (tunnels), cut at a drain's deadline. */
    private final java.util.Set<Channel> tunnels = new java.util.HashSet<>();
    private volatile ConfigVersion configVersion;
    private final DispatchConfig dispatch;
    private final List<BackendPool> pools = new java.util.ArrayList<>();
    private final PlaneListener listener;
    private final Consumer<Allocation> onApplied;
    private final long backendTimeoutNanos;
    private final ScheduledFuture<?> ticker;
    private final GatewayHttpConfig http;
    private final AccessLog accessLog;
    // PROXY protocol refusals, on the loop: one log line per reason per minute
    private static final long PROXY_REFUSAL_LOG_NANOS = TimeUnit.MINUTES.toNanos(1);
    private final long[] proxyRefusalLoggedNanos = new long[ProxyRefusal.values().length];
    private final long[] proxyRefusedSinceLog = new long[ProxyRefusal.values().length];
    // Drain state, on the loop (draining is volatile only for the admin thread's reads).
    private volatile boolean draining;
    private boolean drainForced;
    private long drainStartNanos;
    private long drainDeadlineNanos;
    private int drainHeld;
    private long drainArrived;
    private long drainServed;
    private int drainRefused;
    private int drainCut;
    private Iterable<Channel> drainClients;
    private CompletableFuture<DrainReport> drainDone;
    private HealthProber prober;
    private final LoadPoller poller;
    /** Per server index, its {@code loadUrl} (null: none; the gateway's own counters stand in); renewed on reload. */
    private java.net.URI[] loadUrls;
    private volatile Allocation allocation;
    private volatile boolean canServe = true;

    /**
     * @param onApplied told (on the loop) of every allocation the core accepted
     */
    public DataPlane(EventLoop loop, ClusterConfig cluster, GatewayCore<Exchange> core, PlaneListener listener,
                     Consumer<Allocation> onApplied) {
        this.loop = requireNonNull(loop, "loop");
        this.core = requireNonNull(core, "core");
        this.classifier = Classifier.fromRules(cluster.classes());
        this.cluster = cluster;
        this.configVersion = new ConfigVersion(0, "", java.time.Instant.now());
        try {
            this.clientTls = cluster.servers().stream().anyMatch(sc -> "https".equals(sc.url().getScheme()))
                    ? ClientTls.of(cluster.dispatch().tls()) : null;
        } catch (java.io.IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        this.dispatch = cluster.dispatch();
        this.listener = listener == null ? PlaneListener.NOOP : listener;
        this.onApplied = onApplied == null ? a -> { } : onApplied;
        this.backendTimeoutNanos = (long) (dispatch.backendTimeoutSeconds() * 1e9);
        this.allocation = core.allocation();
        this.http = cluster.gatewayHttp();
        this.accessLog = AccessLog.open(http.accessLog(), core.gatewayId());
        this.bootstrap = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, dispatch.connectTimeoutSeconds() * 1000));
        for (int s = 0; s < core.serverCount(); s++) {
            pools.add(pool(s, cluster.server(core.serverId(s)).orElseThrow().url()));
        }
        core.health().listener(t -> {
            if (t.up()) {
                LOG.info("{}", t.message());
            } else {
                LOG.warn("{} (out for {} ms)", t.message(), TimeUnit.NANOSECONDS.toMillis(t.backoffNanos()));
                pools.get(t.server()).closeAll(); // its idle connections are not to be trusted
            }
            canServe = core.canServe(now());
        });
        this.canServe = core.canServe(now());
        this.prober = prober(cluster);
        this.loadUrls = loadUrls(cluster);
        this.poller = new LoadPoller(loop, cluster.dispatch().pollDeadlineSeconds(), new LoadPoller.Outcome() {
            @Override
            public void answered(int s, int active, int queued) {
                core.pollAnswered(s, active, queued, now());
            }

            @Override
            public void missed(int s) {
                boolean was = core.polls().skipped(s, now());
                core.pollMissed(s, now());
                if (!was && core.polls().skipped(s, now())) {
                    LOG.warn("server {} missed {} load polls in a row: skipped for {} s", core.serverId(s),
                            core.polls().misses(s), org.arbiter.gateway.dispatch.PollBook.SKIP_SECONDS);
                }
            }
        });
        this.ticker = loop.scheduleAtFixedRate(this::tick, TICK_NANOS, TICK_NANOS, TimeUnit.NANOSECONDS);
    }

    EventLoop loop() {
        return loop;
    }

    /** Per server index of the core, the server's {@code loadUrl} in {@code c} (null: none, or no longer configured). */
    private java.net.URI[] loadUrls(ClusterConfig c) {
        java.net.URI[] out = new java.net.URI[core.serverCount()];
        for (int s = 0; s < out.length; s++) {
            out[s] = c.server(core.serverId(s)).map(ServerConfig::loadUrl).orElse(null);
        }
        return out;
    }

    private HealthProber prober(ClusterConfig c) {
        return new HealthProber(loop, c, core, clientTls == null ? null : clientTls::newHandler, (s, ok) -> {
            core.probed(s, ok, now());
            canServe = core.canServe(now());
            pump();
        });
    }

    /** The keep-alive pool of server s at {@code url} (TLS for https://, SNI and verification by its host). */
    private BackendPool pool(int s, URI url) {
        boolean https = "https".equals(url.getScheme());
        if (https && clientTls == null) {
            throw new IllegalStateException("server " + core.serverId(s) + ": " + url + " (expected: TLS set up at start)");
        }
        int port = url.getPort() > 0 ? url.getPort() : https ? 443 : 80;
        String host = url.getHost();
        Bootstrap b = bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
            @Override
            protected void initChannel(SocketChannel ch) {
                if (https) {
                    ch.pipeline().addLast("tls", clientTls.newHandler(ch.alloc(), host, port));
                }
                ch.pipeline().addLast(new HttpClientCodec(), new BackendHandler(DataPlane.this));
            }
        });
        return new BackendPool(b, new InetSocketAddress(host, port), url, () -> core.cap(s));
    }

    DispatchConfig dispatch() {
        return dispatch;
    }

    Classifier classifier() {
        return classifier;
    }

    GatewayHttpConfig http() {
        return http;
    }

    AccessLog accessLog() {
        return accessLog;
    }

    static long now() {
        return System.nanoTime();
    }

    /**
     * A connection closed at the PROXY protocol gate: counted, and logged at most once per reason
     * per minute (with how many since the last line). On the loop.
     */
    void proxyRefused(ProxyRefusal reason, java.net.SocketAddress peer, String detail) {
        safely(() -> listener.proxyRefused(reason));
        int i = reason.ordinal();
        proxyRefusedSinceLog[i]++;
        long now = now();
        if (proxyRefusalLoggedNanos[i] == 0 || now - proxyRefusalLoggedNanos[i] >= PROXY_REFUSAL_LOG_NANOS) {
            LOG.warn("gateway {}: closed a connection from {}: {} (reason {}; {} such since the last line)",
                    core.gatewayId(), peer, detail, reason.wireName(), proxyRefusedSinceLog[i]);
            proxyRefusalLoggedNanos[i] = now;
            proxyRefusedSinceLog[i] = 0;
        }
    }

    // ------------------------------------------------------------ from the frontend

    /** A complete request arrived on a client connection (on the loop). */
    void submit(Exchange ex) {
        listener.arrival(ex.className);
        if (draining) {
            drainArrived++;
            if (drainForced) {
                drainRefused++;
                ex.front.answer(ex, Answers.unavailable(ex.className, DRAINING, 1));
                return;
            }
        }
        Ticket<Exchange> t = core.offer(ex, ex.className, ex.arrivalNanos);
        ex.ticket = t;
        if (!t.accepted()) {
            dropped(ex, DropReason.QUEUE_FULL);
            ex.front.answer(ex, Answers.unavailable(ex.className, DropReason.QUEUE_FULL.wireName(), 1));
            return;
        }
        pump();
    }

    /** The client went away while {@code ex} was queued or at a server. */
    void abandon(Exchange ex) {
        ex.cancelTimeout();
        if (ex.ticket != null) {
            boolean dispatched = ex.ticket.state() == Ticket.State.DISPATCHED;
            if (dispatched || ex.ticket.state() == Ticket.State.QUEUED) {
                safely(() -> listener.cancelled(ex.className, dispatched));
            }
            core.cancel(ex.ticket, now());
            if (dispatched && ex.backend != null) {
                ex.backend.close();
                ex.backend = null;
            }
        }
        pump();
    }

    // ------------------------------------------------------------ dispatching

    /** Releases queued requests while servers have free slots. */
    void pump() {
        long now = now();
        for (Ticket<Exchange> t; (t = core.next(now)) != null; ) {
            if (t.state() == Ticket.State.EXPIRED) {
                refuse(t); // a yield scheduler dropped it: it could earn no yield (zeroYield)
            } else {
                send(t.request());
            }
        }
        for (int s : core.drainPolls()) {
            poller.poll(s, s < loadUrls.length ? loadUrls[s] : null); // only servers with a loadUrl are asked for
        }
    }

    private void send(Exchange ex) {
        ex.responseStarted = false;
        int s = ex.ticket.server();
        ex.cancelTimeout();
        ex.timeout = loop.schedule(() -> backendTimedOut(ex), backendTimeoutNanos, TimeUnit.NANOSECONDS);
        ex.connectFailed = false;
        ex.requestSent = false;
        // A retry after the request had been sent goes on a fresh connection: an idle one to the
        // same server may be as dead as the one that failed, and the retry is the last chance.
        Channel ch = ex.sentFailure ? null : pools.get(s).pollIdle();
        if (ch != null) {
            ex.freshConnection = false;
            write(ex, ch);
            return;
        }
        ChannelFuture f = pools.get(s).connect();
        ex.backend = f.channel();
        ex.freshConnection = true;
        f.addListener(x -> {
            if (ex.finished || ex.backend != f.channel()) {
                f.channel().close();
                return;
            }
            io.netty.handler.ssl.SslHandler tls = x.isSuccess() ? f.channel().pipeline().get(io.netty.handler.ssl.SslHandler.class) : null;
            if (tls != null) {
                // https://: nothing is written before the handshake; a failed one sent nothing (requeued, never 502)
                tls.handshakeFuture().addListener(h -> {
                    if (ex.finished || ex.backend != f.channel()) {
                        f.channel().close();
                    } else if (h.isSuccess()) {
                        write(ex, f.channel());
                    } else {
                        ex.connectFailed = true;
                        LOG.debug("TLS handshake with server {} failed: {}", ex.ticket.serverId(), h.cause().toString());
                        failedBeforeResponse(ex, f.channel(), h.cause());
                    }
                });
            } else if (x.isSuccess()) {
                write(ex, f.channel());
            } else {
                ex.connectFailed = true;
                failedBeforeResponse(ex, f.channel(), x.cause());
            }
        });
    }

    private void write(Exchange ex, Channel ch) {
        ex.backend = ch;
        if (!ch.isActive()) {
            failedBeforeResponse(ex, ch, null); // closed before a byte was written: not sent
            return;
        }
        ch.pipeline().get(BackendHandler.class).bind(ex);
        ex.requestSent = true;
        FullHttpRequest out = ex.request.retainedDuplicate();
        HopByHop.strip(out.headers());
        out.headers().remove(io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.STREAM_ID.text());
        out.headers().remove(io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.SCHEME.text());
        out.headers().remove(io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.PATH.text());
        out.headers().remove(io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.STREAM_DEPENDENCY_ID.text());
        out.headers().remove(io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.STREAM_WEIGHT.text());
        if (ex.upgrade != null) {
            out.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
            out.headers().set(HttpHeaderNames.UPGRADE, ex.upgrade);
        }
        out.setProtocolVersion(io.netty.handler.codec.http.HttpVersion.HTTP_1_1);
        ex.front.addForwardedHeaders(out.headers());
        if (!out.headers().contains(HttpHeaderNames.HOST)) {
            InetSocketAddress a = (InetSocketAddress) ch.remoteAddress();
            out.headers().set(HttpHeaderNames.HOST, a.getHostString() + ":" + a.getPort());
        }
        ch.writeAndFlush(out).addListener(w -> {
            if (!w.isSuccess() && ex.backend == ch && !ex.finished) {
                failedBeforeResponse(ex, ch, w.cause());
            }
        });
    }

    // ------------------------------------------------------------ from the backend

    /** The backend's response head (status {@code status}) is about to be forwarded. */
    void responseStarted(Exchange ex, int status) {
        ex.responseStarted = true;
        core.responded(ex.ticket, status, now());
    }

    /**
     * The server answered 101 to an {@code Upgrade}: the 101 goes to the client and the two
     * connections are spliced. The exchange keeps its server slot (inflight(g,s)) until either side
     * closes; then the slot is freed without a completion in the statistics (a tunnel's lifetime is
     * no response time). The backend connection never returns to the pool.
     */
    void upgraded(Exchange ex, Channel backend, io.netty.handler.codec.http.HttpResponse r) {
        ex.cancelTimeout();
        ex.responseStarted = true;
        core.responded(ex.ticket, 101, now());
        io.netty.handler.codec.http.DefaultFullHttpResponse head = new io.netty.handler.codec.http.DefaultFullHttpResponse(
                io.netty.handler.codec.http.HttpVersion.HTTP_1_1, r.status());
        head.headers().set(r.headers());
        String upgrade = r.headers().get(HttpHeaderNames.UPGRADE, ex.upgrade);
        HopByHop.strip(head.headers());
        head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        head.headers().set(HttpHeaderNames.UPGRADE, upgrade);
        Channel client = ex.front.channel();
        boolean[] ended = new boolean[1];
        Runnable onClose = () -> {
            if (ended[0]) {
                return;
            }
            ended[0] = true;
            tunnels.remove(client);
            ex.backend = null;
            core.complete(ex.ticket, Outcome.CANCELLED, now());
            ex.front.tunnelClosed(ex);
            pump();
        };
        // the HTTP handlers leave the backend pipeline; what the server sent after its 101 goes to the tunnel
        backend.pipeline().remove(BackendHandler.class);
        if (!ex.front.switchProtocols(ex, head, backend, onClose)) {
            backend.close();
            return;
        }
        tunnels.add(client);
        safely(() -> listener.responded(ex.className, now() - ex.arrivalNanos));
        safely(() -> listener.sent(ex.className, 101));
        backend.pipeline().remove(HttpClientCodec.class);
    }

    /** The backend delivered the whole response; {@code reusable} if its connection may carry another. */
    void responseDone(Exchange ex, Channel ch, boolean reusable) {
        ex.cancelTimeout();
        int s = ex.ticket.server();
        ex.backend = null;
        pools.get(s).release(ch, reusable);
        long now = now();
        core.complete(ex.ticket, Outcome.OK, now);
        if (draining) {
            drainServed++;
        }
        safely(() -> listener.responded(ex.className, now - ex.arrivalNanos));
        ex.front.responseFinished(ex);
        pump();
    }

    /**
     * The backend failed before any byte of its response. The core requeues the request at the
     * head of its class queue if it never reached the server, or reached it but is idempotent and
     * failed so for the first time; otherwise the client gets 502.
     */
    void failedBeforeResponse(Exchange ex, Channel ch, Throwable cause) {
        if (ex.finished || ex.ticket.state() != Ticket.State.DISPATCHED) {
            return;
        }
        ch.close();
        ex.backend = null;
        ex.cancelTimeout();
        ServerHealth.Failure failure = failureOf(ex, cause);
        LOG.debug("backend {} failed before responding ({}, sent: {}): {}", ex.ticket.serverId(), failure,
                ex.requestSent, cause == null ? "closed" : cause.toString());
        if (core.failed(ex.ticket, failure, ex.requestSent, ex.idempotent, now())) {
            ex.sentFailure |= ex.requestSent;
            pump();
            return;
        }
        dropped(ex, DropReason.BACKEND_ERROR);
        ex.front.answer(ex, Answers.backend(HttpResponseStatus.BAD_GATEWAY, ex.className, DropReason.BACKEND_ERROR.wireName()));
        pump();
    }

    /**
     * A failed connect is refused or timed out; an I/O error is a reset; a close without one is
     * the server's fault on a fresh connection, and the keep-alive race on a reused one.
     */
    private static ServerHealth.Failure failureOf(Exchange ex, Throwable cause) {
        if (ex.connectFailed) {
            return cause instanceof io.netty.channel.ConnectTimeoutException
                    ? ServerHealth.Failure.CONNECT_TIMEOUT : ServerHealth.Failure.CONNECT_REFUSED;
        }
        if (cause instanceof java.io.IOException && !(cause instanceof java.nio.channels.ClosedChannelException)) {
            return ServerHealth.Failure.RESET;
        }
        return ex.freshConnection ? ServerHealth.Failure.CLOSED : ServerHealth.Failure.KEEP_ALIVE_CLOSED;
    }

    /** The backend broke off a response already being streamed: the client connection is cut. */
    void failedDuringResponse(Exchange ex, Channel ch) {
        if (ex.finished) {
            return;
        }
        ch.close();
        ex.backend = null;
        ex.cancelTimeout();
        core.serverFailed(ex.ticket, ServerHealth.Failure.RESET, now());
        core.complete(ex.ticket, Outcome.BACKEND_ERROR, now());
        dropped(ex, DropReason.BACKEND_ERROR);
        ex.front.abort(ex);
        pump();
    }

    private void backendTimedOut(Exchange ex) {
        ex.timeout = null;
        if (ex.finished || ex.ticket.state() != Ticket.State.DISPATCHED) {
            return;
        }
        Channel ch = ex.backend;
        ex.backend = null;
        if (ch != null) {
            ch.close();
        }
        core.complete(ex.ticket, Outcome.BACKEND_TIMEOUT, now());
        dropped(ex, DropReason.BACKEND_TIMEOUT);
        if (ex.responseStarted) {
            ex.front.abort(ex);
        } else {
            ex.front.answer(ex, Answers.backend(HttpResponseStatus.GATEWAY_TIMEOUT, ex.className,
                    DropReason.BACKEND_TIMEOUT.wireName()));
        }
        pump();
    }

    // ------------------------------------------------------------ timers, allocation, stats

    private void tick() {
        if (draining && drainDone != null && !drainDone.isDone()) {
            checkDrain();
        }
        List<Ticket<Exchange>> expired = core.expireQueued(now());
        for (Ticket<Exchange> t : expired) {
            refuse(t);
        }
        if (core.queued() > 0) {
            pump(); // ejected servers come back for a trial after their backoff
        }
        canServe = core.canServe(now());
    }

    /** The last byte of {@code ex}'s response, status {@code status}, has been written (on the loop). */
    void sent(Exchange ex, int status) {
        safely(() -> listener.sent(ex.className, status));
    }

    /** A queued request the core dropped (queueTimeout, zeroYield): 503 with Retry-After. */
    private void refuse(Ticket<Exchange> t) {
        Exchange ex = t.request();
        DropReason reason = t.dropReason() == null ? DropReason.QUEUE_TIMEOUT : t.dropReason();
        dropped(ex, reason);
        ex.front.answer(ex, Answers.unavailable(ex.className, reason.wireName(), 1));
    }

    private void dropped(Exchange ex, DropReason reason) {
        safely(() -> listener.dropped(ex.className, reason));
    }

    private static void safely(Runnable r) {
        try {
            r.run();
        } catch (RuntimeException e) {
            LOG.warn("listener failed: {}", e.toString());
        }
    }

    // ------------------------------------------------------------ readiness and drain

    /** Whether a drain has begun (thread-safe). */
    public boolean draining() {
        return draining;
    }

    /** Past the drain deadline: every response closes its connection, new requests get 503 (on the loop). */
    boolean drainForced() {
        return drainForced;
    }

    /** The reason in the 503 body of a request still held at the drain deadline. */
    static final String DRAINING = "draining";

    /**
     * What a drain did.
     *
     * @param held     requests queued or at a server when the drain began
     * @param arrived  requests that arrived on open connections during the drain
     * @param served   responses from servers completed during the drain
     * @param refused  requests answered 503 at or after the deadline before reaching a server
     * @param cut      responses being streamed at the deadline (their connection was cut)
     * @param nanos    from the start of the drain to the last request answered
     */
    public record DrainReport(int held, long arrived, long served, int refused, int cut, long nanos) {
        public boolean clean() {
            return refused == 0 && cut == 0;
        }
    }

    /**
     * Starts draining (thread-safe; once): every response from now on closes its connection;
     * requests queued or in flight are answered normally until {@code deadlineNanos}; what is
     * left then is answered 503 {@code draining} with Retry-After (or cut, if its response is
     * being streamed). The future completes, on the loop, once nothing is queued or in flight.
     *
     * @param clients the client connections (to find what is left at the deadline)
     */
    public CompletableFuture<DrainReport> drain(long deadlineNanos, Iterable<Channel> clients) {
        requireNonNull(clients, "clients");
        CompletableFuture<DrainReport> done = new CompletableFuture<>();
        loop.execute(() -> {
            if (drainDone != null) {
                drainDone.whenComplete((r, e) -> done.complete(r));
                return;
            }
            drainDone = done;
            drainClients = clients;
            draining = true;
            drainStartNanos = now();
            drainDeadlineNanos = deadlineNanos;
            drainHeld = core.queued() + core.inFlightTotal();
            checkDrain();
        });
        return done;
    }

    private void checkDrain() {
        long now = now();
        if (!drainForced && now - drainDeadlineNanos >= 0) {
            drainForced = true;
            forceDrain();
        }
        if (core.queued() == 0 && core.inFlightTotal() == 0) {
            drainForced = true; // done: a request arriving before the connections close gets 503, not a reset
            drainDone.complete(new DrainReport(drainHeld, drainArrived, drainServed, drainRefused, drainCut,
                    now - drainStartNanos));
        }
    }

    /** The deadline passed: answer 503 to every request still held, cut responses being streamed. */
    private void forceDrain() {
        long now = now();
        for (Channel t : new java.util.ArrayList<>(tunnels)) {
            drainCut++;
            t.close(); // an upgraded connection (WebSocket) is cut at the deadline
        }
        for (Channel ch : drainClients) {
            FrontendHandler h = ch.pipeline().get(FrontendHandler.class);
            Exchange ex = h == null ? null : h.current();
            if (ex == null || ex.finished || ex.ticket == null) {
                continue;
            }
            ex.cancelTimeout();
            Channel backend = ex.backend;
            ex.backend = null;
            core.cancel(ex.ticket, now);
            if (ex.responseStarted) {
                drainCut++;
                ex.front.abort(ex);
            } else {
                drainRefused++;
                ex.front.answer(ex, Answers.unavailable(ex.className, DRAINING, 1));
            }
            if (backend != null) {
                backend.close();
            }
        }
    }

    /** Hands {@code a} to the loop; the core applies it if it is newer (thread-safe). */
    public void applyAllocation(Allocation a) {
        requireNonNull(a, "a");
        loop.execute(() -> {
            if (core.applyAllocation(a)) {
                allocation = a;
                for (BackendPool p : pools) {
                    p.trim();
                }
                canServe = core.canServe(now());
                try {
                    onApplied.accept(a);
                } catch (RuntimeException e) {
                    LOG.warn("allocation listener failed: {}", e.toString());
                }
                pump();
            }
        });
    }

    /**
     * Whether some server can take a request: one with N(g,s) > 0 that is not ejected (thread-safe;
     * refreshed on the loop every tick and at every transition).
     */
    public boolean canServe() {
        return canServe;
    }

    /** The allocation in force (thread-safe; may lag the loop by one hand-over). */
    public Allocation allocation() {
        return allocation;
    }

    /** The statistics snapshot, computed on the loop (thread-safe). */
    public Future<GatewayStats> snapshot() {
        return loop.submit(() -> core.snapshot(Instant.now(), now()));
    }

    /** The core, for gauges (int reads from other threads, possibly stale) and for tests on the loop. */
    public GatewayCore<?> core() {
        return core;
    }

    /**
     * The version of the configuration in force: a counter (0 at start, +1 per reload that
     * changed something) and the SHA-256 of the file's text, the first 12 hex digits.
     */
    public record ConfigVersion(long counter, String hash, java.time.Instant at) {
    }

    /** The configuration version in force (thread-safe). */
    public ConfigVersion configVersion() {
        return configVersion;
    }

    /** Sets the configuration version of the file the gateway started from (thread-safe). */
    public void configVersion(ConfigVersion v) {
        configVersion = requireNonNull(v, "v");
    }

    /**
     * What a reload did in the data plane: the core's {@link GatewayCore.Reconfiguration} and what
     * else could not be applied.
     */
    public record Reload(GatewayCore.Reconfiguration core, List<String> notApplied, List<String> urlsChanged) {
    }

    /**
     * Takes over {@code next} on the loop without losing a request (docs/gateway.md, Reload): the
     * core's {@link GatewayCore#reconfigure}, the classifier (when the class list is the same),
     * a pool for every added server (a server whose URL changed gets a new pool: requests at it
     * finish on their connections, new ones go to the new address), the health probes. Dispatch
     * settings are not applied live (reported). Thread-safe.
     *
     * @param configured the configured allocation of {@code next} for this gateway
     */
    public CompletableFuture<Reload> reload(ClusterConfig next, Allocation configured, ConfigVersion version) {
        requireNonNull(next, "next");
        CompletableFuture<Reload> done = new CompletableFuture<>();
        loop.execute(() -> {
            try {
                List<String> notApplied = new java.util.ArrayList<>();
                List<String> urls = new java.util.ArrayList<>();
                if (!next.dispatch().equals(dispatch)) {
                    notApplied.add("dispatch: changed (needs a restart; the running gateway keeps the old settings)");
                }
                for (var sc : next.servers()) {
                    if ("https".equals(sc.url().getScheme()) && clientTls == null) {
                        throw new IllegalArgumentException("servers: " + sc.id() + ": " + sc.url()
                                + " is the first https:// server (expected: a restart, to set up dispatch.tls)");
                    }
                }
                GatewayCore.Reconfiguration r = core.reconfigure(next, configured, now());
                boolean sameClasses = r.notApplied().isEmpty();
                if (sameClasses) {
                    classifier = Classifier.fromRules(next.classes());
                }
                for (int s = 0; s < core.serverCount(); s++) {
                    var sc = next.server(core.serverId(s));
                    if (s >= pools.size()) {
                        pools.add(pool(s, sc.orElseThrow().url()));
                    } else if (sc.isPresent() && !sc.get().url().equals(pools.get(s).url())) {
                        pools.get(s).closeAll();
                        pools.set(s, pool(s, sc.get().url()));
                        urls.add(core.serverId(s));
                    }
                }
                for (int s = 0; s < pools.size(); s++) {
                    if (core.retired(s)) {
                        pools.get(s).closeAll();
                    }
                    pools.get(s).trim();
                }
                prober.close();
                prober = prober(next);
                loadUrls = loadUrls(next);
                cluster = next;
                allocation = core.allocation();
                configVersion = version;
                canServe = core.canServe(now());
                pump();
                done.complete(new Reload(r, notApplied, urls));
            } catch (RuntimeException e) {
                done.completeExceptionally(e);
            }
        });
        return done;
    }

    /** Stops the timers and closes idle backend connections (thread-safe). */
    public void close() {
        ticker.cancel(false);
        prober.close();
        loop.execute(() -> {
            for (BackendPool p : pools) {
                p.closeAll();
            }
            accessLog.close();
        });
    }

    static boolean keepAliveOf(io.netty.handler.codec.http.HttpMessage m) {
        return io.netty.handler.codec.http.HttpUtil.isKeepAlive(m)
                && !m.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
    }
}
