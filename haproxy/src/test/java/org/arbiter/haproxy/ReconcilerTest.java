package org.arbiter.haproxy;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ReconcilerTest {

    @Test
    void sendsOnlyTheDifferences() throws Exception {
        StatCsv.Table t = StatCsv.parse(StatCsvTest.resource("show-stat-2.6.csv"));
        Map<String, Map<String, ServersState.Server>> st = ServersState.parse(StatCsvTest.resource("show-servers-state-2.6.txt"));
        // HAProxy has: premium s1 unlimited (slim empty) weight 1, s2 maxconn 2 weight 1; basic s1 3, s2 2, weight 1
        Reconciler.Plan p = Reconciler.plan(List.of("premium", "basic"),
                Map.of("premium", Map.of("s1", 4, "s2", 1), "basic", Map.of("s1", 1, "s2", 0)),
                Map.of("s1", 5, "s2", 1), t, st);
        assertThat(p.commands()).extracting(Reconciler.Command::text).containsExactly(
                "set weight class.premium/s1 4",
                "set maxconn server class.premium/s1 4",
                "set maxconn server class.premium/s2 1",
                "set maxconn server class.basic/s1 1",
                "set weight class.basic/s2 0",
                "set maxconn server class.basic/s2 1");
        assertThat(p.problems()).isEmpty();
        assertThat(p.inForce()).isFalse();
    }

    @Test
    void aServerWithoutSlotsDrainsInEveryBackend() throws Exception {
        StatCsv.Table t = StatCsv.parse(StatCsvTest.resource("show-stat-2.6.csv"));
        Map<String, Map<String, ServersState.Server>> st = ServersState.parse(StatCsvTest.resource("show-servers-state-2.6.txt"));
        Reconciler.Plan p = Reconciler.plan(List.of("premium", "basic"),
                Map.of("premium", Map.of("s1", 3), "basic", Map.of("s1", 2)), Map.of("s1", 5), t, st);
        assertThat(p.commands()).extracting(Reconciler.Command::text)
                .contains("set server class.premium/s2 state drain", "set server class.basic/s2 state drain")
                .noneMatch(c -> c.contains("/s1 state"));
    }

    @Test
    void namesWhatHaproxyLacks() throws Exception {
        StatCsv.Table t = StatCsv.parse(StatCsvTest.resource("show-stat-2.6.csv"));
        Map<String, Map<String, ServersState.Server>> st = ServersState.parse(StatCsvTest.resource("show-servers-state-2.6.txt"));
        Reconciler.Plan p = Reconciler.plan(List.of("premium", "gold"),
                Map.of("premium", Map.of("s1", 3, "s9", 2)), Map.of("s1", 3, "s9", 2), t, st);
        assertThat(p.problems()).anyMatch(m -> m.contains("backend class.gold is not in HAProxy"))
                .anyMatch(m -> m.contains("class.premium/s9 is not in HAProxy"));
    }

    @Test
    void zeroCapIsWeightZeroNeverMaxconnZero() {
        assertThat(Reconciler.setting(0, 4)).isEqualTo(new Reconciler.Setting(1, 0, ServersState.Admin.READY));
        assertThat(Reconciler.setting(300, 300)).isEqualTo(new Reconciler.Setting(300, 256, ServersState.Admin.READY));
        assertThat(Reconciler.setting(0, 0).admin()).isEqualTo(ServersState.Admin.DRAIN);
    }
}
