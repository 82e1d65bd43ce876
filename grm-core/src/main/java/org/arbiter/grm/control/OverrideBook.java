package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.OverrideRange;
import org.arbiter.common.message.ServerState;
import org.arbiter.common.override.EffectiveClass;

/**
 * The operator's overrides in force, as read from the compacted overrides topic: the latest
 * record of each id wins; {@code active: false} or a tombstone removes it. An override that names
 * a gateway, class or server the configuration does not know is refused (and counted), so a typo
 * in the console cannot pin something that does not exist. Numbers need no check here: an
 * {@link OperatorOverride} out of {@link OverrideRange} cannot be built or decoded. Whether the
 * weight and N_s pins can be met together is decided each period by
 * {@link org.arbiter.common.override.PinSelection} (in {@link ProblemBuilder}), not here, as it depends
 * on the live gateways and the ON servers.
 *
 * <p>Core class. Not thread-safe; the GRM service calls it from one thread.
 */
public final class OverrideBook {

    /** A (gateway, class) pair. */
    public record Flow(String gateway, String cls) {
    }

    private final ClusterConfig config;
    private final Map<String, OperatorOverride> active = new TreeMap<>();
    private long refused;

    public OverrideBook(ClusterConfig config) {
        this.config = requireNonNull(config, "config");
    }

    /**
     * Applies one record of the overrides topic.
     *
     * @return empty when taken, or why it was refused
     */
    public Optional<String> apply(String id, OperatorOverride override) {
        requireNonNull(id, "id");
        if (override == null || !override.active()) {
            active.remove(id);
            return Optional.empty();
        }
        Optional<String> problem = check(override);
        if (problem.isPresent()) {
            refused++;
            return problem;
        }
        active.put(id, override);
        return Optional.empty();
    }

    private Optional<String> check(OperatorOverride o) {
        if (o.gateway() != null && config.gateway(o.gateway()).isEmpty()) {
            return Optional.of("gateway: " + o.gateway() + " (expected: a gateway of the configuration)");
        }
        if (o.cls() != null && config.classNamed(o.cls()).isEmpty()) {
            return Optional.of("class: " + o.cls() + " (expected: a class of the configuration)");
        }
        if (o.server() != null && config.server(o.server()).isEmpty()) {
            return Optional.of("server: " + o.server() + " (expected: a server of the configuration)");
        }
        return Optional.empty();
    }

    /** Overrides refused since start. */
    public long refused() {
        return refused;
    }

    /** Ids of the overrides in force, sorted. */
    public List<String> ids() {
        return List.copyOf(active.keySet());
    }

    public List<OperatorOverride> all() {
        return List.copyOf(active.values());
    }

    /** Pinned w(g,c); when several pin one flow, the newest wins ({@link EffectiveClass#newer}). */
    public Map<Flow, Double> weightPins() {
        Map<Flow, OperatorOverride> newest = new TreeMap<>((a, b) -> (a.gateway() + "\u0000" + a.cls())
                .compareTo(b.gateway() + "\u0000" + b.cls()));
        for (OperatorOverride o : active.values()) {
            if (o.kind() == OperatorOverride.Kind.WEIGHT) {
                newest.merge(new Flow(o.gateway(), o.cls()), o, EffectiveClass::newer);
            }
        }
        Map<Flow, Double> out = new LinkedHashMap<>();
        newest.forEach((f, o) -> out.put(f, o.value()));
        return out;
    }

    /** Pinned N_s. */
    public Map<String, Integer> concurrencyPins() {
        Map<String, OperatorOverride> newest = new TreeMap<>();
        for (OperatorOverride o : active.values()) {
            if (o.kind() == OperatorOverride.Kind.CONCURRENCY) {
                newest.merge(o.server(), o, EffectiveClass::newer);
            }
        }
        Map<String, Integer> out = new TreeMap<>();
        newest.forEach((s, o) -> out.put(s, OverrideRange.CONCURRENCY.toInt(o.value())));
        return out;
    }

    /** Power states held by the operator. */
    public Map<String, ServerState> powerPins() {
        Map<String, OperatorOverride> newest = new TreeMap<>();
        for (OperatorOverride o : active.values()) {
            if (o.kind() == OperatorOverride.Kind.POWER) {
                newest.merge(o.server(), o, EffectiveClass::newer);
            }
        }
        Map<String, ServerState> out = new TreeMap<>();
        newest.forEach((s, o) -> out.put(s, o.state()));
        return out;
    }

    /** The class as configured, with the target and utility overrides in force applied ({@link EffectiveClass}). */
    public ClassConfig effective(ClassConfig c) {
        return EffectiveClass.of(c, active.values());
    }
}
