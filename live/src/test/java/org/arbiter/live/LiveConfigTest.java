package org.arbiter.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.ConfigWriter;
import org.arbiter.common.config.Durations;
import org.arbiter.common.config.PowerConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.loadgen.server.SimServerOptions;
import org.junit.jupiter.api.Test;

/**
 * {@link LiveConfig}: a run spec's cluster scaled for a live run and wired to its processes.
 *
 * <p>The oracle is the configuration's own written tree ({@link ConfigWriter#toTree}, every key with its
 * default filled in), not the code's field list: every leaf of the scaled tree is compared with the
 * original's, and the tests say by key which durations are the model's time (× scale), which value is a
 * rate (÷ scale) and which durations stay in wall seconds. A duration key in neither list fails the test,
 * so a key added to the schema must be placed in one of them (and in LiveConfig.scaled if it is the model's).
 */
final class LiveConfigTest {

    /** The model's time: × scale. */
    private static final Set<String> SCALED = Set.of("classes.target", "classes.thinkTime", "classes.queue.timeout",
            "classes.yield.deadline", "classes.yield.preDeadline", "servers.sim.meanDemand", "servers.sim.demand.bulk",
            "servers.concurrencyControl.latencyMax", "dispatch.adaptive.window", "control.period",
            "control.reportPeriod", "control.statsWindow", "sizing.startupDelay", "sizing.shutdownDelay", "sizing.warmUp",
            "sizing.schedule.slot");
    /** Rates: ÷ scale. */
    private static final Set<String> DIVIDED = Set.of("sizing.staticCapacity");
    /** The plumbing's durations: wall seconds, unchanged. */
    private static final Set<String> WALL = Set.of("servers.health.interval", "servers.health.timeout",
            "gateways.drainTimeout", "gateways.startupGrace", "gateways.drainDelay", "dispatch.poll.deadline",
            "dispatch.backendTimeout", "dispatch.connectTimeout", "dispatch.idleTimeout", "dispatch.tunnelIdleTimeout",
            "dispatch.ejection.baseBackoff",
            "dispatch.ejection.maxBackoff", "control.maxClockSkew", "power.timeout", "power.retryDelay",
            "console.login.delay", "console.login.maxDelay", "console.login.lockout", "console.login.forgetAfter");

    private static final Pattern DURATION = Pattern.compile("-?\\d+(\\.\\d+)?(ms|s|m|h|d)");

    /**
     * Every scaled and every divided key present. (Every server has a concurrencyControl block: the writer
     * leaves out one equal to the default, and a default one scaled is no longer the default.)
     */
    private static final ClusterConfig SPEC = ConfigLoader.parse("""
            classes:
              - {name: gold, target: 2s, default: true, thinkTime: 1.5s, queue: {limit: 50, timeout: 10s},
                 utility: {alpha: 2}}
              - {name: bulk, target: 4s, match: {header: {X-Class: bulk}},
                 yield: {shape: hybrid, value: 2, deadline: 8s, preDeadline: 3s}}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 4, adminUrl: "http://127.0.0.1:9101",
                 loadUrl: "http://127.0.0.1:9001/load", power: {off: 1, boot: 50, idle: 55, busy: 70},
                 sim: {cores: 4, meanDemand: 200ms, demand: {bulk: 450ms}, ioFraction: 0.25, overhead: 0.1, knee: 3},
                 concurrencyControl: {method: amc, latencyMax: 3s}, health: {path: /health, interval: 2s}}
              - {id: s2, url: "http://127.0.0.1:9002", concurrencyControl: {latencyMax: 5s}}
            gateways: [{id: g1, port: 8080}, {id: g2, port: 8081}]
            dispatch: {adaptive: {window: 20s}, tunnelIdleTimeout: 7m, tunnelShare: 0.3}
            control: {period: 5s, reportPeriod: 2.5s, statsWindow: 30s, prediction: liu}
            sizing: {policy: schedule, schedule: {slot: 30m, servers: [1, 2, 1]}, startupDelay: 60s, shutdownDelay: 45s,
                     warmUp: 10s, estimator: static, staticCapacity: 19.87}
            kafka: {bootstrap: "broker:9092", topicPrefix: "spec."}
            """);

    @Test
    void scaled_multipliesEveryDurationOfTheModel_dividesRates_andChangesNothingElse() {
        double scale = 0.05;
        Map<String, Object> before = leaves(ConfigWriter.toTree(SPEC));
        Map<String, Object> after = leaves(ConfigWriter.toTree(LiveConfig.scaled(SPEC, scale)));

        assertThat(after.keySet()).as("the same keys").containsExactlyElementsOf(before.keySet());
        Set<String> seen = new TreeSet<>();
        for (Map.Entry<String, Object> e : before.entrySet()) {
            String key = key(e.getKey());
            seen.add(key);
            Object was = e.getValue();
            Object is = after.get(e.getKey());
            if (SCALED.contains(key)) {
                assertThat(Durations.parseSeconds((String) is)).as(e.getKey())
                        .isCloseTo(Durations.parseSeconds((String) was) * scale, within(1e-9));
            } else if (DIVIDED.contains(key)) {
                assertThat(((Number) is).doubleValue()).as(e.getKey())
                        .isCloseTo(((Number) was).doubleValue() / scale, within(1e-9));
            } else {
                assertThat(is).as(e.getKey() + " unchanged").isEqualTo(was);
                if (was instanceof String s && DURATION.matcher(s).matches()) {
                    assertThat(WALL).as(e.getKey() + ": a duration neither scaled nor listed as wall time").contains(key);
                }
            }
        }
        assertThat(seen).as("the spec exercises every scaled key").containsAll(SCALED).containsAll(DIVIDED);
    }

