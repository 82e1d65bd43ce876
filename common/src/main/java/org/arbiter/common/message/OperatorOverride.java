package org.arbiter.common.message;

import static org.arbiter.common.message.Message.checkAt;
import static org.arbiter.common.message.Message.checkId;
import static org.arbiter.common.message.Message.checkVersion;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * An operator's override ("Override" in ARCHITECTURE.md; named so it does not shadow
 * {@code java.lang.Override}), applied by the GRM. Topic {@code overrides} (compacted), key: the
 * override id. {@code active: false} (or a tombstone) removes it.
 *
 * <ul>
 *   <li>{@code weight}: pin w(gateway, class) to {@code value};</li>
 *   <li>{@code concurrency}: pin N_s of {@code server} to {@code value};</li>
 *   <li>{@code target}: set τ of {@code class} to {@code value} seconds;</li>
 *   <li>{@code utility}: set φ, α, β of {@code class};</li>
 *   <li>{@code power}: hold {@code server} in {@code state} (ON or OFF).</li>
 * </ul>
 */
public record OperatorOverride(int v, Instant at, String id, Kind kind, String gateway, @JsonProperty("class") String cls, String server,
                       Double value, Double phi, Double alpha, Double beta, ServerState state, boolean active,
                       String author) implements Message {

    /** What an override pins. */
    public enum Kind {
        @JsonProperty("weight") WEIGHT,
        @JsonProperty("concurrency") CONCURRENCY,
        @JsonProperty("target") TARGET,
        @JsonProperty("utility") UTILITY,
        @JsonProperty("power") POWER
    }

    public OperatorOverride {
        checkVersion(v);
        checkAt(at);
        checkId("id", id);
        if (kind == null) {
            throw new IllegalArgumentException("kind: missing (expected: weight, concurrency, target, utility or power)");
        }
        if (active) {
            switch (kind) {
                case WEIGHT -> {
                    checkId("gateway", gateway);
                    checkId("class", cls);
                    positive("value", value, true);
                }
                case CONCURRENCY -> {
                    checkId("server", server);
                    positive("value", value, false);
                    if (value != Math.rint(value)) {
                        throw new IllegalArgumentException("value: " + value + " (expected: a whole number)");
                    }
                }
                case TARGET -> {
                    checkId("class", cls);
                    positive("value", value, false);
                }
                case UTILITY -> {
                    checkId("class", cls);
                    if (phi == null && alpha == null && beta == null) {
                        throw new IllegalArgumentException("phi: missing (expected: at least one of phi, alpha, beta)");
                    }
                    if (phi != null) {
                        positive("phi", phi, true);
                    }
                    if (alpha != null) {
                        positive("alpha", alpha, false);
                    }
                    if (beta != null) {
                        positive("beta", beta, false);
                    }
                }
                case POWER -> {
                    checkId("server", server);
                    if (state != ServerState.ON && state != ServerState.OFF) {
                        throw new IllegalArgumentException("state: " + state + " (expected: ON or OFF)");
                    }
                }
                default -> throw new AssertionError(kind);
            }
        }
        author = author == null ? "" : author;
    }

    private static void positive(String field, Double value, boolean zeroAllowed) {
        if (value == null) {
            throw new IllegalArgumentException(field + ": missing (expected: a number)");
        }
        if (!Double.isFinite(value) || value < 0 || (!zeroAllowed && value == 0)) {
            throw new IllegalArgumentException(field + ": " + value + (zeroAllowed ? " (expected: >= 0)" : " (expected: > 0)"));
        }
    }

    @Override
    public String key() {
        return id;
    }
}
