package org.arbiter.common.bus;

import java.time.Duration;
import java.util.Set;
import java.util.function.Consumer;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.arbiter.common.message.GatewayStats;
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

        /**
         * The partitions this member owns: of a {@link Bus#joinPools pool group}, the pools' indices; of a
         * leader election, {0} while it leads.
         */
        default Set<Integer> owned() {
            return isLeader() ? Set.of(0) : Set.of();
        }

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

    /** A record of a pool group's statistics, with the partition it was read from (the pool's index). */
    interface PartitionHandler<T> {
        /**
         * @param partition the partition the record was read from ({@link #NO_PARTITION} on a bus without
         *                  partitions: then the record is every pool's)
         * @param key       the record key
         * @param value     the decoded message
         */
        void onMessage(int partition, String key, T value);
    }

    /** The partition of a record on a bus without partitions ({@link InMemoryBus}). */
    int NO_PARTITION = -1;

    /**
     * Joins the group that shares {@code partitions} pools among its members: partition i of the statistics
     * topic ({@link Topics#stats()}) is pool i, where every gateway publishes its report restricted to that
     * pool. The group's assignment decides who owns which partition, hence which pool, and moves a member's
     * pools when it leaves or its session ends; {@code onChange} is told the set owned after every change, and
     * {@code stats} gets the records of the partitions owned, those of the last {@code rewind} first when a
     * partition is newly assigned (so a new owner's books are as warm as the old owner's). This default has no
     * partitions: the member that leads {@link #joinElection} owns every pool, and every member gets every record
     * of the statistics topic published from now on, with partition {@link #NO_PARTITION}.
     */
    default Election joinPools(String group, String memberId, int partitions, Duration rewind,
                               Consumer<Set<Integer>> onChange, PartitionHandler<GatewayStats> stats) {
        Set<Integer> all = IntStream.range(0, partitions).boxed().collect(Collectors.toUnmodifiableSet());
        Election leader = joinElection(group, memberId, leading -> onChange.accept(leading ? all : Set.of()));
        Subscription reports = subscribe(topics().stats(), GatewayStats.class, Start.END,
                (k, v) -> stats.onMessage(NO_PARTITION, k, v));
        return new Election() {
            @Override
            public boolean isLeader() {
                return leader.isLeader();
            }

            @Override
            public long changes() {
                return leader.changes();
            }

            @Override
            public Set<Integer> owned() {
                return leader.isLeader() ? all : Set.of();
            }

            @Override
            public void close() {
                reports.close();
                leader.close();
            }
        };
    }
}
