package org.arbiter.common.bus;

import java.util.function.Consumer;
import org.arbiter.common.message.Message;

/**
 * What a process needs of the message bus: publishers, subscriptions and a leader election, under
 * one installation's {@link Topics}. {@code org.arbiter.bus.KafkaBus} implements it over Kafka;
 * {@link InMemoryBus} in one JVM, for tests and tools that run without a broker.
 *
 * <p>Implementations are thread-safe. Handlers and election listeners are called on the
 * implementation's threads (a consumer loop's, or the publisher's for {@link InMemoryBus}): a
 * handler hands its record over to its own thread rather than doing the work there.
 */
public interface Bus {

    /** Where a subscription starts: the records retained on the topic, or only those published from now on. */
    enum Start { BEGINNING, END }

    /** A running subscription; {@link #close()} stops it and may be called from any thread. */
    interface Subscription extends AutoCloseable {
        @Override
        void close();
    }

    /**
     * One candidate in a leader election: of all the members that joined a group, one leads at a
     * time; when it leaves (or, on Kafka, its session ends) another takes over.
     */
    interface Election extends AutoCloseable {
        boolean isLeader();

        /** How many times this member gained or lost leadership. */
        long changes();

        /** Leaves the election (gives up leadership, without telling the listener). */
        @Override
        void close();
    }

    /** The topic names of this installation. */
    Topics topics();

    /** A publisher to {@code topic}, keyed by each message's {@link Message#key()}. */
    Publisher publisher(String topic);

    /**
     * Hands every record of {@code topic} that decodes as {@code type} to {@code handler}
     * (a tombstone on a compacted topic as null); records that do not decode are skipped and
     * counted by the implementation.
     */
    <T extends Message> Subscription subscribe(String topic, Class<T> type, Start start, MessageHandler<T> handler);

    /**
     * Joins the leader election of {@code group} as {@code memberId}; {@code onChange} is told
     * true when this member becomes leader and false when it stops being one.
     */
    Election joinElection(String group, String memberId, Consumer<Boolean> onChange);
}
