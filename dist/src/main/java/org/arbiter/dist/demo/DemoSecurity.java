package org.arbiter.dist.demo;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.PrintWriter;

import java.nio.file.Files;
import java.nio.file.Path;

import java.security.SecureRandom;
import java.time.Instant;
import java.util.EnumMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.arbiter.bus.BusAcls;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.KafkaSecurity.Role;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.runtime.files.SecretFiles;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;

/**
 * {@code demo --secure}: one principal per role and one per gateway (each gateway writes a
 * statistics topic of its own), each with a fresh random password in an owner-only file, and,
 * once everything runs, a check that the broker refuses what a principal may not write.
 *
 * <p>Stateless; not for concurrent use on one directory.
 */
final class DemoSecurity {

    private DemoSecurity() {
    }

    /**
     * Writes {@code dir/<role>.password} for every role and {@code dir/gateway-<id>.password} for
     * every gateway, and returns the matching {@code kafka.security}.
     */
    static KafkaSecurity create(Path dir, List<String> gateways) throws IOException {
        Files.createDirectories(dir);
        SecureRandom rnd = new SecureRandom();
        Map<Role, KafkaSecurity.Principal> principals = new EnumMap<>(Role.class);
        for (Role role : Role.values()) {
            principals.put(role, principal(dir, role.key(), "demo-" + role.key(), rnd));
        }
        Map<String, KafkaSecurity.Principal> own = new TreeMap<>();
        for (String g : gateways) {
            own.put(g, principal(dir, "gateway-" + g, "demo-gateway-" + g, rnd));
        }
        return new KafkaSecurity(KafkaSecurity.Protocol.SASL_PLAINTEXT, KafkaSecurity.Mechanism.SCRAM_SHA_512,
                KafkaSecurity.Tls.NONE, principals, own);
    }

    private static KafkaSecurity.Principal principal(Path dir, String name, String user, SecureRandom rnd)
            throws IOException {
        byte[] seed = new byte[12];
        rnd.nextBytes(seed);
        Path file = dir.resolve(name + ".password").toAbsolutePath();
        SecretFiles.writeOwnerOnly(file, HexFormat.of().formatHex(seed) + "\n");
        return new KafkaSecurity.Principal(user, file, null, null, null);
    }

    /**
     * Connects as a gateway and as the console and tries to write what only the GRM may: the
     * broker must refuse each. Logs one line per attempt and returns them for summary.json.
     */
    static ObjectNode check(ClusterConfig cluster, PrintWriter log) {
        ObjectNode result = MessageCodec.mapper().createObjectNode();
        Instant now = Instant.now();
        // Keys no gateway or server has, so that even an accepted forgery would change nothing; a valid
        // record otherwise (a version past its own bound was refused by the record itself, before the
        // broker could refuse it, and ended `demo --secure` with an exception).
        Allocation forged = new Allocation(1, now, "forged", 1, Map.of(), Map.of(), "forger");
        PowerOrder off = new PowerOrder(1, now, "forged", ServerState.OFF, ServerState.ON, "forged", 1);
        int refused = 0;
        int attempts = 0;
        for (Role role : new Role[] {Role.GATEWAY, Role.CONSOLE}) {
            try (KafkaBus bus = KafkaBus.connect(cluster.kafka(), role, "demo-check-" + role.key(), null)) {
                for (Map.Entry<String, Message> w : Map.<String, Message>of(bus.topics().allocation(), forged,
                        bus.topics().power(), off).entrySet()) {
                    attempts++;
                    String outcome = attempt(bus, w.getKey(), w.getValue());
                    refused += outcome.startsWith("refused") ? 1 : 0;
                    String who = cluster.kafka().security().principal(role).orElseThrow().username();
                    result.put(role.key() + " writes " + w.getKey(), outcome);
                    log.printf("demo: secured check: %s (%s) writes %s: %s%n", role.key(), who, w.getKey(), outcome);
                }
            }
        }
        // a gateway of its own writing another gateway's statistics, or the shared topic
        List<String> own = List.copyOf(cluster.kafka().security().gatewayPrincipals().keySet());
        if (own.size() >= 2) {
            String g = own.get(0);
            String other = own.get(1);
            GatewayStats inItsName = new GatewayStats(1, now, other, 5, 0, Map.of(), Map.of());
            try (KafkaBus bus = KafkaBus.connectGateway(cluster.kafka(), g, "demo-check-" + g, null)) {
                for (String topic : List.of(bus.topics().statsOf(other), bus.topics().stats())) {
                    attempts++;
                    String outcome = attempt(bus, topic, inItsName);
                    refused += outcome.startsWith("refused") ? 1 : 0;
                    String who = cluster.kafka().security().gatewayPrincipal(g).orElseThrow().username();
                    result.put("gateway " + g + " writes " + topic, outcome);
                    log.printf("demo: secured check: gateway %s (%s) writes %s's statistics on %s: %s%n", g, who, other,
                            topic, outcome);
                }
            }
        }
        result.put("refused", refused);
        result.put("attempts", attempts);
        log.printf("demo: secured check: %d of %d forbidden writes refused by the broker%n", refused, attempts);
        log.flush();
        return result;
    }

    private static String attempt(KafkaBus bus, String topic, Message m) {
        try {
            bus.publisher(topic).publish(m).get(15, TimeUnit.SECONDS);
            return "ACCEPTED (expected: refused)";
        } catch (ExecutionException e) {
            Throwable c = e.getCause();
            return (BusAcls.isRefusal(c) ? "refused (" : "failed otherwise (")
                    + c.getClass().getSimpleName() + ")";
        } catch (TimeoutException e) {
            return "no answer in 15 s";
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return "interrupted";
        }
    }
}
