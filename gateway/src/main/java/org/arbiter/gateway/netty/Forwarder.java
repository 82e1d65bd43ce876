package org.arbiter.gateway.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ConnectTimeoutException;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponse;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.ssl.SslHandler;
import java.io.IOException;
import java.nio.channels.ClosedChannelException;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.arbiter.gateway.Drain;
import org.arbiter.gateway.DropReason;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.Outcome;
import org.arbiter.gateway.ServerHealth;
import org.arbiter.gateway.Ticket;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The leg of a request at its server: from the core's release to the end of the server's response.
 * It takes a connection (a kept-alive one from its loop's pool, or a new one; a retry after a sent
 * failure always a new one), writes the request, and follows the {@link BackendHandler}'s events:
 * the response head ({@link Attempt.State#STREAMING}), its end (the connection back to the pool,
 * the completion to the core), a failure before the response (the core requeues or the client gets
 * 502), a failure during it (the client connection is cut), a 101 (a {@link Tunnel}), and the
 * backend timeout (504, or a cut). Each outcome goes to the core through the {@link LockedCore},
 * and the answer to the request's {@link FrontendHandler}.
 *
 * <p>Thread-safety: every method runs on the request's loop.
 */
final class Forwarder {

    private static final Logger LOG = LoggerFactory.getLogger(Forwarder.class);

    private final LockedCore locked;
    private final GatewayCore<Attempt> core;
    private final BackendPools pools;
    private final PlaneListener listener;
    private final Drain drain;
    private final long backendTimeoutNanos;
    /** Client channels of upgraded requests (tunnels), cut at a drain's deadline. */
    private final Set<Channel> tunnels = ConcurrentHashMap.newKeySet();

    Forwarder(LockedCore locked, BackendPools pools, PlaneListener listener, Drain drain, double backendTimeoutSeconds) {
        this.locked = locked;
        this.core = locked.core();
        this.pools = pools;
        this.listener = listener;
        this.drain = drain;
        this.backendTimeoutNanos = (long) (backendTimeoutSeconds * 1e9);
    }

    /** The client channels of the open tunnels (thread-safe). */
    Set<Channel> tunnels() {
        return tunnels;
    }

    /** The core released {@code a} to a server: send it. */
    void send(Attempt a) {
        a.dispatched();
        int s = a.ticket().server();
        BackendPools.Loop here = pools.of(a.loop);
        a.armTimeout(here.deadlines, () -> timedOut(a), backendTimeoutNanos);
        BackendPool pool = here.pool(s);
        // A retry after the request had been sent goes on a new connection: an idle one to the
        // same server may be as dead as the one that failed, and the retry is the last chance.
        Channel idle = a.state().retry() ? null : pool.pollIdle();
        if (idle != null) {
            write(a, idle);
            return;
        }
        ChannelFuture f = pool.connect();
        Channel ch = f.channel();
        a.connecting(ch);
        f.addListener(x -> {
            if (!a.on(ch)) {
                ch.close();
                return;
            }
            SslHandler tls = x.isSuccess() ? ch.pipeline().get(SslHandler.class) : null;
            if (tls != null) {
                // https://: nothing is written before the handshake; a failed one sent nothing (requeued, never 502)
                tls.handshakeFuture().addListener(h -> {
                    if (!a.on(ch)) {
                        ch.close();
                    } else if (h.isSuccess()) {
                        write(a, ch);
                    } else {
                        LOG.debug("TLS handshake with server {} failed: {}", a.ticket().serverId(), h.cause().toString());
                        failedBeforeResponse(a, ch, h.cause());
                    }
                });
            } else if (x.isSuccess()) {
                write(a, ch);
            } else {
                failedBeforeResponse(a, ch, x.cause());
            }
        });
    }

    private void write(Attempt a, Channel ch) {
        if (!ch.isActive()) { // closed before a byte was written: not sent
            a.backend = ch;
            failed(a, ch, null, a.state().connecting() ? ServerHealth.Failure.CLOSED : ServerHealth.Failure.KEEP_ALIVE_CLOSED);
            return;
        }
        ch.pipeline().get(BackendHandler.class).bind(a, this);
        a.sending(ch);
        ch.writeAndFlush(a.forServer(ch)).addListener(w -> {
            if (!w.isSuccess() && a.on(ch)) {
                if (a.state().sent()) {
                    failedBeforeResponse(a, ch, w.cause());
                } else {
                    ch.close(); // streaming already: the close ends it (failedDuringResponse)
                }
            }
        });
    }

    // ------------------------------------------------------------ from the backend

    /**
     * The backend's response head (status {@code status}) is about to be forwarded. The core hears of it with the
     * response's end when that comes in the same read (one locked section instead of two), else at the read's end
     * ({@link #reportResponded}), or before a failure or timeout of the response.
     */
    void responseStarted(Attempt a, int status) {
        a.streaming(status);
    }

    /** At the end of a read from the backend: a response head the core has not heard of yet goes to it now. */
    void reportResponded(Attempt a) {
        int status = a.takeUntoldStatus();
        if (status != 0) {
            responded(a, status);
        }
    }

    private void responded(Attempt a, int status) {
        locked.lock();
        try {
            core.responded(a.ticket(), status, DataPlane.now());
        } finally {
            locked.unlock();
        }
    }

    /** Inside a locked section, before the request ends in any way: its untold response head, if any, to the core. */
    static void tellRespondedLocked(GatewayCore<Attempt> core, Attempt a, long now) {
        int status = a.takeUntoldStatus();
        if (status != 0) {
            core.responded(a.ticket(), status, now);
        }
    }

    /**
     * The server answered 101 to an {@code Upgrade}: the 101 goes to the client and the two
     * connections are spliced. The request keeps its server slot (inflight(g,s)) until either side
     * closes; then the slot is freed without a completion in the statistics (a tunnel's lifetime is
     * no response time). The backend connection never returns to the pool.
     */
    void upgraded(Attempt a, Channel backend, HttpResponse r) {
        a.cancelTimeout();
        a.upgraded();
        responded(a, 101);
        DefaultFullHttpResponse head = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, r.status());
        head.headers().set(r.headers());
        String upgrade = r.headers().get(HttpHeaderNames.UPGRADE, a.upgrade);
        HopByHop.strip(head.headers());
        head.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
        head.headers().set(HttpHeaderNames.UPGRADE, upgrade);
        Channel client = a.front.channel();
        boolean[] ended = new boolean[1];
        Runnable onClose = () -> {
            if (ended[0]) {
                return;
            }
            ended[0] = true;
            tunnels.remove(client);
            a.detach();
            a.front.tunnelClosed(a);
            locked.pump(() -> {
                tellRespondedLocked(core, a, DataPlane.now());
                core.complete(a.ticket(), Outcome.CANCELLED, DataPlane.now());
            });
        };
        // the HTTP handlers leave the backend pipeline; what the server sent after its 101 goes to the tunnel
        backend.pipeline().remove(BackendHandler.class);
        if (!a.front.switchProtocols(a, head, backend, onClose)) {
            backend.close();
            return;
        }
        tunnels.add(client);
        listener.responded(a.className, DataPlane.now() - a.arrivalNanos);
        listener.sent(a.className, 101);
        backend.pipeline().remove(HttpClientCodec.class);
    }

    /** The backend delivered the whole response; {@code reusable} if its connection may carry another. */
    void responseDone(Attempt a, Channel ch, boolean reusable) {
        a.cancelTimeout();
        int s = a.ticket().server();
        a.detach();
        BackendPool pool = pools.of(a.loop).existing(s);
        if (pool != null) {
            pool.release(ch, reusable);
        } else {
            ch.close();
        }
        long now = DataPlane.now();
        LockedCore.Released r;
        locked.lock();
        try {
            tellRespondedLocked(core, a, now);
            core.complete(a.ticket(), Outcome.OK, now);
            r = locked.releaseLocked(now);
        } finally {
            locked.unlock();
        }
        if (drain.draining()) {
            drain.served();
        }
        listener.responded(a.className, now - a.arrivalNanos);
        a.front.responseFinished(a);
        locked.deliver(r);
    }

    /**
     * The backend failed before any byte of its response. The core requeues the request at the
     * head of its class queue if it never reached the server, or reached it but is idempotent and
     * failed so for the first time; otherwise the client gets 502.
     */
    void failedBeforeResponse(Attempt a, Channel ch, Throwable cause) {
        failed(a, ch, cause, failureOf(a.state(), cause));
    }

    private void failed(Attempt a, Channel ch, Throwable cause, ServerHealth.Failure failure) {
        if (a.over() || a.ticket().state() != Ticket.State.DISPATCHED) {
            return;
        }
        ch.close();
        a.detach();
        a.cancelTimeout();
        boolean sent = a.state().sent();
        LOG.debug("backend {} failed before responding ({}, sent: {}): {}", a.ticket().serverId(), failure, sent,
                cause == null ? "closed" : cause.toString());
        boolean requeued;
        LockedCore.Released r;
        locked.lock();
        try {
            requeued = core.failed(a.ticket(), failure, sent, a.idempotent, DataPlane.now());
            if (requeued) {
                a.requeued(); // before another loop may release the retry
            }
            r = locked.releaseLocked(DataPlane.now());
        } finally {
            locked.unlock();
        }
        if (!requeued) {
            listener.dropped(a.className, DropReason.BACKEND_ERROR);
            a.front.answer(a, Answers.backend(HttpResponseStatus.BAD_GATEWAY, a.className,
                    DropReason.BACKEND_ERROR.wireName()));
        }
        locked.deliver(r);
    }

    /**
     * A failed connect (or TLS handshake) is refused or timed out; an I/O error is a reset; a close
     * without one is the server's fault on a new connection, and the keep-alive race on a reused one.
     */
    static ServerHealth.Failure failureOf(Attempt.State state, Throwable cause) {
        if (state.connecting()) {
            return cause instanceof ConnectTimeoutException
                    ? ServerHealth.Failure.CONNECT_TIMEOUT : ServerHealth.Failure.CONNECT_REFUSED;
        }
        if (cause instanceof IOException && !(cause instanceof ClosedChannelException)) {
            return ServerHealth.Failure.RESET;
        }
        return state.fresh() ? ServerHealth.Failure.CLOSED : ServerHealth.Failure.KEEP_ALIVE_CLOSED;
    }

    /** The backend broke off a response already being streamed: the client connection is cut. */
    void failedDuringResponse(Attempt a, Channel ch) {
        if (a.over()) {
            return;
        }
        ch.close();
        a.detach();
        a.cancelTimeout();
        listener.dropped(a.className, DropReason.BACKEND_ERROR);
        a.front.abort(a);
        locked.pump(() -> {
            tellRespondedLocked(core, a, DataPlane.now());
            core.serverFailed(a.ticket(), ServerHealth.Failure.RESET, DataPlane.now());
            core.complete(a.ticket(), Outcome.BACKEND_ERROR, DataPlane.now());
        });
    }

    private void timedOut(Attempt a) {
        if (a.over() || a.ticket().state() != Ticket.State.DISPATCHED) {
            return;
        }
        Channel ch = a.detach();
        if (ch != null) {
            ch.close();
        }
        listener.dropped(a.className, DropReason.BACKEND_TIMEOUT);
        if (a.state() == Attempt.State.STREAMING) {
            a.front.abort(a);
        } else {
            a.front.answer(a, Answers.backend(HttpResponseStatus.GATEWAY_TIMEOUT, a.className,
                    DropReason.BACKEND_TIMEOUT.wireName()));
        }
        locked.pump(() -> {
            tellRespondedLocked(core, a, DataPlane.now());
            core.complete(a.ticket(), Outcome.BACKEND_TIMEOUT, DataPlane.now());
        });
    }
}
