package org.arbiter.common.bus;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.junit.jupiter.api.Test;

/** The in-memory bus: replay, live delivery, records that do not decode, the election. */
final class InMemoryBusTest {

    static Allocation allocation(String g, long version) {
        return new Allocation(1, Instant.parse("2026-01-01T00:00:00Z"), g, version, Map.of("basic", 1.0), Map.of("s1", 1),
                "test");
    }

    @Test
    void beginningReplaysWhatWasPublished_endOnlyWhatFollows_andTombstonesArriveAsNull() {
        InMemoryBus bus = new InMemoryBus();
        Publisher out = bus.publisher(bus.topics().allocation());
        out.publish(allocation("g1", 1));
        List<String> fromStart = new ArrayList<>();
        List<String> fromEnd = new ArrayList<>();
        bus.subscribe(bus.topics().allocation(), Allocation.class, Bus.Start.BEGINNING,
                (k, a) -> fromStart.add(k + "=" + (a == null ? "null" : a.version())));
        Bus.Subscription end = bus.subscribe(bus.topics().allocation(), Allocation.class, Bus.Start.END,
                (k, a) -> fromEnd.add(k + "=" + (a == null ? "null" : a.version())));
        out.publish(allocation("g1", 2));
        out.delete("g1");
        end.close();
        out.publish(allocation("g2", 3));
        assertThat(fromStart).containsExactly("g1=1", "g1=2", "g1=null", "g2=3");
        assertThat(fromEnd).containsExactly("g1=2", "g1=null");
        assertThat(bus.published(bus.topics().allocation(), Allocation.class)).extracting(Allocation::version)
                .containsExactly(1L, 2L, 3L);
    }

    @Test
    void aRecordThatDoesNotDecodeAsTheSubscribersType_isSkippedAndCounted() {
        InMemoryBus bus = new InMemoryBus();
        List<Decision> got = new ArrayList<>();
        bus.subscribe("mixed", Decision.class, Bus.Start.END, (k, d) -> got.add(d));
        bus.publisher("mixed").publish(allocation("g1", 1));
        assertThat(got).isEmpty();
        assertThat(bus.malformed()).isEqualTo(1);
    }

    @Test
    void theEarliestMemberLeads_andWhenItLeavesTheNextTakesOver() {
        InMemoryBus bus = new InMemoryBus();
        List<String> events = new ArrayList<>();
        Bus.Election a = bus.joinElection("grm", "a", l -> events.add("a " + l));
        Bus.Election b = bus.joinElection("grm", "b", l -> events.add("b " + l));
        assertThat(a.isLeader()).isTrue();
        assertThat(b.isLeader()).isFalse();
        a.close();
        assertThat(a.isLeader()).isFalse();
        assertThat(b.isLeader()).isTrue();
        assertThat(b.changes()).isEqualTo(1);
        assertThat(events).containsExactly("a true", "b true");
        assertThat(bus.joinElection("other", "c", null).isLeader()).as("groups are separate").isTrue();
    }
}
