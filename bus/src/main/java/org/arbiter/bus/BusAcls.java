package org.arbiter.bus;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.arbiter.common.bus.Topics;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.common.config.KafkaSecurity.Role;

/**
 * Who may write what on a secured bus: the Kafka ACLs a configuration implies.
 *
 * <p>Design: least privilege per role, all grants literal (no prefix or wildcard patterns), so a
 * principal can touch only the named topics and group.
 * <ul>
 *   <li>GRM: Write {@code allocation}, {@code power}, {@code decisions}; Read {@code stats},
 *       {@code overrides}, and {@code allocation}, {@code power} (it reads its own state back at
 *       start); Read on {@code grm-leader} and on the group {@code <prefix>grm} (leader election);
 *       Create on the six topics (the GRM creates missing topics);</li>
 *   <li>gateway: Write {@code stats}; Read {@code allocation};</li>
 *   <li>a gateway with a principal of its own ({@code kafka.security.principals.gateways.<id>}):
 *       Write {@code stats.<id>} only, Read {@code allocation}; the GRM (Read, Create) and the
 *       console (Read) get {@code stats.<id>} too. Kafka cannot restrict a record's key, so the
 *       gateway's own topic is what keeps it from writing statistics in another gateway's name;</li>
 *   <li>console: Write {@code overrides}; Read {@code overrides}, {@code stats},
 *       {@code allocation}, {@code power}, {@code decisions};</li>
 *   <li>every Read or Write comes with Describe (metadata, offsets).</li>
 * </ul>
 * Gateways and the console read without a consumer group (assigned partitions), so they need no
 * group ACL. The idempotent producer needs no cluster ACL on brokers 3.0 and later (KIP-679: Write
 * on a topic implies IdempotentWrite). The admin principal gets nothing here: it is a super user
 * (embedded broker) or holds Alter and Create on the cluster (an existing cluster).
 *
 * <p>Stateless and thread-safe.
 */
public final class BusAcls {

    /** One grant: {@code principal} may do {@code operations} on a literal resource. */
    public record Grant(Role role, String principal, ResourceType type, String name, Set<AclOperation> operations) {
        public Grant {
            requireNonNull(role, "role");
            requireNonNull(principal, "principal");
            requireNonNull(type, "type");
            requireNonNull(name, "name");
            operations = Set.copyOf(operations);
        }

        /** The operations in Kafka's order (Read, Write, Create, Describe), as kafka-acls spells them. */
        public List<String> operationNames() {
            return operations.stream().sorted().map(BusAcls::kafkaName).toList();
        }
    }

    private BusAcls() {
    }

