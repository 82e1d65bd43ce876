package org.arbiter.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Path;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.resource.ResourceType;
import org.arbiter.common.bus.Topics;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.common.config.KafkaSecurity.Role;
import org.junit.jupiter.api.Test;

/** The ACL policy itself: who may write, read, join and create what. */
final class BusAclsTest {

    static KafkaConfig secured(String prefix) {
        Map<Role, KafkaSecurity.Principal> p = new EnumMap<>(Role.class);
        for (Role r : Role.values()) {
            p.put(r, new KafkaSecurity.Principal("u-" + r.key(), Path.of("/x"), null, null, null));
        }
        return new KafkaConfig("k:9092", prefix, Map.of(),
                new KafkaSecurity(KafkaSecurity.Protocol.SASL_PLAINTEXT, KafkaSecurity.Mechanism.SCRAM_SHA_512, KafkaSecurity.Tls.NONE, p));
    }

    private static Set<String> who(List<BusAcls.Grant> grants, String resource, AclOperation op) {
        return grants.stream().filter(g -> g.name().equals(resource) && g.operations().contains(op))
                .map(g -> g.role().key()).collect(Collectors.toSet());
    }

    @Test
    void writers_areExactlyTheOwnerOfEachTopic() {
        List<BusAcls.Grant> g = BusAcls.grants(secured("p."));
        assertThat(who(g, "p.allocation", AclOperation.WRITE)).containsExactly("grm");
        assertThat(who(g, "p.power", AclOperation.WRITE)).containsExactly("grm");
        assertThat(who(g, "p.decisions", AclOperation.WRITE)).containsExactly("grm");
        assertThat(who(g, "p.stats", AclOperation.WRITE)).containsExactly("gateway");
        assertThat(who(g, "p.overrides", AclOperation.WRITE)).containsExactly("console");
        assertThat(who(g, "p.grm-leader", AclOperation.WRITE)).isEmpty();
    }

    @Test
    void readers_groups_andTopicCreation() {
        List<BusAcls.Grant> g = BusAcls.grants(secured("p."));
        assertThat(who(g, "p.allocation", AclOperation.READ)).containsExactlyInAnyOrder("grm", "gateway", "console");
        assertThat(who(g, "p.stats", AclOperation.READ)).containsExactlyInAnyOrder("grm", "console");
        assertThat(who(g, "p.overrides", AclOperation.READ)).containsExactlyInAnyOrder("grm", "console");
        assertThat(who(g, "p.power", AclOperation.READ)).containsExactlyInAnyOrder("grm", "console");
        assertThat(who(g, "p.grm", AclOperation.READ)).containsExactly("grm"); // the leader-election group
        assertThat(g.stream().filter(x -> x.type() == ResourceType.GROUP)).hasSize(1);
        for (String t : new Topics("p.").all()) {
            assertThat(who(g, t, AclOperation.CREATE)).as(t).containsExactly("grm");
        }
        // every Read or Write comes with Describe; the admin is granted nothing (it is a super user)
        assertThat(g).allMatch(x -> x.type() == ResourceType.GROUP || x.operations().contains(AclOperation.DESCRIBE));
        assertThat(g).noneMatch(x -> x.role() == Role.ADMIN);
        // with pools the GRMs grow the statistics topic to one partition per pool (only they alter a topic)
        assertThat(who(g, "p.stats", AclOperation.ALTER)).containsExactly("grm");
        assertThat(g).filteredOn(x -> x.operations().contains(AclOperation.ALTER)).extracting(BusAcls.Grant::name)
                .containsExactly("p.stats");
        assertThat(BusAcls.bindings(g)).hasSize(37);
    }

    @Test
    void aGatewayOfItsOwn_writesOnlyItsOwnStatsTopic_whichTheGrmAndTheConsoleRead() {
        KafkaConfig base = secured("p.");
        KafkaSecurity sec = base.security();
        KafkaConfig k = base.withSecurity(new KafkaSecurity(sec.protocol(), sec.mechanism(), sec.tls(), sec.principals(),
                Map.of("g1", new KafkaSecurity.Principal("u-g1", Path.of("/x"), null, null, null),
                        "g2", new KafkaSecurity.Principal("u-g2", Path.of("/x"), null, null, null))));
        List<BusAcls.Grant> g = BusAcls.grants(k);
        for (String gw : List.of("g1", "g2")) {
            String own = "p.stats." + gw;
            assertThat(principals(g, own, AclOperation.WRITE)).as(own).containsExactly("User:u-" + gw);
            assertThat(principals(g, own, AclOperation.READ)).containsExactlyInAnyOrder("User:u-grm", "User:u-console");
            assertThat(principals(g, own, AclOperation.CREATE)).containsExactly("User:u-grm");
            assertThat(principals(g, "p.allocation", AclOperation.READ)).contains("User:u-" + gw);
            // nothing else: not the shared stats topic, not another gateway's, nothing the GRM writes
            assertThat(g.stream().filter(x -> x.principal().equals("User:u-" + gw)).map(BusAcls.Grant::name))
                    .containsExactlyInAnyOrder(own, "p.allocation");
        }
        assertThat(principals(g, "p.stats", AclOperation.WRITE)).containsExactly("User:u-gateway");
        assertThat(BusAcls.bindings(g)).hasSize(37 + 2 * (2 + 2 + 3 + 2));
    }

    private static Set<String> principals(List<BusAcls.Grant> grants, String resource, AclOperation op) {
        return grants.stream().filter(g -> g.name().equals(resource) && g.operations().contains(op))
                .map(BusAcls.Grant::principal).collect(Collectors.toSet());
    }

    @Test
    void anUnsecuredBus_hasNoAcls() {
        assertThatThrownBy(() -> BusAcls.grants(new KafkaConfig("k:9092", "p.", Map.of())))
                .isInstanceOf(IllegalArgumentException.class).hasMessageStartingWith("kafka.security: absent");
    }
}
