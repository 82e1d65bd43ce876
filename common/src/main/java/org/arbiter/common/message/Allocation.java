package org.arbiter.common.message;

import static org.arbiter.common.message.Message.checkAt;
import static org.arbiter.common.message.Message.checkId;
import static org.arbiter.common.message.Message.checkVersion;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.time.Instant;
import java.util.Map;

/**
 * The shares and caps gateway {@code gateway} must enforce. Topic {@code allocation} (compacted),
 * key: the gateway id. Ordered by ({@code epoch}, {@code version}): the leader's epoch, then the
 * counter within it ({@link Epochs}); a new leader's epoch outranks every older epoch.
 *
 * <p>Ranges (checked here, so a decoded record is within them): {@code at} 1970..9999;
 * {@code epoch} 0..{@link Epochs#MAX_MILLIS} (0: a legacy record without an epoch, or the
 * configured allocation); {@code version} 0..1000 + ms from {@code epoch} to {@code at};
 * {@code weights} finite, 0..{@link #MAX_WEIGHT}; {@code serverCaps} 0..{@link #MAX_CAP}.
 *
 * @param version    the counter within {@code epoch} (the control tick; all allocations of one tick share it)
 * @param weights    w(g,c) per class, may be fractional
 * @param serverCaps N(g,s) per server; a server absent here gets no requests from this gateway
 * @param source     who decided: "grm", "configured", "override"
 * @param epoch      the epoch of the GRM leader that wrote it (ms since 1970 when it began; 0 = none)
 * @param pool       the pool it is for ({@code pools[].name}), "" without pools: its weights are the pool's
 *                   classes, its caps the pool's servers, and (epoch, version) orders it among that pool's
 *                   allocations only (each pool has its own owner and epochs). Left out of the JSON when ""
 */
public record Allocation(int v, Instant at, String gateway, long version, Map<String, Double> weights,
                         Map<String, Integer> serverCaps, String source,
                         @JsonSetter(nulls = Nulls.AS_EMPTY) long epoch,
                         @JsonInclude(JsonInclude.Include.NON_EMPTY) String pool) implements Message {

    /** The largest weight a record may carry. */
    public static final double MAX_WEIGHT = 1e9;
    /** The largest cap N(g,s) a record may carry. */
    public static final int MAX_CAP = 1_000_000;

    /** An allocation of the whole cluster (no pools). */
    public Allocation(int v, Instant at, String gateway, long version, Map<String, Double> weights,
                      Map<String, Integer> serverCaps, String source, long epoch) {
        this(v, at, gateway, version, weights, serverCaps, source, epoch, "");
    }

    /** A legacy allocation without an epoch (epoch 0). */
    public Allocation(int v, Instant at, String gateway, long version, Map<String, Double> weights,
                      Map<String, Integer> serverCaps, String source) {
        this(v, at, gateway, version, weights, serverCaps, source, 0);
    }

    public Allocation {
        checkVersion(v);
        checkAt(at);
        checkId("gateway", gateway);
        Epochs.checkStamp("version", epoch, version, at);
        weights = weights == null ? Map.of() : Map.copyOf(weights);
        serverCaps = serverCaps == null ? Map.of() : Map.copyOf(serverCaps);
        weights.forEach((c, w) -> {
            if (w == null || !(w >= 0 && w <= MAX_WEIGHT)) {
                throw new IllegalArgumentException("weights." + c + ": " + w + " (expected: 0.." + MAX_WEIGHT + ")");
            }
        });
        serverCaps.forEach((s, n) -> {
            if (n == null || n < 0 || n > MAX_CAP) {
                throw new IllegalArgumentException("serverCaps." + s + ": " + n + " (expected: 0.." + MAX_CAP + ")");
            }
        });
        source = source == null ? "grm" : source;
        pool = pool == null ? "" : pool;
        if (!pool.isEmpty()) {
            checkId("pool", pool);
        }
    }

    /** This allocation for pool {@code p}. */
    public Allocation withPool(String p) {
        return new Allocation(v, at, gateway, version, weights, serverCaps, source, epoch, p);
    }

    /** The key on the compacted allocation topic: the gateway, or {@code gateway@pool} for a pool's allocation. */
    @Override
    public String key() {
        return key(gateway, pool);
    }

    /** The key of gateway {@code g}'s allocation for pool {@code p} ("" = no pools). */
    public static String key(String g, String p) {
        return p.isEmpty() ? g : g + "@" + p;
    }

    /** N_g = Σ_s N(g,s). */
    public int totalCap() {
        return serverCaps.values().stream().mapToInt(Integer::intValue).sum();
    }

    /** True when this allocation is newer than {@code other} in (epoch, version). */
    public boolean isNewerThan(Allocation other) {
        return Epochs.compare(epoch, version, other.epoch, other.version) > 0;
    }
}
