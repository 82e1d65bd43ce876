package org.arbiter.bus;

import org.apache.kafka.common.errors.TimeoutException;
import org.arbiter.common.bus.Bus;
import io.micrometer.core.instrument.Counter;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.ConsumerRecords;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.consumer.OffsetAndTimestamp;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.arbiter.common.message.Decoded;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A consumer loop on its own daemon thread. Decodes each record, hands good ones to the handler,
 * skips and counts bad ones; a handler that throws is logged and counted; connection trouble is
 * retried with back-off (the Kafka client reconnects by itself after a broker restart).
 *
 * <p>Thread-safe: {@link #close()} may be called from any thread and waits for the loop to end.
 *
 * @param <T> message type
 */
public final class Subscriber<T> implements Bus.Subscription {

    /** Where a group-less subscriber starts reading ({@link Bus.Start} is the bus-neutral form). */
    public enum Start { BEGINNING, END }

    private static final Logger LOG = LoggerFactory.getLogger(Subscriber.class);

    private final String topic;
    private final Function<byte[], Decoded<T>> decoder;
    private final Start start;
    private final String groupId;
    private final Properties properties;
    private final Bus.PartitionHandler<T> handler;
    private final Consumer<Set<Integer>> onAssignment;
    /** A group member seeks a newly assigned partition back this far (null: reads on from the committed offset). */
    private final Duration rewind;
    private final Counter received;
    private final Counter malformed;
    private final Counter handlerErrors;
    private final Counter refusedMalformed;
    private final Set<String> loggedFailures = ConcurrentHashMap.newKeySet();
    private final CountDownLatch stopped = new CountDownLatch(1);
    private volatile boolean running = true;
    private volatile KafkaConsumer<String, byte[]> consumer;
    private Thread thread;

    /** A group member that owns partitions but has not heard from its coordinator for this long lets them go. */
    private final long leaseMillis;
    /** True while the member holds its partitions without a live session (see {@link #lease}). */
    private volatile boolean fenced;
    private long lastProbe;
    /** When a group-less subscriber last asked for the topic's partitions (nanoTime). */
    private long lastPartitionCheck = System.nanoTime();
    /** How often a group-less subscriber looks for partitions added since it attached. */
    static final long PARTITION_CHECK_NANOS = 5_000_000_000L;
    private long lastAnswer = System.nanoTime();
    private long answeringSince;

    /** How long closing the consumer may wait for the group coordinator (commit, leave group). */
    static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(2);

    Subscriber(String topic, Function<byte[], Decoded<T>> decoder, Start start, String groupId, Properties properties,
               Bus.PartitionHandler<T> handler, Consumer<Set<Integer>> onAssignment, Duration rewind,
               Counter received, Counter malformed, Counter handlerErrors, Counter refusedMalformed) {
        this.topic = topic;
        this.decoder = decoder;
        this.start = start;
        this.groupId = groupId;
        this.properties = properties;
        this.handler = handler;
        this.onAssignment = onAssignment;
        this.rewind = rewind;
        this.received = received;
        this.malformed = malformed;
        this.handlerErrors = handlerErrors;
        this.refusedMalformed = refusedMalformed;
        this.leaseMillis = Long.parseLong(properties.getProperty(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, "45000"));
    }

    void start() {
        thread = new Thread(this::run, "arbiter-sub-" + topic);
        thread.setDaemon(true);
        thread.start();
    }

    /** Records skipped because they could not be decoded. */
    public long malformedCount() {
        return (long) malformed.count();
    }

    private void run() {
        Properties p = new Properties();
        p.putAll(properties);
        p.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        p.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        p.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, start == Start.BEGINNING ? "earliest" : "latest");
        p.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, groupId != null ? "true" : "false");
        p.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, "2000");
        long backoffMillis = 100;
        try {
            while (running) {
                KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(p);
                try {
                    consumer = c;
                    if (!running) {
                        break;
                    }
                    attach(c);
                    backoffMillis = 100;
                    while (running) {
                        ConsumerRecords<String, byte[]> records = c.poll(Duration.ofMillis(200));
                        for (ConsumerRecord<String, byte[]> r : records) {
                            deliver(r);
                        }
                        if (groupId != null && onAssignment != null) {
                            lease(c);
                        }
                        if (groupId == null) {
                            followNewPartitions(c);
                        }
                    }
                } catch (WakeupException e) {
                    // close() woke us up
                } catch (RuntimeException e) {
                    if (running) {
                        LOG.warn("subscriber on {} failed, retrying in {} ms: {}", topic, backoffMillis, e.toString());
                        sleep(backoffMillis);
                        backoffMillis = Math.min(5000, backoffMillis * 2);
                    }
                } finally {
                    // bounded: a group member commits and leaves the group on close, which waits for
                    // the group coordinator — 30 s by default when it is unreachable
                    closeQuietly(c);
                }
            }
        } finally {
            consumer = null;
            stopped.countDown();
        }
    }

    private void attach(KafkaConsumer<String, byte[]> c) {
        if (groupId != null) {
            c.subscribe(List.of(topic), new ConsumerRebalanceListener() {
                @Override
                public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                    rebalanced(c, List.of(), partitions);
                }

                @Override
                public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                    rewind(c, partitions);
                    rebalanced(c, partitions, List.of());
                }

                @Override
                public void onPartitionsLost(Collection<TopicPartition> partitions) {
                    rebalanced(c, List.of(), partitions);
                }
            });
            return;
        }
        List<PartitionInfo> infos = c.partitionsFor(topic, Duration.ofSeconds(10));
        if (infos == null || infos.isEmpty()) {
            throw new IllegalStateException("topic " + topic + " has no partitions yet");
        }
        List<TopicPartition> parts = new ArrayList<>();
        infos.forEach(i -> parts.add(new TopicPartition(topic, i.partition())));
        c.assign(parts);
        if (start == Start.BEGINNING) {
            c.seekToBeginning(parts);
        } else {
            c.seekToEnd(parts);
        }
    }

    /**
     * Seeks partitions newly assigned to this member back by {@link #rewind}: to the first record stamped at
     * or after that time, or to the end when none is. Without a rewind, or when the broker cannot say, the
     * member reads on from the group's committed offset.
     */
    private void rewind(KafkaConsumer<String, byte[]> c, Collection<TopicPartition> partitions) {
        if (rewind == null || partitions.isEmpty()) {
            return;
        }
        long since = System.currentTimeMillis() - rewind.toMillis();
        Map<TopicPartition, Long> times = new HashMap<>();
        partitions.forEach(tp -> times.put(tp, since));
        try {
            Map<TopicPartition, OffsetAndTimestamp> found = c.offsetsForTimes(times, Duration.ofSeconds(5));
            List<TopicPartition> none = new ArrayList<>();
            found.forEach((tp, o) -> {
                if (o == null) {
                    none.add(tp);
                } else {
                    c.seek(tp, o.offset());
                }
            });
            if (!none.isEmpty()) {
                c.seekToEnd(none);
            }
            LOG.debug("{}: partitions {} read again from {} ms back", topic, partitions, rewind.toMillis());
        } catch (RuntimeException e) {
            LOG.warn("{}: cannot seek partitions {} back {} ms ({}); reading on from the committed offsets", topic,
                    partitions, rewind.toMillis(), e.toString());
        }
    }

    /**
     * A group-less subscriber reads the partitions the topic had when it attached; a topic grown since (the
     * statistics topic, given one partition per pool by the GRMs) would leave the new ones unread. Every
     * {@link #PARTITION_CHECK_NANOS} it asks for the partitions and reads any new one from its beginning —
     * everything in it was written after this subscriber attached.
     */
    private void followNewPartitions(KafkaConsumer<String, byte[]> c) {
        long now = System.nanoTime();
        if (now - lastPartitionCheck < PARTITION_CHECK_NANOS) {
            return;
        }
        lastPartitionCheck = now;
        List<PartitionInfo> infos;
        try {
            // listTopics asks the broker; partitionsFor would answer from the consumer's cached metadata
            infos = c.listTopics(Duration.ofSeconds(2)).get(topic);
        } catch (RuntimeException e) {
            LOG.debug("{}: cannot list partitions: {}", topic, e.toString());
            return;
        }
        if (infos == null || infos.size() <= c.assignment().size()) {
            return;
        }
        Set<TopicPartition> have = c.assignment();
        List<TopicPartition> all = new ArrayList<>(have);
        List<TopicPartition> added = new ArrayList<>();
        for (PartitionInfo i : infos) {
            TopicPartition tp = new TopicPartition(topic, i.partition());
            if (!have.contains(tp)) {
                all.add(tp);
                added.add(tp);
            }
        }
        c.assign(all);
        c.seekToBeginning(added);
        LOG.info("{}: {} partitions now; reading the new {} from their beginning", topic, all.size(), added);
    }

    private void closeQuietly(KafkaConsumer<String, byte[]> c) {
        try {
            c.close(CLOSE_TIMEOUT);
        } catch (RuntimeException e) {
            LOG.debug("closing the consumer on {}: {}", topic, e.toString());
        }
    }

    /**
     * A member cut off from its group coordinator keeps its assignment in the client until it rejoins,
     * but the coordinator hands the partitions to another member once the session times out: two
     * would then own partition 0 (two GRM leaders). So a member that owns partitions asks the
     * coordinator once a second (the committed offsets of what it owns); once a session timeout has
     * passed without an answer it reports owning nothing. When the coordinator answers again, a member
     * the group expelled meanwhile learns it at its next heartbeat and the rebalance reports the
     * partitions lost (a coordinator that restarted may also expel it a session timeout after it is
     * back); so the assignment is reported again only after the coordinator has answered for a session
     * timeout and a second with no rebalance, or by the rebalance itself.
     */
    private void lease(KafkaConsumer<String, byte[]> c) {
        Set<TopicPartition> owned = c.assignment();
        long now = System.nanoTime();
        if (owned.isEmpty()) {
            lastAnswer = now;
            return;
        }
        if (now - lastProbe >= 1_000_000_000L) {
            lastProbe = now;
            try {
                c.committed(owned, Duration.ofMillis(500));
                lastAnswer = System.nanoTime();
                if (answeringSince == 0) {
                    answeringSince = lastAnswer;
                }
            } catch (TimeoutException e) {
                answeringSince = 0; // no answer: the lease runs on
            }
        }
        long silent = (System.nanoTime() - lastAnswer) / 1_000_000;
        if (!fenced && silent >= leaseMillis) {
            fenced = true;
            answeringSince = 0;
            LOG.warn("no answer from the group coordinator of {} for {} s (session timeout {} s): giving up {} until "
                    + "it answers", topic, silent / 1000, leaseMillis / 1000.0, owned);
            notifyAssignment(c);
        } else if (fenced && answeringSince != 0 && (System.nanoTime() - answeringSince) / 1_000_000 >= leaseMillis + 1000) {
            fenced = false;
            LOG.info("the group coordinator of {} has answered for {} s without a rebalance; owning {} again", topic,
                    (leaseMillis + 1000) / 1000.0, owned);
            notifyAssignment(c);
        }
    }

    /**
     * A rebalance callback. Partitions revoked or lost are gone whatever the client's assignment
     * still says during the callback; partitions assigned are the coordinator's own word on what this
     * member owns, and end a lapse (the client also calls it with none while cut off: that does not).
     */
    private void rebalanced(KafkaConsumer<String, byte[]> c, Collection<TopicPartition> assigned,
                            Collection<TopicPartition> leaving) {
        if (!assigned.isEmpty()) {
            if (fenced) {
                LOG.info("rebalance on {}: owning {}", topic, c.assignment());
            }
            fenced = false;
            lastAnswer = System.nanoTime();
        }
        notifyAssignment(c, leaving);
    }

    private void notifyAssignment(KafkaConsumer<String, byte[]> c) {
        notifyAssignment(c, List.of());
    }

    private void notifyAssignment(KafkaConsumer<String, byte[]> c, Collection<TopicPartition> leaving) {
        if (onAssignment == null) {
            return;
        }
        Set<Integer> owned = fenced ? Set.of()
                : c.assignment().stream().filter(tp -> !leaving.contains(tp)).map(TopicPartition::partition)
                        .collect(Collectors.toSet());
        try {
            onAssignment.accept(owned);
        } catch (RuntimeException e) {
            LOG.warn("assignment listener on {} threw: {}", topic, e.toString());
        }
    }

    private void deliver(ConsumerRecord<String, byte[]> r) {
        T value = null;
        if (r.value() != null) {
            Decoded<T> d = decoder.apply(r.value());
            if (d instanceof Decoded.Failure<T> f) {
                malformed.increment();
                refusedMalformed.increment();
                if (loggedFailures.size() < 100 && loggedFailures.add(f.reason())) {
                    LOG.warn("skipping malformed record on {} at offset {} (key {}): {}", topic, r.offset(), r.key(), f.reason());
                }
                return;
            }
            value = ((Decoded.Ok<T>) d).value();
        }
        received.increment();
        try {
            handler.onMessage(r.partition(), r.key(), value);
        } catch (RuntimeException e) {
            handlerErrors.increment();
            LOG.warn("handler for {} threw on offset {}: {}", topic, r.offset(), e.toString(), e);
        }
    }

    private void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            running = false;
        }
    }

    @Override
    public void close() {
        running = false;
        KafkaConsumer<String, byte[]> c = consumer;
        if (c != null) {
            c.wakeup();
        }
        try {
            if (!stopped.await(10, TimeUnit.SECONDS)) {
                LOG.warn("subscriber on {} did not stop within 10 s", topic);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
