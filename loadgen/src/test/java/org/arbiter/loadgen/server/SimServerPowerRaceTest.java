package org.arbiter.loadgen.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicBoolean;
import org.arbiter.loadgen.model.PowerModel;
import org.junit.jupiter.api.Test;

/**
 * A status read on the clock thread advances the power model; one that lands between a
 * transition's time and the scheduled sync used to swallow the transition (the server stayed
 * SHUTTING_DOWN or BOOTING for good, and the meter's energy became NaN). Twenty off/on cycles with
 * short delays while another thread reads the status as fast as it can.
 */
final class SimServerPowerRaceTest {

    @Test
    void everyPowerTransitionCompletes_whileTheStatusIsReadContinuously() throws Exception {
        try (SimServer s = SimServer.start(SimServerOptions.defaults().withDemand(4, 0.01, 0).withDelays(0.02, 0.02))) {
            AtomicBoolean reading = new AtomicBoolean(true);
            Thread reader = new Thread(() -> {
                while (reading.get()) {
                    s.status();
                }
            });
            reader.start();
            try {
                for (int i = 0; i < 20; i++) {
                    s.powerOff();
                    awaitState(s, PowerModel.State.OFF, i);
                    s.powerOn();
                    awaitState(s, PowerModel.State.ON, i);
                }
            } finally {
                reading.set(false);
                reader.join();
            }
            double joules = s.status().joules();
            assertThat(joules).as("metered energy").isFinite().isPositive();
        }
    }

    private static void awaitState(SimServer s, PowerModel.State want, int cycle) {
        await("cycle " + cycle + ": " + want + " within 2 s of the order (delays 0.02 s)").atMost(Duration.ofSeconds(2))
                .pollInterval(Duration.ofMillis(2)).until(() -> s.state() == want);
    }
}
