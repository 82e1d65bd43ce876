package org.arbiter.live;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.sim.experiment.EnergyExperiment;
import org.arbiter.sim.experiment.EnergyPolicy;
import org.arbiter.sim.experiment.Experiments;
import org.arbiter.sim.run.RunOutcome;
import org.arbiter.sim.run.RunSpec;
import org.arbiter.sim.run.SimulatedBackend;

/*
 * Design note — 000 §7.5's energy day live.
 *
 * Each policy's day is the energy experiment's own run spec (EnergyExperiment.spec: five servers of
 * 4 virtual cores, demand Exp(0.2 s), 000's watts, boot and shutdown 60 s; one gateway, queue limit
 * 400, timeout 10 s; the GRM with the policy's sizing; one open-loop diurnal source), run on the
 * live backend (LiveBackend: simservers, a Netty gateway, the GRM service with the http power
 * actuator, the live load generator, one embedded Kafka broker; every duration × the time scale,
 * every rate ÷ it) and, beside it, on the simulated backend: the same spec, so the two cannot
 * drift apart. Energy is what the simservers metered themselves over the day's wall time from the
 * start of the load, and the power states sampled meanwhile bound it (PowerSampler: the powered
 * server-seconds, the servers seen going off and on); dropped = rejected + errors + timed out +
 * lost over sent, as the load generator counted them. Runs on the caller's thread.
 */

/** 000 §7.5 live: off, static and queue over a compressed day. See the design note. */
public final class LiveEnergy {

    static final List<EnergyPolicy> POLICIES = List.of(EnergyPolicy.OFF, EnergyPolicy.STATIC, EnergyPolicy.QUEUE);

    /**
     * The warm-up before the first policy's day, in the experiment's seconds: a short day at half the
     * rates, policy off, not reported. Without it the first day ran on a cold JVM (the rig's broker,
     * GRM, gateway, simservers and load generator share one): in clean-clone runs beside other tests
     * the off baseline then timed out 82-100 % of its requests, every day after it served.
     */
    static final double WARM_UP_DAY_SECONDS = 200;

    private LiveEnergy() {
    }

    /**
     * @param daySeconds the day's length in the experiment's seconds (wall time is this × scale)
     * @param scale      time scale (0 < scale ≤ 1)
     */
    public static LiveResult.Energy run(long seed, double daySeconds, double scale, Path work, Consumer<String> progress)
            throws Exception {
        return run(seed, daySeconds, scale, work, progress, POLICIES);
    }

    static LiveResult.Energy run(long seed, double daySeconds, double scale, Path work, Consumer<String> progress,
                                 List<EnergyPolicy> policies) throws Exception {
        if (!(daySeconds > 0) || !(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("day " + daySeconds + " s at scale " + scale
                    + " (expected: day > 0, 0 < scale <= 1)");
        }
        if (policies.isEmpty() || policies.get(0) != EnergyPolicy.OFF) {
            throw new IllegalArgumentException("policies: " + policies + " (expected: off first, the baseline)");
        }
        Files.createDirectories(work);
        EnergyExperiment.Setup setup = EnergyExperiment.standard(daySeconds);
        double capacity = EnergyExperiment.benchmark(setup, seed, s -> { });
        progress.accept(String.format(Locale.ROOT, "live energy: %s × %.0f s of wall time (a %.0f s day at scale %s), "
                + "peak %.0f req/s of wall time", policies, daySeconds * scale, daySeconds, scale, setup.peak() / scale));
        Map<String, LiveResult.LiveDay> live = new LinkedHashMap<>();
        Map<String, LiveResult.SimulatedDay> simulated = new LinkedHashMap<>();
        SimulatedBackend simulator = new SimulatedBackend();
        double offWatts = Double.NaN;
        double offSimJoules = Double.NaN;
        try (EmbeddedKafka kafka = LiveRig.broker(work)) {
            LiveBackend backend = new LiveBackend(kafka, scale, work, "energy");
            RunSpec warmUp = EnergyExperiment.spec(EnergyExperiment.standard(WARM_UP_DAY_SECONDS), 1.0, EnergyPolicy.OFF,
                    EnergyExperiment.STARTUP_SECONDS, capacity, setup.peak() / 2, setup.trough() / 2, seed);
            RunOutcome warm = backend.runLive(warmUp, Set.of()).outcome();
            progress.accept(String.format(Locale.ROOT, "live energy: warmed up for %.0f s of wall time (not reported): "
                    + "dropped %s %% of %s", WARM_UP_DAY_SECONDS * scale, warm.droppedPercent(), warm.cls("web").sent()));
            for (EnergyPolicy policy : policies) {
                RunSpec spec = EnergyExperiment.spec(setup, 1.0, policy, EnergyExperiment.STARTUP_SECONDS, capacity,
                        setup.peak(), setup.trough(), seed);
                LiveBackend.LiveRun run = backend.runLive(spec, Set.of());
                // Mean metered power, not energy: each run's meters are read at the end of its span
                // (PowerSampler), a timer that a busy machine can fire late in one run and not another.
                double watts = run.metered().joules() / run.metered().seconds();
                if (policy == EnergyPolicy.OFF) {
                    offWatts = watts;
                }
                LiveResult.LiveDay r = day(run, Double.isNaN(offWatts) ? 0.0
                        : Experiments.round(100 * (1 - watts / offWatts)));
                live.put(policy.label(), r);
                RunOutcome s = simulator.run(spec);
                if (policy == EnergyPolicy.OFF) {
                    offSimJoules = s.energyJoules();
                }
                LiveResult.SimulatedDay sm = new LiveResult.SimulatedDay(
                        Experiments.round(100 * (1 - s.energyJoules() / offSimJoules)), s.droppedPercent(),
                        Experiments.round(s.meanServersUp()));
                simulated.put(policy.label(), sm);
                progress.accept(String.format(Locale.ROOT, "live energy %s: saved %s %% (simulated %s %%), dropped %s %% "
                                + "of %s (simulated %s %%; rejected %s, errors %s, timed out %s, lost %s), mean servers up %s "
                                + "(simulated %s)", policy, r.savingsPercent(), sm.savingsPercent(),
                        r.droppedPercent(), r.sent(), sm.droppedPercent(), r.rejected(), r.errors(),
                        r.timedOut(), r.lost(), r.meanServersUp(), sm.meanServersOn()));
            }
        }
        return new LiveResult.Energy(live, simulated, daySeconds, scale, Experiments.round(capacity));
    }

    /** One live day as result.json reports it: the metered energy in wall joules, the class web's counts. */
    private static LiveResult.LiveDay day(LiveBackend.LiveRun run, double savingsPercent) {
        RunOutcome o = run.outcome();
        RunOutcome.ClassOutcome web = o.cls("web");
        long sent = web.sent();
        long dropped = web.dropped();
        LiveBackend.Metered m = run.metered();
        return new LiveResult.LiveDay(Math.round(m.joules()),
                sent == 0 ? 0.0 : Math.round(100.0 * dropped / sent * 1e5) / 1e5, dropped,
                web.rejected(), web.errors(), web.timedOut(), web.lost(), sent,
                Experiments.round(o.meanServersUp()), o.powerOffs(), o.powerOns(),
                Experiments.round(m.seconds()), Experiments.round(m.poweredServerSecondsMin()),
                Experiments.round(m.poweredServerSecondsMax()), Experiments.round(web.meanResponseSeconds()),
                savingsPercent);
    }
}
