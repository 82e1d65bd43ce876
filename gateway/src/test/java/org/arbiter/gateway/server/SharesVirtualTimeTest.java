package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Map;
import java.util.SplittableRandom;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.GatewayTestSupport;
import org.arbiter.gateway.Outcome;
import org.arbiter.gateway.Ticket;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;
import org.junit.jupiter.api.Test;

/**
 * {@link SharesSocketTest}'s acceptance case on virtual time, where its shares are asserted: N_s =
 * 10 slots of a backend that holds every request 200 ms, 16 premium and 16 basic closed-loop
 * clients (no think time), weights premium 8 / basic 2; the core driven the way the Netty adapter
 * drives it, time passed in. Of the requests the backend holds, 80 % ± 10 % are premium; after a
 * 2 / 8 swap, once the slots turn over, 20 % ± 10 %.
 */
final class SharesVirtualTimeTest {

    private static final long MS = 1_000_000L;

    @Test
    void saturatedClasses_getTheirWeightedShareAtTheBackend_andASwapShowsOnceTheSlotsTurnOver() {
        ClusterConfig c = GatewayTestSupport.twoClasses(200, "30s", "http://127.0.0.1:9");
        GatewayCore<String> core = new GatewayCore<>(c, "g1", ConfiguredAllocation.of(c, "g1", true, Instant.EPOCH),
                Schedulers.of(c.dispatch()), Balancers.of(c.dispatch(), new SplittableRandom(1)), 0);
        Deque<Ticket<String>> atBackend = new ArrayDeque<>();
        Deque<Long> doneAt = new ArrayDeque<>();
        for (int i = 0; i < 16; i++) {
            core.offer("premium", "premium", 0);
            core.offer("basic", "basic", 0);
        }
        double[] before = new double[2];
        double[] after = new double[2];
        // as the socket test: four waves of service, 2 s sampled at 8/2; the swap; 1 s for the slots to
        // turn over, 1 s sampled at 2/8 (one sample a millisecond)
        for (long now = 0; now < 5000 * MS; now += MS) {
            while (!doneAt.isEmpty() && doneAt.peekFirst() <= now) {
                doneAt.removeFirst();
                Ticket<String> t = atBackend.removeFirst();
                core.complete(t, Outcome.OK, now);
                core.offer(t.request(), t.request(), now); // the client's next request, at once
            }
            if (now == 2800 * MS) {
                core.applyAllocation(new Allocation(1, Instant.EPOCH, "g1", 1, Map.of("premium", 2.0, "basic", 8.0),
                        Map.of("s1", 10), "test"));
            }
            core.expireQueued(now);
            for (Ticket<String> t; (t = core.next(now)) != null; ) {
                atBackend.addLast(t);
                doneAt.addLast(now + 200 * MS);
            }
            double[] into = now >= 800 * MS && now < 2800 * MS ? before : now >= 4000 * MS ? after : null;
            if (into != null) {
                for (Ticket<String> t : atBackend) {
                    into["premium".equals(t.request()) ? 0 : 1]++;
                }
            }
        }
        double shareBefore = before[0] / (before[0] + before[1]);
        double shareAfter = after[0] / (after[0] + after[1]);
        System.out.printf("virtual time: premium's share of the backend's requests %.3f at 8/2, %.3f at 2/8%n",
                shareBefore, shareAfter);
        assertThat(shareBefore).as("premium's share of the backend's requests, weights 8/2").isBetween(0.7, 0.9);
        assertThat(shareAfter).as("premium's share of the backend's requests, weights 2/8").isBetween(0.1, 0.3);
    }
}
