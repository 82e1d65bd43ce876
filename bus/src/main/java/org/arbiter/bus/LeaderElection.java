package org.arbiter.bus;

import static java.util.Objects.requireNonNull;

import java.time.Duration;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.arbiter.common.bus.Bus;
import org.arbiter.common.message.GatewayStats;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Leadership by Kafka consumer-group ownership: of all members of {@code group} consuming the
 * one-partition topic {@code <prefix>grm-leader}, the one that owns partition 0 leads. When the
 * leader stops (or its session times out), the group rebalances and another member takes the
 * partition. No record needs to be written; the topic exists only to be owned.
 *
 * <p>With pools the group consumes the statistics topic instead, one partition per pool: a member owns
 * the pools whose partitions it is assigned, and reads their reports.
 *
 * <p>Thread-safe: {@link #isLeader()} may be read from any thread; the listener is called on the
 * subscriber's thread.
 */
public final class LeaderElection implements Bus.Election {

    private static final Logger LOG = LoggerFactory.getLogger(LeaderElection.class);

    private final AtomicBoolean leader = new AtomicBoolean();
    private final AtomicReference<Set<Integer>> owned = new AtomicReference<>(Set.of());
    private final AtomicLong changes = new AtomicLong();
    private final Subscriber<?> subscriber;
    private final String memberId;

    private LeaderElection(KafkaBus bus, String group, String memberId, Consumer<Boolean> onChange) {
        this.memberId = memberId;
        this.subscriber = bus.subscribeRaw(bus.topics().grmLeader(), Subscriber.Start.END, group,
                (k, v) -> { }, owned -> {
                    boolean now = owned.contains(0);
                    if (leader.getAndSet(now) != now) {
                        changes.incrementAndGet();
                        LOG.info("{} {} leadership of group {}", memberId, now ? "took" : "lost", group);
                        if (onChange != null) {
                            onChange.accept(now);
                        }
                    }
                });
    }

    /**
     * A member of the pool group: owns the partitions of the statistics topic the group assigns it, and gets
     * their records (a newly assigned partition's from {@code rewind} back).
     */
    private LeaderElection(KafkaBus bus, String group, String memberId, int partitions, Duration rewind,
                           Consumer<Set<Integer>> onChange, Bus.PartitionHandler<GatewayStats> stats) {
        this.memberId = memberId;
        this.subscriber = bus.subscribeGroup(bus.topics().stats(), GatewayStats.class, group, stats, now -> {
                    Set<Integer> mine = Set.copyOf(now);
                    if (!owned.getAndSet(mine).equals(mine)) {
                        changes.incrementAndGet();
                        leader.set(!mine.isEmpty());
                        LOG.info("{} owns pools {} of {} in group {}", memberId, new TreeSet<>(mine),
                                partitions, group);
                        if (onChange != null) {
                            onChange.accept(mine);
                        }
                    }
                },
                // sticky and incremental: when a member leaves, only its pools move; the others keep theirs
                // (and their epochs) instead of all being revoked and dealt again
                Map.of(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, CooperativeStickyAssignor.class.getName()),
                rewind);
    }

    /**
     * Joins the pool group (the statistics topic must have its partitions: {@link KafkaBus#joinPools}).
     *
     * @param rewind   how far back a newly assigned partition is read again (null: not at all)
     * @param onChange told the partitions (pool indices) this member owns after every change
     * @param stats    told every record of the partitions owned, with its partition
     */
    static LeaderElection joinPools(KafkaBus bus, String group, String memberId, int partitions, Duration rewind,
                                    Consumer<Set<Integer>> onChange, Bus.PartitionHandler<GatewayStats> stats) {
        return new LeaderElection(requireNonNull(bus, "bus"), requireNonNull(group, "group"),
                requireNonNull(memberId, "memberId"), partitions, rewind, onChange, requireNonNull(stats, "stats"));
    }

    /** The partitions owned: {0} while leading an election; the pools' indices in a pool group. */
    @Override
    public Set<Integer> owned() {
        Set<Integer> o = owned.get();
        return o.isEmpty() && leader.get() ? Set.of(0) : o;
    }

    /**
     * Joins the election.
     *
     * @param bus      the bus (its topic prefix names the topic)
     * @param group    consumer group of the candidates
     * @param memberId this candidate, for logs
     * @param onChange told true when this member becomes leader, false when it stops being one
     */
    public static LeaderElection join(KafkaBus bus, String group, String memberId, Consumer<Boolean> onChange) {
        return new LeaderElection(requireNonNull(bus, "bus"), requireNonNull(group, "group"),
                requireNonNull(memberId, "memberId"), onChange);
    }

    @Override
    public boolean isLeader() {
        return leader.get();
    }

    /** How many times this member gained or lost leadership. */
    @Override
    public long changes() {
        return changes.get();
    }

    public String memberId() {
        return memberId;
    }

    @Override
    public void close() {
        subscriber.close();
        owned.set(Set.of());
        if (leader.getAndSet(false)) {
            LOG.info("{} gave up leadership", memberId);
        }
    }
}
