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
 * The acceptance case end to end: a backend with N_s = 10, weights premium 8 / basic 2, both
 * classes saturated (24 closed-loop clients each); of the requests the backend holds, premium has 8
 * within one slot, and after a 2 / 8 swap 2 within one slot.
 *
 * <p>Counted, not sampled on the clock: the backend holds every answer, so the gateway fills its ten
 * slots and stops; the test then lets that batch of ten go and holds the next, and the ten requests
 * the gateway sends in their place are the scheduler's choices with both classes backlogged (every
 * client's request is at the gateway before a batch goes, more than ten per class), whatever the
 * machine's load. (The first batch is not counted: it was taken first come first served while the
 * queues were empty.) The same case on virtual time, with the backend's 200 ms service, is
 * {@link SharesVirtualTimeTest}; any weights, {@code GatewayCoreProperties}.
 */
final class SharesSocketTest {

    static final int SLOTS = 10;
    /**
     * Closed-loop clients per class: more than N_s queued behind a class's in-flight requests, so
     * that no class's queue runs dry while the gateway refills the ten slots a batch frees (a class
     * with an empty queue lends its share: work conservation, 003's dynamic boundary).
     */
    static final int CLIENTS = 24;

    @Test
    void saturatedClasses_getTheirWeightedShareAtTheBackend_andASwapShowsOnceTheSlotsTurnOver() throws Exception {
        try (var backend = GatewayTestSupport.backend(0);
             Gateway g = Gateway.start(GatewayTestSupport.twoClasses(200, "30s", backend.url()), "g1",
                     GatewayOptions.defaults().standalone().withPorts(0, 0))) {
            backend.hold();
            try (var load = new GatewayTestSupport.Load(g.port(), Map.of("premium", CLIENTS, "basic", CLIENTS))) {
                awaitBatch(backend, 0); // first come, first served: not counted
                for (int batch = 1; batch <= 3; batch++) {
                    int premium = nextBatch(backend, g, batch);
                    System.out.printf("weights 8/2, batch %d: %d premium of %d%n", batch, premium, SLOTS);
                    assertThat(premium).as("premium's requests of the %d the backend holds, weights 8/2", SLOTS)
                            .isBetween(7, 9);
                }
                g.accept(new Allocation(1, Instant.now(), "g1", 1, Map.of("premium", 2.0, "basic", 8.0),
                        Map.of("s1", SLOTS), "test"));
                for (int batch = 4; batch <= 6; batch++) {
                    int premium = nextBatch(backend, g, batch);
                    System.out.printf("weights 2/8, batch %d: %d premium of %d%n", batch, premium, SLOTS);
                    assertThat(premium).as("premium's requests of the %d the backend holds, weights 2/8", SLOTS)
                            .isBetween(1, 3);
                }
                assertThat(g.allocation().version()).isEqualTo(1);
                backend.release();
            }
        }
    }

    /**
     * Lets the held batch go, holds the next, and returns how many of the next are premium. First every
     * client's request must be at the gateway, so that both classes stay backlogged while it refills.
     */
    static int nextBatch(GatewayTestSupport.Backend backend, Gateway g, int batch) {
        // A guard for a busy machine, not a verdict.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                .until(() -> g.dataPlane().withCore(c -> c.queued()) == 2 * CLIENTS - SLOTS);
        backend.releaseAndHold();
        awaitBatch(backend, batch);
        return backend.inFlight("premium");
    }

    /** Waits until the backend answered {@code batch} × N_s requests and holds N_s new ones. */
    static void awaitBatch(GatewayTestSupport.Backend backend, int batch) {
        // A guard for a busy machine, not a verdict.
        await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(5))
                .until(() -> backend.served("premium") + backend.served("basic") == (long) batch * SLOTS
                        && backend.inFlight("premium") + backend.inFlight("basic") == SLOTS);
    }
}
