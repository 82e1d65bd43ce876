package org.arbiter.live.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.loadgen.client.ResultRecorder.Outcome;
import org.arbiter.loadgen.client.ResultRecorder.Request;
import org.junit.jupiter.api.Test;

class OverloadAnalysisTest {

    private static final Map<String, Double> TARGETS = Map.of("premium", 0.5, "basic", 2.0);

    /** Ten requests a second per class, {@code response} by arrival time. */
    private static Map<String, List<Request>> load(java.util.function.BiFunction<String, Double, Request> at, double end) {
        Map<String, List<Request>> m = new LinkedHashMap<>();
        for (String c : List.of("premium", "basic")) {
            List<Request> l = new ArrayList<>();
            for (double t = 0.05; t < end; t += 0.1) {
                l.add(at.apply(c, t));
            }
            m.put(c, l);
        }
        return m;
    }

    @Test
    void goodputCountsOnlyTheSpikesArrivalsAnsweredWithinTheirClasssTarget() {
        // spike [10, 20): premium at 0.4 s (good), basic at 2.5 s (late) from 10 to 15, then 1 s (good)
        var f = OverloadAnalysis.analyse(load((c, t) -> new Request(t, c.equals("premium") ? 0.4
                : t >= 10 && t < 15 ? 2.5 : 1.0, Outcome.OK), 30), TARGETS, 10, 20, 30, 20, 0.5);
        assertEquals(100, f.classes().get("premium").sent());
        assertEquals(100, f.classes().get("premium").good());
        assertEquals(50, f.classes().get("basic").good());
        assertEquals(0.5, f.classes().get("basic").success(), 1e-12);
        assertEquals(15.0, f.goodputPerSecond(), 1e-12); // (100 + 50) / 10 s
        assertEquals(0.75, f.goodputOfCapacity(), 1e-12);
        // basic's p99 is 2.5 s > 2 × 2 s? no: 2.5 < 4, so no bin is late
        assertEquals(0.0, f.p99BackSeconds());
        assertEquals(0.0, f.goodputBackSeconds());
    }

