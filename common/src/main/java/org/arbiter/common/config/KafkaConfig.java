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

    /**
     * Every default, as {@link ConfigLoader} applies them: no bootstrap, topics prefixed {@code arbiter.}, no
     * extra properties, no security.
     */
    public static final KafkaConfig DEFAULT = builder().build();

    /** A builder starting from the defaults (see {@link Builder}). */
    public static Builder builder() {
        return new Builder();
    }

    /** A builder starting from this configuration. */
    public Builder toBuilder() {
        return new Builder().bootstrap(bootstrap).topicPrefix(topicPrefix).properties(properties).security(security);
    }

    /**
     * Builds a {@link KafkaConfig}; every setter's Javadoc gives the default, the value {@link ConfigLoader}
     * applies when the key is absent. {@link #build()} checks what the record checks. Not thread-safe.
     */
    public static final class Builder {
        private String bootstrap = null;
        private String topicPrefix = KafkaSection.TOPIC_PREFIX.defaultValue();
        private Map<String, String> properties = Map.of();
        private KafkaSecurity security = KafkaSecurity.NONE;

        private Builder() {
        }

        /** {@code bootstrap}; default none (gateways run standalone). */
        public Builder bootstrap(String bootstrap) {
            this.bootstrap = bootstrap;
            return this;
        }

        /** {@code topicPrefix}; default {@code arbiter.}. */
        public Builder topicPrefix(String topicPrefix) {
            this.topicPrefix = topicPrefix;
            return this;
        }

        /** {@code properties}; default none. */
        public Builder properties(Map<String, String> properties) {
            this.properties = properties;
            return this;
        }

        /** {@code security}; default {@link KafkaSecurity#NONE}. */
        public Builder security(KafkaSecurity security) {
            this.security = security;
            return this;
        }

        public KafkaConfig build() {
            return new KafkaConfig(bootstrap, topicPrefix, properties, security);
        }
    }
}
