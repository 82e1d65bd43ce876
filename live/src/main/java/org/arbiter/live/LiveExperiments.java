package org.arbiter.live;

import org.arbiter.sim.experiment.*;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.function.Consumer;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.haproxy.HaproxyAgent;

/**
 * 003's {@code concurrency}, {@code phases} and {@code regions} experiments live (see
 * {@link LiveRig}): the same result records as {@link Experiments}, in 003's units; the
 * experiment command puts them beside the simulated runs in a {@link LiveResult}.
 */
public final class LiveExperiments {

    /** N_s points of the live Fig. 7 (the simulator sweeps 1..30; a live point costs wall time). */
    static final int[] CONCURRENCY_POINTS = {1, 2, 4, 6, 8, 9, 10, 11, 12, 15, 20, 25, 30};

    private LiveExperiments() {
    }

    /** Fig. 8-12 live: the four phases under the GRM. */
    public static List<PhasesResult.Phase> phases(long seed, double secondsPerPhase, double scale, Path work,
                                             Consumer<String> progress) throws Exception {
        return phasesWithTimeline(seed, secondsPerPhase, scale, work, progress).phases();
    }

    /** The live phases and their response time against time (paper seconds). */
    public record Phases(List<PhasesResult.Phase> phases, Timeline timeline) {
    }

    /** As {@link #phases}, with the timeline of the run. */
    public static Phases phasesWithTimeline(long seed, double secondsPerPhase, double scale, Path work,
                                            Consumer<String> progress) throws Exception {
        Files.createDirectories(work);
        List<LiveRig.Step> phases = Arrays.stream(PaperPhase.values())
                .map(p -> new LiveRig.Step(p.name(), p.premiumClients(), p.basicClients())).toList();
        progress.accept(String.format(Locale.ROOT, "live phases: 4 × %.1f s of wall time (scale %s)",
                secondsPerPhase * scale, scale));
        try (EmbeddedKafka kafka = LiveRig.broker(work)) {
            LiveRig rig = new LiveRig(kafka, work, scale);
            List<LiveRig.Phase> r = rig.run(new LiveRig.Spec(DispatchConfig.Scheduler.WRR, true, 1, 10, 0),
                    phases, secondsPerPhase, seed, progress);
            List<PhasesResult.Phase> out = new ArrayList<>();
            for (LiveRig.Phase p : r) {
                PhasesResult.Phase row = Experiments.phaseRow(p.name(), p.premiumClients(), p.basicClients(),
                        p.premiumWeight(), p.basicWeight(), p.premiumResponse(), p.basicResponse(), p.throughput(),
                        "live phase", progress);
                if (p.predictionError() != null) {
                    row = row.withPredictionError(p.predictionError());
                    progress.accept(String.format(Locale.ROOT, "live phase %s: prediction error mean |e| %s, mean e %s over %d",
                            p.name(), p.predictionError().meanAbs(), p.predictionError().meanSigned(),
                            p.predictionError().samples()));
                }
                out.add(row);
            }
            return new Phases(out, rig.lastTimeline());
        }
    }

    /**
     * One run of the phases with {@code gateways} gateways of one kind.
     *
     * @param phases   003's rows, weights pooled over the gateways
     * @param sent     requests the clients sent, every phase
     * @param answered requests answered 2xx
     */
    public record GatewaysRun(String kind, List<PhasesResult.Phase> phases, long sent, long answered) {
    }

    /**
     * Per phase, the HAProxy run against the Arbiter run: premium pooled weight HAProxy − Arbiter, each
     * class's mean response time HAProxy ÷ Arbiter, and the throughput HAProxy ÷ Arbiter (below 1 where the
     * per-backend caps leave a class's idle slots unused: the cost of not being work-conserving).
     */
    public record PhaseDelta(String phase, double premiumWeightDifference, double premiumResponseRatio,
                             double basicResponseRatio, double throughputRatio) {
    }

    /**
     * {@code experiment phases --live --gateways haproxy}: the same phases with Arbiter's gateways and with
     * HAProxy 2.6 processes driven by their agents, same seed, same GRM, one invocation.
     *
     * @param allocationsSeen     allocations the agents saw in force at a sampling interval, over the run
     * @param allocationsVerified of those, how many were read back applied from HAProxy before the next one
     */
    public record GatewaysComparison(int gatewaysPerRun, GatewaysRun arbiter, GatewaysRun haproxy,
                                     List<PhaseDelta> deltas, long allocationsSeen, long allocationsVerified) {
    }

    /** Whether HAProxy is installed, as {@link #phasesAgainstHaproxy} needs it. */
    public static boolean haproxyInstalled() {
        return org.arbiter.gateway.l4.HaproxyProcess.binary().isPresent();
    }

