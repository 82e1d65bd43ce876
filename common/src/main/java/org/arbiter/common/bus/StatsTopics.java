package org.arbiter.common.bus;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;

/**
 * Where gateways' statistics are read from, and which records a reader takes: the one rule the GRM
 * and the console share.
 *
 * <p>A gateway with a Kafka principal of its own ({@code kafka.security.principals.gateways}) writes
 * to {@code <prefix>stats.<id>}, which the broker's ACLs let only it write; the others share
 * {@code <prefix>stats}. So a record is taken only from where its gateway may write: on a gateway's
 * own topic only if it names that gateway ({@link #OTHER_GATEWAY} otherwise: a record there naming
 * another was not written by that other), on the shared topic only if its gateway has no topic of
 * its own ({@link #NOT_OWN_TOPIC} otherwise: any gateway on the shared principal could have written
 * it).
 *
 * <p>Stateless and thread-safe.
 */
public final class StatsTopics {

    /** Refusal reason: a record on gateway g's own topic that names another gateway. */
    public static final String OTHER_GATEWAY = "other-gateway";
    /** Refusal reason: a record on the shared topic for a gateway that has a topic of its own. */
    public static final String NOT_OWN_TOPIC = "not-own-topic";

    private StatsTopics() {
    }

    /**
     * The topic gateway {@code gatewayId} writes its statistics to: {@code <prefix>stats.<id>} when it
     * has a principal of its own, else the shared {@code <prefix>stats}.
     */
    public static String topicOf(Topics t, KafkaSecurity security, String gatewayId) {
        return security.ownStats(gatewayId) ? t.statsOf(gatewayId) : t.stats();
    }

    /** The topics to read statistics from: the shared one, then each gateway's own (sorted by gateway). */
    public static List<String> topics(Topics t, KafkaSecurity security) {
        requireNonNull(t, "t");
        requireNonNull(security, "security");
        List<String> out = new ArrayList<>();
        out.add(t.stats());
        if (security.enabled()) {
            security.gatewayPrincipals().keySet().forEach(g -> out.add(t.statsOf(g)));
        }
        return List.copyOf(out);
    }

    /** As {@link #topics(Topics, KafkaSecurity)} for a configuration's own prefix. */
    public static List<String> topics(KafkaConfig kafka) {
        return topics(new Topics(kafka.topicPrefix()), kafka.security());
    }

    /**
     * Why {@code stats}, read on {@code topic}, is not taken; null when it is.
     *
     * @throws IllegalArgumentException when {@code topic} is not one of {@link #topics}
     */
    public static String refusal(Topics t, KafkaSecurity security, String topic, GatewayStats stats) {
        requireNonNull(stats, "stats");
        if (topic.equals(t.stats())) {
            return security.ownStats(stats.gateway()) ? NOT_OWN_TOPIC : null;
        }
        for (String g : security.gatewayPrincipals().keySet()) {
            if (topic.equals(t.statsOf(g))) {
                return stats.gateway().equals(g) ? null : OTHER_GATEWAY;
            }
        }
        throw new IllegalArgumentException("topic: " + topic + " (expected: one of " + topics(t, security) + ")");
    }

    /**
     * A gateway's report for one pool: written to partition {@code partition} (the pool's index in
     * {@code pools}) of the shared topic, under {@code key}: {@code gateway@pool}, as the pool's allocation is keyed
     * ({@link Allocation#key(String, String)}).
     */
    public record PoolReport(int partition, String key, GatewayStats stats) {
    }

    /**
     * What a gateway writes to the shared topic when the cluster has {@code pools}: one report per pool, in
     * the pools' order, each restricted to the pool's classes and servers (the gateway-wide fields kept), so
     * the GRM that owns partition i reads pool i's reports and nothing else. Without pools: the report
     * whole, on no particular partition ({@link Bus#NO_PARTITION}, key the gateway).
     */
    public static List<PoolReport> poolReports(List<PoolConfig> pools, GatewayStats stats) {
        requireNonNull(pools, "pools");
        requireNonNull(stats, "stats");
        if (pools.isEmpty()) {
            return List.of(new PoolReport(Bus.NO_PARTITION, stats.gateway(), stats));
        }
        List<PoolReport> out = new ArrayList<>(pools.size());
        for (int i = 0; i < pools.size(); i++) {
            PoolConfig p = pools.get(i);
            out.add(new PoolReport(i, Allocation.key(stats.gateway(), p.name()),
                    stats.restrictTo(Set.copyOf(p.classes()), Set.copyOf(p.servers()))));
        }
        return List.copyOf(out);
    }

    /** As {@link #refusal(Topics, KafkaSecurity, String, GatewayStats)} for a configuration's own prefix. */
    public static String refusal(KafkaConfig kafka, String topic, GatewayStats stats) {
        return refusal(new Topics(kafka.topicPrefix()), kafka.security(), topic, stats);
    }
}
