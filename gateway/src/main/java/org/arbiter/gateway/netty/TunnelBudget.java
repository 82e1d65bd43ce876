package org.arbiter.gateway.netty;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * How many upgrades a gateway holds at once: the requests with {@code Upgrade} from their admission
 * (queued, at a server) to their end, tunnels included ({@code dispatch.tunnelShare}). A tunnel
 * holds its server slot for its whole life, so without a bound a thousand idle WebSockets take
 * every slot and the ordinary requests of their class wait behind the upgrades still queued (the
 * abuse campaign's idle-websocket attack). An upgrade is admitted while fewer than
 * {@code share × Σ_s N(g,s)} (at least one) are held; the rest are answered 503 at once.
 * Thread-safe: every event loop admits and ends upgrades.
 */
final class TunnelBudget {

    private final double share;
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicLong refused = new AtomicLong();

    /** @param share {@code dispatch.tunnelShare}, checked by {@code DispatchConfig} (0 < x ≤ 1) */
    TunnelBudget(double share) {
        this.share = share;
    }

    /** The most upgrades held at once when the gateway's slots (Σ_s N(g,s)) are {@code slots}. */
    int limit(int slots) {
        return Math.max(1, (int) Math.floor(share * slots));
    }

    /** Takes a place for one upgrade if fewer than {@link #limit} are held; false (and counted) if not. */
    boolean admit(int slots) {
        int limit = limit(slots);
        while (true) {
            int h = held.get();
            if (h >= limit) {
                refused.incrementAndGet();
                return false;
            }
            if (held.compareAndSet(h, h + 1)) {
                return true;
            }
        }
    }

    /** An admitted upgrade ended (answered without a tunnel, failed, or its tunnel closed). */
    void end() {
        held.decrementAndGet();
    }

    /** Upgrades held now. */
    int held() {
        return held.get();
    }

    /** Upgrades refused since the start. */
    long refused() {
        return refused.get();
    }
}