    @Test
    void scaled_atScaleOne_isTheSameConfiguration() {
        assertThat(LiveConfig.scaled(SPEC, 1)).isEqualTo(SPEC);
    }

    @Test
    void scaled_refusesAScaleOutsideZeroToOne() {
        assertThatThrownBy(() -> LiveConfig.scaled(SPEC, 0)).hasMessage("scale: 0.0 (expected: 0 < scale <= 1)");
        assertThatThrownBy(() -> LiveConfig.scaled(SPEC, 2)).hasMessage("scale: 2.0 (expected: 0 < scale <= 1)");
    }

    @Test
    void wired_pointsServersGatewaysPowerAndKafkaAtTheRun_andChangesNothingElse() {
        ClusterConfig scaled = LiveConfig.scaled(SPEC, 0.1);
        ClusterConfig wired = LiveConfig.wired(scaled, List.of(new LiveConfig.Ports(40001, 40101),
                new LiveConfig.Ports(40002, 40102)), "127.0.0.1:39092", "energy3.");

        Map<String, Object> before = leaves(ConfigWriter.toTree(scaled));
        Map<String, Object> after = leaves(ConfigWriter.toTree(wired));
        Map<String, Object> expected = new LinkedHashMap<>(before);
        expected.put("servers[0].url", "http://127.0.0.1:40001");
        expected.put("servers[0].adminUrl", "http://127.0.0.1:40101");
        expected.put("servers[0].loadUrl", "http://127.0.0.1:40001/load");
        expected.put("servers[1].url", "http://127.0.0.1:40002");
        expected.put("servers[1].adminUrl", "http://127.0.0.1:40102");
        expected.put("gateways[0].port", 0);
        expected.put("gateways[0].adminPort", 0);
        expected.put("gateways[1].port", 0);
        expected.put("gateways[1].adminPort", 0);
        expected.put("power.actuator", PowerConfig.Actuator.HTTP.wireName());
        expected.put("power.timeout", Durations.format(LiveConfig.POWER_TIMEOUT_SECONDS));
        expected.put("power.attempts", LiveConfig.POWER_ATTEMPTS);
        expected.put("power.retryDelay", Durations.format(LiveConfig.POWER_RETRY_DELAY_SECONDS));
        expected.put("kafka.bootstrap", "127.0.0.1:39092");
        expected.put("kafka.topicPrefix", "energy3.");
        assertThat(after).isEqualTo(expected);
    }

    @Test
    void wired_wantsOnePortPairPerServer() {
        assertThatThrownBy(() -> LiveConfig.wired(SPEC, List.of(new LiveConfig.Ports(1, 2)), "b:1", "p."))
                .hasMessage("ports: 1 (expected: one per server, 2)");
    }

    @Test
    void simServer_emulatesTheScaledSimSection_withTheSizingsDelays_andTheServersWatts() {
        ClusterConfig scaled = LiveConfig.scaled(SPEC, 0.1);
        ServerConfig s1 = scaled.servers().get(0);
        SimServerOptions o = LiveConfig.simServer(s1, scaled.sizing(), 17);

        assertThat(o.cores()).isEqualTo(4);
        assertThat(o.meanDemandSeconds()).isCloseTo(0.02, within(1e-12));
        assertThat(o.demandSeconds()).containsOnlyKeys("bulk");
        assertThat(o.demandSeconds().get("bulk")).isCloseTo(0.045, within(1e-12));
        assertThat(o.ioFraction()).isEqualTo(0.25);
        assertThat(o.overhead()).isEqualTo(0.1);
        assertThat(o.knee()).isEqualTo(3);
        assertThat(o.bootDelaySeconds()).isCloseTo(6, within(1e-12));
        assertThat(o.shutdownDelaySeconds()).isCloseTo(4.5, within(1e-12));
        assertThat(o.watts()).isEqualTo(new PowerModel.Watts(1, 50, 55, 70));
        assertThat(o.seed()).isEqualTo(17);
        assertThat(o.port()).as("any free port").isZero();
        assertThat(o.adminPort()).as("any free port").isZero();
        assertThat(o.real()).as("emulated, not spinning the CPU").isFalse();
    }

    /** Every leaf of a written tree by its path, lists indexed: {@code servers[0].sim.cores}. */
    private static Map<String, Object> leaves(Map<String, Object> tree) {
        Map<String, Object> out = new LinkedHashMap<>();
        walk("", tree, out);
        return out;
    }

    private static void walk(String path, Object node, Map<String, Object> out) {
        if (node instanceof Map<?, ?> m) {
            m.forEach((k, v) -> walk(path.isEmpty() ? String.valueOf(k) : path + "." + k, v, out));
        } else if (node instanceof List<?> l) {
            for (int i = 0; i < l.size(); i++) {
                walk(path + "[" + i + "]", l.get(i), out);
            }
        } else {
            out.put(path, node);
        }
    }

    /** The key a leaf's path belongs to: its path without list indices. */
    private static String key(String path) {
        return path.replaceAll("\\[\\d+]", "");
    }
}
