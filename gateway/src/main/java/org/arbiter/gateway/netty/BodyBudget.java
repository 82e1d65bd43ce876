package org.arbiter.gateway.netty;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code gateway.bodyBudget}: the bytes of request bodies the gateway buffers at once, across all
 * connections and HTTP/2 streams. The {@link RequestAggregator} reserves each chunk as it arrives,
 * into the body's own buffer ({@link Reserved}); the reservation is given back when that buffer is
 * freed (the request was forwarded and written, answered by the gateway, or dropped with its
 * connection), so no path can keep bytes reserved without also keeping them in memory. A chunk that
 * would take the total over the limit is refused: its request is answered 503 {@code bodyBudget}.
 *
 * <p>Thread-safe: one atomic counter shared by every loop.
 */
final class BodyBudget {

    private final long limit;
    private final AtomicLong held = new AtomicLong();
    private final LongAdder refused = new LongAdder();

    BodyBudget(long limitBytes) {
        if (limitBytes < 1) {
            throw new IllegalArgumentException("bodyBudget: " + limitBytes + " (expected: >= 1)");
        }
        this.limit = limitBytes;
    }

    /** {@code configured}, or when 0 a quarter of the maximum heap. */
    static BodyBudget of(long configured) {
        return new BodyBudget(configured > 0 ? configured : Math.max(1, Runtime.getRuntime().maxMemory() / 4));
    }

    /** Reserves {@code bytes} if the total stays within the limit. */
    boolean tryReserve(long bytes) {
        while (true) {
            long now = held.get();
            if (now + bytes > limit) {
                return false;
            }
            if (held.compareAndSet(now, now + bytes)) {
                return true;
            }
        }
    }

    void release(long bytes) {
        held.addAndGet(-bytes);
    }

    /** A request refused for the budget. */
    void refused() {
        refused.increment();
    }

    long limit() {
        return limit;
    }

    /** Bytes reserved now. */
    long held() {
        return held.get();
    }

    /** Requests refused since start. */
    long refusedCount() {
        return refused.sum();
    }
}