    @Test
    void goodputIsCountedWhenAnswered_soABurstServedOverTimeIsNotMoreThanTheServerDid() {
        // 100 basic requests arrive at once at t = 10 and are answered one every 0.1 s (responses
        // 0.05 .. 9.95 s: the first 20 within basic's 2 s)
        List<Request> burst = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            burst.add(new Request(10, 0.1 * i + 0.05, Outcome.OK));
        }
        var f = OverloadAnalysis.analyse(Map.of("basic", burst), TARGETS, 10, 20, 30, 20, 1);
        assertEquals(20, f.classes().get("basic").good());
        assertEquals(2.0, f.goodputPerSecond(), 1e-12);
        assertEquals(10.0, f.series().get(10).goodputPerSecond(), 1e-12); // not 20 in the arrival's bin
        assertEquals(10.0, f.series().get(11).goodputPerSecond(), 1e-12);
    }

    @Test
    void rejectionsAndTimeoutsAreNotGoodAndNotAdmitted() {
        var f = OverloadAnalysis.analyse(load((c, t) -> new Request(t, 0.01, t >= 10 && t < 20 && c.equals("basic")
                ? Outcome.REJECTED : t >= 10 && t < 12 ? Outcome.TIMED_OUT : Outcome.OK), 30), TARGETS, 10, 20, 30, 20, 1);
        assertEquals(0, f.classes().get("basic").good());
        assertEquals(80, f.classes().get("premium").good());
        assertEquals(0.01, f.classes().get("premium").p99(), 1e-12);
        assertEquals(0, f.classes().get("basic").p99()); // none admitted
        assertEquals(8.0, f.goodputPerSecond(), 1e-12); // 80 good premium in 10 s
    }

    @Test
    void p99IsBackAtTheEndOfTheLastLateBinAndNullWhenTheSpikeEndsLate() {
        // premium late (3 s > 2 × 0.5 s) for arrivals in [10, 12.3), then fine
        var f = OverloadAnalysis.analyse(load((c, t) -> new Request(t, c.equals("premium") && t >= 10 && t < 12.3 ? 3
                : 0.1, Outcome.OK), 30), TARGETS, 10, 20, 30, 20, 0.5);
        assertEquals(2.5, f.p99BackSeconds(), 1e-12); // bins [12, 12.5) is the last late one
        var still = OverloadAnalysis.analyse(load((c, t) -> new Request(t, c.equals("basic") && t >= 15 && t < 20 ? 5
                : 0.1, Outcome.OK), 30), TARGETS, 10, 20, 30, 20, 0.5);
        assertNull(still.p99BackSeconds());
        // one late request in a hundred in a bin of 10 is above the p99: that bin is late
        var one = OverloadAnalysis.analyse(load((c, t) -> new Request(t, Math.abs(t - 10.05) < 1e-9 ? 9 : 0.1,
                Outcome.OK), 30), TARGETS, 10, 20, 30, 20, 1);
        assertEquals(1.0, one.p99BackSeconds(), 1e-12);
    }

    @Test
    void goodputIsBackAfterTheLastShortBinAfterTheSpike() {
        // after the spike (20..30), basic rejected until 23.2: bins to [23, 24) are short
        var f = OverloadAnalysis.analyse(load((c, t) -> new Request(t, 0.1, c.equals("basic") && t >= 10 && t < 23.2
                ? Outcome.REJECTED : Outcome.OK), 30), TARGETS, 10, 20, 30, 20, 1);
        assertEquals(4.0, f.goodputBackSeconds(), 1e-12);
        var never = OverloadAnalysis.analyse(load((c, t) -> new Request(t, 0.1, c.equals("basic") && t >= 10
                ? Outcome.REJECTED : Outcome.OK), 30), TARGETS, 10, 20, 30, 20, 1);
        assertNull(never.goodputBackSeconds());
        // 95 % good in every bin is back: one bad request in twenty
        var fine = OverloadAnalysis.analyse(load((c, t) -> new Request(t, 0.1, c.equals("basic") && t >= 20
                && Math.round(t * 10) % 10 == 0 ? Outcome.REJECTED : Outcome.OK), 30), TARGETS, 10, 20, 30, 20, 1);
        assertEquals(0.0, fine.goodputBackSeconds());
    }

    @Test
    void theSeriesHasOneBinPerStepWithGoodputAndP99() {
        var f = OverloadAnalysis.analyse(load((c, t) -> new Request(t, 0.2, Outcome.OK), 30), TARGETS, 10, 20, 30, 20, 2);
        assertEquals(15, f.series().size());
        assertEquals(20.0, f.series().get(3).goodputPerSecond(), 1e-12);
        assertEquals(0.2, f.series().get(3).p99All(), 1e-12);
        assertEquals(0.2, f.series().get(3).p99().get("basic"), 1e-12);
    }

    @Test
    void refusesAWindowItCannotMeasure() {
        var e = assertThrows(IllegalArgumentException.class, () -> OverloadAnalysis.analyse(Map.of(), TARGETS, 20, 10, 30,
                20, 1));
        assertEquals(true, e.getMessage().contains("expected: start < end <= run end"));
        assertThrows(IllegalArgumentException.class, () -> OverloadAnalysis.analyse(Map.of("gold", List.of()), TARGETS, 10,
                20, 30, 20, 1));
    }

    @Test
    void mediansTakeTheMiddleRunAndCountANeverAsInfinite() {
        var a = new OverloadAnalysis.ClassFigures(10, 10, 1, 0.1, 0.2);
        List<OverloadReport.Row> rows = List.of(
                row(1, 0.9, a, 1.0), row(2, 0.95, a, null), row(3, 0.8, a, 2.0),
                row(1, 0.5, a, null), row(2, 0.4, a, null));
        List<OverloadReport.Median> m = OverloadReport.medians(rows.subList(0, 3));
        assertEquals(1, m.size());
        assertEquals(0.9, m.get(0).goodputOfCapacity(), 1e-12);
        assertEquals(0.8, m.get(0).goodputMin(), 1e-12);
        assertEquals(2.0, m.get(0).p99BackSeconds()); // 1, 2, never → 2
        assertNull(OverloadReport.medians(rows.subList(3, 5)).get(0).p99BackSeconds());
    }

    private static OverloadReport.Row row(int run, double goodput, OverloadAnalysis.ClassFigures c, Double back) {
        return new OverloadReport.Row(run, 3, "x", "X", goodput * 20, goodput, c, c, 0.1, 0.2, back, 0.0,
                new java.util.TreeMap<>(Map.of(200, 10L)), 0, 0, 0);
    }
}
