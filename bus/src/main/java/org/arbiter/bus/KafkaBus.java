package org.arbiter.bus;

import static java.util.Objects.requireNonNull;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;
import java.util.function.Function;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewPartitions;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.errors.InvalidPartitionsException;
import org.apache.kafka.common.errors.TopicExistsException;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.arbiter.common.bus.Bus;
import org.arbiter.common.bus.MessageHandler;
import org.arbiter.common.bus.Publisher;
import org.arbiter.common.bus.Topics;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.common.message.Decoded;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.MessageCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Arbiter's connection to Kafka: one idempotent producer shared by all {@link Publisher}s, topic
 * creation at start, and {@link Subscriber} loops. Everything Kafka-specific stays behind this
 * class (docs/architecture.md: a pure core, thin adapters).
 *
 * <p>Thread-safe. {@link #close()} stops every subscriber it started and the producer.
 */
public final class KafkaBus implements Bus, AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(KafkaBus.class);

    private final KafkaConfig config;
    private final KafkaSecurity.Role role;
    /** The gateway this bus connects for (its own principal, if it has one), or null. */
    private final String gatewayId;
    private final String clientId;
    private final Topics topics;
    private final MeterRegistry registry;
    private final KafkaProducer<String, byte[]> producer;
    private final List<AutoCloseable> subscribers = new CopyOnWriteArrayList<>();

    private KafkaBus(KafkaConfig config, KafkaSecurity.Role role, String gatewayId, String clientId,
                     MeterRegistry registry) {
        this.config = config;
        this.role = role;
        this.gatewayId = gatewayId;
        this.clientId = clientId;
        this.topics = new Topics(config.topicPrefix());
        this.registry = registry;
        Properties p = clientProperties();
        p.put(ProducerConfig.CLIENT_ID_CONFIG, clientId + "-producer");
        p.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, "true");
        p.put(ProducerConfig.ACKS_CONFIG, "all");
        p.put(ProducerConfig.LINGER_MS_CONFIG, "2");
        p.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, "120000");
        p.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, "10000");
        // a topic's partitions grown by another process (the statistics topic, one per pool) are seen within 10 s
        p.put(ProducerConfig.METADATA_MAX_AGE_CONFIG, "10000");
        p.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        p.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        this.producer = new KafkaProducer<>(p);
    }

    /**
     * Connects to an unsecured bus ({@code kafka.security} absent), and creates any missing topic.
     *
     * @throws IllegalArgumentException when {@code kafka.security} is set: a secured bus needs
     *                                  {@link #connect(KafkaConfig, KafkaSecurity.Role, String, MeterRegistry)}
     * @see #connect(KafkaConfig, KafkaSecurity.Role, String, MeterRegistry)
     */
    public static KafkaBus connect(KafkaConfig config, String clientId, MeterRegistry registry) {
        requireNonNull(config, "config");
        if (config.security().enabled()) {
            throw new IllegalArgumentException("kafka.security.protocol: " + config.security().protocol()
                    + " (expected: a client that says which role it connects as; this one names none)");
        }
        return connect(config, KafkaSecurity.Role.GRM, clientId, registry);
    }

    /**
     * Connects as {@code role}: with {@code kafka.security} set, as that role's principal (its
     * password read now, {@code ARBITER_KAFKA_<ROLE>_PASSWORD} first). Topics: unsecured, every
     * client creates any missing topic; secured, only the GRM and the admin do (they hold the
     * Create ACLs), the others only check that the broker answers and leave missing topics to the
     * GRM (their subscribers retry until the topics appear).
     *
     * @param config   bootstrap servers, topic prefix, client properties, security
     * @param role     who this process is (used only when {@code kafka.security} is set)
     * @param clientId names this process's clients in the broker's logs
     * @param registry where bus meters go (received, malformed, handler errors)
     * @throws IllegalArgumentException when the role has no principal or its password cannot be read
     * @throws IllegalStateException    when the broker cannot be reached (or refuses the login) within 30 s
     */
    public static KafkaBus connect(KafkaConfig config, KafkaSecurity.Role role, String clientId, MeterRegistry registry) {
        return connect(config, role, null, clientId, registry);
    }

    /**
     * As {@link #connect(KafkaConfig, KafkaSecurity.Role, String, MeterRegistry)} for gateway
     * {@code gatewayId}: as its own principal when {@code kafka.security.principals.gateways} lists
     * it, else as the {@code gateway} role.
     */
    public static KafkaBus connectGateway(KafkaConfig config, String gatewayId, String clientId, MeterRegistry registry) {
        return connect(config, KafkaSecurity.Role.GATEWAY, requireNonNull(gatewayId, "gatewayId"), clientId, registry);
    }

    private static KafkaBus connect(KafkaConfig config, KafkaSecurity.Role role, String gatewayId, String clientId,
                                    MeterRegistry registry) {
        requireNonNull(config, "config");
        requireNonNull(role, "role");
        requireNonNull(clientId, "clientId");
        if (config.bootstrapServers().isEmpty()) {
            throw new IllegalArgumentException("kafka.bootstrap: missing (expected: host:port of a Kafka broker)");
        }
        KafkaBus bus = new KafkaBus(config, role, gatewayId, clientId,
                registry == null ? new SimpleMeterRegistry() : registry);
        try {
            bus.createTopics();
        } catch (RuntimeException e) {
            bus.close();
            throw e;
        }
        return bus;
    }

    @Override
    public Topics topics() {
        return topics;
    }

    public KafkaConfig config() {
        return config;
    }

    public MeterRegistry registry() {
        return registry;
    }

    /** The role this bus connects as. */
    public KafkaSecurity.Role role() {
        return role;
    }

    /**
     * Client properties: bootstrap, the role's security settings (protocol, SASL login, TLS
     * stores) and the operator's extra {@code kafka.properties}.
     */
    public Properties clientProperties() {
        return clientProperties(config, role, gatewayId);
    }

    /** As {@link #clientProperties()}, for any configuration and role (reads the role's password now). */
    public static Properties clientProperties(KafkaConfig config, KafkaSecurity.Role role) {
        return clientProperties(config, role, null);
    }

    private static Properties clientProperties(KafkaConfig config, KafkaSecurity.Role role, String gatewayId) {
        Properties p = new Properties();
        p.putAll(config.security().clientProperties(role, gatewayId, System::getenv));
        p.putAll(config.properties());
        p.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, config.bootstrap());
        return p;
    }

    /** Whether this bus creates missing topics: always unsecured; secured, only as the GRM or the admin. */
    private boolean createsTopics() {
        return !config.security().enabled() || role == KafkaSecurity.Role.GRM || role == KafkaSecurity.Role.ADMIN;
    }

    private void createTopics() {
        Properties p = clientProperties();
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId + "-admin");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        try (Admin admin = Admin.create(p)) {
            if (createsTopics()) {
                createTopics(admin, topics, config.security().gatewayPrincipals().keySet());
            } else {
                admin.describeCluster().clusterId().get(30, TimeUnit.SECONDS);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while creating topics", e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot reach Kafka at " + config.bootstrap() + " ("
                    + (e.getCause() == null ? e : e.getCause()).getMessage() + ")", e);
        }
    }

    /**
     * Creates every topic of {@code topics} that is missing, with its configuration (one
     * partition, replication factor 1).
     *
     * @return the topics created
     */
    static List<String> createTopics(Admin admin, Topics topics, Collection<String> ownStatsGateways)
            throws InterruptedException, ExecutionException, TimeoutException {
        Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        List<NewTopic> missing = new ArrayList<>();
        for (String t : topics.all(ownStatsGateways)) {
            if (!existing.contains(t)) {
                missing.add(new NewTopic(t, 1, (short) 1).configs(topics.configOf(t)));
            }
        }
        List<String> created = new ArrayList<>();
        if (missing.isEmpty()) {
            return created;
        }
        for (var e : admin.createTopics(missing).values().entrySet()) {
            try {
                e.getValue().get(30, TimeUnit.SECONDS);
                created.add(e.getKey());
                LOG.debug("created topic {}", e.getKey());
            } catch (ExecutionException ex) {
                if (!(ex.getCause() instanceof TopicExistsException)) {
                    throw new IllegalStateException("cannot create topic " + e.getKey() + ": " + ex.getCause().getMessage(), ex);
                }
            }
        }
        return created;
    }

    /** A publisher to {@code topic}, keyed by each message's {@link Message#key()}. */
    @Override
    public Publisher publisher(String topic) {
        requireNonNull(topic, "topic");
        return new Publisher() {
            @Override
            public CompletableFuture<Void> publish(Message message) {
                return send(new ProducerRecord<>(topic, message.key(), MessageCodec.encode(message)));
            }

            @Override
            public CompletableFuture<Void> publish(Message message, String key, int partition) {
                requireNonNull(key, "key");
                int have;
                try {
                    have = producer.partitionsFor(topic).size();
                } catch (RuntimeException e) {
                    return CompletableFuture.failedFuture(e);
                }
                if (partition < 0 || partition >= have) {
                    // sending would block for max.block.ms waiting for a partition the topic does not have
                    return CompletableFuture.failedFuture(new IllegalStateException("topic " + topic + " has " + have
                            + " partitions; partition " + partition + " is missing (the GRMs create one per pool)"));
                }
                return send(new ProducerRecord<>(topic, partition, key, MessageCodec.encode(message)));
            }

            @Override
            public CompletableFuture<Void> delete(String key) {
                return send(new ProducerRecord<>(topic, key, null));
            }
        };
    }

    private CompletableFuture<Void> send(ProducerRecord<String, byte[]> record) {
        CompletableFuture<Void> f = new CompletableFuture<>();
        try {
            producer.send(record, (meta, e) -> {
                if (e != null) {
                    LOG.warn("publish to {} failed: {}", record.topic(), e.toString());
                    f.completeExceptionally(e);
                } else {
                    f.complete(null);
                }
            });
        } catch (RuntimeException e) {
            LOG.warn("publish to {} failed: {}", record.topic(), e.toString());
            f.completeExceptionally(e);
        }
        return f;
    }

    /** Waits until every message sent so far is acknowledged or failed. */
    public void flush() {
        producer.flush();
    }

    /**
     * Starts a consumer loop on its own daemon thread that decodes every record of {@code topic}
     * as {@code type} and hands it to {@code handler}. Without a group it reads all partitions,
     * from the beginning or from the end; with a group it shares the partitions with the group's
     * other members and commits offsets. Malformed records (also those out of a record's ranges) are
     * skipped, logged once per kind and counted ({@code arbiter.bus.malformed}, and
     * {@code arbiter.bus.refused{reason=malformed}}); the loop survives broker restarts.
     */
    public <T extends Message> Subscriber<T> subscribe(String topic, Class<T> type, Subscriber.Start start,
                                                       MessageHandler<T> handler) {
        return subscribe(topic, type, start, null, handler, null);
    }

    /** {@link Bus}'s form of {@link #subscribe(String, Class, Subscriber.Start, MessageHandler)}. */
    @Override
    public <T extends Message> Subscriber<T> subscribe(String topic, Class<T> type, Bus.Start start,
                                                       MessageHandler<T> handler) {
        requireNonNull(start, "start");
        return subscribe(topic, type, start == Bus.Start.BEGINNING ? Subscriber.Start.BEGINNING : Subscriber.Start.END,
                handler);
    }

    /** Leadership by consumer-group ownership of the leader topic; see {@link LeaderElection}. */
    @Override
    public LeaderElection joinElection(String group, String memberId, Consumer<Boolean> onChange) {
        return LeaderElection.join(this, group, memberId, onChange);
    }

    /**
     * Pools by consumer-group ownership of the statistics topic's partitions, first given at least
     * {@code partitions} partitions (created, or grown: Kafka cannot shrink a topic, so extra partitions own
     * nothing); see {@link LeaderElection}.
     */
    @Override
    public LeaderElection joinPools(String group, String memberId, int partitions, Duration rewind,
                                    Consumer<Set<Integer>> onChange, Bus.PartitionHandler<GatewayStats> stats) {
        ensureStatsPartitions(partitions);
        return LeaderElection.joinPools(this, group, memberId, partitions, rewind, onChange, stats);
    }

    /**
     * Gives the statistics topic at least {@code partitions} partitions, one per pool (created, or grown). A
     * gateway on an unsecured bus calls it too, so its reports have their partitions whoever starts first; on
     * a secured bus only the GRM and the admin do (they hold the Alter ACL), for the others this does nothing.
     *
     * @throws IllegalStateException when the broker refuses or does not answer within 30 s
     */
    public void ensureStatsPartitions(int partitions) {
        if (createsTopics()) {
            ensurePartitions(topics.stats(), partitions);
        }
    }

    private void ensurePartitions(String topic, int partitions) {
        Properties p = clientProperties();
        p.put(AdminClientConfig.CLIENT_ID_CONFIG, clientId + "-admin");
        p.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, "30000");
        try (Admin admin = Admin.create(p)) {
            Set<String> existing = admin.listTopics().names().get(30, TimeUnit.SECONDS);
            if (!existing.contains(topic)) {
                try {
                    admin.createTopics(List.of(new NewTopic(topic, partitions, (short) 1)
                            .configs(topics.configOf(topic)))).all().get(30, TimeUnit.SECONDS);
                    LOG.info("created topic {} with {} partitions", topic, partitions);
                    return;
                } catch (ExecutionException e) {
                    if (!(e.getCause() instanceof TopicExistsException)) {
                        throw e;
                    }
                }
            }
            int have = admin.describeTopics(List.of(topic)).allTopicNames().get(30, TimeUnit.SECONDS).get(topic)
                    .partitions().size();
            if (have < partitions) {
                try {
                    admin.createPartitions(Map.of(topic, NewPartitions.increaseTo(partitions))).all()
                            .get(30, TimeUnit.SECONDS);
                    LOG.info("topic {}: {} partitions, now {} (one per pool)", topic, have, partitions);
                } catch (ExecutionException e) {
                    // another GRM grew it first
                    if (!(e.getCause() instanceof InvalidPartitionsException)) {
                        throw e;
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while preparing topic " + topic, e);
        } catch (ExecutionException | TimeoutException e) {
            throw new IllegalStateException("cannot prepare topic " + topic + " with " + partitions + " partitions ("
                    + (e.getCause() == null ? e : e.getCause()).getMessage() + ")", e);
        }
    }

    /**
     * As {@link #subscribe(String, Class, Subscriber.Start, MessageHandler)} but as a member of
     * {@code groupId}, with a listener told of the partitions this member owns after every
     * rebalance (used for GRM leader election).
     */
    public <T extends Message> Subscriber<T> subscribe(String topic, Class<T> type, Subscriber.Start start,
                                                       String groupId, MessageHandler<T> handler,
                                                       Consumer<Set<Integer>> onAssignment) {
        requireNonNull(type, "type");
        requireNonNull(handler, "handler");
        return subscribe(topic, bytes -> MessageCodec.decode(bytes, type), start, groupId,
                (p, k, v) -> handler.onMessage(k, v), onAssignment, Map.of(), null);
    }

    /** The undecoded form: records are handed over as bytes (used for leader election). */
    public Subscriber<byte[]> subscribeRaw(String topic, Subscriber.Start start, String groupId,
                                           MessageHandler<byte[]> handler, Consumer<Set<Integer>> onAssignment) {
        requireNonNull(handler, "handler");
        return subscribe(topic, Decoded.Ok::new, start, groupId, (p, k, v) -> handler.onMessage(k, v), onAssignment,
                Map.of(), null);
    }

    /**
     * A member of {@code groupId} on {@code topic} decoding every record as {@code type}, told each record's
     * partition, seeking a newly assigned partition back by {@code rewind} (null: not at all).
     */
    <T extends Message> Subscriber<T> subscribeGroup(String topic, Class<T> type, String groupId,
                                                     Bus.PartitionHandler<T> handler,
                                                     Consumer<Set<Integer>> onAssignment,
                                                     Map<String, String> consumerSettings, Duration rewind) {
        requireNonNull(type, "type");
        requireNonNull(groupId, "groupId");
        return subscribe(topic, bytes -> MessageCodec.decode(bytes, type), Subscriber.Start.END, groupId, handler,
                onAssignment, consumerSettings, rewind);
    }

    private <T> Subscriber<T> subscribe(String topic, Function<byte[], Decoded<T>> decoder,
                                        Subscriber.Start start, String groupId, Bus.PartitionHandler<T> handler,
                                        Consumer<Set<Integer>> onAssignment, Map<String, String> consumerSettings,
                                        Duration rewind) {
        requireNonNull(topic, "topic");
        requireNonNull(handler, "handler");
        Properties p = clientProperties();
        p.put(ConsumerConfig.CLIENT_ID_CONFIG, clientId + "-" + topic + "-" + System.identityHashCode(handler));
        if (groupId != null) {
            p.put(ConsumerConfig.GROUP_ID_CONFIG, groupId);
            p.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "6000");
            p.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, "1000");
        }
        p.putAll(consumerSettings);
        Counter received = Counter.builder("arbiter.bus.received").tag("topic", topic)
                .description("records received").register(registry);
        Counter malformed = Counter.builder("arbiter.bus.malformed").tag("topic", topic)
                .description("records skipped because they could not be decoded").register(registry);
        Counter handlerErrors = Counter.builder("arbiter.bus.handler.errors").tag("topic", topic)
                .description("records whose handler threw").register(registry);
        Counter refusedMalformed = Counter.builder("arbiter.bus.refused").tag("topic", topic).tag("reason", "malformed")
                .description("records refused by reason").register(registry);
        Subscriber<T> s = new Subscriber<>(topic, decoder, start, groupId, p, handler, onAssignment, rewind,
                received, malformed, handlerErrors, refusedMalformed);
        subscribers.add(s);
        s.start();
        return s;
    }

    @Override
    public void close() {
        for (AutoCloseable s : subscribers) {
            try {
                s.close();
            } catch (Exception e) {
                LOG.warn("closing subscriber: {}", e.toString());
            }
        }
        subscribers.clear();
        producer.close(Duration.ofSeconds(5));
    }

}
