package org.arbiter.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Probe: a short live bursty run (wall time printed). */
final class LiveBurstyTest {

    @TempDir
    Path dir;

    @Test
    void probe() throws Exception {
        long t0 = System.nanoTime();
        LiveResult.Bursty r = LiveBursty.run(Long.getLong("bursty.seed", 1), Double.parseDouble(System.getProperty("bursty.seconds", "300")),
                Double.parseDouble(System.getProperty("bursty.scale", "0.1")), dir, System.out::println);
        System.out.println("RESULT " + r + " wall " + (System.nanoTime() - t0) / 1e9);
        assertThat(r.live()).containsKeys("model", "liu");
    }
}
