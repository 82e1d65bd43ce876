package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.Map;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;

/**
 * The backlog a real gateway reports: nothing while every request finds a free slot (the Netty
 * adapter dispatches a moment after the arrival, which must not count as waiting), and, with more
 * clients than slots, a backlog through the report period with requests dispatched into it (N_s =
 * 10 slots over a 200 ms backend). That the backlog's dispatch rate is the backend's service rate
 * is asserted on virtual time ({@link BacklogVirtualTimeTest}); here it is printed: a rate on real
 * sockets moves with the machine's load.
 */
final class BacklogSocketTest {

    @Test
    void noBacklogWhileSlotsAreFree_andTheServiceRateWhileRequestsWait() throws Exception {
        try (var backend = GatewayTestSupport.backend(200);
             Gateway g = Gateway.start(GatewayTestSupport.twoClasses(200, "30s", backend.url()), "g1",
                     GatewayOptions.defaults().standalone().withPorts(0, 0))) {
            try (var light = new GatewayTestSupport.Load(g.port(), Map.of("premium", 3))) {
                // a whole report period (1 s, 0.9 s of it closed buckets) of light load
                GatewayStats s = await().atMost(Duration.ofSeconds(10)).until(g::stats,
                        stats -> stats.backlog().periodSeconds() >= 0.9 && stats.classes().get("premium").period().accepted() > 5);
                System.out.println("3 clients on 10 slots: " + s.backlog());
                assertThat(s.classes().get("premium").period().accepted()).isGreaterThan(5);
                assertThat(s.backlog().seconds()).isZero();
                assertThat(s.backlog().dispatched()).isZero();
            }
            try (var heavy = new GatewayTestSupport.Load(g.port(), Map.of("premium", 15, "basic", 15))) {
                Thread.sleep(1500);
                // four report periods (the 200 ms service completes in waves, so one 1 s period
                // holds four or five of them)
                double seconds = 0;
                double period = 0;
                long dispatched = 0;
                GatewayStats s = null;
                for (int i = 0; i < 4; i++) {
                    Thread.sleep(1000);
                    s = g.stats();
                    seconds += s.backlog().seconds();
                    period += s.backlog().periodSeconds();
                    dispatched += s.backlog().dispatched();
                }
                GatewayStats.ServerStats server = s.servers().get("s1");
                double rate = dispatched / seconds;
                double serviceRate = server.cap() / server.meanServiceTime();
                System.out.printf("30 clients on 10 slots: backlog %.2f of %.2f s, %d dispatched: %.1f req/s, "
                        + "N_s / service time %.1f req/s%n", seconds, period, dispatched, rate, serviceRate);
                assertThat(seconds).isGreaterThan(0.8 * period);
                assertThat(dispatched).as("requests dispatched into slots freed during the backlog").isPositive();
            }
        }
    }
}
