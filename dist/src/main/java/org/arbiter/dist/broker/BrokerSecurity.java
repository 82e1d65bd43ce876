package org.arbiter.dist.broker;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.function.UnaryOperator;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.common.config.KafkaSecurity;

/** A {@code kafka.security} configuration as the embedded broker's {@link EmbeddedKafka.Security}. */
public final class BrokerSecurity {

    private BrokerSecurity() {
    }

    /**
     * The users of a {@code kafka.security} configuration (every role's principal and every gateway's
     * own, passwords read now) with the admin as super user.
     *
     * @throws IllegalArgumentException when the protocol is not SASL_PLAINTEXT (the embedded broker
     *                                  serves no TLS), or a password cannot be read (naming its path)
     */
    public static EmbeddedKafka.Security of(KafkaSecurity sec, UnaryOperator<String> env) {
        if (sec.protocol() != KafkaSecurity.Protocol.SASL_PLAINTEXT) {
            throw new IllegalArgumentException("kafka.security.protocol: " + sec.protocol() + " (expected: SASL_PLAINTEXT "
                    + "for the embedded broker, which serves no TLS; use a Kafka cluster for TLS)");
        }
        Map<String, String> users = new LinkedHashMap<>();
        for (KafkaSecurity.Role role : KafkaSecurity.Role.values()) {
            sec.principal(role).ifPresent(p -> users.put(p.username(), sec.password(role, env)));
        }
        // gateways of their own: each its own user, its password from its own file
        sec.gatewayPrincipals().forEach((id, p) -> users.put(p.username(), sec.gatewayPassword(id)));
        Set<String> supers = sec.principal(KafkaSecurity.Role.ADMIN).map(p -> Set.of(p.username())).orElse(Set.of());
        return new EmbeddedKafka.Security(sec.mechanism().wireName(), users, supers);
    }
}