    /** See {@link GatewaysComparison}; two gateways per run. */
    public static GatewaysComparison phasesAgainstHaproxy(long seed, double secondsPerPhase, double scale, Path work,
                                                          Consumer<String> progress) throws Exception {
        Files.createDirectories(work);
        List<LiveRig.Step> steps = Arrays.stream(PaperPhase.values())
                .map(p -> new LiveRig.Step(p.name(), p.premiumClients(), p.basicClients())).toList();
        int gateways = 2;
        progress.accept(String.format(Locale.ROOT, "live phases, %d Arbiter gateways then %d HAProxy gateways: "
                + "2 × 4 × %.1f s of wall time (scale %s)", gateways, gateways, secondsPerPhase * scale, scale));
        try (EmbeddedKafka kafka = LiveRig.broker(work)) {
            LiveRig rig = new LiveRig(kafka, work, scale);
            GatewaysRun arbiter = gatewaysRun(rig, GatewayConfig.Kind.ARBITER, gateways, steps, secondsPerPhase, seed,
                    progress);
            GatewaysRun haproxy = gatewaysRun(rig, GatewayConfig.Kind.HAPROXY, gateways, steps, secondsPerPhase, seed,
                    progress);
            HaproxyAgent.Applied applied = rig.lastApplied();
            List<PhaseDelta> deltas = new ArrayList<>();
            for (int i = 0; i < steps.size(); i++) {
                PhasesResult.Phase a = arbiter.phases().get(i);
                PhasesResult.Phase h = haproxy.phases().get(i);
                PhaseDelta d = new PhaseDelta(a.name(), h.weights().premium() - a.weights().premium(),
                        h.meanResponseSeconds().premium() / a.meanResponseSeconds().premium(),
                        h.meanResponseSeconds().basic() / a.meanResponseSeconds().basic(),
                        h.throughputPerSecond() / a.throughputPerSecond());
                deltas.add(d);
                progress.accept(String.format(Locale.ROOT, "phase %s: premium weight haproxy − arbiter %+.2f; "
                        + "response haproxy ÷ arbiter premium %.2f, basic %.2f; throughput %.3f", d.phase(),
                        d.premiumWeightDifference(), d.premiumResponseRatio(), d.basicResponseRatio(), d.throughputRatio()));
            }
            progress.accept(String.format(Locale.ROOT, "haproxy agents: %d of %d allocations read back applied; "
                    + "answered 2xx: arbiter %d of %d, haproxy %d of %d", applied.verified(), applied.seen(),
                    arbiter.answered(), arbiter.sent(), haproxy.answered(), haproxy.sent()));
            return new GatewaysComparison(gateways, arbiter, haproxy, deltas, applied.seen(), applied.verified());
        }
    }

    private static GatewaysRun gatewaysRun(LiveRig rig, GatewayConfig.Kind kind, int gateways, List<LiveRig.Step> steps,
                                           double secondsPerPhase, long seed, Consumer<String> progress)
            throws Exception {
        List<LiveRig.Phase> r = rig.run(new LiveRig.Spec(DispatchConfig.Scheduler.WRR, true, 1, 10, 0, kind, gateways),
                steps, secondsPerPhase, seed, progress);
        List<PhasesResult.Phase> out = new ArrayList<>();
        long sent = 0;
        long ok = 0;
        for (LiveRig.Phase p : r) {
            out.add(Experiments.phaseRow(p.name(), p.premiumClients(), p.basicClients(), p.premiumWeight(),
                    p.basicWeight(), p.premiumResponse(), p.basicResponse(), p.throughput(), "live phase (" + kind + ")",
                    progress));
            sent += p.sent();
            ok += p.ok();
        }
        return new GatewaysRun(kind.wireName(), out, sent, ok);
    }

    /** Fig. 7 live: throughput against N_s under 60 closed-loop clients, FCFS, no GRM. */
    public static ConcurrencyResult concurrency(long seed, double secondsPerPoint, double scale, Path work,
                                                Consumer<String> progress) throws Exception {
        return concurrency(seed, secondsPerPoint, scale, work, progress, CONCURRENCY_POINTS);
    }

    static ConcurrencyResult concurrency(long seed, double secondsPerPoint, double scale, Path work,
                                         Consumer<String> progress, int[] points) throws Exception {
        Files.createDirectories(work);
        progress.accept(String.format(Locale.ROOT, "live concurrency: %d points × %.1f s of wall time (scale %s)",
                points.length, secondsPerPoint * scale, scale));
        double[] x = new double[points.length];
        try (EmbeddedKafka kafka = LiveRig.broker(work)) {
            LiveRig rig = new LiveRig(kafka, work, scale);
            for (int i = 0; i < points.length; i++) {
                int n = points[i];
                x[i] = rig.run(new LiveRig.Spec(DispatchConfig.Scheduler.FCFS, false, 1, n, 0.03),
                        List.of(new LiveRig.Step("load", 0, 60)), secondsPerPoint, seed + n, progress).get(0).throughput();
                progress.accept(String.format(Locale.ROOT, "live concurrency N_s=%d: %.2f req/s", n, x[i]));
            }
        }
        return Experiments.concurrencyResult(points, x);
    }

    /** Fig. 13-15 live: the 16 points for FCFS, priority, GRM and GRM with q = 10; one run per point. */
    public static RegionsResult regions(long seed, double secondsPerPoint, double scale, Path work,
                                        Consumer<String> progress) throws Exception {
        Files.createDirectories(work);
        progress.accept(String.format(Locale.ROOT, "live regions: 4 policies × 16 points × %.1f s of wall time (scale %s)",
                secondsPerPoint * scale, scale));
        try (EmbeddedKafka kafka = LiveRig.broker(work)) {
            LiveRig rig = new LiveRig(kafka, work, scale);
            return Experiments.regions(progress, "live regions", ControlConfig.Combine.MIN, (v, p, b) -> {
                LiveRig.Phase r = rig.run(new LiveRig.Spec(v.scheduler(), v.withGrm(), v.granularity(), 10, 0),
                        List.of(new LiveRig.Step("x", p, b)), secondsPerPoint,
                        seed + p * 100L + b, s -> { }).get(0);
                progress.accept(String.format(Locale.ROOT, "live regions %s (%d, %d): R %.2f s / %.2f s",
                        v.label(), p, b, r.premiumResponse(), r.basicResponse()));
                return new Experiments.PointResult(r.premiumResponse(), r.basicResponse(), r.predictionError());
            });
        }
    }
}
