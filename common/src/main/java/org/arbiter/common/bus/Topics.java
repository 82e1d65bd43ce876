package org.arbiter.common.bus;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;

/**
 * The topic names of one Arbiter installation, all under one prefix (default {@code arbiter.}),
 * and the configuration each is created with.
 *
 * @param prefix prepended to every name
 */
public record Topics(String prefix) {

    public Topics {
        requireNonNull(prefix, "prefix");
    }

    /**
     * gateway → GRM, console; key gateway. With {@code pools}: one partition per pool, in configuration order,
     * and a gateway's report for pool i (keyed {@code gateway@pool}) on partition i; the member of the GRM
     * consumer group that owns partition i owns pool i (the GRMs create or grow the partitions).
     */
    public String stats() {
        return prefix + "stats";
    }

    /**
     * gateway {@code gateway} → GRM, console; key gateway: the statistics of a gateway with a Kafka
     * principal of its own ({@code kafka.security.principals.gateways}), which only it may write.
     */
    public String statsOf(String gateway) {
        requireNonNull(gateway, "gateway");
        return prefix + "stats." + gateway;
    }

    /** GRM → gateways, console; key gateway; compacted. */
    public String allocation() {
        return prefix + "allocation";
    }

    /** GRM → actuators, console; key server; compacted. */
    public String power() {
        return prefix + "power";
    }

    /** console → GRM; key override id; compacted. */
    public String overrides() {
        return prefix + "overrides";
    }

    /** GRM → console; key GRM id. */
    public String decisions() {
        return prefix + "decisions";
    }

    /** One partition; its owner in the GRM consumer group leads. */
    public String grmLeader() {
        return prefix + "grm-leader";
    }

    /**
     * The consumer group of the GRM candidates (leader election on {@link #grmLeader()}; with pools, the
     * pools' partitions of {@link #stats()}).
     */
    public String grmGroup() {
        return prefix + "grm";
    }

    public List<String> all() {
        return List.of(stats(), allocation(), power(), overrides(), decisions(), grmLeader());
    }

    /** {@link #all()} and the statistics topics of the gateways that have their own ({@link #statsOf}). */
    public List<String> all(Collection<String> ownStatsGateways) {
        List<String> out = new ArrayList<>(all());
        ownStatsGateways.stream().sorted().forEach(g -> out.add(statsOf(g)));
        return List.copyOf(out);
    }

    /** Topic configs: compaction for the state topics, bounded retention for the streams. */
    public Map<String, String> configOf(String topic) {
        if (topic.equals(allocation()) || topic.equals(power()) || topic.equals(overrides())) {
            return Map.of("cleanup.policy", "compact", "min.cleanable.dirty.ratio", "0.1", "segment.ms", "600000");
        }
        return Map.of("cleanup.policy", "delete", "retention.ms", Long.toString(24L * 3600 * 1000));
    }
}
