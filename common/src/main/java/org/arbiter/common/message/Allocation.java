package org.arbiter.common.message;

import static org.arbiter.common.message.Message.checkAt;
import static org.arbiter.common.message.Message.checkId;
import static org.arbiter.common.message.Message.checkVersion;

import java.time.Instant;
import java.util.Map;

/**
 * The shares and caps gateway {@code gateway} must enforce. Topic {@code allocation} (compacted),
 * key: the gateway id. {@code version} only grows, also across a change of GRM leader.
 *
 * @param weights    w(g,c) per class, may be fractional
 * @param serverCaps N(g,s) per server; a server absent here gets no requests from this gateway
 * @param source     who decided: "grm", "configured", "override"
 */
public record Allocation(int v, Instant at, String gateway, long version, Map<String, Double> weights,
                         Map<String, Integer> serverCaps, String source) implements Message {

    public Allocation {
        checkVersion(v);
        checkAt(at);
        checkId("gateway", gateway);
        if (version < 0) {
            throw new IllegalArgumentException("version: " + version + " (expected: >= 0)");
        }
        weights = weights == null ? Map.of() : Map.copyOf(weights);
        serverCaps = serverCaps == null ? Map.of() : Map.copyOf(serverCaps);
        weights.forEach((c, w) -> {
            if (w == null || !(w >= 0) || w.isInfinite()) {
                throw new IllegalArgumentException("weights." + c + ": " + w + " (expected: >= 0)");
            }
        });
        serverCaps.forEach((s, n) -> {
            if (n == null || n < 0) {
                throw new IllegalArgumentException("serverCaps." + s + ": " + n + " (expected: >= 0)");
            }
        });
        source = source == null ? "grm" : source;
    }

    @Override
    public String key() {
        return gateway;
    }

    /** N_g = Σ_s N(g,s). */
    public int totalCap() {
        return serverCaps.values().stream().mapToInt(Integer::intValue).sum();
    }
}
