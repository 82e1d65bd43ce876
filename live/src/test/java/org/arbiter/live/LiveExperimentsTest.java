package org.arbiter.live;

import org.arbiter.live.*;
import org.arbiter.sim.experiment.*;
import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** 003 Fig. 7 live, shortened: a real broker, gateway and simserver on loopback. */
final class LiveExperimentsTest {

    @TempDir
    Path work;

    @Test
    void liveConcurrency_throughputRisesToTheKnee_andFallsBeyond() throws Exception {
        ConcurrencyResult r = LiveExperiments.concurrency(1, 150, 0.02, work, s -> { }, new int[] {2, 10, 30});
        List<ConcurrencyResult.Point> points = r.points();
        double x2 = points.get(0).throughput();
        double x10 = points.get(1).throughput();
        double x30 = points.get(2).throughput();
        // The model: 2 and 10 req/s (paper units) at N_s = 2 and 10; 30 in flight cost 3 % each above the knee.
        assertThat(x2).isBetween(1.5, 2.3);
        assertThat(x10).isBetween(7.5, 10.5);
        assertThat(x30).isLessThan(0.8 * x10);
        assertThat(r.knee()).isEqualTo(10);
    }
}
