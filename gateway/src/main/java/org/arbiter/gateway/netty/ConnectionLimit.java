package org.arbiter.gateway.netty;

import io.netty.channel.Channel;
import java.lang.management.ManagementFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;

/**
 * {@code gateway.maxConnections}: how many client connections a data port may hold open. A
 * connection beyond it is closed as it is registered, before its pipeline is built and before any
 * byte is read, and counted. The slot of an admitted connection is given back when it closes.
 *
 * <p>Thread-safe: any loop admits and any loop's close releases (one atomic counter).
 */
final class ConnectionLimit {

    /** Where the descriptor limit cannot be read. */
    static final int FALLBACK = 10_000;
    /** The most a sized default may be. */
    static final int CEILING = 1_000_000;

    private final int max;
    private final AtomicInteger open = new AtomicInteger();
    private final LongAdder refused = new LongAdder();

    ConnectionLimit(int max) {
        if (max < 1) {
            throw new IllegalArgumentException("maxConnections: " + max + " (expected: >= 1)");
        }
        this.max = max;
    }

    /** {@code configured}, or when 0, 80 % of the process's file-descriptor limit (at most {@link #CEILING}). */
    static ConnectionLimit of(int configured) {
        return new ConnectionLimit(configured > 0 ? configured : sized(descriptorLimit()));
    }

    /** 80 % of {@code descriptors} (at least 1, at most {@link #CEILING}); {@link #FALLBACK} when unknown (≤ 0). */
    static int sized(long descriptors) {
        if (descriptors <= 0) {
            return FALLBACK;
        }
        return (int) Math.max(1, Math.min(CEILING, descriptors * 8 / 10));
    }

    /** RLIMIT_NOFILE of this process, or -1 where the platform does not say. */
    static long descriptorLimit() {
        if (ManagementFactory.getOperatingSystemMXBean() instanceof com.sun.management.UnixOperatingSystemMXBean u) {
            return u.getMaxFileDescriptorCount();
        }
        return -1;
    }

    /**
     * Takes a slot for {@code ch}, given back when it closes; false (and the connection closed,
     * counted) when every slot is taken.
     */
    boolean admit(Channel ch) {
        if (open.incrementAndGet() > max) {
            open.decrementAndGet();
            refused.increment();
            ch.close();
            return false;
        }
        ch.closeFuture().addListener(f -> open.decrementAndGet());
        return true;
    }

    int max() {
        return max;
    }

    /** Connections holding a slot now. */
    int open() {
        return open.get();
    }

    /** Connections refused since start. */
    long refused() {
        return refused.sum();
    }
}
