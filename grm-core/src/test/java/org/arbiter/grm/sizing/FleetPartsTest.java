package org.arbiter.grm.sizing;

import static org.arbiter.grm.sizing.FleetTest.at;
import static org.arbiter.grm.sizing.FleetTest.cluster;
import static org.arbiter.grm.sizing.FleetTest.stats;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.api.Test;

/** The fleet's parts on their own: what each one is handed and what it answers. */
final class FleetPartsTest {

    @Test
    void utilitySizing_asksOmegaOfTheFirstKServers_withTheirConcurrency() {
        Fleet f = new Fleet(cluster("{policy: utility, utilityFloor: 0.5, warmUp: 0s, shutdownDelay: 0s, "
                + "estimator: static, staticCapacity: 10}", "7"), 0);
        List<Map<String, Integer>> asked = new ArrayList<>();
        f.step(5, at(5), stats(5, Map.of()), servers -> {
            asked.add(new LinkedHashMap<>(servers));
            return servers.size() >= 2 ? 0.6 : 0.4;
        });
        // three on: Ω(3) clears the floor, then Ω(2) is asked for the one-fewer check
        assertThat(asked).containsExactly(Map.of("s1", 7, "s2", 7, "s3", 7), Map.of("s1", 7, "s2", 7));
        assertThat(new ArrayList<>(asked.get(1).keySet())).containsExactly("s1", "s2");
        assertThat(f.state("s3")).isIn(ServerState.DRAINING, ServerState.OFF);
    }

    @Test
    void loadForecast_offLoadIsTheBreakEvenPeak_andCurrentFollowsTheRate() {
        // start-up 60 s + shutdown 60 s: a power-off must carry the highest rate of the last 120 s
        LoadForecast lf = new LoadForecast(cluster("{policy: queue, startupDelay: 60s, shutdownDelay: 60s, "
                + "forecast: current}", "10"));
        assertThat(lf.update(0, 10)).isEqualTo(10);
        assertThat(lf.offLoad(0, 10)).isEqualTo(10);
        lf.update(5, 30);
        assertThat(lf.offLoad(5, 30)).isEqualTo(30);
        lf.update(10, 10);
        assertThat(lf.forecast()).isEqualTo(10); // current: the measured rate
        assertThat(lf.offLoad(10, 10)).isEqualTo(30); // the peak 5 s ago still counts (no significant fall)
        lf.update(200, 10);
        assertThat(lf.offLoad(200, 10)).isEqualTo(10); // ... and is gone after the break-even time
    }

    @Test
    void energyMeter_sumsTheMachines_andSavedIsAgainstAlwaysOn() {
        Fleet f = new Fleet(cluster("{policy: static, staticCapacity: 10, shutdownDelay: 0s}", "10"), 0);
        f.observed("s3", false, 0, at(0));
        f.advance(100, at(100));
        EnergyMeter e = f.energy();
        // two idle servers at 60 W and one off (0 W by default) for 100 s, against three always on
        assertThat(e.joules()).isCloseTo(f.energyJoules(), within(1e-9));
        assertThat(e.watts()).isPositive();
        assertThat(e.savedPercent()).isCloseTo(100 * (1 - e.joules() / e.alwaysOnJoules()), within(1e-9));
        assertThat(e.joules()).isLessThan(e.alwaysOnJoules());
    }
}
