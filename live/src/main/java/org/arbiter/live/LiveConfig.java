package org.arbiter.live;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.PowerConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.config.SizingConfig;
import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.loadgen.server.SimServerOptions;

/*
 * Design note — a run spec's cluster made live.
 *
 * A spec's cluster is in the experiment's own seconds; a live run compresses time by the scale s
 * (0 < s <= 1), so the system's dynamics are the experiment's, faster. `scaled` is the one place
 * that says which keys are the model's time: every duration of the model × s and every rate ÷ s —
 *   classes:  target, thinkTime, queue.timeout, yield.deadline, yield.preDeadline
 *   servers:  sim.meanDemand, sim.demand.<class>, concurrencyControl.latencyMax
 *   dispatch: adaptive.window
 *   control:  period, reportPeriod, statsWindow
 *   sizing:   startupDelay, shutdownDelay, warmUp, schedule.slot; staticCapacity (req/s) ÷ s
 * and nothing else. What stays in wall seconds is the plumbing's: the gateway's backend, connect
 * and idle timeouts, ejection backoffs, drains, health probes, load polls' deadline, the power
 * actuator's timeouts, control.maxClockSkew, the console's login delays. Counts, ratios, watts,
 * utilities and the liu gains (dimensionless: made so by τ_c) stay as they are. LiveConfigTest
 * checks it against the configuration's written tree: every duration key is in one list or the other.
 *
 * `wired` then points the scaled cluster at the processes: each server's url and adminUrl at its
 * simserver, the gateways on any free port, the http power actuator (the simservers' admin API),
 * the broker and a topic prefix of the run's own. `simServer` is one server's simserver from its
 * scaled `sim` section and the scaled sizing's boot and shutdown delays.
 *
 * Stateless and thread-safe.
 */

/** A run spec's cluster scaled and wired for a live run. See the design note. */
final class LiveConfig {

    /** The power actuator's own timings (wall seconds): the http actuator against a simserver on loopback. */
    static final double POWER_TIMEOUT_SECONDS = 10;
    static final int POWER_ATTEMPTS = 3;
    static final double POWER_RETRY_DELAY_SECONDS = 0.2;

    private LiveConfig() {
    }

    /** {@code c} with every duration of the model multiplied and every rate divided by {@code scale}; see the design note. */
    static ClusterConfig scaled(ClusterConfig c, double scale) {
        if (!(scale > 0 && scale <= 1)) {
            throw new IllegalArgumentException("scale: " + scale + " (expected: 0 < scale <= 1)");
        }
        List<ClassConfig> classes = new ArrayList<>();
        for (ClassConfig k : c.classes()) {
            ClassConfig.YieldSpec y = k.yield();
            classes.add(new ClassConfig(k.name(), k.targetSeconds() * scale, k.utility(),
                    y == null ? null : new ClassConfig.YieldSpec(y.shape(), y.full(), y.dropPenalty(),
                            y.deadlineSeconds() * scale, y.preDeadlineSeconds() * scale),
                    k.weight(), k.minShare(), k.match(),
                    new ClassConfig.QueueConfig(k.queue().limit(), k.queue().timeoutSeconds() * scale), k.isDefault(),
                    k.thinkTimeSeconds() * scale));
        }
        List<ServerConfig> servers = new ArrayList<>();
        for (ServerConfig s : c.servers()) {
            ServerConfig.SimSpec sim = s.sim();
            Map<String, Double> demand = new LinkedHashMap<>();
            sim.demandSeconds().forEach((k, v) -> demand.put(k, v * scale));
            ServerConfig.ConcurrencyControl cc = s.control();
            servers.add(new ServerConfig(s.id(), s.url(), s.concurrency(), s.autoConcurrency(), s.power(), s.adminUrl(),
                    new ServerConfig.SimSpec(sim.cores(), sim.meanDemandSeconds() * scale, demand, sim.ioFraction(),
                            sim.overhead(), sim.knee()),
                    cc == null ? null : new ServerConfig.ConcurrencyControl(cc.method(), cc.min(), cc.max(),
                            cc.latencyMaxSeconds() * scale, cc.abandonMax(), cc.gain(), cc.maxStep(), cc.hysteresis()),
                    s.health(), s.loadUrl(), s.adaptiveLimit()));
        }
        DispatchConfig d = c.dispatch();
        DispatchConfig dispatch = d.toBuilder()
                .adaptive(new DispatchConfig.Adaptive(d.adaptive().dropRatio(), d.adaptive().windowSeconds() * scale))
                .build();
        ControlConfig k = c.control();
        ControlConfig control = new ControlConfig(k.periodSeconds() * scale, k.reportPeriodSeconds() * scale,
                k.statsWindowSeconds() * scale, k.combine(), k.granularity(), k.minWeight(), k.responseTimeCap(),
                k.prediction(), k.gain(), k.maxClockSkewSeconds(), k.liu());
        SizingConfig z = c.sizing();
        SizingConfig.Policy policy = z.policy() instanceof SizingConfig.Schedule s
                ? new SizingConfig.Schedule(s.slotSeconds() * scale, s.servers()) : z.policy();
        SizingConfig sizing = new SizingConfig(policy, z.minServers(), z.maxServers(), z.startupDelaySeconds() * scale,
                z.shutdownDelaySeconds() * scale, z.dropRatio(), z.staticCapacity() / scale, z.estimator(),
                z.warmUpSeconds() * scale, z.forecast());
        return new ClusterConfig(classes, servers, c.gateways(), dispatch, control, sizing, c.power(), c.kafka(),
                c.console(), c.gatewayHttp(), c.grm(), c.pools());
    }

