package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.Optional;

/**
 * Where the bus is, and how each process authenticates to it.
 *
 * @param bootstrap   bootstrap servers, or null for none (gateways then run standalone)
 * @param topicPrefix prefix of every topic name
 * @param properties  extra client properties, passed to every client (after the security ones, so they win)
 * @param security    {@code kafka.security}: protocol, SCRAM mechanism, TLS files and one principal per role
 */
public record KafkaConfig(String bootstrap, String topicPrefix, Map<String, String> properties, KafkaSecurity security) {
    public KafkaConfig {
        requireNonNull(topicPrefix, "topicPrefix");
        properties = Map.copyOf(requireNonNull(properties, "properties"));
        requireNonNull(security, "security");
    }

    /** An unsecured bus ({@link KafkaSecurity#NONE}). */
    public KafkaConfig(String bootstrap, String topicPrefix, Map<String, String> properties) {
        this(bootstrap, topicPrefix, properties, KafkaSecurity.NONE);
    }

    public Optional<String> bootstrapServers() {
        return Optional.ofNullable(bootstrap).filter(b -> !b.isBlank());
    }

    /** A copy with another bootstrap (a command-line flag wins over the file). */
    public KafkaConfig withBootstrap(String newBootstrap) {
        return new KafkaConfig(newBootstrap, topicPrefix, properties, security);
    }

    /** A copy with other security settings. */
    public KafkaConfig withSecurity(KafkaSecurity newSecurity) {
        return new KafkaConfig(bootstrap, topicPrefix, properties, newSecurity);
    }
}
