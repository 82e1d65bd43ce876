package org.arbiter.common.bus;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.arbiter.common.message.Decoded;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.MessageCodec;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link Bus} inside one JVM, for tests and tools that run without a broker. Every topic is a
 * log kept whole (nothing is compacted or expires), so a {@link Bus.Start#BEGINNING} subscriber
 * reads every record published so far, then what follows. Records go through
 * {@link MessageCodec} as on Kafka: a subscriber gets what a Kafka subscriber would decode, and
 * one that does not decode as its type is skipped and counted ({@link #malformed()}).
 *
 * <p>Delivery: on the publisher's thread, before {@link Publisher#publish} returns, to every
 * subscriber of the topic in the order they subscribed; a handler that throws is logged and
 * skipped. The election of a group is led by the earliest member still in it.
 *
 * <p>Thread-safe. Publishing is serialised per bus, so every subscriber sees one order.
 */
public final class InMemoryBus implements Bus {

    private static final Logger LOG = LoggerFactory.getLogger(InMemoryBus.class);

    private record Record(String key, byte[] value) {
    }

    private final Topics topics;
    private final Map<String, List<Record>> logs = new LinkedHashMap<>();
    private final Map<String, List<Sub<?>>> subscribers = new LinkedHashMap<>();
    private final Map<String, List<Member>> elections = new LinkedHashMap<>();
    private final AtomicLong malformed = new AtomicLong();
    private final AtomicLong handlerErrors = new AtomicLong();

    /** A bus whose topic names start with {@code prefix} (Arbiter's default: {@code arbiter.}). */
    public InMemoryBus(String prefix) {
        this.topics = new Topics(prefix);
    }

    /** A bus with the default prefix {@code arbiter.}. */
    public InMemoryBus() {
        this("arbiter.");
    }

    @Override
    public Topics topics() {
        return topics;
    }

    @Override
    public Publisher publisher(String topic) {
        requireNonNull(topic, "topic");
        return new Publisher() {
            @Override
            public CompletableFuture<Void> publish(Message message) {
                append(topic, new Record(message.key(), MessageCodec.encode(message)));
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletableFuture<Void> publish(Message message, String key, int partition) {
                append(topic, new Record(requireNonNull(key, "key"), MessageCodec.encode(message)));
                return CompletableFuture.completedFuture(null);
            }

            @Override
            public CompletableFuture<Void> delete(String key) {
                append(topic, new Record(requireNonNull(key, "key"), null));
                return CompletableFuture.completedFuture(null);
            }
        };
    }

    private synchronized void append(String topic, Record r) {
        logs.computeIfAbsent(topic, t -> new ArrayList<>()).add(r);
        for (Sub<?> s : subscribers.getOrDefault(topic, List.of())) {
            s.deliver(r);
        }
    }

    @Override
    public synchronized <T extends Message> Subscription subscribe(String topic, Class<T> type, Start start,
                                                                   MessageHandler<T> handler) {
        requireNonNull(topic, "topic");
        requireNonNull(start, "start");
        Sub<T> s = new Sub<>(topic, requireNonNull(type, "type"), requireNonNull(handler, "handler"));
        if (start == Start.BEGINNING) {
            for (Record r : logs.getOrDefault(topic, List.of())) {
                s.deliver(r);
            }
        }
        subscribers.computeIfAbsent(topic, t -> new CopyOnWriteArrayList<>()).add(s);
        return s;
    }

    /** Every record published to {@code topic} so far that decodes as {@code type}, in order (tombstones left out). */
    public synchronized <T extends Message> List<T> published(String topic, Class<T> type) {
        List<T> out = new ArrayList<>();
        for (Record r : logs.getOrDefault(topic, List.of())) {
            if (r.value() != null && MessageCodec.decode(r.value(), type) instanceof Decoded.Ok<T> ok) {
                out.add(ok.value());
            }
        }
        return out;
    }

    /** Records skipped because they did not decode as the subscriber's type. */
    public long malformed() {
        return malformed.get();
    }

    /** Records whose handler threw. */
    public long handlerErrors() {
        return handlerErrors.get();
    }

    private final class Sub<T extends Message> implements Subscription {
        final String topic;
        final Class<T> type;
        final MessageHandler<T> handler;
        volatile boolean open = true;

        Sub(String topic, Class<T> type, MessageHandler<T> handler) {
            this.topic = topic;
            this.type = type;
            this.handler = handler;
        }

        void deliver(Record r) {
            if (!open) {
                return;
            }
            T value = null;
            if (r.value() != null) {
                Decoded<T> d = MessageCodec.decode(r.value(), type);
                if (d instanceof Decoded.Failure<T> f) {
                    malformed.incrementAndGet();
                    LOG.warn("skipped a malformed record on {}: {}", topic, f.reason());
                    return;
                }
                value = ((Decoded.Ok<T>) d).value();
            }
            try {
                handler.onMessage(r.key(), value);
            } catch (RuntimeException e) {
                handlerErrors.incrementAndGet();
                LOG.warn("handler on {} failed: {}", topic, e.toString(), e);
            }
        }

        @Override
        public void close() {
            open = false;
            synchronized (InMemoryBus.this) {
                subscribers.getOrDefault(topic, List.of()).remove(this);
            }
        }
    }

    @Override
    public synchronized Election joinElection(String group, String memberId, Consumer<Boolean> onChange) {
        requireNonNull(group, "group");
        requireNonNull(memberId, "memberId");
        Member m = new Member(group, onChange == null ? b -> { } : onChange);
        List<Member> members = elections.computeIfAbsent(group, g -> new ArrayList<>());
        members.add(m);
        if (members.size() == 1) {
            m.set(true);
        }
        return m;
    }

    private final class Member implements Election {
        final String group;
        final Consumer<Boolean> onChange;
        volatile boolean leader;
        final AtomicLong changes = new AtomicLong();

        Member(String group, Consumer<Boolean> onChange) {
            this.group = group;
            this.onChange = onChange;
        }

        void set(boolean now) {
            if (leader != now) {
                leader = now;
                changes.incrementAndGet();
                onChange.accept(now);
            }
        }

        @Override
        public boolean isLeader() {
            return leader;
        }

        @Override
        public long changes() {
            return changes.get();
        }

        @Override
        public void close() {
            synchronized (InMemoryBus.this) {
                List<Member> members = elections.get(group);
                if (members == null || !members.remove(this)) {
                    return;
                }
                boolean wasLeader = leader;
                leader = false;
                if (wasLeader && !members.isEmpty()) {
                    members.get(0).set(true);
                }
            }
        }
    }
}