    /** A live server's ports. */
    record Ports(int port, int adminPort) {
    }

    /**
     * {@code scaled} pointed at the processes: server i at {@code ports.get(i)} on loopback (url, adminUrl, and
     * loadUrl's port if it has one), every gateway on any free port, the http power actuator, and the broker
     * at {@code bootstrap} under {@code topicPrefix}.
     */
    static ClusterConfig wired(ClusterConfig scaled, List<Ports> ports, String bootstrap, String topicPrefix) {
        requireNonNull(bootstrap, "bootstrap");
        requireNonNull(topicPrefix, "topicPrefix");
        if (ports.size() != scaled.servers().size()) {
            throw new IllegalArgumentException("ports: " + ports.size() + " (expected: one per server, "
                    + scaled.servers().size() + ")");
        }
        List<ServerConfig> servers = new ArrayList<>();
        for (int i = 0; i < ports.size(); i++) {
            ServerConfig s = scaled.servers().get(i);
            Ports p = ports.get(i);
            URI load = s.loadUrl() == null ? null
                    : URI.create("http://127.0.0.1:" + p.port() + s.loadUrl().getRawPath());
            servers.add(new ServerConfig(s.id(), URI.create("http://127.0.0.1:" + p.port()), s.concurrency(),
                    s.autoConcurrency(), s.power(), URI.create("http://127.0.0.1:" + p.adminPort()), s.sim(), s.control(),
                    s.health(), load, s.adaptiveLimit()));
        }
        List<GatewayConfig> gateways = scaled.gateways().stream()
                .map(g -> g.toBuilder().port(0).adminPort(0).build()).toList();
        PowerConfig power = scaled.power().toBuilder().actuator(PowerConfig.Actuator.HTTP)
                .timeoutSeconds(POWER_TIMEOUT_SECONDS).attempts(POWER_ATTEMPTS)
                .retryDelaySeconds(POWER_RETRY_DELAY_SECONDS).build();
        return new ClusterConfig(scaled.classes(), servers, gateways, scaled.dispatch(), scaled.control(),
                scaled.sizing(), power, scaled.kafka().toBuilder().bootstrap(bootstrap).topicPrefix(topicPrefix).build(),
                scaled.console(), scaled.gatewayHttp(), scaled.grm(), scaled.pools());
    }

    /**
     * The simserver that emulates {@code server} of a {@link #scaled} cluster: its {@code sim} section (cores,
     * demands, I/O share, overhead, knee), its power draw, and the scaled sizing's boot and shutdown delays.
     */
    static SimServerOptions simServer(ServerConfig server, SizingConfig sizing, long seed) {
        ServerConfig.SimSpec sim = server.sim();
        ServerConfig.PowerDraw w = server.power();
        SimServerOptions defaults = SimServerOptions.defaults();
        return new SimServerOptions(0, 0, sim.cores(), sim.meanDemandSeconds(), sim.demandSeconds(), sim.ioFraction(),
                sim.overhead(), sim.knee(), false, sizing.startupDelaySeconds(), sizing.shutdownDelaySeconds(),
                defaults.classHeader(), new PowerModel.Watts(w.offWatts(), w.bootWatts(), w.idleWatts(), w.busyWatts()),
                seed);
    }
}
