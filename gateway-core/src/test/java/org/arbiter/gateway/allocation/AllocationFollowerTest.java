package org.arbiter.gateway.allocation;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Clock;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.junit.jupiter.api.Test;

/** Which allocations a gateway applies, and how it counts the ones it refuses (issue #14). */
final class AllocationFollowerTest {

    static final Instant NOW = Instant.parse("2026-11-23T12:00:00Z");
    static final long MS = NOW.toEpochMilli();
    static final long SKEW = 30_000;

    final List<Allocation> applied = new ArrayList<>();
    final List<String> refusals = new ArrayList<>();
    final Allocation configured = new Allocation(1, NOW, "g1", 0, Map.of("a", 1.0), Map.of("s1", 5), "configured");
    final AllocationFollower follower = new AllocationFollower("g1", configured, applied::add,
            Clock.fixed(NOW, ZoneOffset.UTC), SKEW, (r, d) -> refusals.add(r.tag()));

    static Allocation alloc(long epoch, long version, Instant at, double w) {
        return new Allocation(1, at, "g1", version, Map.of("a", w), Map.of("s1", 5), "grm", epoch);
    }

    @Test
    void aNewEpoch_isAccepted_evenWhenTheOldEpochsCounterWasHigher() {
        assertThat(follower.accept("g1", alloc(MS - 60_000, 50_000, NOW, 1))).isTrue();
        assertThat(follower.accept("g1", alloc(MS - 60_000, 50_001, NOW, 2))).isTrue();
        assertThat(follower.accept("g1", alloc(MS - 1_000, 1, NOW, 3))).isTrue();
        assertThat(follower.latest().weights()).containsEntry("a", 3.0);
        // the old leader, still writing, is stale now
        assertThat(follower.accept("g1", alloc(MS - 60_000, 50_002, NOW, 4))).isFalse();
        assertThat(follower.refused(AllocationFollower.Reason.STALE)).isEqualTo(1);
        assertThat(applied).extracting(a -> a.weights().get("a")).containsExactly(1.0, 2.0, 3.0);
    }

    @Test
    void theLegacyPoison_isNeverApplied_andTheGrmKeepsBeingFollowed() {
        assertThat(follower.accept("g1", alloc(MS - 5_000, 3, NOW, 1))).isTrue();
        // Long.MAX_VALUE does not even decode (the record's range); the largest legacy counter that
        // does is an epoch-0 record, older than any epoch
        long maxLegacy = 1000 + MS;
        assertThat(follower.accept("g1", alloc(0, maxLegacy, NOW, 9))).isFalse();
        assertThat(follower.refused(AllocationFollower.Reason.STALE)).isEqualTo(1);
        assertThat(follower.accept("g1", alloc(MS - 5_000, 4, NOW, 2))).isTrue();
        assertThat(follower.latest().weights()).containsEntry("a", 2.0);
    }

    @Test
    void implausibleRecords_areRefusedByReason() {
        assertThat(follower.accept("g1", alloc(MS, 1, NOW.plusMillis(SKEW + 1), 9))).isFalse();
        assertThat(follower.accept("g1", alloc(MS + SKEW + 1, 1, NOW, 9))).isFalse();
        assertThat(follower.accept("g1", alloc(MS + SKEW, 1, NOW, 5))).isTrue(); // at the edge: accepted
        assertThat(refusals).containsExactly("implausible-at", "implausible-epoch");
        assertThat(follower.refused()).containsEntry("implausible-at", 1L).containsEntry("implausible-epoch", 1L)
                .containsEntry("stale", 0L);
    }

    @Test
    void otherGateways_tombstones_andRepeats_areCounted_notApplied() {
        assertThat(follower.accept("g2", new Allocation(1, NOW, "g2", 1, Map.of(), Map.of(), "grm", MS))).isFalse();
        assertThat(follower.accept("g1", null)).isFalse();
        Allocation a = alloc(MS, 1, NOW, 2);
        assertThat(follower.accept("g1", a)).isTrue();
        assertThat(follower.accept("g1", a)).isFalse();
        assertThat(follower.refused()).containsEntry("other-gateway", 1L).containsEntry("tombstone", 1L)
                .containsEntry("stale", 1L);
        assertThat(follower.ignored()).isEqualTo(3);
        assertThat(applied).containsExactly(a);
    }

    @Test
    void theConfiguredAllocation_isReplacedByAnyPlausibleOne_evenALegacyOne() {
        assertThat(follower.accept("g1", alloc(0, 1, NOW, 2))).isTrue();
        assertThat(follower.latest().source()).isEqualTo("grm");
    }

    @Test
    void aListenerThatThrows_doesNotStopTheFollower() {
        AllocationFollower f = new AllocationFollower("g1", configured, applied::add, Clock.fixed(NOW, ZoneOffset.UTC),
                SKEW, (r, d) -> {
                    throw new IllegalStateException("boom");
                });
        assertThat(f.accept("g2", new Allocation(1, NOW, "g2", 1, Map.of(), Map.of(), "grm", MS))).isFalse();
        assertThat(f.accept("g1", alloc(MS, 1, NOW, 2))).isTrue();
    }
}
