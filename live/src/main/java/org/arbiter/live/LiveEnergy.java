package org.arbiter.live;

import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.sim.experiment.*;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;
import org.arbiter.bus.KafkaBus;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.PowerConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.config.SizingConfig;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.arbiter.gateway.server.Gateway;
import org.arbiter.gateway.server.GatewayOptions;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.service.GrmService;
import org.arbiter.loadgen.client.LoadGenerator;
import org.arbiter.loadgen.client.LoadSummary;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.loadgen.server.SimServer;
import org.arbiter.loadgen.server.SimServerOptions;
import org.arbiter.sim.SimResult;

/*
 * Design note — 000 §7.5's energy day live.
 *
 * The energy experiment's cluster over real processes' code on loopback: five simservers (4
 * virtual cores, demand Exp(0.2 s), 000's watts, boot and shutdown delays), one Netty gateway
 * (queue limit 400, timeout 10 s), the GRM service with the policy's sizing and the http power
 * actuator (simserver's admin API), and the live load generator's open-loop diurnal source, all on
 * one embedded Kafka broker. Every duration is multiplied by the time scale and every rate divided
 * by it, so the system's dynamics are 000 §7.5's, faster. Energy is what the simservers metered
 * themselves over the day's wall time from the start of the load, and the power states sampled
 * meanwhile bound it (PowerSampler: the powered server-seconds, the servers seen going off and
 * on); dropped =
 * rejected + errors + timed out + lost over sent, as the load generator counted them. The simulated day of the same length and
 * seed is reported beside it. Runs on the caller's thread.
 */

/** 000 §7.5 live: off, static and queue over a compressed day. See the design note. */
public final class LiveEnergy {

