package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.GatewayTestSupport;
import org.junit.jupiter.api.Test;

/**
 * The acceptance case: a 200 ms backend with N_s = 10, weights premium 8 / basic 2, both classes
 * saturated; the backend must see 8 ± 1 premium and 2 ± 1 basic requests in flight on average,
 * and the 2 / 8 swap within one second of the allocation.
 */
final class SharesSocketTest {

    @Test
    void saturatedClasses_getTheirWeightedShareAtTheBackend_andASwapShowsWithinOneSecond() throws Exception {
        try (var backend = GatewayTestSupport.backend(200);
             Gateway g = Gateway.start(GatewayTestSupport.twoClasses(200, "30s", backend.url()), "g1",
                     GatewayOptions.defaults().standalone().withPorts(0, 0));
             var load = new GatewayTestSupport.Load(g.port(), Map.of("premium", 16, "basic", 16))) {
            Thread.sleep(800);
            Map<String, Double> before = GatewayTestSupport.sampleInFlight(backend, 2000, "premium", "basic");
            System.out.println("in flight at the backend, weights 8/2: " + before);
            assertThat(before.get("premium")).isBetween(7.0, 9.0);
            assertThat(before.get("basic")).isBetween(1.0, 3.0);

            long t0 = System.nanoTime();
            g.accept(new Allocation(1, Instant.now(), "g1", 1, Map.of("premium", 2.0, "basic", 8.0),
                    Map.of("s1", 10), "test"));
            while (!(backend.inFlight("premium") <= 2 && backend.inFlight("basic") >= 8)) {
                assertThat((System.nanoTime() - t0) / 1e9).as("seconds until the backend sees 2/8").isLessThan(1.0);
                Thread.sleep(2);
            }
            double swapSeconds = (System.nanoTime() - t0) / 1e9;
            System.out.printf("swap seen at the backend after %.0f ms%n", swapSeconds * 1000);
            Map<String, Double> after = GatewayTestSupport.sampleInFlight(backend, 1000, "premium", "basic");
            System.out.println("in flight at the backend, weights 2/8: " + after);
            assertThat(after.get("premium")).isBetween(1.0, 3.0);
            assertThat(after.get("basic")).isBetween(7.0, 9.0);
            assertThat(g.allocation().version()).isEqualTo(1);
        }
    }
}
