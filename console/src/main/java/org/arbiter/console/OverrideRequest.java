package org.arbiter.console;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.TextNode;
import java.time.Instant;
import java.util.Collection;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.OperatorOverride.Kind;
import org.arbiter.common.message.OverrideRange;
import org.arbiter.common.override.PinSelection;
import org.arbiter.common.message.ServerState;

/**
 * Reads the body of {@code POST /api/overrides} into an {@link OperatorOverride}, or says which
 * field breaks which rule. The accepted forms:
 * <pre>
 * {"kind": "weight",      "gateway": "g1", "class": "premium", "value": 7}     pin w(g,c) (0 to 1 000 000)
 * {"kind": "concurrency", "server": "s1", "value": 8}                          pin N_s (whole, 1 to 100 000)
 * {"kind": "target",      "class": "premium", "value": 1.5}                    set τ_c in seconds (0 to 86 400, not 0)
 * {"kind": "utility",     "class": "premium", "phi": 1, "alpha": 2, "beta": 1} set any of φ (0 to 10^6), α, β (0 to 10, not 0)
 * {"kind": "power",       "server": "s2", "state": "OFF"}                      hold a server ON or OFF
 * </pre>
 * Gateways, classes and servers must be ones the configuration names; unknown fields are refused
 * (a typo never pins something else). The id says what is pinned ({@code weight:g1:premium}), so
 * pinning the same thing again replaces the pin, as the compacted topic keeps one record per id.
 * The ranges are {@link OverrideRange}'s, the same the message codec and the GRM hold overrides
 * to.
 *
 * <p>With the overrides in force given, a weight, N_s or power pin is also checked against the
 * cluster as configured (every gateway live, every server ON at its configured N_s unless held
 * OFF) and the pins in force, by the rule the GRM applies every period
 * ({@link PinSelection#admit}): a pin the GRM would have to leave out, or one that would make it
 * leave out a pin in force, is refused with the range that would fit
 * ({@code value: 18 (expected: between 0 and 17: N = 20 slots, ...)}).
 *
 * <p>Stateless and thread-safe.
 */
public final class OverrideRequest {

    private static final Map<Kind, Set<String>> FIELDS = Map.of(
            Kind.WEIGHT, Set.of("kind", "gateway", "class", "value"),
            Kind.CONCURRENCY, Set.of("kind", "server", "value"),
            Kind.TARGET, Set.of("kind", "class", "value"),
            Kind.UTILITY, Set.of("kind", "class", "phi", "alpha", "beta"),
            Kind.POWER, Set.of("kind", "server", "state"));

    /** The outcome of reading a request. */
    public sealed interface Result {
        /** A valid override, ready to publish. */
        record Valid(OperatorOverride override) implements Result {
        }

        /** {@code field} breaks {@code rule}; {@code message} is {@code "field: value (expected: rule)"}. */
        record Invalid(String field, String rule, String message) implements Result {
        }
    }

    private OverrideRequest() {
    }

    /**
     * Reads one request.
     *
     * @param body   the parsed JSON body (null when it was not JSON)
     * @param author who asks, recorded in the override
     */
    public static Result read(JsonNode body, ClusterConfig config, String author, Instant now) {
        return read(body, config, List.of(), author, now);
    }

    /**
     * Reads one request and checks it against the configuration and the overrides in force.
     *
     * @param body    the parsed JSON body (null when it was not JSON)
     * @param inForce the overrides in force (the console's view of the overrides topic)
     * @param author  who asks, recorded in the override
     */
    public static Result read(JsonNode body, ClusterConfig config, Collection<OperatorOverride> inForce, String author,
                              Instant now) {
        requireNonNull(inForce, "inForce");
        Result r = readAlone(body, config, author, now);
        if (r instanceof Result.Valid v) {
            Optional<PinSelection.Refusal> refusal = PinSelection.admit(config, inForce, v.override());
            if (refusal.isPresent()) {
                PinSelection.Refusal x = refusal.get();
                return new Result.Invalid(x.field(), x.rule(), x.message());
            }
        }
        return r;
    }