    /**
     * The grants of a secured configuration, role by role (GRM, gateway, console), each resource
     * once.
     *
     * @throws IllegalArgumentException when {@code kafka.security} is absent or a role has no principal
     */
    public static List<Grant> grants(KafkaConfig config) {
        requireNonNull(config, "config");
        KafkaSecurity sec = config.security();
        if (!sec.enabled()) {
            throw new IllegalArgumentException("kafka.security: absent (expected: a secured bus; without one every client is "
                    + "ANONYMOUS and ACLs cannot tell the roles apart)");
        }
        Topics t = new Topics(config.topicPrefix());
        List<Grant> out = new ArrayList<>();
        String grm = principal(sec, Role.GRM);
        Set<AclOperation> rw = EnumSet.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE);
        Set<AclOperation> w = EnumSet.of(AclOperation.WRITE, AclOperation.DESCRIBE, AclOperation.CREATE);
        Set<AclOperation> r = EnumSet.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.CREATE);
        out.add(topic(Role.GRM, grm, t.allocation(), rw));
        out.add(topic(Role.GRM, grm, t.power(), rw));
        out.add(topic(Role.GRM, grm, t.decisions(), w));
        // the GRMs give the statistics topic one partition per pool
        out.add(topic(Role.GRM, grm, t.stats(), EnumSet.of(AclOperation.READ, AclOperation.DESCRIBE, AclOperation.CREATE,
                AclOperation.ALTER)));
        out.add(topic(Role.GRM, grm, t.overrides(), r));
        out.add(topic(Role.GRM, grm, t.grmLeader(), r));
        out.add(new Grant(Role.GRM, grm, ResourceType.GROUP, t.grmGroup(), EnumSet.of(AclOperation.READ)));

        String gw = principal(sec, Role.GATEWAY);
        out.add(topic(Role.GATEWAY, gw, t.stats(), EnumSet.of(AclOperation.WRITE, AclOperation.DESCRIBE)));
        out.add(topic(Role.GATEWAY, gw, t.allocation(), EnumSet.of(AclOperation.READ, AclOperation.DESCRIBE)));

        String console = principal(sec, Role.CONSOLE);
        out.add(topic(Role.CONSOLE, console, t.overrides(),
                EnumSet.of(AclOperation.READ, AclOperation.WRITE, AclOperation.DESCRIBE)));
        for (String read : List.of(t.stats(), t.allocation(), t.power(), t.decisions())) {
            out.add(topic(Role.CONSOLE, console, read, EnumSet.of(AclOperation.READ, AclOperation.DESCRIBE)));
        }
        // A gateway of its own: it alone writes its statistics topic; the GRM and the console read it.
        sec.gatewayPrincipals().forEach((id, who) -> {
            String own = t.statsOf(id);
            out.add(topic(Role.GATEWAY, who.aclPrincipal(), own, EnumSet.of(AclOperation.WRITE, AclOperation.DESCRIBE)));
            out.add(topic(Role.GATEWAY, who.aclPrincipal(), t.allocation(),
                    EnumSet.of(AclOperation.READ, AclOperation.DESCRIBE)));
            out.add(topic(Role.GRM, grm, own, r));
            out.add(topic(Role.CONSOLE, console, own, EnumSet.of(AclOperation.READ, AclOperation.DESCRIBE)));
        });
        return out;
    }

    /** The grants as Kafka ACL bindings (allow, any host, literal pattern), one per operation. */
    public static List<AclBinding> bindings(Collection<Grant> grants) {
        List<AclBinding> out = new ArrayList<>();
        for (Grant g : grants) {
            ResourcePattern pattern = new ResourcePattern(g.type(), g.name(), PatternType.LITERAL);
            for (AclOperation op : g.operations().stream().sorted().toList()) {
                out.add(new AclBinding(pattern, new AccessControlEntry(g.principal(), "*", op, AclPermissionType.ALLOW)));
            }
        }
        return out;
    }

    /** A table: principal, resource, operations; one line per grant. */
    public static String table(List<Grant> grants) {
        StringBuilder sb = new StringBuilder();
        int pw = Math.max("principal".length(), grants.stream().mapToInt(g -> g.principal().length()).max().orElse(0));
        int rw = Math.max("resource".length(), grants.stream().mapToInt(g -> resource(g).length()).max().orElse(0));
        String fmt = "%-8s %-" + pw + "s %-" + rw + "s %s%n";
        sb.append(String.format(Locale.ROOT, fmt, "role", "principal", "resource", "operations"));
        for (Grant g : grants) {
            sb.append(String.format(Locale.ROOT, fmt, g.role().key(), g.principal(), resource(g),
                    String.join(", ", g.operationNames())));
        }
        return sb.toString();
    }

    /**
     * The same grants as {@code kafka-acls.sh} commands, one per grant, for operators who apply
     * ACLs with Kafka's own tools ({@code $BOOTSTRAP} and {@code admin.properties} are theirs).
     */
    public static String kafkaAclsCommands(List<Grant> grants) {
        StringBuilder sb = new StringBuilder();
        for (Grant g : grants) {
            sb.append("kafka-acls.sh --bootstrap-server \"$BOOTSTRAP\" --command-config admin.properties --add")
                    .append(" --allow-principal '").append(g.principal()).append('\'');
            for (String op : g.operationNames()) {
                sb.append(" --operation ").append(op);
            }
            sb.append(g.type() == ResourceType.GROUP ? " --group " : " --topic ").append(g.name()).append('\n');
        }
        return sb.toString();
    }

    /** What {@link #apply} did. */
    public record Applied(List<String> topicsCreated, int bindings) {
    }

    /**
     * Creates the missing topics and the ACLs, as the principal {@code adminProperties} log in as
     * (a super user, or one with Create and Alter on the cluster), and returns once the broker
     * reports them all (when the admin may describe ACLs). Creating an ACL that exists is a no-op,
     * so this may run again after every change of the configuration.
     *
     * @throws IllegalStateException when the broker refuses or does not answer within 30 s
     */
    public static Applied apply(Properties adminProperties, KafkaConfig config) {
        List<Grant> grants = grants(config);
        List<AclBinding> bindings = bindings(grants);
        try (Admin admin = Admin.create(adminProperties)) {
            List<String> created = KafkaBus.createTopics(admin, new Topics(config.topicPrefix()),
                    config.security().gatewayPrincipals().keySet());
            admin.createAcls(bindings).all().get(30, TimeUnit.SECONDS);
            awaitInForce(admin, bindings);
            return new Applied(created, bindings.size());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while applying ACLs", e);
        } catch (ExecutionException e) {
            throw new IllegalStateException("cannot apply ACLs: " + e.getCause(), e);
        } catch (TimeoutException e) {
            throw new IllegalStateException("cannot apply ACLs on " + adminProperties.get("bootstrap.servers") + ": "
                    + (e.getMessage() == null ? "no answer within 30 s" : e.getMessage()), e);
        }
    }

    /** True when {@code failure} (or its cause) is the broker refusing an operation (a topic, group or cluster ACL). */
    public static boolean isRefusal(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof AuthorizationException) {
                return true;
            }
        }
        return false;
    }

    /**
     * Waits until the broker that answered reports every binding: KRaft brokers learn ACLs from
     * the metadata log, a moment after the controller took them, and a client that starts at once
     * would be refused meanwhile. An admin not allowed to describe ACLs does not wait.
     */
    private static void awaitInForce(Admin admin, List<AclBinding> bindings)
            throws InterruptedException, ExecutionException, TimeoutException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (true) {
            Collection<AclBinding> seen;
            try {
                seen = admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS);
            } catch (ExecutionException e) {
                if (e.getCause() instanceof AuthorizationException) {
                    return;
                }
                throw e;
            }
            if (seen.containsAll(bindings)) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new TimeoutException("ACLs not in force on the broker within 30 s");
            }
            Thread.sleep(50);
        }
    }

    private static Grant topic(Role role, String principal, String name, Set<AclOperation> ops) {
        return new Grant(role, principal, ResourceType.TOPIC, name, ops);
    }

    private static String principal(KafkaSecurity sec, Role role) {
        return sec.principal(role).map(KafkaSecurity.Principal::aclPrincipal)
                .orElseThrow(() -> new IllegalArgumentException("kafka.security.principals." + role.key()
                        + ": missing (expected: the user the " + role.key() + " connects as)"));
    }

    private static String resource(Grant g) {
        return (g.type() == ResourceType.GROUP ? "group " : "topic ") + g.name();
    }

    /** {@code READ} → {@code Read}, as kafka-acls.sh takes it. */
    private static String kafkaName(AclOperation op) {
        String n = op.name().toLowerCase(Locale.ROOT);
        StringBuilder sb = new StringBuilder();
        boolean up = true;
        for (char c : n.toCharArray()) {
            if (c == '_') {
                up = true;
                continue;
            }
            sb.append(up ? Character.toUpperCase(c) : c);
            up = false;
        }
        return sb.toString();
    }
}
