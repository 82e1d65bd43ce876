package org.arbiter.gateway.netty;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.Function;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.Ticket;

/**
 * The one {@link GatewayCore} the event loops share, behind one lock: every call into the core is
 * made in a short locked section that takes the core's decision and nothing else; what the core
 * released in it (requests to send, requests it dropped, servers to poll) is delivered after the
 * lock, each request on its own loop (at once when that is this thread, else handed over).
 *
 * <p>Thread-safety: every method may be called from any thread; {@link #core} only inside a
 * locked section ({@link #lock}/{@link #unlock}, {@link #pump}, {@link #read}).
 */
public final class LockedCore {

    /** Where released work goes, after the lock. */
    interface Delivery {
        /** On {@code t}'s loop: the core released {@code t} to a server. */
        void send(Ticket<Attempt> t);

        /** On {@code t}'s loop: the core dropped {@code t} from its queue (queueTimeout, zeroYield). */
        void refuse(Ticket<Attempt> t);

        /** On any thread: the core wants these servers' load polled. */
        void poll(List<Integer> servers);
    }

    /**
     * How often the loops took the core's lock, how often one had to wait for another, how long
     * they waited in all; how many requests the core released, and how many of those to another
     * loop than the one that released them (a hand-over). For the meters and the benchmark.
     */
    public record Stats(long acquired, long contended, long waitNanos, long released, long handedOver) {
    }

    /** What a locked section released (null: nothing, the common case, without an allocation). */
    static final class Released {
        private List<Ticket<Attempt>> send = List.of();
        private List<Ticket<Attempt>> refuse = List.of();
        private List<Integer> polls = List.of();
    }

    private final GatewayCore<Attempt> core;
    private final ReentrantLock lock = new ReentrantLock();
    private final LongAdder acquired = new LongAdder();
    private final LongAdder contended = new LongAdder();
    private final LongAdder waitNanos = new LongAdder();
    private final LongAdder released = new LongAdder();
    private final LongAdder handedOver = new LongAdder();
    private Delivery delivery;

    LockedCore(GatewayCore<Attempt> core) {
        this.core = core;
    }

    /** Set once, before the first request (the plane's wiring). */
    void deliverTo(Delivery d) {
        this.delivery = d;
    }

    /** The core: only inside a locked section (or for int reads that may be stale). */
    GatewayCore<Attempt> core() {
        return core;
    }

    void lock() {
        if (!lock.tryLock()) {
            long t0 = System.nanoTime();
            lock.lock();
            contended.increment();
            waitNanos.add(System.nanoTime() - t0);
        }
        acquired.increment();
    }

    void unlock() {
        lock.unlock();
    }

    public Stats stats() {
        return new Stats(acquired.sum(), contended.sum(), waitNanos.sum(), released.sum(), handedOver.sum());
    }

    /** {@code f} of the core in a locked section. */
    <T> T read(Function<GatewayCore<Attempt>, T> f) {
        lock();
        try {
            return f.apply(core);
        } finally {
            lock.unlock();
        }
    }

    /** A locked section that runs {@code coreCall} and takes what the core releases, then delivers it. */
    void pump(Runnable coreCall) {
        Released r;
        lock();
        try {
            coreCall.run();
            r = releaseLocked(DataPlane.now());
        } finally {
            lock.unlock();
        }
        deliver(r);
    }

    /** Inside a locked section: every request the core releases now, and the load polls it wants (null: none). */
    Released releaseLocked(long nowNanos) {
        Released r = null;
        for (Ticket<Attempt> t; (t = core.next(nowNanos)) != null; ) {
            if (r == null) {
                r = new Released();
            }
            if (t.state() == Ticket.State.EXPIRED) { // a yield scheduler dropped it: it could earn no yield (zeroYield)
                if (r.refuse.isEmpty()) {
                    r.refuse = new ArrayList<>(2);
                }
                r.refuse.add(t);
            } else {
                if (r.send.isEmpty()) {
                    r.send = new ArrayList<>(2);
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

    /** After the lock: each released request on its own loop (now, if that is this thread), the polls. */
    void deliver(Released r) {
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
            delivery.poll(r.polls);
        }
    }

    /** On the loop of {@code t}'s request, which the core expired in its queue (not counted as released). */
    void expired(Ticket<Attempt> t) {
        Attempt a = t.request();
        if (a.loop.inEventLoop()) {
            delivery.refuse(t);
        } else {
            a.loop.execute(() -> delivery.refuse(t));
        }
    }

    /** On the loop of {@code t}'s request (at once if that is this thread): sent, or refused (a drop). */
    private void onItsLoop(Ticket<Attempt> t, boolean refuse) {
        Attempt a = t.request();
        released.increment();
        if (a.loop.inEventLoop()) {
            hand(t, refuse);
        } else {
            handedOver.increment();
            a.loop.execute(() -> hand(t, refuse));
        }
    }

    private void hand(Ticket<Attempt> t, boolean refuse) {
        if (refuse) {
            delivery.refuse(t);
        } else {
            delivery.send(t);
        }
    }
}
