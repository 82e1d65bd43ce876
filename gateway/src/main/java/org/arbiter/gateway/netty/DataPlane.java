package org.arbiter.gateway.netty;

import static java.util.Objects.requireNonNull;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMessage;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.util.concurrent.Future;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.net.SocketAddress;
import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayHttpConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.Classifier;
import org.arbiter.gateway.Drain;
import org.arbiter.gateway.DrainReport;
import org.arbiter.gateway.DropReason;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.Ticket;
import org.arbiter.gateway.classify.Classifiers;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drives one {@link GatewayCore} from N Netty event loops (docs/gateway.md, "Event loops and
 * transport" and "The data plane's parts"): the wiring of the data plane's parts. Each client
 * connection lives on one loop, and so does everything of its requests: the {@link Attempt}, its
 * backend connection ({@link BackendPools}: each loop has its own keep-alive pool per server), its
 * timers. The core is the one piece of state the loops share, behind the {@link LockedCore}.
 *
 * <p>A request's path runs one way: {@link FrontendHandler} → {@link #submit} → the core (queued)
 * → released on its loop → {@link Forwarder#send} → {@link BackendHandler} → {@link Forwarder}
 * (streamed, done, failed, retried) → {@link FrontendHandler} (answered) → {@link #sent}.
 *
 * <p>The first loop (home) also runs the 10 ms tick (queue timeouts, readiness, the drain), the
 * {@link ServerChecks} (health probes, load polls), allocations and reloads. The drain is the pure
 * {@link Drain}: this class only carries out its steps on the connections.
 *
 * <p>Thread-safety: {@link #applyAllocation}, {@link #snapshot}, {@link #drain}, {@link #reload} and
 * {@link #close} may be called from any thread (they hand over to the home loop), {@link #canServe},
 * {@link #draining} and {@link #allocation} read volatile fields; what concerns one request runs on its loop.
 */
public final class DataPlane {

    private static final Logger LOG = LoggerFactory.getLogger(DataPlane.class);
    private static final long TICK_NANOS = TimeUnit.MILLISECONDS.toNanos(10);
    /** The reason in the 503 body of a request still held at the drain deadline. */
    static final String DRAINING = "draining";
    /** The 503 reason of an upgrade over {@code dispatch.tunnelShare}. */
    static final String TUNNELS_FULL = "tunnelsFull";

    /** The loop of the timers, probes, polls, allocations, reloads and the drain. */
    private final EventLoop home;
    private final LockedCore locked;
    private final GatewayCore<Attempt> core;
    private final BackendPools pools;
    private final Forwarder forwarder;
    private final ServerChecks checks;
    private final Drain drain = new Drain();
    private final Drainer drainer;
    private final PlaneListener listener;
    private final Consumer<Allocation> onApplied;
    private final ProxyRefusals proxyRefusals;
    private final ClientTls clientTls;
    private final DispatchConfig dispatch;
    private final GatewayHttpConfig http;
    private final AccessLog accessLog;
    private final ConnectionLimit connections;
    private final BodyBudget bodyBudget;
    private final TunnelBudget tunnelBudget;
    private final ScheduledFuture<?> ticker;
    private volatile Classifier classifier;
    private volatile ConfigVersion configVersion;
    private volatile Allocation allocation;
    private volatile boolean canServe = true;

    /** One loop, NIO backend connections (tests on an embedded channel). */
    public DataPlane(EventLoop loop, ClusterConfig cluster, GatewayCore<Attempt> core, PlaneListener listener,
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
                     GatewayCore<Attempt> core, PlaneListener listener, Consumer<Allocation> onApplied) {
        if (requireNonNull(loops, "loops").isEmpty()) {
            throw new IllegalArgumentException("loops: empty (expected: at least one event loop)");
        }
        this.home = loops.get(0);
        this.core = requireNonNull(core, "core");
        this.locked = new LockedCore(core);
        this.classifier = Classifiers.fromRules(cluster.classes());
        this.configVersion = new ConfigVersion(0, "", Instant.now());
        try {
            this.clientTls = cluster.servers().stream().anyMatch(sc -> "https".equals(sc.url().getScheme()))
                    ? ClientTls.of(cluster.dispatch().tls()) : null;
        } catch (IOException e) {
            throw new IllegalArgumentException(e.getMessage(), e);
        }
        this.dispatch = cluster.dispatch();
        this.listener = new GuardedListener(listener);
        this.onApplied = onApplied == null ? a -> { } : onApplied;
        this.allocation = core.allocation();
        this.http = cluster.gatewayHttp();
        this.accessLog = AccessLog.open(http.accessLog(), core.gatewayId());
        this.connections = ConnectionLimit.of(http.maxConnections());
        this.bodyBudget = BodyBudget.of(http.bodyBudgetBytes());
        this.tunnelBudget = new TunnelBudget(dispatch.tunnelShare());
        this.proxyRefusals = new ProxyRefusals(core.gatewayId(), this.listener);
        URI[] urls = new URI[core.serverCount()];
        for (int s = 0; s < urls.length; s++) {
            urls[s] = cluster.server(core.serverId(s)).orElseThrow().url();
        }
        this.pools = new BackendPools(loops, requireNonNull(socketChannel, "socketChannel"),
                dispatch.connectTimeoutSeconds(), clientTls, urls, core::cap, core::serverId);
        this.forwarder = new Forwarder(locked, pools, this.listener, drain, dispatch.backendTimeoutSeconds());
        this.drainer = new Drainer(home, locked, drain, forwarder.tunnels());
        this.checks = new ServerChecks(home, socketChannel, cluster, locked, clientTls,
                s -> pools.later(l -> l.closeAll(s)), // a server went down: its idle connections are not to be trusted
                () -> canServe = core.canServe(now()));
        locked.deliverTo(new LockedCore.Delivery() {
            @Override
            public void send(Ticket<Attempt> t) {
                released(t);
            }

            @Override
            public void refuse(Ticket<Attempt> t) {
                DataPlane.this.refuse(t);
            }

            @Override
            public void poll(List<Integer> servers) {
                checks.poll(servers);
            }
        });
        this.canServe = core.canServe(now());
        this.ticker = home.scheduleAtFixedRate(this::tick, TICK_NANOS, TICK_NANOS, TimeUnit.NANOSECONDS);
    }

    /** The home loop: timers, probes, polls, allocations, reloads, the drain. */
    EventLoop loop() {
        return home;
    }

    /** The number of event loops. */
    public int loops() {
        return pools.loops();
    }

    /** The core's lock: how often it was taken and waited for, requests released and handed over (thread-safe). */
    public LockedCore.Stats lockStats() {
        return locked.stats();
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

    /** gateway.maxConnections of the data port. */
    ConnectionLimit connections() {
        return connections;
    }

    /** gateway.bodyBudget. */
    BodyBudget bodyBudget() {
        return bodyBudget;
    }

    /** Client connections refused over gateway.maxConnections since start (thread-safe). */
    public long connectionsRefused() {
        return connections.refused();
    }

    /** Client connections open on the data port (thread-safe). */
    public int connectionsOpen() {
        return connections.open();
    }

    /** Bytes of request bodies held within gateway.bodyBudget now (thread-safe). */
    public long bodyBytesHeld() {
        return bodyBudget.held();
    }

    /** Requests answered 503 bodyBudget since start (thread-safe). */
    public long bodyBudgetRefused() {
        return bodyBudget.refusedCount();
    }

    /** Upgrades held now, queued, at a server or tunnelling, within dispatch.tunnelShare (thread-safe). */
    public int upgradesHeld() {
        return tunnelBudget.held();
    }

    /** Upgrades answered 503 tunnelsFull since start (thread-safe). */
    public long upgradesRefused() {
        return tunnelBudget.refused();
    }

    static long now() {
        return System.nanoTime();
    }

    /** A connection closed at the PROXY protocol gate (on any loop): counted, and logged at most once a minute per reason. */
    void proxyRefused(ProxyRefusal reason, SocketAddress peer, String detail) {
        proxyRefusals.refused(reason, peer, detail, now());
    }

    // ------------------------------------------------------------ a request's path

    /** A complete request arrived on a client connection (on its loop): to the core, or answered 503. */
    void submit(Attempt a) {
        listener.arrival(a.className);
        LockedCore.Released r = null;
        boolean accepted = false;
        DropReason refused = DropReason.QUEUE_FULL;
        boolean tunnelsFull = false;
        boolean draining = false;
        locked.lock();
        try {
            // Under the core's lock, as the drain's begin and its look at the holdings are: otherwise a
            // drain could finish between this request's arrival and its offer, and report it as never
            // served (a clean-clone run: held 2, arrived 1, served 2).
            if (drain.draining()) {
                drain.arrived();
                if (drain.forced()) {
                    drain.refused();
                    draining = true;
                }
            }
            tunnelsFull = !draining && a.upgrade != null && !a.holdTunnel(tunnelBudget, slotsLocked());
            if (!draining && !tunnelsFull) {
                Ticket<Attempt> t = core.offer(a, a.className, a.arrivalNanos);
                a.offered(t);
                accepted = t.accepted();
                if (!accepted && t.dropReason() != null) {
                    refused = t.dropReason(); // queueFull, or shed by the local admission path
                }
                if (accepted) {
                    r = locked.releaseLocked(now());
                }
            }
        } finally {
            locked.unlock();
        }
        if (draining) {
            a.front.answer(a, Answers.unavailable(a.className, DRAINING, 1));
            return;
        }
        if (tunnelsFull) {
            // not offered to the core: no queue place, no drop in its statistics (like a drain's refusal)
            a.front.answer(a, Answers.unavailable(a.className, TUNNELS_FULL, 1));
            return;
        }
        if (!accepted) {
            listener.dropped(a.className, refused);
            a.front.answer(a, Answers.unavailable(a.className, refused.wireName(), 1));
            return;
        }
        locked.deliver(r);
    }

    /** Σ_s N(g,s) in force; under the core's lock. */
    private int slotsLocked() {
        int slots = 0;
        for (int s = 0; s < core.serverCount(); s++) {
            slots += core.cap(s);
        }
        return slots;
    }

    /** On the request's loop: the core released {@code t} to a server. */
    private void released(Ticket<Attempt> t) {
        Attempt a = t.request();
        // the client may have left (abandon cancelled the ticket) while the hand-over was queued
        if (a.over() || a.ticket() != t || t.state() != Ticket.State.DISPATCHED) {
            return;
        }
        forwarder.send(a);
    }

    /** On the request's loop: the core dropped {@code t} from its queue (queueTimeout, zeroYield): 503 with Retry-After. */
    private void refuse(Ticket<Attempt> t) {
        Attempt a = t.request();
        DropReason reason = t.dropReason() == null ? DropReason.QUEUE_TIMEOUT : t.dropReason();
        listener.dropped(a.className, reason);
        a.front.answer(a, Answers.unavailable(a.className, reason.wireName(), 1));
    }

    /** The last byte of {@code a}'s answer, status {@code status}, has been written (on its loop). */
    void sent(Attempt a, int status) {
        listener.sent(a.className, status);
    }

    /** The client went away while {@code a} was queued or at a server (on its loop). */
    void abandon(Attempt a) {
        a.cancelTimeout();
        if (a.ticket() == null) {
            return;
        }
        boolean dispatched;
        boolean counted;
        LockedCore.Released r;
        locked.lock();
        try {
            Ticket.State state = a.ticket().state();
            dispatched = state == Ticket.State.DISPATCHED;
            counted = dispatched || state == Ticket.State.QUEUED;
            Forwarder.tellRespondedLocked(core, a, now());
            core.cancel(a.ticket(), now());
            r = locked.releaseLocked(now());
        } finally {
            locked.unlock();
        }
        if (counted) {
            listener.cancelled(a.className, dispatched);
        }
        Channel backend = a.detach();
        if (dispatched && backend != null) {
            backend.close();
        }
        locked.deliver(r);
    }

    /** Releases queued requests while servers have free slots (any thread). */
    void pump() {
        locked.pump(() -> { });
    }

    // ------------------------------------------------------------ the tick

    private void tick() {
        drainer.tick();
        List<Ticket<Attempt>> expired;
        LockedCore.Released r = null;
        locked.lock();
        try {
            expired = core.expireQueued(now());
            if (core.queued() > 0) {
                r = locked.releaseLocked(now()); // ejected servers come back for a trial after their backoff
            }
            canServe = core.canServe(now());
        } finally {
            locked.unlock();
        }
        for (Ticket<Attempt> t : expired) {
            locked.expired(t);
        }
        locked.deliver(r);
    }

    // ------------------------------------------------------------ readiness and drain

    /** Whether a drain has begun (thread-safe). */
    public boolean draining() {
        return drain.draining();
    }

    /** Past the drain deadline: every response closes its connection, new requests get 503 (thread-safe). */
    boolean drainForced() {
        return drain.forced();
    }

    /**
     * The drain's own completion (on the home loop, once nothing is held and the idle connections are
     * closed; before the gateway closes the remaining connections and reports), or null before
     * {@link #drain} ran on the home loop (thread-safe).
     */
    public CompletableFuture<DrainReport> drainFinished() {
        return drainer.finished();
    }

    /**
     * Starts draining (thread-safe; once) as the {@link Drain} describes: every response from now on
     * closes its connection; what is held, and what arrives on connections still open, is answered
     * normally until {@code deadlineNanos}; once nothing is held the idle connections are closed;
     * what is left at the deadline is answered 503 {@code draining} with Retry-After (or cut, if its
     * response is being streamed). The future completes, on the loop, once nothing is queued or in flight.
     *
     * @param clients the client connections (to find what is left at the deadline)
     */
    public CompletableFuture<DrainReport> drain(long deadlineNanos, Iterable<Channel> clients) {
        return drainer.drain(deadlineNanos, requireNonNull(clients, "clients"));
    }

    /**
     * Whether some server can take a request: one with N(g,s) > 0 that is not ejected (thread-safe;
     * refreshed on the loop every tick and at every transition).
     */
    public boolean canServe() {
        return canServe;
    }

    // ------------------------------------------------------------ allocations, statistics, reloads

    /** Hands {@code a} to the home loop; the core applies it if it is newer (thread-safe). */
    public void applyAllocation(Allocation a) {
        requireNonNull(a, "a");
        home.execute(() -> {
            boolean applied;
            LockedCore.Released r = null;
            locked.lock();
            try {
                applied = core.applyAllocation(a);
                if (applied) {
                    allocation = a;
                    canServe = core.canServe(now());
                    r = locked.releaseLocked(now());
                }
            } finally {
                locked.unlock();
            }
            if (applied) {
                pools.onEveryLoop(BackendPools.Loop::trim);
                try {
                    onApplied.accept(a);
                } catch (RuntimeException e) {
                    LOG.warn("allocation listener failed: {}", e.toString());
                }
                locked.deliver(r);
            }
        });
    }

    /** The allocation in force (thread-safe; may lag the loop by one hand-over). */
    public Allocation allocation() {
        return allocation;
    }

    /** The statistics snapshot, computed on the home loop under the core's lock (thread-safe). */
    public Future<GatewayStats> snapshot() {
        return home.submit(() -> locked.read(c -> c.snapshot(Instant.now(), now())));
    }

    /** {@code f} of the core, under the core's lock: a consistent reading from any thread. */
    public <T> T withCore(Function<GatewayCore<?>, T> f) {
        return locked.read(f::apply);
    }

    /** The core, for gauges (int reads from other threads, possibly stale) and for tests. */
    public GatewayCore<?> core() {
        return core;
    }

    /**
     * The version of the configuration in force: a counter (0 at start, +1 per reload that
     * changed something) and the SHA-256 of the file's text, the first 12 hex digits.
     */
    public record ConfigVersion(long counter, String hash, Instant at) {
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
                List<String> notApplied = new ArrayList<>();
                List<String> urlsChanged = new ArrayList<>();
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
                LockedCore.Released released;
                locked.lock();
                try {
                    r = core.reconfigure(next, configured, now());
                    if (r.notApplied().isEmpty()) {
                        classifier = Classifiers.fromRules(next.classes());
                    }
                    URI[] old = pools.urls();
                    URI[] urls = Arrays.copyOf(old, core.serverCount());
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
                    pools.urls(urls); // before the core may dispatch to an added server
                    allocation = core.allocation();
                    canServe = core.canServe(now());
                    released = locked.releaseLocked(now());
                } finally {
                    locked.unlock();
                }
                pools.onEveryLoop(l -> l.refresh(retired));
                checks.reload(next);
                configVersion = version;
                locked.deliver(released);
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
        checks.close();
        pools.onEveryLoop(BackendPools.Loop::closeAll);
        home.execute(accessLog::close);
    }

    static boolean keepAliveOf(HttpMessage m) {
        return HttpUtil.isKeepAlive(m)
                && !m.headers().containsValue(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE, true);
    }
}
