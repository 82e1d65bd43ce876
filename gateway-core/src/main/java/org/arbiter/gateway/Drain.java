package org.arbiter.gateway;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.IntSupplier;

/**
 * A gateway's graceful drain as a state machine: pure, with time passed in (nanoTime-style
 * readings), so that its verdicts are tested on fake time (docs/gateway.md, "Drain and readiness").
 *
 * <pre>
 *   SERVING ──begin──▶ ANSWERING ──nothing held──▶ SWEEPING ──nothing held──▶ DONE
 *                          │                           │
 *                          └──────── deadline ─────────┴──▶ FORCED ──nothing held──▶ DONE
 * </pre>
 *
 * <ul>
 *   <li>ANSWERING: every response closes its connection; what is queued or at a server, and what
 *       arrives on connections still open, is answered normally.</li>
 *   <li>SWEEPING: once nothing is held (before the deadline), the connections that carry no request
 *       are closed (once), so that none brings a request only a 503 could answer; then the holdings
 *       are looked at again.</li>
 *   <li>FORCED: at the deadline, what is still held is answered 503 {@code draining} (or cut, if its
 *       response is being streamed), and a request that arrives gets 503. {@link #forced()} is also
 *       true once DONE: a request arriving before its connection closes gets 503, not a reset.</li>
 * </ul>
 *
 * <p>The caller (the data plane) asks {@link #pastDeadline} and then {@link #next} on every tick
 * and after the sweep, and acts on the answer; the counters are bumped by whoever answers.
 *
 * <p>Thread-safety: {@link #draining()}, {@link #forced()} and the counters may be used from any
 * thread; {@link #begin}, {@link #pastDeadline}, {@link #next} and {@link #report} from one thread
 * at a time (the data plane's home loop).
 */
public final class Drain {

    /** What the data plane must do now. */
    public enum Step {
        /** Requests are held: wait (for them, or for the deadline). */
        WAIT,
        /** Nothing is held: close the connections that carry no request, then ask again. */
        SWEEP,
        /** Nothing is held and the idle connections are closed (or the deadline passed): the drain is over. */
        FINISH
    }

    private enum Phase { SERVING, ANSWERING, SWEEPING, FORCED, DONE }

    private volatile Phase phase = Phase.SERVING;
    private long startNanos;
    private long deadlineNanos;
    private int held;
    private final AtomicLong arrived = new AtomicLong();
    private final AtomicLong served = new AtomicLong();
    private final AtomicInteger refused = new AtomicInteger();
    private final AtomicInteger cut = new AtomicInteger();

    /**
     * Begins the drain at {@code nowNanos}; true the first time, false (and nothing changes) after.
     * {@code held} is asked once the drain is visible ({@link #draining()}), so that a request
     * arriving meanwhile is counted as held or as arrived.
     *
     * @param held how many requests are queued or at a server
     */
    public boolean begin(long nowNanos, long deadlineNanos, IntSupplier held) {
        if (phase != Phase.SERVING) {
            return false;
        }
        this.startNanos = nowNanos;
        this.deadlineNanos = deadlineNanos;
        phase = Phase.ANSWERING;
        int h = held.getAsInt();
        if (h < 0) {
            throw new IllegalArgumentException("held: " + h + " (expected: >= 0)");
        }
        this.held = h;
        return true;
    }

    /** A drain has begun. */
    public boolean draining() {
        return phase != Phase.SERVING;
    }

    /** Past the deadline (or over): every response closes its connection, new requests get 503. */
    public boolean forced() {
        Phase p = phase;
        return p == Phase.FORCED || p == Phase.DONE;
    }

    /** Over: the report is final. */
    public boolean over() {
        return phase == Phase.DONE;
    }

    /**
     * True once, at the first call at or past the deadline while the drain runs: the caller then
     * answers 503 to what is still held and cuts what is streamed (and counts them).
     */
    public boolean pastDeadline(long nowNanos) {
        Phase p = phase;
        if ((p == Phase.ANSWERING || p == Phase.SWEEPING) && nowNanos - deadlineNanos >= 0) {
            phase = Phase.FORCED;
            return true;
        }
        return false;
    }

    /**
     * What to do now that {@code heldNow} requests are queued or at a server: wait; sweep the idle
     * connections (the first time nothing is held before the deadline); or finish.
     */
    public Step next(int heldNow) {
        Phase p = phase;
        if (p == Phase.SERVING || p == Phase.DONE) {
            throw new IllegalStateException("drain: " + p + " (expected: begun and not over)");
        }
        if (heldNow > 0) {
            return Step.WAIT;
        }
        if (p == Phase.ANSWERING) {
            phase = Phase.SWEEPING;
            return Step.SWEEP;
        }
        phase = Phase.DONE;
        return Step.FINISH;
    }

    /** A request arrived on an open connection during the drain. */
    public void arrived() {
        arrived.incrementAndGet();
    }

    /** A server's response was completed during the drain. */
    public void served() {
        served.incrementAndGet();
    }

    /** A request was answered 503 {@code draining} before reaching a server. */
    public void refused() {
        refused.incrementAndGet();
    }

    /** A response being streamed (or a tunnel) was cut at the deadline. */
    public void cut() {
        cut.incrementAndGet();
    }

    /** What the drain did, as of {@code nowNanos} (its end, once {@link #next} said FINISH). */
    public DrainReport report(long nowNanos) {
        return new DrainReport(held, arrived.get(), served.get(), refused.get(), cut.get(), nowNanos - startNanos);
    }
}
