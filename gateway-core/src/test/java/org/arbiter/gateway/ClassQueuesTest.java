package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The per-class book: arrival order across requeues, counts, the default class, reloaded settings. */
final class ClassQueuesTest {

    private final ClassQueues<String> queues = new ClassQueues<>(Fixtures.twoClasses(3, "1s").classes());

    private Ticket<String> ticket(int c, long sequence) {
        return new Ticket<>("r" + sequence, c, queues.name(c), sequence, sequence);
    }

    @Test
    void aRequeuedTicket_goesBeforeEveryLaterArrival_andAfterEveryEarlierOne() {
        Ticket<String> first = ticket(0, 1);
        Ticket<String> second = ticket(0, 2);
        Ticket<String> third = ticket(0, 3);
        Ticket<String> fourth = ticket(0, 4);
        queues.add(first);
        queues.add(second);
        queues.add(third);
        queues.add(fourth);
        Ticket<String> taken1 = queues.take(0);
        Ticket<String> taken2 = queues.take(0);
        Ticket<String> taken3 = queues.take(0);
        assertThat(queues.queued()).isEqualTo(1);

        queues.requeue(taken2); // before 4
        queues.requeue(taken3); // between 2 and 4
        queues.requeue(taken1); // at the head

        assertThat(queues.queued()).isEqualTo(4);
        assertThat(queues.size(0)).isEqualTo(4);
        for (Ticket<String> expected : java.util.List.of(first, second, third, fourth)) {
            assertThat(queues.take(0)).isSameAs(expected);
        }
        assertThat(queues.head(0)).isNull();
        assertThat(queues.queued()).isZero();
    }

    @Test
    void removingAQueuedTicket_leavesTheOthersInOrder() {
        Ticket<String> a = ticket(1, 1);
        Ticket<String> b = ticket(1, 2);
        Ticket<String> c = ticket(1, 3);
        queues.add(a);
        queues.add(b);
        queues.add(c);
        queues.remove(b);
        assertThat(queues.sizes()).containsExactly(0, 2);
        assertThat(queues.take(1)).isSameAs(a);
        assertThat(queues.take(1)).isSameAs(c);
    }

    @Test
    void namesIndicesAndTheDefaultClass_followTheFileOrder() {
        assertThat(queues.names()).containsExactly("premium", "basic");
        assertThat(queues.indexOf("basic")).isEqualTo(1);
        assertThat(queues.indexOf("gold")).isEqualTo(-1);
        assertThat(queues.defaultClass()).isEqualTo(1);
        assertThat(queues.weights()).containsExactly(8, 2);
        assertThat(queues.limits()).containsExactly(3, 3);
        assertThat(queues.timeoutNanos(0)).isEqualTo(1_000_000_000L);
    }

    @Test
    void inFlightCounts_followDispatchesAndDepartures() {
        queues.dispatched(0);
        queues.dispatched(0);
        queues.dispatched(1);
        queues.leftServer(0);
        assertThat(queues.inFlights()).containsExactly(1, 1);
        assertThat(queues.inFlightTotal()).isEqualTo(2);
    }

    @Test
    void anAllocation_setsTheWeightsItNames_andIgnoresUnknownClasses() {
        queues.install(java.util.Map.of("basic", 5.5, "gold", 1.0));
        assertThat(queues.weights()).containsExactly(8, 5.5);
    }

    @Test
    void aReload_changesLimitAndTimeout_andSaysSo() {
        var next = Fixtures.twoClasses(7, "3s").classes();
        assertThat(queues.changes(0, next.get(0))).isTrue();
        queues.reconfigure(0, next.get(0));
        assertThat(queues.changes(0, next.get(0))).isFalse();
        assertThat(queues.limit(0)).isEqualTo(7);
        assertThat(queues.timeoutNanos(0)).isEqualTo(3_000_000_000L);
        assertThat(queues.limit(1)).isEqualTo(3);
    }
}