    private static Result readAlone(JsonNode body, ClusterConfig config, String author, Instant now) {
        requireNonNull(config, "config");
        requireNonNull(now, "now");
        if (body == null || !body.isObject()) {
            return invalid("body", "a JSON object with a kind", body == null ? "not JSON" : body.getNodeType().toString().toLowerCase());
        }
        JsonNode kindNode = body.get("kind");
        if (kindNode == null || kindNode.isNull()) {
            return invalid("kind", "one of weight, concurrency, target, utility, power", "missing");
        }
        Kind kind = kindOf(kindNode);
        if (kind == null) {
            return invalid("kind", "one of weight, concurrency, target, utility, power", kindNode.toString());
        }
        Set<String> allowed = FIELDS.get(kind);
        for (Iterator<String> it = body.fieldNames(); it.hasNext(); ) {
            String f = it.next();
            if (!allowed.contains(f)) {
                // A field name that is empty or not a plain word is shown JSON-quoted, so the
                // refusal still names it ("": ... rather than a blank; found by fuzzing).
                String named = f.matches("[A-Za-z0-9_.-]{1,64}") ? f
                        : TextNode.valueOf(f.length() > 64 ? f.substring(0, 64) : f).toString();
                return invalid(named, "one of " + String.join(", ", allowed.stream().sorted().toList()) + " for kind "
                        + kind.name().toLowerCase(), "unknown field");
            }
        }
        try {
            return switch (kind) {
                case WEIGHT -> {
                    String g = known(body, "gateway", config.gateways().stream().map(x -> x.id()).toList());
                    String c = known(body, "class", config.classes().stream().map(x -> x.name()).toList());
                    double v = number(body, OverrideRange.WEIGHT);
                    yield valid(new OperatorOverride(Message.VERSION, now, "weight:" + g + ":" + c, kind, g, c, null, v,
                            null, null, null, null, true, author));
                }
                case CONCURRENCY -> {
                    String s = known(body, "server", config.servers().stream().map(x -> x.id()).toList());
                    double v = number(body, OverrideRange.CONCURRENCY);
                    yield valid(new OperatorOverride(Message.VERSION, now, "concurrency:" + s, kind, null, null, s, v,
                            null, null, null, null, true, author));
                }
                case TARGET -> {
                    String c = known(body, "class", config.classes().stream().map(x -> x.name()).toList());
                    double v = number(body, OverrideRange.TARGET);
                    yield valid(new OperatorOverride(Message.VERSION, now, "target:" + c, kind, null, c, null, v,
                            null, null, null, null, true, author));
                }
                case UTILITY -> {
                    String c = known(body, "class", config.classes().stream().map(x -> x.name()).toList());
                    Double phi = body.has("phi") ? number(body, OverrideRange.PHI) : null;
                    Double alpha = body.has("alpha") ? number(body, OverrideRange.ALPHA) : null;
                    Double beta = body.has("beta") ? number(body, OverrideRange.BETA) : null;
                    if (phi == null && alpha == null && beta == null) {
                        throw new Refusal("phi", "at least one of phi, alpha, beta", "missing");
                    }
                    yield valid(new OperatorOverride(Message.VERSION, now, "utility:" + c, kind, null, c, null, null,
                            phi, alpha, beta, null, true, author));
                }
                case POWER -> {
                    String s = known(body, "server", config.servers().stream().map(x -> x.id()).toList());
                    JsonNode st = body.get("state");
                    if (st == null || st.isNull()) {
                        throw new Refusal("state", "ON or OFF", "missing");
                    }
                    ServerState state = st.isTextual() && st.asText().equalsIgnoreCase("on") ? ServerState.ON
                            : st.isTextual() && st.asText().equalsIgnoreCase("off") ? ServerState.OFF : null;
                    if (state == null) {
                        throw new Refusal("state", "ON or OFF", st.toString());
                    }
                    yield valid(new OperatorOverride(Message.VERSION, now, "power:" + s, kind, null, null, s, null,
                            null, null, null, state, true, author));
                }
                default -> throw new AssertionError(kind);
            };
        } catch (Refusal r) {
            return invalid(r.field, r.rule, r.value);
        } catch (IllegalArgumentException e) {
            // The record's own validation; its message already names the field and the rule.
            String msg = String.valueOf(e.getMessage());
            int colon = msg.indexOf(':');
            return new Result.Invalid(colon > 0 ? msg.substring(0, colon) : "body", msg, msg);
        }
    }

    private static Kind kindOf(JsonNode n) {
        if (!n.isTextual()) {
            return null;
        }
        for (Kind k : Kind.values()) {
            if (k.name().equalsIgnoreCase(n.asText())) {
                return k;
            }
        }
        return null;
    }

    private static String known(JsonNode body, String field, List<String> names) {
        JsonNode n = body.get(field);
        String rule = names.isEmpty() ? "a configured " + field : "one of " + String.join(", ", names);
        if (n == null || n.isNull()) {
            throw new Refusal(field, rule, "missing");
        }
        if (!n.isTextual() || !names.contains(n.asText())) {
            throw new Refusal(field, rule, n.toString());
        }
        return n.asText();
    }

    private static double number(JsonNode body, OverrideRange range) {
        String field = range.field();
        JsonNode n = body.get(field);
        if (n == null || n.isNull()) {
            throw new Refusal(field, range.rule(), "missing");
        }
        if (!n.isNumber()) {
            throw new Refusal(field, range.rule(), n.toString());
        }
        double v = n.asDouble();   // a number beyond double's range is ±Infinity here, and refused
        if (!range.contains(v)) {
            throw new Refusal(field, range.rule(), Double.isFinite(v) ? n.toString() : String.valueOf(v));
        }
        return v;
    }

    private static Result valid(OperatorOverride o) {
        return new Result.Valid(o);
    }

    private static Result invalid(String field, String rule, String value) {
        String shown = value.length() > 80 ? value.substring(0, 80) + "…" : value;
        return new Result.Invalid(field, rule, field + ": " + shown + " (expected: " + rule + ")");
    }

    private static final class Refusal extends RuntimeException {
        final String field;
        final String rule;
        final String value;

        Refusal(String field, String rule, String value) {
            super(field, null, false, false);
            this.field = field;
            this.rule = rule;
            this.value = value;
        }
    }
}
