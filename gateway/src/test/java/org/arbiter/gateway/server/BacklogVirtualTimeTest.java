package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.SplittableRandom;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.GatewayTestSupport;
import org.arbiter.gateway.Outcome;
import org.arbiter.gateway.Ticket;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;
import org.junit.jupiter.api.Test;

/**
 * {@link BacklogSocketTest}'s heavy phase on virtual time: 30 closed-loop clients (15 premium, 15
 * basic, no think time) on N_s = 10 slots of a backend that holds every request 200 ms, the core
 * driven the way the Netty adapter drives it, time passed in. This is where the backlog's dispatch
 * rate is asserted against the service rate N_s / service time (000 §5.3: during a backlog every
 * dispatch fills a slot a completion freed): a rate measured on real sockets moves with the
 * machine's load, so the socket test keeps only what holds on a busy machine.
 */
final class BacklogVirtualTimeTest {

    private static final long MS = 1_000_000L;

    @Test
    void moreClientsThanSlots_backlogThroughTheReportPeriods_dispatchedAtTheServiceRate() {
        ClusterConfig c = GatewayTestSupport.twoClasses(200, "30s", "http://127.0.0.1:9");
        GatewayCore<String> core = new GatewayCore<>(c, "g1", ConfiguredAllocation.of(c, "g1", true, Instant.EPOCH),
                Schedulers.of(c.dispatch()), Balancers.of(c.dispatch(), new SplittableRandom(1)), 0);
        long serviceNanos = 200 * MS;
        Deque<Ticket<String>> atBackend = new ArrayDeque<>();
        Deque<Long> doneAt = new ArrayDeque<>();
        for (int i = 0; i < 15; i++) {
            core.offer("premium", "premium", 0);
            core.offer("basic", "basic", 0);
        }
        double seconds = 0;
        double period = 0;
        long dispatched = 0;
        GatewayStats s = null;
        // as the socket test: 1.5 s of load, then four report periods read 1 s apart
        for (long now = 0, nextRead = 2500 * MS; now <= 5500 * MS; now += MS) {
            while (!doneAt.isEmpty() && doneAt.peekFirst() <= now) {
                doneAt.removeFirst();
                Ticket<String> t = atBackend.removeFirst();
                core.complete(t, Outcome.OK, now);
                core.offer(t.request(), t.request(), now); // the client sends its next request at once
            }
            core.expireQueued(now);
            for (Ticket<String> t; (t = core.next(now)) != null; ) {
                atBackend.addLast(t);
                doneAt.addLast(now + serviceNanos);
            }
            if (now == nextRead) {
                s = core.snapshot(Instant.EPOCH.plusNanos(now), now);
                seconds += s.backlog().seconds();
                period += s.backlog().periodSeconds();
                dispatched += s.backlog().dispatched();
                nextRead += 1000 * MS;
            }
        }
        GatewayStats.ServerStats server = s.servers().get("s1");
        double rate = dispatched / seconds;
        double serviceRate = server.cap() / server.meanServiceTime();
        System.out.printf("virtual time, 30 clients on 10 slots: backlog %.2f of %.2f s, %d dispatched: %.1f req/s, "
                + "N_s / service time %.1f req/s%n", seconds, period, dispatched, rate, serviceRate);
        assertThat(seconds).isGreaterThan(0.8 * period);
        assertThat(rate).isBetween(0.8 * serviceRate, 1.2 * serviceRate); // waves of 10: ±10 % per second
    }
}
