package org.arbiter.gateway.allocation;

import static java.util.Objects.requireNonNull;

import java.time.Clock;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.arbiter.common.bus.Refusals;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Epochs;
import org.arbiter.common.message.PoolAllocations;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Follows the GRM's allocations for one gateway: keeps the newest one addressed to it and hands
 * each newer one to the data plane, which swaps weights and caps atomically.
 *
 * <p>An allocation is applied only when it is for this gateway, plausible ({@link Epochs#check}
 * against this gateway's clock and {@code control.maxClockSkew}: its {@code at} and epoch not
 * further ahead than the skew, its counter within 1000 + ms since its epoch began) and newer in
 * (epoch, version) than the one in force — a new leader's epoch outranks any counter of an older
 * epoch. The configured allocation (epoch 0, version 0) is replaced by any plausible allocation.
 * Everything else is refused and counted by {@link Reason}; the listener is told (the gateway
 * turns it into {@code arbiter.bus.refused{topic, reason}} and a rate-limited log line). So
 * replaying a compacted topic from the beginning is harmless, a restarted gateway resumes its last
 * allocation at once, and a forged record with an absurd stamp is never applied. While no message
 * arrives (Kafka or the GRM away) the last allocation simply stays in force.
 *
 * <p>Fed by the bus subscriber in production and directly in tests. Thread-safe.
 */
public final class AllocationFollower {

    private static final Logger LOG = LoggerFactory.getLogger(AllocationFollower.class);

    /** Why an allocation was not applied; {@link #tag()} is the {@code reason} tag. */
    public enum Reason {
        /** addressed to another gateway (normal on a shared topic). */
        OTHER_GATEWAY("other-gateway"),
        /** a tombstone (deleted key). */
        TOMBSTONE("tombstone"),
        /** not newer in (epoch, version) than the allocation in force. */
        STALE("stale"),
        /** {@code at} later than now + maxSkew. */
        IMPLAUSIBLE_AT(Epochs.Implausible.FUTURE_AT.tag()),
        /** epoch later than now + maxSkew. */
        IMPLAUSIBLE_EPOCH(Epochs.Implausible.FUTURE_EPOCH.tag()),
        /** counter out of 0..1000 + ms since the epoch began. */
        IMPLAUSIBLE_COUNTER(Epochs.Implausible.COUNTER.tag());

        private final String tag;

        Reason(String tag) {
            this.tag = tag;
        }

        public String tag() {
            return tag;
        }

        static Reason of(Epochs.Implausible i) {
            return switch (i) {
                case FUTURE_AT -> IMPLAUSIBLE_AT;
                case FUTURE_EPOCH -> IMPLAUSIBLE_EPOCH;
                case COUNTER -> IMPLAUSIBLE_COUNTER;
            };
        }
    }

    /** Told of every refused allocation (on the caller's thread); must not block. */
    @FunctionalInterface
    public interface RefusalListener {
        void refused(Reason reason, String detail);

        /**
         * The services' listener: another gateway's record (routine on a shared topic) only counted, every
         * other refusal counted and logged, rate-limited, by {@code refusals}, the line starting with {@code who}.
         */
        static RefusalListener reporting(Refusals refusals, String who) {
            return (reason, detail) -> {
                if (reason == Reason.OTHER_GATEWAY) {
                    refusals.refuseQuietly(reason.tag());
                } else {
                    refusals.refuse(reason.tag(), who + ": " + detail);
                }
            };
        }
    }

    private final String gatewayId;
    private final Consumer<Allocation> apply;
    private final Clock clock;
    private final long maxSkewMillis;
    private final RefusalListener listener;
    private final AtomicReference<PoolAllocations> latest;
    private final Map<Reason, AtomicLong> refused = new EnumMap<>(Reason.class);

    /**
     * @param initial       the allocation in force at start (the configured one, epoch 0, version 0)
     * @param apply         receives every allocation accepted; must not block
     * @param clock         this gateway's clock, for the plausibility bounds (the service passes the
     *                      system clock, tests a fixed one; the follower reads no other)
     * @param maxSkewMillis {@code control.maxClockSkew} in ms
     * @param listener      told of every refusal
     */
    public AllocationFollower(String gatewayId, Allocation initial, Consumer<Allocation> apply, Clock clock,
                              long maxSkewMillis, RefusalListener listener) {
        this(gatewayId, PoolAllocations.single(requireNonNull(initial, "initial")), apply, clock, maxSkewMillis,
                listener);
    }

    /**
     * As above for a cluster with pools: {@code initial} holds every pool's allocation at start (each pool is
     * followed on its own, {@link PoolAllocations}); {@code apply} receives each pool's allocation accepted.
     */
    public AllocationFollower(String gatewayId, PoolAllocations initial, Consumer<Allocation> apply, Clock clock,
                              long maxSkewMillis, RefusalListener listener) {
        this.gatewayId = requireNonNull(gatewayId, "gatewayId");
        this.latest = new AtomicReference<>(requireNonNull(initial, "initial"));
        this.apply = requireNonNull(apply, "apply");
        this.clock = requireNonNull(clock, "clock");
        this.maxSkewMillis = maxSkewMillis;
        this.listener = requireNonNull(listener, "listener");
        for (Reason r : Reason.values()) {
            refused.put(r, new AtomicLong());
        }
    }

    /** Offers a message from the allocation topic (key = its gateway, or gateway@pool); returns true if it was applied. */
    public boolean accept(String key, Allocation a) {
        if (a == null) {
            return refuse(Reason.TOMBSTONE, "tombstone for " + key);
        }
        if (!gatewayId.equals(key) && !(key != null && key.startsWith(gatewayId + "@"))) {
            return refuse(Reason.OTHER_GATEWAY, "key " + key);
        }
        return accept(a);
    }

    /** Offers an allocation; applies it if it is for this gateway, plausible and newer than the one in force. */
    public boolean accept(Allocation a) {
        requireNonNull(a, "a");
        if (!gatewayId.equals(a.gateway())) {
            return refuse(Reason.OTHER_GATEWAY, "for " + a.gateway());
        }
        Optional<Epochs.Implausible> why = Epochs.check(a.epoch(), a.version(), a.at(), clock.instant(), maxSkewMillis);
        if (why.isPresent()) {
            return refuse(Reason.of(why.get()), describe(a) + " at " + a.at() + " (this gateway's clock: "
                    + clock.instant() + ", maxClockSkew " + maxSkewMillis + " ms)");
        }
        Allocation cur;
        while (true) {
            PoolAllocations pools = latest.get();
            String stale = pools.stale(a);
            if (stale != null) {
                return refuse(Reason.STALE, stale);
            }
            cur = pools.inForce(a.pool());
            if (latest.compareAndSet(pools, pools.with(a))) {
                break;
            }
        }
        // Every period brings a new counter; only a change of shares or caps is worth an INFO line.
        boolean changed = !cur.weights().equals(a.weights()) || !cur.serverCaps().equals(a.serverCaps());
        if (changed && LOG.isInfoEnabled()) {
            LOG.info("gateway {}: allocation {}{} from {}: weights {} caps {}", gatewayId, describe(a),
                    a.pool().isEmpty() ? "" : " for pool " + a.pool(), a.source(), a.weights(), a.serverCaps());
        } else {
            LOG.debug("gateway {}: allocation {} from {} (unchanged)", gatewayId, describe(a), a.source());
        }
        apply.accept(a);
        return true;
    }

    private static String describe(Allocation a) {
        return "epoch " + a.epoch() + " v" + a.version();
    }

    private boolean refuse(Reason reason, String detail) {
        refused.get(reason).incrementAndGet();
        try {
            listener.refused(reason, detail);
        } catch (RuntimeException e) {
            LOG.warn("gateway {}: refusal listener threw: {}", gatewayId, e.toString());
        }
        return false;
    }

    /** The newest allocation accepted (the one in force, or about to be); with pools, every pool's together. */
    public Allocation latest() {
        return latest.get().merged();
    }

    /** The newest allocation accepted for each pool ("" without pools). */
    public Map<String, Allocation> latestByPool() {
        return latest.get().byPool();
    }

    /** Messages not applied, all reasons. */
    public long ignored() {
        return refused.values().stream().mapToLong(AtomicLong::get).sum();
    }

    /** Messages not applied for {@code reason}. */
    public long refused(Reason reason) {
        return refused.get(reason).get();
    }

    /** Messages not applied, by reason tag (every reason, in declaration order). */
    public Map<String, Long> refused() {
        Map<String, Long> out = new LinkedHashMap<>();
        refused.forEach((r, n) -> out.put(r.tag(), n.get()));
        return out;
    }
}
