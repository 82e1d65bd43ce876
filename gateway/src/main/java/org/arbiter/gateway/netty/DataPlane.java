package org.arbiter.gateway.netty;

import static java.util.Objects.requireNonNull;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
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
import org.arbiter.gateway.classify.Classifiers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one {@link GatewayCore} from N Netty event loops (docs/gateway.md, "Event loops and
 * transport"). Each client connection lives on one loop, and so does everything of its requests:
 * the {@link Exchange}, its backend connection (each loop has its own keep-alive pool per server),
 * its timers. The core is the one piece of state the loops share: every call into it is made
 * under one lock, in short sections that take the core's decision and nothing else. A request
 * the core releases to a server is sent by its own loop: at once when that is the loop that
 * freed the slot, else handed over with {@link EventLoop#execute}. The first loop (home) also runs
 * the 10 ms tick, the health probes, the load polls, allocations, reloads and the drain.
 *
 * <p>With one loop every hand-over is a direct call and the lock is never contended: the
 * single-loop gateway of before, unchanged.
 *
 * <p>Drain: {@link #drain} marks every further response {@code Connection: close}, lets what is
 * queued or at a server finish until the deadline, then answers what is left 503 {@code draining};
 * the 10 ms tick checks for the end. Readiness reads {@link #canServe}, refreshed under the lock.
 *
 * <p>Thread-safety: {@link #applyAllocation}, {@link #snapshot}, {@link #drain} and {@link #close}
 * may be called from any thread (they hand over to the home loop), {@link #canServe}, {@link #draining}
 * and {@link #allocation} read volatile fields; what concerns one request runs on its loop.
 */
public final class DataPlane {

    private static final Logger LOG = LoggerFactory.getLogger(DataPlane.class);
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);

    /** The loop of the timers, probes, polls, allocations, reloads and the drain. */
    private final EventLoop home;
    /** Per event loop, its backend pools (each confined to its loop). */
    private final LoopPools[] loopPools;
    private final GatewayCore<Exchange> core;
    /** Guards every call into {@link #core} (and the drain's counters read with it). */
    private final java.util.concurrent.locks.ReentrantLock lock = new java.util.concurrent.locks.ReentrantLock();
    private final java.util.concurrent.atomic.LongAdder lockAcquired = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder lockContended = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder lockWaitNanos = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder released = new java.util.concurrent.atomic.LongAdder();
    private final java.util.concurrent.atomic.LongAdder handedOver = new java.util.concurrent.atomic.LongAdder();
    private final Class<? extends SocketChannel> socketChannel;
    /** Per server index of the core, its URL (published under the lock before the core may dispatch to it). */
    private volatile URI[] serverUrls;
    private volatile Classifier classifier;
    private ClusterConfig cluster;
    private final ClientTls clientTls;
    /** Client channels of upgraded exchanges (tunnels), cut at a drain's deadline. */
    private final java.util.Set<Channel> tunnels = java.util.concurrent.ConcurrentHashMap.newKeySet();
    private volatile ConfigVersion configVersion;
    private final DispatchConfig dispatch;
    private final PlaneListener listener;
    private final Consumer<Allocation> onApplied;
    private final long backendTimeoutNanos;
    private final ScheduledFuture<?> ticker;
    private final GatewayHttpConfig http;
    private final AccessLog accessLog;
    // PROXY protocol refusals (proxyRefused is synchronized): one log line per reason per minute
    private static final long PROXY_REFUSAL_LOG_NANOS = TimeUnit.MINUTES.toNanos(1);
    private final long[] proxyRefusalLoggedNanos = new long[ProxyRefusal.values().length];
    private final long[] proxyRefusedSinceLog = new long[ProxyRefusal.values().length];
    // Drain state: begun and forced are read by every loop; the counters are bumped by every loop;
    // the rest is the home loop's.
    private volatile boolean draining;
    private volatile boolean drainForced;
    /** The drain has closed the idle client connections once nothing was held (home loop). */
    private boolean idleSwept;
    private long drainStartNanos;
    private long drainDeadlineNanos;
    private int drainHeld;
    private final java.util.concurrent.atomic.AtomicLong drainArrived = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicLong drainServed = new java.util.concurrent.atomic.AtomicLong();
    private final java.util.concurrent.atomic.AtomicInteger drainRefused = new java.util.concurrent.atomic.AtomicInteger();
    private final java.util.concurrent.atomic.AtomicInteger drainCut = new java.util.concurrent.atomic.AtomicInteger();
    private Iterable<Channel> drainClients;
    private volatile CompletableFuture<DrainReport> drainDone;
    private HealthProber prober;
    private final LoadPoller poller;
    /** Per server index, its {@code loadUrl} (null: none; the gateway's own counters stand in); renewed on reload. */
    private volatile java.net.URI[] loadUrls;
    private volatile Allocation allocation;
    private volatile boolean canServe = true;

    /** One loop, NIO backend connections (tests on an embedded channel). */
    public DataPlane(EventLoop loop, ClusterConfig cluster, GatewayCore<Exchange> core, PlaneListener listener,
                     Consumer<Allocation> onApplied) {
        this(List.of(requireNonNull(loop, "loop")), NetTransport.NIO.socketChannel(), cluster, core, listener, onApplied);
    }

    /**
     * @param loops         the event loops client connections are registered on (at least one; the
     *                      first is home); a client channel on any other loop is refused
     * @param socketChannel the class of the connections the gateway opens (the loops' transport)
     * @param onApplied     told (on the home loop) of every allocation the core accepted
     */
    public DataPlane(List<? extends EventLoop> loops, Class<? extends SocketChannel> socketChannel, ClusterConfig cluster,
                     GatewayCore<Exchange> core, PlaneListener listener, Consumer<Allocation> onApplied) {
        if (requireNonNull(loops, "loops").isEmpty()) {
            throw new IllegalArgumentException("loops: empty (expected: at least one event loop)");
        }
        this.home = loops.get(0);
        this.socketChannel = requireNonNull(socketChannel, "socketChannel");
        this.core = requireNonNull(core, "core");
        this.classifier = Classifiers.fromRules(cluster.classes());
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
        URI[] urls = new URI[core.serverCount()];
        for (int s = 0; s < urls.length; s++) {
            urls[s] = cluster.server(core.serverId(s)).orElseThrow().url();
        }
        this.serverUrls = urls;
        this.loopPools = new LoopPools[loops.size()];
        for (int i = 0; i < loopPools.length; i++) {
            loopPools[i] = new LoopPools(loops.get(i));
        }
        core.health().listener(t -> { // inside a core call, under the lock
            if (t.up()) {
                LOG.info("{}", t.message());
            } else {
                LOG.warn("{} (out for {} ms)", t.message(), TimeUnit.NANOSECONDS.toMillis(t.backoffNanos()));
                int s = t.server();
                for (LoopPools lp : loopPools) {
                    lp.loop.execute(() -> lp.closeAll(s)); // its idle connections are not to be trusted
                }
            }
            canServe = core.canServe(now());
        });
        this.canServe = core.canServe(now());
        this.prober = prober(cluster);
        this.loadUrls = loadUrls(cluster);
        this.poller = new LoadPoller(home, socketChannel, cluster.dispatch().pollDeadlineSeconds(), new LoadPoller.Outcome() {
            @Override
            public void answered(int s, int active, int queued) {
                lock();
                try {
                    core.pollAnswered(s, active, queued, now());
                } finally {
                    lock.unlock();
                }
            }

            @Override
            public void missed(int s) {
                boolean skipped;
                lock();
                try {
                    boolean was = core.polls().skipped(s, now());
                    core.pollMissed(s, now());
                    skipped = !was && core.polls().skipped(s, now());
                } finally {
                    lock.unlock();
                }
                if (skipped) {
                    LOG.warn("server {} missed {} load polls in a row: skipped for {} s", core.serverId(s),
                            core.polls().misses(s), org.arbiter.gateway.PollBook.SKIP_SECONDS);
                }
            }
        });
        this.ticker = home.scheduleAtFixedRate(this::tick, TICK_NANOS, TICK_NANOS, TimeUnit.NANOSECONDS);
    }

    /** The home loop: timers, probes, polls, allocations, reloads, the drain. */
    EventLoop loop() {
        return home;
    }

    /** The number of event loops. */
    public int loops() {
        return loopPools.length;
    }

    // ------------------------------------------------------------ the core's lock

    private void lock() {
        if (!lock.tryLock()) {
            long t0 = System.nanoTime();
            lock.lock();
            lockContended.increment();
            lockWaitNanos.add(System.nanoTime() - t0);
        }
        lockAcquired.increment();
    }

    /**
     * How often the loops took the core's lock, how often one had to wait for another, how long
     * they waited in all; how many requests the core released, and how many of those to another
     * loop than the one that released them (a hand-over). Thread-safe; for the meters and the benchmark.
     */
    public record LockStats(long acquired, long contended, long waitNanos, long released, long handedOver) {
    }

    public LockStats lockStats() {
        return new LockStats(lockAcquired.sum(), lockContended.sum(), lockWaitNanos.sum(), released.sum(),
                handedOver.sum());
    }

    /** What a locked section released: requests to send, requests to refuse (on their loops), servers to poll. */
    private static final class Released {
        List<Ticket<Exchange>> send = List.of();
        List<Ticket<Exchange>> refuse = List.of();
        List<Integer> polls = List.of();
    }

    /** Under the lock: every request the core releases now, and the load polls it wants (null: none). */
    private Released releaseLocked(long now) {
        Released r = null;
        for (Ticket<Exchange> t; (t = core.next(now)) != null; ) {
            if (r == null) {
                r = new Released();
            }
            if (t.state() == Ticket.State.EXPIRED) { // a yield scheduler dropped it: it could earn no yield (zeroYield)
                if (r.refuse.isEmpty()) {
                    r.refuse = new java.util.ArrayList<>(2);
                }
                r.refuse.add(t);
            } else {
                if (r.send.isEmpty()) {
                    r.send = new java.util.ArrayList<>(2);
                }
                r.send.add(t);
            }
        }
        List<Integer> polls = core.drainPolls();
        if (!polls.isEmpty()) {
            if (r == null) {
                r = new Released();
            }
            r.polls = polls;
        }
        return r;
    }

    /** After the lock: each released request on its own loop (now, if that is this thread), the polls on home. */
    private void deliver(Released r) {
        if (r == null) {
            return;
        }
        for (int i = 0; i < r.send.size(); i++) {
            onItsLoop(r.send.get(i), false);
        }
        for (int i = 0; i < r.refuse.size(); i++) {
            onItsLoop(r.refuse.get(i), true);
        }
        if (!r.polls.isEmpty()) {
            List<Integer> polls = r.polls;
            URI[] urls = loadUrls;
            Runnable ask = () -> {
                for (int s : polls) {
                    poller.poll(s, s < urls.length ? urls[s] : null); // only servers with a loadUrl are asked for
                }
            };
            if (home.inEventLoop()) {
                ask.run();
            } else {
                home.execute(ask);
            }
        }
    }

    private void onItsLoop(Ticket<Exchange> t, boolean expired) {
        Exchange ex = t.request();
        released.increment();
        if (ex.loop.inEventLoop()) {
            released(t, expired);
        } else {
            handedOver.increment();
            ex.loop.execute(() -> released(t, expired));
        }
    }

    /** On the exchange's loop: the core released {@code t} to a server (or, expired, dropped it). */
    private void released(Ticket<Exchange> t, boolean expired) {
        if (expired) {
            refuse(t);
            return;
        }
        Exchange ex = t.request();
        // the client may have left (abandon cancelled the ticket) while the hand-over was queued
        if (ex.finished || ex.ticket != t || t.state() != Ticket.State.DISPATCHED) {
            return;
        }
        send(ex);
    }

    /** A locked section that only reads or updates the core, then delivers what it released. */
    private void pumpLocked(Runnable coreCall) {
        Released r;
        lock();
        try {
            coreCall.run();
            r = releaseLocked(now());
        } finally {
            lock.unlock();
        }
        deliver(r);
    }

    private LoopPools poolsOf(EventLoop loop) {
        for (LoopPools lp : loopPools) {
            if (lp.loop == loop) {
                return lp;
            }
        }
        throw new IllegalStateException("a connection on an event loop this data plane does not run (" + loop + ")");
    }

    /**
     * The backend pools of one event loop, created on first use for each server and renewed when
     * the server's URL changes (reload). Confined to its loop.
     */
    private final class LoopPools {
        final EventLoop loop;
        final Bootstrap bootstrap;
        BackendPool[] pools = new BackendPool[0];

        LoopPools(EventLoop loop) {
            this.loop = loop;
            this.bootstrap = new Bootstrap().group(loop).channel(socketChannel)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, (int) Math.max(1, dispatch.connectTimeoutSeconds() * 1000));
        }

        /** Server s's pool on this loop, at its current URL. */
        BackendPool pool(int s) {
            URI[] urls = serverUrls;
            if (s >= pools.length) {
                pools = java.util.Arrays.copyOf(pools, Math.max(s + 1, urls.length));
            }
            BackendPool p = pools[s];
            if (p == null || !p.url().equals(urls[s])) {
                if (p != null) {
                    p.closeAll(); // the server moved: requests at the old address finish on their connections
                }
                p = newPool(this, s, urls[s]);
                pools[s] = p;
            }
            return p;
        }

        /** Server s's pool on this loop, or null if none was made yet. */
        BackendPool existing(int s) {
            return s < pools.length ? pools[s] : null;
        }

        void closeAll(int s) {
            BackendPool p = existing(s);
            if (p != null) {
                p.closeAll();
            }
        }

        void closeAll() {
            for (BackendPool p : pools) {
                if (p != null) {
                    p.closeAll();
                }
            }
        }

        void trim() {
            for (BackendPool p : pools) {
                if (p != null) {
                    p.trim();
                }
            }
        }

        /** After a reload: retired servers' idle connections closed, moved servers' pools renewed, caps trimmed. */
        void refresh(boolean[] retired) {
            URI[] urls = serverUrls;
            for (int s = 0; s < pools.length; s++) {
                BackendPool p = pools[s];
                if (p == null) {
                    continue;
                }
                if ((s < retired.length && retired[s]) || s >= urls.length || !p.url().equals(urls[s])) {
                    p.closeAll();
                    if (s >= urls.length || !p.url().equals(urls[s])) {
                        pools[s] = null;
                        continue;
                    }
                }
                p.trim();
            }
        }
    }

    /** Runs {@code r} on every loop (at once on this one). */
    private void onEveryLoop(java.util.function.Consumer<LoopPools> r) {
        for (LoopPools lp : loopPools) {
            if (lp.loop.inEventLoop()) {
                r.accept(lp);
            } else {
                lp.loop.execute(() -> r.accept(lp));
            }
        }
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
        return new HealthProber(home, socketChannel, c, core, clientTls == null ? null : clientTls::newHandler,
                (s, ok) -> pumpLocked(() -> {
                    core.probed(s, ok, now());
                    canServe = core.canServe(now());
                }));
    }

    /** The keep-alive pool of server s at {@code url} on one loop (TLS for https://, SNI and verification by its host). */
    private BackendPool newPool(LoopPools lp, int s, URI url) {
        boolean https = "https".equals(url.getScheme());
        if (https && clientTls == null) {
            throw new IllegalStateException("server " + core.serverId(s) + ": " + url + " (expected: TLS set up at start)");
        }
        int port = url.getPort() > 0 ? url.getPort() : https ? 443 : 80;
        String host = url.getHost();
        Bootstrap b = lp.bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
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
     * per minute (with how many since the last line). On any loop.
     */
    synchronized void proxyRefused(ProxyRefusal reason, java.net.SocketAddress peer, String detail) {
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

    /** A complete request arrived on a client connection (on its loop). */
    void submit(Exchange ex) {
        listener.arrival(ex.className);
        if (draining) {
            drainArrived.incrementAndGet();
            if (drainForced) {
                drainRefused.incrementAndGet();
                ex.front.answer(ex, Answers.unavailable(ex.className, DRAINING, 1));
                return;
            }
        }
        Released r = null;
        boolean accepted;
        lock();
        try {
            Ticket<Exchange> t = core.offer(ex, ex.className, ex.arrivalNanos);
            ex.ticket = t;
            accepted = t.accepted();
            if (accepted) {
                r = releaseLocked(now());
            }
        } finally {
            lock.unlock();
        }
        if (!accepted) {
            dropped(ex, DropReason.QUEUE_FULL);
            ex.front.answer(ex, Answers.unavailable(ex.className, DropReason.QUEUE_FULL.wireName(), 1));
            return;
        }
        deliver(r);
    }

    /** The client went away while {@code ex} was queued or at a server (on its loop). */
    void abandon(Exchange ex) {
        ex.cancelTimeout();
        if (ex.ticket == null) {
            return;
        }
        boolean dispatched;
        boolean counted;
        Released r;
        lock();
        try {
            Ticket.State state = ex.ticket.state();
            dispatched = state == Ticket.State.DISPATCHED;
            counted = dispatched || state == Ticket.State.QUEUED;
            core.cancel(ex.ticket, now());
            r = releaseLocked(now());
        } finally {
            lock.unlock();
        }
        if (counted) {
            safely(() -> listener.cancelled(ex.className, dispatched));
        }
        if (dispatched && ex.backend != null) {
            ex.backend.close();
            ex.backend = null;
        }
        deliver(r);
    }

    // ------------------------------------------------------------ dispatching

    /** Releases queued requests while servers have free slots (any thread). */
    void pump() {
        pumpLocked(() -> { });
    }

    private void send(Exchange ex) {
        ex.responseStarted = false;
        int s = ex.ticket.server();
        ex.cancelTimeout();
        ex.timeout = ex.loop.schedule(() -> backendTimedOut(ex), backendTimeoutNanos, TimeUnit.NANOSECONDS);
        ex.connectFailed = false;
        ex.requestSent = false;
        BackendPool pool = poolsOf(ex.loop).pool(s);
        // A retry after the request had been sent goes on a fresh connection: an idle one to the
        // same server may be as dead as the one that failed, and the retry is the last chance.
        Channel ch = ex.sentFailure ? null : pool.pollIdle();
        if (ch != null) {
            ex.freshConnection = false;
            write(ex, ch);
            return;
        }
        ChannelFuture f = pool.connect();
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
        FullHttpRequest out = forwardable(ex, ch);
        ch.writeAndFlush(out).addListener(w -> {
            if (!w.isSuccess() && ex.backend == ch && !ex.finished) {
                failedBeforeResponse(ex, ch, w.cause());
            }
        });
    }

    /**
     * The request as it goes to a server. Its headers are rewritten once per exchange, in place
     * (hop-by-hop fields out, HTTP/2's extension fields out, {@code Upgrade} back for a tunnel, the
     * forwarded fields in), and every attempt sends them as they are: no copy per attempt, and a
     * retry does not append its client to {@code X-Forwarded-For} twice. The client's request line
     * (its version decides the answer's keep-alive) stays as it came; what is sent is HTTP/1.1. A
     * {@code Host} the gateway had to add names the server of this attempt.
     */
    private static FullHttpRequest forwardable(Exchange ex, Channel ch) {
        FullHttpRequest in = ex.request;
        io.netty.handler.codec.http.HttpHeaders h = in.headers();
        if (!ex.prepared) {
            ex.prepared = true;
            HopByHop.strip(h);
            h.remove(io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.STREAM_ID.text());
            h.remove(io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.SCHEME.text());
            h.remove(io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.PATH.text());
            h.remove(io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.STREAM_DEPENDENCY_ID.text());
            h.remove(io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames.STREAM_WEIGHT.text());
            if (ex.upgrade != null) {
                h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
                h.set(HttpHeaderNames.UPGRADE, ex.upgrade);
            }
            ex.front.addForwardedHeaders(h);
            ex.hostAdded = !h.contains(HttpHeaderNames.HOST);
        }
        if (ex.hostAdded) {
            InetSocketAddress a = (InetSocketAddress) ch.remoteAddress();
            h.set(HttpHeaderNames.HOST, a.getHostString() + ":" + a.getPort());
        }
        return new io.netty.handler.codec.http.DefaultFullHttpRequest(io.netty.handler.codec.http.HttpVersion.HTTP_1_1,
                in.method(), in.uri(), in.content().retainedDuplicate(), h, in.trailingHeaders());
    }

    // ------------------------------------------------------------ from the backend

    /** The backend's response head (status {@code status}) is about to be forwarded. */
    void responseStarted(Exchange ex, int status) {
        ex.responseStarted = true;
        lock();
        try {
            core.responded(ex.ticket, status, now());
        } finally {
            lock.unlock();
        }
    }

    /**
     * The server answered 101 to an {@code Upgrade}: the 101 goes to the client and the two
     * connections are spliced. The exchange keeps its server slot (inflight(g,s)) until either side
     * closes; then the slot is freed without a completion in the statistics (a tunnel's lifetime is
     * no response time). The backend connection never returns to the pool.
     */
    void upgraded(Exchange ex, Channel backend, io.netty.handler.codec.http.HttpResponse r) {
        ex.cancelTimeout();
        responseStarted(ex, 101);
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
            ex.front.tunnelClosed(ex);
            pumpLocked(() -> core.complete(ex.ticket, Outcome.CANCELLED, now()));
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
        BackendPool pool = poolsOf(ex.loop).existing(s);
        if (pool != null) {
            pool.release(ch, reusable);
        } else {
            ch.close();
        }
        long now = now();
        Released r;
        lock();
        try {
            core.complete(ex.ticket, Outcome.OK, now);
            r = releaseLocked(now);
        } finally {
            lock.unlock();
        }
        if (draining) {
            drainServed.incrementAndGet();
        }
        safely(() -> listener.responded(ex.className, now - ex.arrivalNanos));
        ex.front.responseFinished(ex);
        deliver(r);
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
        boolean requeued;
        Released r;
        lock();
        try {
            requeued = core.failed(ex.ticket, failure, ex.requestSent, ex.idempotent, now());
            if (requeued) {
                ex.sentFailure |= ex.requestSent; // before another loop may send the retry
            }
            r = releaseLocked(now());
        } finally {
            lock.unlock();
        }
        if (!requeued) {
            dropped(ex, DropReason.BACKEND_ERROR);
            ex.front.answer(ex, Answers.backend(HttpResponseStatus.BAD_GATEWAY, ex.className,
                    DropReason.BACKEND_ERROR.wireName()));
        }
        deliver(r);
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
        dropped(ex, DropReason.BACKEND_ERROR);
        ex.front.abort(ex);
        pumpLocked(() -> {
            core.serverFailed(ex.ticket, ServerHealth.Failure.RESET, now());
            core.complete(ex.ticket, Outcome.BACKEND_ERROR, now());
        });
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
        dropped(ex, DropReason.BACKEND_TIMEOUT);
        if (ex.responseStarted) {
            ex.front.abort(ex);
        } else {
            ex.front.answer(ex, Answers.backend(HttpResponseStatus.GATEWAY_TIMEOUT, ex.className,
                    DropReason.BACKEND_TIMEOUT.wireName()));
        }
        pumpLocked(() -> core.complete(ex.ticket, Outcome.BACKEND_TIMEOUT, now()));
    }

    // ------------------------------------------------------------ timers, allocation, stats

    private void tick() {
        if (draining && drainDone != null && !drainDone.isDone()) {
            checkDrain();
        }
        List<Ticket<Exchange>> expired;
        Released r = null;
        lock();
        try {
            expired = core.expireQueued(now());
            if (core.queued() > 0) {
                r = releaseLocked(now()); // ejected servers come back for a trial after their backoff
            }
            canServe = core.canServe(now());
        } finally {
            lock.unlock();
        }
        for (Ticket<Exchange> t : expired) {
            Exchange ex = t.request();
            if (ex.loop.inEventLoop()) {
                refuse(t);
            } else {
                ex.loop.execute(() -> refuse(t));
            }
        }
        deliver(r);
    }

    /** The last byte of {@code ex}'s response, status {@code status}, has been written (on its loop). */
    void sent(Exchange ex, int status) {
        safely(() -> listener.sent(ex.className, status));
    }

    /** A queued request the core dropped (queueTimeout, zeroYield): 503 with Retry-After (on its loop). */
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

    /**
     * The drain's own completion (on the home loop, once nothing is held and the idle connections are
     * closed; before the gateway closes the remaining connections and reports), or null before
     * {@link #drain} ran on the home loop (thread-safe).
     */
    public CompletableFuture<DrainReport> drainFinished() {
        return drainDone;
    }

    /** Past the drain deadline: every response closes its connection, new requests get 503 (thread-safe). */
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
     * requests queued or in flight, and requests that arrive on connections still open, are answered
     * normally until {@code deadlineNanos}; once nothing is held, the connections that carry no request
     * are closed before the drain ends (so none can bring a request only a 503 could answer); what is
     * left then is answered 503 {@code draining} with Retry-After (or cut, if its response is
     * being streamed). The future completes, on the loop, once nothing is queued or in flight.
     *
     * @param clients the client connections (to find what is left at the deadline)
     */
    public CompletableFuture<DrainReport> drain(long deadlineNanos, Iterable<Channel> clients) {
        requireNonNull(clients, "clients");
        CompletableFuture<DrainReport> done = new CompletableFuture<>();
        home.execute(() -> {
            if (drainDone != null) {
                drainDone.whenComplete((r, e) -> done.complete(r));
                return;
            }
            drainDone = done;
            drainClients = clients;
            draining = true;
            drainStartNanos = now();
            drainDeadlineNanos = deadlineNanos;
            lock();
            try {
                drainHeld = core.queued() + core.inFlightTotal();
            } finally {
                lock.unlock();
            }
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
        boolean empty;
        lock();
        try {
            empty = core.queued() == 0 && core.inFlightTotal() == 0;
        } finally {
            lock.unlock();
        }
        if (empty && !drainForced && !idleSwept) {
            // Nothing held: close every client connection that carries no request, each on its loop,
            // then look again. A request read before its connection's turn is in the core by then
            // and is served (its response closes the connection); one sent later meets a closed
            // connection, which a client retries elsewhere.
            idleSwept = true;
            List<Channel> open = new java.util.ArrayList<>();
            drainClients.forEach(open::add);
            java.util.concurrent.atomic.AtomicInteger left = new java.util.concurrent.atomic.AtomicInteger(open.size() + 1);
            Runnable oneDone = () -> {
                if (left.decrementAndGet() == 0) {
                    home.execute(this::checkDrain);
                }
            };
            for (Channel ch : open) {
                ch.eventLoop().execute(() -> {
                    try {
                        closeIfIdle(ch);
                    } finally {
                        oneDone.run();
                    }
                });
            }
            oneDone.run();
            return;
        }
        if (empty) {
            drainForced = true; // done: a request arriving before the connections close gets 503, not a reset
            drainDone.complete(new DrainReport(drainHeld, drainArrived.get(), drainServed.get(), drainRefused.get(),
                    drainCut.get(), now - drainStartNanos));
        }
    }

    /**
     * The deadline passed: answer 503 to every request still held, cut responses being streamed.
     * Each client connection is handled on its own loop; the drain ends on a later tick.
     */
    private void forceDrain() {
        for (Channel t : new java.util.ArrayList<>(tunnels)) {
            drainCut.incrementAndGet();
            t.close(); // an upgraded connection (WebSocket) is cut at the deadline
        }
        for (Channel ch : drainClients) {
            if (ch.eventLoop().inEventLoop()) {
                forceDrain(ch);
            } else {
                ch.eventLoop().execute(() -> forceDrain(ch));
            }
        }
    }

    /** On the connection's loop, at the start of a drain: closes it if it carries no request. */
    private static void closeIfIdle(Channel ch) {
        io.netty.channel.ChannelHandlerContext ctx = ch.pipeline().context(FrontendHandler.class);
        if (ctx != null) {
            ((FrontendHandler) ctx.handler()).closeIfIdleForDrain(ctx);
        }
    }

    /** On the connection's loop: its request still held at the drain deadline is answered 503 or cut. */
    private void forceDrain(Channel ch) {
        FrontendHandler h = ch.pipeline().get(FrontendHandler.class);
        Exchange ex = h == null ? null : h.current();
        if (ex == null || ex.finished || ex.ticket == null) {
            return;
        }
        ex.cancelTimeout();
        Channel backend = ex.backend;
        ex.backend = null;
        lock();
        try {
            core.cancel(ex.ticket, now());
        } finally {
            lock.unlock();
        }
        if (ex.responseStarted) {
            drainCut.incrementAndGet();
            ex.front.abort(ex);
        } else {
            drainRefused.incrementAndGet();
            ex.front.answer(ex, Answers.unavailable(ex.className, DRAINING, 1));
        }
        if (backend != null) {
            backend.close();
        }
    }

    /** Hands {@code a} to the home loop; the core applies it if it is newer (thread-safe). */
    public void applyAllocation(Allocation a) {
        requireNonNull(a, "a");
        home.execute(() -> {
            boolean applied;
            Released r = null;
            lock();
            try {
                applied = core.applyAllocation(a);
                if (applied) {
                    allocation = a;
                    canServe = core.canServe(now());
                    r = releaseLocked(now());
                }
            } finally {
                lock.unlock();
            }
            if (applied) {
                onEveryLoop(LoopPools::trim);
                try {
                    onApplied.accept(a);
                } catch (RuntimeException e) {
                    LOG.warn("allocation listener failed: {}", e.toString());
                }
                deliver(r);
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

    /** The statistics snapshot, computed on the home loop under the core's lock (thread-safe). */
    public Future<GatewayStats> snapshot() {
        return home.submit(() -> {
            lock();
            try {
                return core.snapshot(Instant.now(), now());
            } finally {
                lock.unlock();
            }
        });
    }

    /** {@code f} of the core, under the core's lock: a consistent reading from any thread. */
    public <T> T withCore(java.util.function.Function<GatewayCore<?>, T> f) {
        lock();
        try {
            return f.apply(core);
        } finally {
            lock.unlock();
        }
    }

    /** The core, for gauges (int reads from other threads, possibly stale) and for tests. */
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
        home.execute(() -> {
            try {
                List<String> notApplied = new java.util.ArrayList<>();
                List<String> urlsChanged = new java.util.ArrayList<>();
                if (!next.dispatch().equals(dispatch)) {
                    notApplied.add("dispatch: changed (needs a restart; the running gateway keeps the old settings)");
                }
                for (var sc : next.servers()) {
                    if ("https".equals(sc.url().getScheme()) && clientTls == null) {
                        throw new IllegalArgumentException("servers: " + sc.id() + ": " + sc.url()
                                + " is the first https:// server (expected: a restart, to set up dispatch.tls)");
                    }
                }
                GatewayCore.Reconfiguration r;
                boolean[] retired;
                Released released;
                lock();
                try {
                    r = core.reconfigure(next, configured, now());
                    if (r.notApplied().isEmpty()) {
                        classifier = Classifiers.fromRules(next.classes());
                    }
                    URI[] old = serverUrls;
                    URI[] urls = java.util.Arrays.copyOf(old, core.serverCount());
                    retired = new boolean[core.serverCount()];
                    for (int s = 0; s < urls.length; s++) {
                        var sc = next.server(core.serverId(s));
                        if (sc.isPresent()) {
                            if (s < old.length && !sc.get().url().equals(old[s])) {
                                urlsChanged.add(core.serverId(s));
                            }
                            urls[s] = sc.get().url();
                        }
                        retired[s] = core.retired(s);
                    }
                    serverUrls = urls; // before the core may dispatch to an added server
                    allocation = core.allocation();
                    canServe = core.canServe(now());
                    released = releaseLocked(now());
                } finally {
                    lock.unlock();
                }
                onEveryLoop(lp -> lp.refresh(retired));
                prober.close();
                prober = prober(next);
                loadUrls = loadUrls(next);
                cluster = next;
                configVersion = version;
                deliver(released);
                done.complete(new Reload(r, notApplied, urlsChanged));
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
        onEveryLoop(LoopPools::closeAll);
        home.execute(accessLog::close);
    }

    static boolean keepAliveOf(io.netty.handler.codec.http.HttpMessage m) {
        return io.netty.handler.codec.http.HttpUtil.isKeepAlive(m)
                && !m.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
    }
}
