package org.arbiter.gateway.allocation;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.arbiter.common.message.Allocation;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the GRM's allocations for one gateway: keeps the newest one addressed to it and hands
 * each newer one to the data plane, which swaps weights and caps atomically. Messages for other
 * gateways, tombstones and stale versions are ignored (counted), so replaying a compacted topic
 * from the beginning is harmless and a restarted gateway resumes its last allocation at once.
 * While no message arrives (Kafka or the GRM away) the last allocation simply stays in force.
 *
 * <p>Fed by the bus subscriber in production and directly in tests. Thread-safe.
 */
public final class AllocationFollower {

    private static final Logger LOG = LoggerFactory.getLogger(AllocationFollower.class);

    private final String gatewayId;
    private final Consumer<Allocation> apply;
    private final AtomicReference<Allocation> latest;
    private final AtomicLong ignored = new AtomicLong();

    /**
     * @param initial the allocation in force at start (the configured one, version 0)
     * @param apply   receives every allocation newer than the last one; must not block
     */
    public AllocationFollower(String gatewayId, Allocation initial, Consumer<Allocation> apply) {
        this.gatewayId = requireNonNull(gatewayId, "gatewayId");
        this.latest = new AtomicReference<>(requireNonNull(initial, "initial"));
        this.apply = requireNonNull(apply, "apply");
    }

    /** Offers a message from the allocation topic (key = its gateway); returns true if it was applied. */
    public boolean accept(String key, Allocation a) {
        if (a == null || !gatewayId.equals(key) || !gatewayId.equals(a.gateway())) {
            ignored.incrementAndGet();
            return false;
        }
        return accept(a);
    }

    /** Offers an allocation; applies it if it is for this gateway and newer than the last one. */
    public boolean accept(Allocation a) {
        requireNonNull(a, "a");
        if (!gatewayId.equals(a.gateway())) {
            ignored.incrementAndGet();
            return false;
        }
        Allocation cur;
        while (true) {
            cur = latest.get();
            if (cur.version() > 0 && a.version() <= cur.version()) {
                ignored.incrementAndGet();
                return false;
            }
            if (latest.compareAndSet(cur, a)) {
                break;
            }
        }
        // Every period brings a version; only a change of shares or caps is worth an INFO line.
        boolean changed = !cur.weights().equals(a.weights()) || !cur.serverCaps().equals(a.serverCaps());
        if (changed && LOG.isInfoEnabled()) {
            LOG.info("gateway {}: allocation v{} from {}: weights {} caps {}", gatewayId, a.version(), a.source(),
                    a.weights(), a.serverCaps());
        } else {
            LOG.debug("gateway {}: allocation v{} from {} (unchanged)", gatewayId, a.version(), a.source());
        }
        apply.accept(a);
        return true;
    }

    /** The newest allocation accepted (the one in force, or about to be). */
    public Allocation latest() {
        return latest.get();
    }

    /** Messages ignored: other gateways, tombstones, stale versions. */
    public long ignored() {
        return ignored.get();
    }
}
