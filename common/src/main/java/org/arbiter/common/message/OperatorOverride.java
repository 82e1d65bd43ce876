package org.arbiter.common.message;

import static org.arbiter.common.message.Message.checkAt;
import static org.arbiter.common.message.Message.checkId;
import static org.arbiter.common.message.Message.checkVersion;

import com.fasterxml.jackson.annotation.JsonProperty;
import java.time.Instant;

/**
 * An operator's override (an "override" on the wire; named so it does not shadow
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
 * An active override's numbers are checked against {@link OverrideRange} here, so a record
 * out of range can neither be built nor decoded ({@code value: 1.0E10 (expected: between 0 and
 * 1000000)}). An inactive one (an unpin) carries whatever the pin carried and is not checked.
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
                    OverrideRange.WEIGHT.check(value);
                }
                case CONCURRENCY -> {
                    checkId("server", server);
                    OverrideRange.CONCURRENCY.check(value);
                }
                case TARGET -> {
                    checkId("class", cls);
                    OverrideRange.TARGET.check(value);
                }
                case UTILITY -> {
                    checkId("class", cls);
                    if (phi == null && alpha == null && beta == null) {
                        throw new IllegalArgumentException("phi: missing (expected: at least one of phi, alpha, beta)");
                    }
                    if (phi != null) {
                        OverrideRange.PHI.check(phi);
                    }
                    if (alpha != null) {
                        OverrideRange.ALPHA.check(alpha);
                    }
                    if (beta != null) {
                        OverrideRange.BETA.check(beta);
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

    @Override
    public String key() {
        return id;
    }
}
