package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.Optional;

/**
 * Where the bus is.
 *
 * @param bootstrap   bootstrap servers, or null for none (gateways then run standalone)
 * @param topicPrefix prefix of every topic name
 * @param properties  extra client properties (TLS, SASL), passed to every client
 */
public record KafkaConfig(String bootstrap, String topicPrefix, Map<String, String> properties) {
    public KafkaConfig {
        requireNonNull(topicPrefix, "topicPrefix");
        properties = Map.copyOf(requireNonNull(properties, "properties"));
    }

    public Optional<String> bootstrapServers() {
        return Optional.ofNullable(bootstrap).filter(b -> !b.isBlank());
    }

    /** A copy with another bootstrap (a command-line flag wins over the file). */
    public KafkaConfig withBootstrap(String newBootstrap) {
        return new KafkaConfig(newBootstrap, topicPrefix, properties);
    }
}
