package org.arbiter.grm.control;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.grm.sizing.Fleet;

/**
 * One control period's work, as a pure function of what the GRM knows: the live gateways'
 * latest statistics, the overrides in force and the allocations last published. The GRM service
 * calls it on the leader every period; the simulator calls the same implementation in virtual
 * time.
 */
public interface ControlStep {

    /**
     * @param now               the period's instant (virtual in the simulator)
     * @param live              latest statistics of every live gateway
     * @param gone              gateways declared gone (silent past {@link StatsBook#gone}): their slots may go
     *                          to others. Every other gateway with an allocation in {@code lastAllocations} that
     *                          is not live keeps its caps reserved ({@link CapReserve})
     * @param overrides         overrides in force
     * @param lastAllocations   the allocation last published for each gateway (from the compacted topic)
     * @param clock             where the records' (epoch, counter) stamps come from
     * @return the allocations to publish (one per live gateway, or the configured ones when none is live;
     *         caps of 0 to a gateway newly gone; cut caps to a left-out gateway whose caps no longer fit)
     *         and the decision record. Σ_g N(g,s) ≤ N_s over the caps then in force at every gateway
     */
    Result step(Instant now, Map<String, GatewayStats> live, Set<String> gone, OverrideBook overrides,
                Map<String, Allocation> lastAllocations, EpochClock clock);

    /** {@link #step(Instant, Map, Set, OverrideBook, Map, EpochClock)} with no gateway gone. */
    default Result step(Instant now, Map<String, GatewayStats> live, OverrideBook overrides,
                        Map<String, Allocation> lastAllocations, EpochClock clock) {
        return step(now, live, Set.of(), overrides, lastAllocations, clock);
    }

    /**
     * Actuator feedback: {@code server} was seen up (serving) or down (off). Returns the state
     * changes to publish. The default models no fleet and ignores it.
     */
    default List<PowerOrder> observed(String server, boolean up, Instant now) {
        return List.of();
    }

    /** The fleet this step models, once it exists (for metrics; read it on the calling thread only). */
    default Optional<Fleet> fleet() {
        return Optional.empty();
    }

    /**
     * What a period decided. {@code decision} is null when nothing was solved; {@code powerOrders}
     * are the servers' state changes to publish, {@code actuations} what the actuator must do.
     */
    record Result(List<Allocation> allocations, Decision decision, List<PowerOrder> powerOrders,
                  List<Fleet.Actuation> actuations) {
        public Result {
            allocations = List.copyOf(allocations);
            powerOrders = List.copyOf(powerOrders);
            actuations = List.copyOf(actuations);
        }

        public Result(List<Allocation> allocations, Decision decision) {
            this(allocations, decision, List.of(), List.of());
        }
    }
}