    static final List<EnergyPolicy> POLICIES = List.of(EnergyPolicy.OFF, EnergyPolicy.STATIC, EnergyPolicy.QUEUE);

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
        EnergyExperiment.Setup setup = new EnergyExperiment.Setup(daySeconds, 4, 0.2, 400, 10, 600, 5);
        double capacity = EnergyExperiment.benchmark(setup, seed, s -> { });
        double peak = EnergyExperiment.PEAK_LOAD * EnergyExperiment.SERVERS * setup.nominalCapacity();
        double trough = EnergyExperiment.TROUGH_RATIO * peak;
        progress.accept(String.format(Locale.ROOT, "live energy: %s × %.0f s of wall time (a %.0f s day at scale %s), "
                + "peak %.0f req/s of wall time", policies, daySeconds * scale, daySeconds, scale, peak / scale));
        Map<String, LiveResult.LiveDay> live = new LinkedHashMap<>();
        Map<String, LiveResult.SimulatedDay> simulated = new LinkedHashMap<>();
        double offJoules = Double.NaN;
        double offSimJoules = Double.NaN;
        try (EmbeddedKafka kafka = LiveRig.broker(work)) {
            int run = 0;
            for (EnergyPolicy policy : policies) {
                LiveResult.LiveDay measured = day(kafka, work, ++run, policy, setup, capacity, peak, trough, scale, seed,
                        progress);
                double joules = measured.energyJoules();
                if (policy == EnergyPolicy.OFF) {
                    offJoules = joules;
                }
                LiveResult.LiveDay r = measured.withSavingsPercent(
                        Double.isNaN(offJoules) ? 0.0 : Experiments.round(100 * (1 - joules / offJoules)));
                live.put(policy.label(), r);
                SimResult s = EnergyExperiment.day(setup, 1.0, policy, EnergyExperiment.STARTUP_SECONDS, capacity, peak,
                        trough, seed);
                if (policy == EnergyPolicy.OFF) {
                    offSimJoules = s.totalEnergyJoules();
                }
                LiveResult.SimulatedDay sm = new LiveResult.SimulatedDay(
                        Experiments.round(100 * (1 - s.totalEnergyJoules() / offSimJoules)),
                        s.sent() == 0 ? 0.0 : Math.round(100.0 * s.dropped() / s.sent() * 1e5) / 1e5,
                        Experiments.round(s.power().stream()
                                .mapToInt(x -> x.serversOn() + x.serversBooting()).average().orElse(0)));
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

    /** One live day of {@code policy}, its savings not yet known (0). */
    private static LiveResult.LiveDay day(EmbeddedKafka kafka, Path work, int run, EnergyPolicy policy,
                                          EnergyExperiment.Setup setup, double capacity, double peak, double trough,
                                          double scale, long seed, Consumer<String> progress) throws Exception {
        int n = EnergyExperiment.SERVERS;
        List<SimServer> sims = new ArrayList<>();
        try {
            for (int i = 0; i < n; i++) {
                sims.add(SimServer.start(SimServerOptions.defaults()
                        .withDemand(setup.cores(), setup.demandSeconds() * scale, 0)
                        .withDelays(EnergyExperiment.STARTUP_SECONDS * scale, EnergyExperiment.SHUTDOWN_SECONDS * scale)
                        .withSeed(seed * 10 + i)));
            }
            ClusterConfig.Builder b = ClusterConfig.builder()
                    .addClass(ClassConfig.builder("web", scale).isDefault(true)
                            .queue(setup.queueLimit(), setup.queueTimeoutSeconds() * scale).build());
            for (int i = 0; i < n; i++) {
                b.addServer(ServerConfig.builder("s" + (i + 1), URI.create("http://127.0.0.1:" + sims.get(i).port()))
                        .adminUrl(URI.create("http://127.0.0.1:" + sims.get(i).adminPort())).concurrency(setup.cores())
                        .power(new ServerConfig.PowerDraw(0, 60, 60, 65)).build());
            }
            SizingConfig.Builder sizing = switch (policy) {
                case OFF -> SizingConfig.builder().policy(SizingConfig.Policy.OFF);
                case STATIC -> SizingConfig.builder().policy(SizingConfig.Policy.BY_CAPACITY)
                        .estimator(SizingConfig.Estimator.STATIC).staticCapacity(capacity / scale);
                default -> SizingConfig.builder().policy(SizingConfig.Policy.BY_CAPACITY).estimator(SizingConfig.Estimator.QUEUE);
            };
            ClusterConfig cluster = b.addGateway(GatewayConfig.builder("g1").port(0).adminPort(0).build())
                    .control(ControlConfig.builder().periodSeconds(setup.periodSeconds() * scale)
                            .reportPeriodSeconds(setup.periodSeconds() * scale).statsWindowSeconds(30 * scale).build())
                    .sizing(sizing.minServers(1).startupDelaySeconds(EnergyExperiment.STARTUP_SECONDS * scale)
                            .shutdownDelaySeconds(EnergyExperiment.SHUTDOWN_SECONDS * scale)
                            .dropRatio(EnergyExperiment.DROP_RATIO).warmUpSeconds(10 * scale).build())
                    .power(PowerConfig.builder().actuator(PowerConfig.Actuator.HTTP).timeoutSeconds(10).attempts(3)
                            .retryDelaySeconds(0.2).build())
                    .kafka(KafkaConfig.builder().bootstrap(kafka.bootstrap()).topicPrefix("energy" + run + ".").build())
                    .build();
            Scenario scenario = new Scenario(Map.of("web", Scenario.RequestShape.get(Map.of(), 0)), 1, 60, seed,
                    List.of(new Scenario.Phase("day", setup.daySeconds(), Map.of(), Map.of(), Map.of(),
                            Map.of("web", new Scenario.Diurnal(peak, trough)))), List.of()).withTimeScale(scale);
            String id = "energy" + run;
            try (ProcessMetrics m = ProcessMetrics.create("grm", id);
                 KafkaBus bus = KafkaBus.connect(cluster.kafka(), id, m.registry());
                 GrmService grm = GrmService.start(id, cluster, bus, Clock.systemUTC(), new GrmStep(cluster, id, System::nanoTime), m);
                 Gateway g1 = Gateway.start(cluster, "g1", GatewayOptions.defaults())) {
                LiveRig.awaitAllocation(g1);
                PowerSampler power = new PowerSampler(sims, EnergyExperiment.STARTUP_SECONDS * scale);
                power.start(setup.daySeconds() * scale);
                LoadSummary summary;
                try {
                    summary = new LoadGenerator(scenario, List.of(URI.create("http://127.0.0.1:" + g1.port())),
                            null).run(Files.createDirectories(work.resolve("load-" + policy)));
                } finally {
                    power.stop();
                }
                double joules = power.joules();
                LoadSummary.ClassSummary web = summary.cls("web");
                long sent = web.sent();
                long dropped = web.dropped();
                return new LiveResult.LiveDay(Math.round(joules),
                        sent == 0 ? 0.0 : Math.round(100.0 * dropped / sent * 1e5) / 1e5, dropped,
                        web.rejected(), web.errors(), web.timedOut(), web.lost(), sent,
                        Experiments.round(power.meanServersUp()), power.offs, power.ons,
                        Experiments.round(power.seconds()), Experiments.round(power.poweredSeconds(false)),
                        Experiments.round(power.poweredSeconds(true)),
                        Experiments.round(web.meanResponseSeconds() / scale), 0);
            }
        } finally {
            for (SimServer s : sims) {
                s.close();
            }
        }
    }

    /**
     * Meters the simservers over the day's span and watches their power states meanwhile. It reads
     * every simserver's meter at the start and again when the day's wall time is over, not when
     * the load generator returns (that waits for the last answers, longer when more requests
     * wait: a loaded off run's tail once made it 0.9 s longer than queue's), so that every policy
     * is metered over the same span. Every 50 ms in between it samples each server's state with
     * the time. A server found in the same state at both ends of an interval shorter than the
     * boot delay stayed in it (going through OFF and back, or up and back to OFF, takes a boot at
     * least), so that interval is known: powered (ON, BOOTING or SHUTTING_DOWN) or not — provided
     * the samples on either side agree too, since the state a simserver shows may lag its meter's
     * by its clock thread's delay. The other intervals, and the gaps before the first and after
     * the last sample, are unknown: the bounds count them powered for the most, unpowered for the
     * least. Runs on its own thread; read the results after {@link #joules}.
     */
    private static final class PowerSampler {
        private record Sample(long nanos, PowerModel.State[] states) {
        }

        private final List<SimServer> sims;
        private final long bootNanos;
        private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor();
        private final List<Sample> samples = new ArrayList<>();
        private final double[] startJoules;
        private long from;
        private long to;
        private double joules;
        private int offs;
        private int ons;
        private ScheduledFuture<?> sampling;
        private ScheduledFuture<?> end;

        PowerSampler(List<SimServer> sims, double bootSeconds) {
            this.sims = sims;
            this.bootNanos = (long) (bootSeconds * 1e9);
            this.startJoules = new double[sims.size()];
        }

        /** Reads the meters now and again {@code spanSeconds} later; samples the states in between. */
        void start(double spanSeconds) {
            from = System.nanoTime();
            for (int i = 0; i < sims.size(); i++) {
                startJoules[i] = LiveEnergy.joules(sims.get(i));
            }
            sampling = timer.scheduleAtFixedRate(this::sample, 0, 50, TimeUnit.MILLISECONDS);
            end = timer.schedule(this::end, Math.round(spanSeconds * 1e9) - (System.nanoTime() - from),
                    TimeUnit.NANOSECONDS);
        }

        private void sample() {
            PowerModel.State[] states = new PowerModel.State[sims.size()];
            for (int i = 0; i < states.length; i++) {
                states[i] = sims.get(i).state();
            }
            samples.add(new Sample(System.nanoTime(), states));
        }

        /** On the timer's thread, when the span is over. */
        private void end() {
            sampling.cancel(false);
            sample();
            for (int i = 0; i < sims.size(); i++) {
                joules += LiveEnergy.joules(sims.get(i)) - startJoules[i];
            }
            to = System.nanoTime();
            for (int k = 1; k < samples.size(); k++) {
                for (int i = 0; i < sims.size(); i++) {
                    boolean was = samples.get(k - 1).states()[i] == PowerModel.State.OFF;
                    boolean is = samples.get(k).states()[i] == PowerModel.State.OFF;
                    offs += !was && is ? 1 : 0;
                    ons += was && !is ? 1 : 0;
                }
            }
        }

        /** After the load: the end reading, if the load ended first, happens now. */
        void stop() throws InterruptedException {
            if (end != null && end.cancel(false)) {
                timer.execute(this::end);
            }
            timer.shutdown();
            timer.awaitTermination(30, TimeUnit.SECONDS);
        }

        /** The energy metered over the span, J (after {@link #stop}). */
        double joules() {
            return joules;
        }

        double seconds() {
            return (to - from) / 1e9;
        }

        /** The mean over the samples of the servers ON or BOOTING. */
        double meanServersUp() {
            return samples.stream().mapToLong(s -> Arrays.stream(s.states())
                    .filter(st -> st == PowerModel.State.ON || st == PowerModel.State.BOOTING).count()).average().orElse(0);
        }

        /** Server-seconds powered (not OFF) between the meter readings; {@code most}: unknown time counts as powered. */
        double poweredSeconds(boolean most) {
            int n = sims.size();
            long unknown = samples.isEmpty() ? to - from
                    : samples.get(0).nanos() - from + to - samples.get(samples.size() - 1).nanos();
            double nanos = most ? (double) unknown * n : 0;
            for (int k = 1; k < samples.size(); k++) {
                long dt = samples.get(k).nanos() - samples.get(k - 1).nanos();
                for (int i = 0; i < n; i++) {
                    PowerModel.State was = samples.get(k - 1).states()[i];
                    boolean known = dt < bootNanos;
                    for (int j = Math.max(0, k - 2); j <= Math.min(samples.size() - 1, k + 1); j++) {
                        known &= samples.get(j).states()[i] == was;
                    }
                    if (known ? was != PowerModel.State.OFF : most) {
                        nanos += dt;
                    }
                }
            }
            return nanos / 1e9;
        }
    }

    private static double joules(SimServer s) {
        return s.status().joules();
    }
}
