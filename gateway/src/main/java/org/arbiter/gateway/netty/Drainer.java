package org.arbiter.gateway.netty;

import io.netty.channel.Channel;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http2.Http2StreamChannel;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;
import org.arbiter.gateway.Drain;
import org.arbiter.gateway.DrainReport;
import org.arbiter.gateway.GatewayCore;

/**
 * Carries out the steps of the pure {@link Drain} on the connections: asks it on every tick (and
 * after a sweep), closes the idle client connections when it says SWEEP, answers 503
 * {@code draining} to what is still held (or cuts it, and the tunnels) at the deadline, and
 * completes the drain's future when it says FINISH.
 *
 * <p>Thread-safety: {@link #drain} and {@link #finished} from any thread; the rest on the home loop.
 */
final class Drainer {

    private final EventLoop home;
    private final LockedCore locked;
    private final GatewayCore<Attempt> core;
    private final Drain drain;
    private final Set<Channel> tunnels;
    private Iterable<Channel> clients;
    private volatile CompletableFuture<DrainReport> done;
    /**
     * A sweep's closes are still running on the connections' loops: no tick may finish the drain
     * meanwhile (a loop busy elsewhere ran its close after a tick had finished the drain, and a
     * request sent then on the idle connection got 503 instead of a closed connection).
     */
    private boolean sweeping;

    Drainer(EventLoop home, LockedCore locked, Drain drain, Set<Channel> tunnels) {
        this.home = home;
        this.locked = locked;
        this.core = locked.core();
        this.drain = drain;
        this.tunnels = tunnels;
    }

    /** See {@link DataPlane#drain}. */
    CompletableFuture<DrainReport> drain(long deadlineNanos, Iterable<Channel> clients) {
        CompletableFuture<DrainReport> f = new CompletableFuture<>();
        home.execute(() -> {
            if (done != null) {
                done.whenComplete((r, e) -> f.complete(r));
                return;
            }
            this.clients = clients;
            done = f;
            // under the core's lock, as a request's arrival is (DataPlane.submit): a request is either
            // held at the start or counted as arrived, never both or neither
            locked.lock();
            try {
                drain.begin(DataPlane.now(), deadlineNanos, this::held);
            } finally {
                locked.unlock();
            }
            goAway();
            check();
        });
        return f;
    }

    /** The drain's own completion, or null before {@link #drain} ran on the home loop (thread-safe). */
    CompletableFuture<DrainReport> finished() {
        return done;
    }

    /** On the home loop, every tick: one step of a drain under way. */
    void tick() {
        if (done != null && !drain.over()) {
            check();
        }
    }

    private int held() {
        return locked.read(c -> c.queued() + c.inFlightTotal());
    }

    private void check() {
        if (drain.over()) {
            return;
        }
        long now = DataPlane.now();
        if (drain.pastDeadline(now)) {
            force();
        }
        if (sweeping) {
            return; // the sweep's own completion asks again
        }
        // under the core's lock, as a request's arrival is: a request that arrived before this look is
        // in the core's holdings; one after it sees the drain over and is answered 503 (counted)
        Drain.Step step;
        locked.lock();
        try {
            step = drain.next(held());
        } finally {
            locked.unlock();
        }
        switch (step) {
            case WAIT -> { }
            case SWEEP -> sweepIdle();
            case FINISH -> done.complete(drain.report(now));
        }
    }

    /**
     * At the start: every HTTP/2 connection gets GOAWAY (each on its loop), so its client opens no
     * new stream on it; the streams it has open are answered as usual.
     */
    private void goAway() {
        for (Channel ch : clients) {
            if (ch instanceof Http2StreamChannel) {
                continue; // its connection gets the GOAWAY
            }
            ch.eventLoop().execute(() -> Http2Lifetime.goAway(ch));
        }
    }

    /**
     * Nothing held: close every client connection that carries no request, each on its loop, then
     * look again. A request read before its connection's turn is in the core by then and is served
     * (its response closes the connection); one sent later meets a closed connection, which a
     * client retries elsewhere.
     */
    private void sweepIdle() {
        List<Channel> open = new ArrayList<>();
        clients.forEach(open::add);
        AtomicInteger left = new AtomicInteger(open.size() + 1);
        sweeping = true;
        Runnable oneDone = () -> {
            if (left.decrementAndGet() == 0) {
                home.execute(() -> {
                    sweeping = false;
                    check();
                });
            }
        };
        for (Channel ch : open) {
            ch.eventLoop().execute(() -> {
                try {
                    ChannelHandlerContext ctx = ch.pipeline().context(FrontendHandler.class);
                    if (ctx != null) {
                        ((FrontendHandler) ctx.handler()).closeIfIdleForDrain(ctx);
                    } else {
                        Http2Lifetime.closeIfIdleForDrain(ch);
                    }
                } finally {
                    oneDone.run();
                }
            });
        }
        oneDone.run();
    }

    /**
     * The deadline passed: answer 503 to every request still held, cut responses being streamed
     * and tunnels. Each client connection is handled on its own loop; the drain ends on a later tick.
     */
    private void force() {
        for (Channel t : new ArrayList<>(tunnels)) {
            drain.cut();
            t.close(); // an upgraded connection (WebSocket) is cut at the deadline
        }
        for (Channel ch : clients) {
            if (ch.eventLoop().inEventLoop()) {
                force(ch);
            } else {
                ch.eventLoop().execute(() -> force(ch));
            }
        }
    }

    /** On the connection's loop: its request still held at the drain deadline is answered 503 or cut. */
    private void force(Channel ch) {
        FrontendHandler h = ch.pipeline().get(FrontendHandler.class);
        Attempt a = h == null ? null : h.current();
        if (a == null || a.over() || a.ticket() == null) {
            return;
        }
        a.cancelTimeout();
        Channel backend = a.detach();
        locked.lock();
        try {
            Forwarder.tellRespondedLocked(core, a, DataPlane.now());
            core.cancel(a.ticket(), DataPlane.now());
        } finally {
            locked.unlock();
        }
        if (a.state() == Attempt.State.STREAMING) {
            drain.cut();
            a.front.abort(a);
        } else {
            drain.refused();
            a.front.answer(a, Answers.unavailable(a.className, DataPlane.DRAINING, 1));
        }
        if (backend != null) {
            backend.close();
        }
    }
}
