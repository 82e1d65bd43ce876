package org.arbiter.live.abuse;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The abuse campaign's verdicts are computed from what was measured: each general criterion flips
 * exactly at its bound, and the resources' summary is the median before, the highest during or
 * after, and the last after. No processes: the figures are given.
 */
final class AbuseVerdictsTest {

    private static final AbuseSettings SETTINGS = AbuseSettings.quick(List.of("java"), 10);
    private static final long MIB = 1L << 20;

    @Test
    void descriptors_areBackToBaseline_upToTheSlack_andNotOneMore() {
        assertThat(row(ok(), resources(100, 100 + AbuseReport.FD_SLACK, 100 * MIB, 120 * MIB))
                .met(Verdict.FDS_BACK)).isTrue();
        assertThat(row(ok(), resources(100, 101 + AbuseReport.FD_SLACK, 100 * MIB, 120 * MIB))
                .met(Verdict.FDS_BACK)).isFalse();
        assertThat(row(ok(), resources(100, -1, 100 * MIB, 120 * MIB)).met(Verdict.FDS_BACK))
                .as("no sample after: the process was not running").isFalse();
    }

    @Test
    void memory_isBounded_upToTheBoundAboveTheBaseline() {
        long bound = SETTINGS.memoryBoundBytes();
        assertThat(row(ok(), resources(100, 100, 100 * MIB, 100 * MIB + bound)).met(Verdict.MEMORY_BOUNDED)).isTrue();
        assertThat(row(ok(), resources(100, 100, 100 * MIB, 100 * MIB + bound + 1)).met(Verdict.MEMORY_BOUNDED))
                .isFalse();
    }

    @Test
    void client_isFullyAnswered_onlyWhenEveryRequestGotA2xx_duringAndAfter() {
        assertThat(row(ok(), fine()).met(Verdict.CLIENT_ANSWERED)).isTrue();
        ClientTally one503 = new ClientTally(10, 10, Map.of(200, 9, 503, 1), 0, 5);
        assertThat(row(tallies(one503, good()), fine()).met(Verdict.CLIENT_ANSWERED)).isFalse();
        ClientTally oneLost = new ClientTally(10, 9, Map.of(200, 9), 1, 5);
        assertThat(row(tallies(good(), oneLost), fine()).met(Verdict.CLIENT_ANSWERED)).isFalse();
        assertThat(row(tallies(ClientTally.EMPTY, good()), fine()).met(Verdict.CLIENT_ANSWERED))
                .as("nothing sent proves nothing").isFalse();
    }

    @Test
    void anAttackThatFailedToRun_isNotRefused_andItsOwnVerdictsFollowTheGeneralOnes() {
        AttackOutcome refused = new AttackOutcome(5, 5, 0, Map.of(), List.of(), List.of(),
                List.of(new Verdict(Verdict.ATTACK_REFUSED, true, "5 of 5")));
        AbuseReport.Row r = AbuseReport.row(new NoAttack(AbuseRig.PLAIN), refused, good(), ok(), fine(), SETTINGS, "");
        assertThat(r.verdicts()).extracting(Verdict::criterion).containsExactly(Verdict.CLIENT_ANSWERED,
                Verdict.FDS_BACK, Verdict.MEMORY_BOUNDED, Verdict.ATTACK_REFUSED);
        assertThat(r.met(Verdict.ATTACK_REFUSED)).isTrue();
        AbuseReport.Row failed = AbuseReport.row(new NoAttack(AbuseRig.PLAIN), AttackOutcome.NONE, good(), ok(), fine(),
                SETTINGS, "java.net.ConnectException: refused");
        assertThat(failed.met(Verdict.ATTACK_REFUSED)).isFalse();
        assertThat(new AbuseReport(AbuseReport.Sizes.of(SETTINGS), List.of(r, failed)).table())
                .contains("| none | g1 | 5 | 5 | 0 | 10, 0, 0 |").contains("failed to run: java.net.ConnectException");
    }

    @Test
    void resources_baselineIsTheMedianBefore_peakTheHighestSince_afterTheLast() {
        List<ProcSampler.Sample> samples = List.of(
                new ProcSampler.Sample(0, ProcSampler.Phase.BEFORE, 10, 100),
                new ProcSampler.Sample(1, ProcSampler.Phase.BEFORE, 30, 300),
                new ProcSampler.Sample(2, ProcSampler.Phase.BEFORE, 20, 200),
                new ProcSampler.Sample(3, ProcSampler.Phase.DURING, 90, 900),
                new ProcSampler.Sample(4, ProcSampler.Phase.AFTER, 95, 950),
                new ProcSampler.Sample(5, ProcSampler.Phase.AFTER, 25, 210));
        assertThat(ProcSampler.summarise(samples)).isEqualTo(new Resources(20, 95, 25, 200, 950, 210, 6));
        assertThat(ProcSampler.summarise(List.of())).isEqualTo(new Resources(-1, -1, -1, -1, -1, -1, 0));
    }

    @Test
    void theSamplerReadsThisProcess() {
        long self = ProcessHandle.current().pid();
        assertThat(ProcSampler.rssBytes(self)).isPositive();
        assertThat(ProcSampler.fds(self)).isPositive();
        assertThat(ProcSampler.cpuSeconds(self)).isPositive();
        assertThat(ProcSampler.rssBytes(Long.MAX_VALUE)).isEqualTo(-1);
    }

    private static AbuseReport.Row row(Map<ProcSampler.Phase, ClientTally> client, Resources r) {
        return AbuseReport.row(new NoAttack(AbuseRig.PLAIN), AttackOutcome.NONE, good(), client, r, SETTINGS, "");
    }

    private static ClientTally good() {
        return new ClientTally(10, 10, Map.of(200, 10), 0, 5);
    }

    private static Map<ProcSampler.Phase, ClientTally> ok() {
        return tallies(good(), good());
    }

    private static Map<ProcSampler.Phase, ClientTally> tallies(ClientTally during, ClientTally after) {
        Map<ProcSampler.Phase, ClientTally> m = new EnumMap<>(ProcSampler.Phase.class);
        m.put(ProcSampler.Phase.DURING, during);
        m.put(ProcSampler.Phase.AFTER, after);
        return m;
    }

    private static Resources fine() {
        return resources(100, 100, 100 * MIB, 110 * MIB);
    }

    @Test
    void theGrmsFutureCount_isReadFromItsPrometheusText_forTheStatsTopicOnly() {
        String text = """
                # TYPE arbiter_bus_refused_total counter
                arbiter_bus_refused_total{reason="future",topic="abuse.stats",} 2.0
                arbiter_bus_refused_total{reason="stale",topic="abuse.stats",} 5.0
                arbiter_bus_refused_total{reason="future",topic="abuse.allocation",} 7.0
                arbiter_bus_refused_totally{reason="future",topic="abuse.stats",} 9.0
                """;
        assertThat(FutureStatsAttack.refusedFuture(text, "abuse.stats")).isEqualTo(2);
        assertThat(FutureStatsAttack.refusedFuture(text, "other.stats")).isZero();
    }

    private static Resources resources(int baselineFds, int afterFds, long baselineRss, long peakRss) {
        return new Resources(baselineRss, peakRss, baselineRss, baselineFds, Math.max(baselineFds, afterFds), afterFds, 10);
    }
}
