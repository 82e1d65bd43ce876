package org.arbiter.bus;

import org.arbiter.common.bus.StatsTopics;
import org.arbiter.common.bus.Topics;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.common.config.KafkaSecurity.Role;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Who may write what, enforced by a real broker: the embedded KRaft broker secured with SCRAM and
 * the StandardAuthorizer, the ACLs {@link BusAcls} derives from the configuration, and each role
 * connecting as its own principal.
 */
final class SecuredBusIntegrationTest {

    private static final Instant AT = Instant.parse("2026-11-23T20:00:00Z");

    @TempDir
    static Path dir;

    static EmbeddedKafka kafka;
    static KafkaConfig config;
    static BusAcls.Applied applied;

    @BeforeAll
    static void startSecuredBroker() throws Exception {
        Map<Role, KafkaSecurity.Principal> principals = new EnumMap<>(Role.class);
        Map<String, String> users = new java.util.HashMap<>();
        for (Role r : Role.values()) {
            String user = "arbiter-" + r.key();
            String password = "pw-" + r.key() + "-\"quoted\"";
            Path file = Files.writeString(dir.resolve(r.key() + ".password"), password + "\n");
            principals.put(r, new KafkaSecurity.Principal(user, file, null, null, null));
            users.put(user, password);
        }
        Map<String, KafkaSecurity.Principal> ownGateways = new java.util.TreeMap<>();
        for (String g : List.of("g1", "g2")) { // gateways with a principal and a statistics topic of their own
            String password = "pw-" + g;
            Path file = Files.writeString(dir.resolve(g + ".password"), password + "\n");
            ownGateways.put(g, new KafkaSecurity.Principal("arbiter-gw-" + g, file, null, null, null));
            users.put("arbiter-gw-" + g, password);
        }
        KafkaSecurity security = new KafkaSecurity(KafkaSecurity.Protocol.SASL_PLAINTEXT,
                KafkaSecurity.Mechanism.SCRAM_SHA_512, KafkaSecurity.Tls.NONE, principals, ownGateways);
        long t0 = System.nanoTime();
        kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, 0,
                new EmbeddedKafka.Security("SCRAM-SHA-512", users, Set.of("arbiter-admin")));
        long t1 = System.nanoTime();
        config = new KafkaConfig(kafka.bootstrap(), "sec.", Map.of(), security);
        applied = BusAcls.apply(KafkaBus.clientProperties(config, Role.ADMIN), config);
        System.out.printf("secured broker ready with 6 SCRAM users in %.0f ms; topics and ACLs applied in %.0f ms%n",
                (t1 - t0) / 1e6, (System.nanoTime() - t1) / 1e6);
    }

    @AfterAll
    static void stop() {
        if (kafka != null) {
            kafka.close();
        }
    }

    @Test
    @org.junit.jupiter.api.condition.EnabledOnOs(org.junit.jupiter.api.condition.OS.LINUX)
    void theBrokersOwnPassword_isOwnerOnly_andNoPropertiesFileQuotingItIsLeft() throws Exception {
        Path data = dir.resolve("kafka");
        assertThat(java.nio.file.attribute.PosixFilePermissions.toString(
                Files.getPosixFilePermissions(data.resolve("broker.password")))).isEqualTo("rw-------");
        assertThat(data.resolve("server.properties")).doesNotExist();
    }

    @Test
    void admin_createsEveryTopic_andOneBindingPerGrantedOperation() throws Exception {
        Topics t = new Topics("sec.");
        assertThat(applied.topicsCreated()).containsExactlyInAnyOrderElementsOf(t.all(Set.of("g1", "g2")));
        assertThat(applied.bindings()).isEqualTo(BusAcls.bindings(BusAcls.grants(config)).size());
        try (Admin admin = Admin.create(kafka.superUserProperties())) {
            var acls = admin.describeAcls(org.apache.kafka.common.acl.AclBindingFilter.ANY).values().get(10, TimeUnit.SECONDS);
            assertThat(acls).containsExactlyInAnyOrderElementsOf(BusAcls.bindings(BusAcls.grants(config)));
        }
    }

    @Test
    void gatewayPrincipal_cannotWriteAllocationOrPower_butWritesStatsAndReadsItsAllocation() throws Exception {
        try (KafkaBus grm = KafkaBus.connect(config, Role.GRM, "grm-1", new SimpleMeterRegistry());
             KafkaBus gateway = KafkaBus.connect(config, Role.GATEWAY, "gateway-g1", new SimpleMeterRegistry())) {
            Topics t = grm.topics();
            List<Allocation> seenByGateway = new CopyOnWriteArrayList<>();
            gateway.subscribe(t.allocation(), Allocation.class, Subscriber.Start.BEGINNING, (k, a) -> seenByGateway.add(a));
            List<GatewayStats> seenByGrm = new CopyOnWriteArrayList<>();
            grm.subscribe(t.stats(), GatewayStats.class, Subscriber.Start.BEGINNING, (k, s) -> seenByGrm.add(s));

            Allocation fromGrm = new Allocation(1, AT, "g1", 7, Map.of("gold", 3.0), Map.of("s1", 10), "grm-1");
            grm.publisher(t.allocation()).publish(fromGrm).get(10, TimeUnit.SECONDS);
            grm.publisher(t.power()).publish(new PowerOrder(1, AT, "s1", ServerState.ON, ServerState.ON, "test", 1))
                    .get(10, TimeUnit.SECONDS);

            // The forgery: a gateway publishing an allocation (or a power order) is refused by the broker.
            Allocation forged = new Allocation(1, AT, "g1", 1_000_000, Map.of("gold", 99.0), Map.of("s1", 1000), "gateway");
            long t0 = System.nanoTime();
            assertThatThrownBy(() -> gateway.publisher(t.allocation()).publish(forged).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class);
            System.out.printf("a gateway's allocation refused by the broker after %.0f ms%n", (System.nanoTime() - t0) / 1e6);
            assertThatThrownBy(() -> gateway.publisher(t.power())
                    .publish(new PowerOrder(1, AT, "s1", ServerState.OFF, ServerState.ON, "forged", 2)).get(10, TimeUnit.SECONDS))
                    .isInstanceOf(ExecutionException.class).hasCauseInstanceOf(TopicAuthorizationException.class);

            // What the gateway may do still works on the same producer after the refusals.
            GatewayStats stats = new GatewayStats(1, AT, "g1", 5, 7, Map.of(), Map.of());
            gateway.publisher(t.stats()).publish(stats).get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> seenByGrm.contains(stats) && !seenByGateway.isEmpty());
            assertThat(seenByGateway).containsExactly(fromGrm); // the forgery never reached the log
        }
    }

    /**
     * A gateway with a principal of its own writes its statistics topic and nothing else of the kind:
     * the broker refuses its writes to another gateway's topic and to the shared one, and the shared
     * gateway principal cannot write it either. What it can still write — a record on its own topic
     * naming another gateway, or (as the shared principal) a record on the shared topic naming a
     * gateway that has its own — the GRM's rule ({@link StatsTopics}) does not take.
     */
    @Test
    void aGatewayOfItsOwn_writesOnlyItsOwnStatsTopic_andTheGrmTakesOnlyRecordsThatNameIt() throws Exception {
        try (KafkaBus grm = KafkaBus.connect(config, Role.GRM, "grm-1", new SimpleMeterRegistry());
             KafkaBus g1 = KafkaBus.connectGateway(config, "g1", "gateway-g1", new SimpleMeterRegistry());
             KafkaBus shared = KafkaBus.connect(config, Role.GATEWAY, "gateway-g3", new SimpleMeterRegistry())) {
            Topics t = grm.topics();
            List<String> taken = new CopyOnWriteArrayList<>();
            List<String> refused = new CopyOnWriteArrayList<>();
            for (String topic : StatsTopics.topics(config)) {
                grm.subscribe(topic, GatewayStats.class, Subscriber.Start.BEGINNING, (k, st) -> {
                    if (st.allocationVersion() != MARK) {
                        return; // another test's record on the shared topic (the tests run in random order)
                    }
                    String why = StatsTopics.refusal(config, topic, st);
                    (why == null ? taken : refused).add(topic + " " + st.gateway() + (why == null ? "" : " " + why));
                });
            }
            g1.publisher(t.statsOf("g1")).publish(stats("g1")).get(10, TimeUnit.SECONDS);
            for (String topic : List.of(t.statsOf("g2"), t.stats())) {
                assertThatThrownBy(() -> g1.publisher(topic).publish(stats("g2")).get(10, TimeUnit.SECONDS))
                        .as("g1 writing on " + topic).isInstanceOf(ExecutionException.class)
                        .hasCauseInstanceOf(TopicAuthorizationException.class);
            }
            assertThatThrownBy(() -> shared.publisher(t.statsOf("g1")).publish(stats("g1")).get(10, TimeUnit.SECONDS))
                    .as("the shared gateway principal writing g1's topic")
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
            g1.publisher(t.statsOf("g1")).publish(stats("g2")).get(10, TimeUnit.SECONDS);
            shared.publisher(t.stats()).publish(stats("g1")).get(10, TimeUnit.SECONDS);
            shared.publisher(t.stats()).publish(stats("g3")).get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> taken.size() + refused.size() >= 4);
            assertThat(taken).containsExactlyInAnyOrder("sec.stats.g1 g1", "sec.stats g3");
            assertThat(refused).containsExactlyInAnyOrder("sec.stats.g1 g2 " + StatsTopics.OTHER_GATEWAY,
                    "sec.stats g1 " + StatsTopics.NOT_OWN_TOPIC);
        }
    }

    /** Marks this test's statistics records apart from other tests' on the shared topic. */
    private static final long MARK = 4242;

    private static GatewayStats stats(String gateway) {
        return new GatewayStats(1, AT, gateway, 5, MARK, Map.of(), Map.of());
    }

    @Test
    void consolePrincipal_writesOverrides_theGrmReadsThem_butTheConsoleCannotWriteAllocations() throws Exception {
        try (KafkaBus grm = KafkaBus.connect(config, Role.GRM, "grm-1", new SimpleMeterRegistry());
             KafkaBus console = KafkaBus.connect(config, Role.CONSOLE, "console", new SimpleMeterRegistry())) {
            Topics t = grm.topics();
            List<OperatorOverride> seen = new CopyOnWriteArrayList<>();
            grm.subscribe(t.overrides(), OperatorOverride.class, Subscriber.Start.BEGINNING, (k, o) -> seen.add(o));
            OperatorOverride pin = new OperatorOverride(1, AT, "o1", OperatorOverride.Kind.WEIGHT, "g1", "gold", null, 5.0,
                    null, null, null, null, true, "ops");
            console.publisher(t.overrides()).publish(pin).get(10, TimeUnit.SECONDS);
            await().atMost(Duration.ofSeconds(30)).until(() -> seen.contains(pin));
            assertThatThrownBy(() -> console.publisher(t.allocation())
                    .publish(new Allocation(1, AT, "g1", 9, Map.of(), Map.of(), "console")).get(10, TimeUnit.SECONDS))
                    .hasCauseInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void grmPrincipal_leads_butAGatewayCannotJoinTheLeaderGroup() throws Exception {
        try (KafkaBus grm = KafkaBus.connect(config, Role.GRM, "grm-1", new SimpleMeterRegistry());
             LeaderElection election = LeaderElection.join(grm, grm.topics().grmGroup(), "grm-1", null)) {
            await().atMost(Duration.ofSeconds(30)).until(election::isLeader);
        }
        var props = KafkaBus.clientProperties(config, Role.GATEWAY);
        props.put("group.id", "sec.grm");
        props.put("key.deserializer", org.apache.kafka.common.serialization.StringDeserializer.class.getName());
        props.put("value.deserializer", org.apache.kafka.common.serialization.ByteArrayDeserializer.class.getName());
        try (var consumer = new org.apache.kafka.clients.consumer.KafkaConsumer<String, byte[]>(props)) {
            consumer.subscribe(List.of("sec.grm-leader"));
            assertThatThrownBy(() -> {
                for (int i = 0; i < 50; i++) {
                    consumer.poll(Duration.ofMillis(200));
                }
            }).isInstanceOf(AuthorizationException.class); // the topic (Describe) or the group (Read)
        }
    }

    @Test
    void wrongPassword_orNoLogin_isRefused() throws Exception {
        Path wrong = Files.writeString(dir.resolve("wrong.password"), "not-the-password");
        KafkaSecurity sec = config.security();
        Map<Role, KafkaSecurity.Principal> principals = new EnumMap<>(sec.principals());
        principals.put(Role.GATEWAY, new KafkaSecurity.Principal("arbiter-gateway", wrong, null, null, null));
        KafkaConfig bad = config.withSecurity(new KafkaSecurity(sec.protocol(), sec.mechanism(), sec.tls(), principals));
        assertThatThrownBy(() -> KafkaBus.connect(bad, Role.GATEWAY, "gateway-bad", null))
                .isInstanceOf(IllegalStateException.class).hasMessageContaining("Authentication failed");

        // A client that does not log in at all: the SASL listener drops it, nothing is written.
        var props = new java.util.Properties();
        props.put("bootstrap.servers", kafka.bootstrap());
        props.put("max.block.ms", "3000");
        try (var producer = new KafkaProducer<String, byte[]>(props, new StringSerializer(), new ByteArraySerializer())) {
            assertThatThrownBy(() -> producer.send(new ProducerRecord<>("sec.allocation", "g1", new byte[1])).get(5, TimeUnit.SECONDS))
                    .isNotNull();
        }
    }

    @Test
    void anUnsecuredConnect_onASecuredConfiguration_namesTheMissingRole() {
        assertThatThrownBy(() -> KafkaBus.connect(config, "who", null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kafka.security.protocol: SASL_PLAINTEXT (expected: a client that says which role it connects as; "
                        + "this one names none)");
    }
}
