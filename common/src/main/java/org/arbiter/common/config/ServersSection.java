package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.choice;
import static org.arbiter.common.config.ConfigKey.duration;
import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.number;
import static org.arbiter.common.config.ConfigKey.shaped;
import static org.arbiter.common.config.ConfigKey.string;

import java.net.URI;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The {@code servers} list, declared once: each server's URL, N_s, power draw, emulation, N_s control
 * and health check, with unique ids.
 *
 * <p>Stateless and thread-safe.
 */
final class ServersSection {

    private ServersSection() {
    }

    private static final String CC = "concurrencyControl.";

    static final ConfigKey<ServerConfig, String> ID = string("id", ServerConfig::id, null, "the server, as allocations and power orders name it")
            .docDefault("— (required)").docRule("unique id");
    static final ConfigKey<ServerConfig, String> URL = string("url", (ServerConfig s) -> s.url().toString(), null,
            "where requests go; `https://` servers are reached over TLS (http/1.1) checked as `dispatch.tls` says, "
                    + "with the URL's host as SNI and as the name the certificate must carry")
            .docDefault("— (required)").docRule("`http://host:port` or `https://host:port`");
    static final ConfigKey<ServerConfig, Object> CONCURRENCY = shaped("concurrency", String.valueOf(ServerConfig.DEFAULT_CONCURRENCY),
            "whole number ≥ 1, `auto`, `gradient2` or `vegas`", "N_s; `auto` lets the GRM estimate it, starting from 10; "
                    + "`gradient2` and `vegas` let each gateway adapt its own cap on the server with Netflix's "
                    + "concurrency-limits, from its own requests' round trips, instead of following the GRM's N(g,s) "
                    + "(`adaptiveLimit`; [gateway](gateway.md#adaptive-per-server-limits))");
    static final ConfigKey<ServerConfig, Integer> ADAPTIVE_INITIAL = integer("adaptiveLimit.initial",
            (ServerConfig s) -> s.adaptiveLimit() == null ? null : s.adaptiveLimit().initial(),
            ServerConfig.AdaptiveLimit.DEFAULT_INITIAL, v -> v >= 1, ">= 1",
            "with `concurrency: gradient2 | vegas`: the cap each gateway starts from (also N_s as the GRM reads it)");
    static final ConfigKey<ServerConfig, Integer> ADAPTIVE_MIN = integer("adaptiveLimit.min",
            (ServerConfig s) -> s.adaptiveLimit() == null ? null : s.adaptiveLimit().min(),
            ServerConfig.AdaptiveLimit.DEFAULT_MIN, v -> v >= 1, ">= 1", "the lowest the adapted cap goes");
    static final ConfigKey<ServerConfig, Integer> ADAPTIVE_MAX = integer("adaptiveLimit.max",
            (ServerConfig s) -> s.adaptiveLimit() == null ? null : s.adaptiveLimit().max(),
            ServerConfig.AdaptiveLimit.DEFAULT_MAX, v -> v >= 1, ">= 1, >= min and initial", "the highest it goes");
    static final ConfigKey<ServerConfig, Double> POWER_OFF = number("power.off", (ServerConfig s) -> s.power().offWatts(), 0,
            v -> v >= 0, ">= 0", "watts while off (000 §7.5's power model)");
    static final ConfigKey<ServerConfig, Double> POWER_BOOT = number("power.boot", (ServerConfig s) -> s.power().bootWatts(), 60,
            v -> v >= 0, ">= 0", "watts while booting");
    static final ConfigKey<ServerConfig, Double> POWER_IDLE = number("power.idle", (ServerConfig s) -> s.power().idleWatts(), 60,
            v -> v >= 0, ">= 0", "watts while on and idle");
    static final ConfigKey<ServerConfig, Double> POWER_BUSY = number("power.busy", (ServerConfig s) -> s.power().busyWatts(), 65,
            v -> v >= 0, ">= 0", "watts while on and fully busy");
    static final ConfigKey<ServerConfig, String> ADMIN_URL = string("adminUrl",
            (ServerConfig s) -> s.adminUrl() == null ? null : s.adminUrl().toString(), null,
            "simserver-style power API (`POST /power/on`, `POST /power/off`, `GET /status` with `state`); required on "
                    + "every server with `power.actuator: http`").docRule("`http://host:port`");
    static final ConfigKey<ServerConfig, String> LOAD_URL = string("loadUrl",
            (ServerConfig s) -> s.loadUrl() == null ? null : s.loadUrl().toString(), null,
            "where `random-poll` asks the server for its load: `GET` → `{\"active\": n, \"queued\": m}` (simserver: "
                    + "`GET /load` on its admin port); without it the gateway's own counters stand in")
            .docRule("`http://host:port/path`");
    static final ConfigKey<ServerConfig, Double> SIM_MEAN_DEMAND = duration("sim.meanDemand",
            (ServerConfig s) -> s.sim().meanDemandSeconds(), 1, v -> v > 0, "> 0", "mean service demand of the emulated server");
    static final ConfigKey<ServerConfig, Object> SIM_DEMAND = shaped("sim.demand.<class>", "meanDemand",
            "duration > 0, known class", "per-class demand");
    static final ConfigKey<ServerConfig, Integer> SIM_CORES = integer("sim.cores", (ServerConfig s) -> s.sim().cores(), 10,
            v -> v >= 1, ">= 1", "virtual CPUs of the emulated server");
    static final ConfigKey<ServerConfig, Double> SIM_IO_FRACTION = number("sim.ioFraction", (ServerConfig s) -> s.sim().ioFraction(),
            0, v -> v >= 0 && v < 1, "0 <= x < 1", "share of the demand that holds no CPU");
    static final ConfigKey<ServerConfig, Double> SIM_OVERHEAD = number("sim.overhead", (ServerConfig s) -> s.sim().overhead(), 0,
            v -> v >= 0, ">= 0", "efficiency loss per request above the knee (003 Fig. 7)");
    static final ConfigKey<ServerConfig, Integer> SIM_KNEE = integer("sim.knee", (ServerConfig s) -> s.sim().knee(), 10, v -> v >= 1,
            ">= 1", "requests in service above which the overhead applies (003 Fig. 7)");
    static final ConfigKey<ServerConfig, ServerConfig.ConcurrencyControl.Method> CC_METHOD = choice(CC + "method",
            ServersSection::ccOrNullMethod, ServerConfig.ConcurrencyControl.Method.class,
            ServerConfig.ConcurrencyControl.Method.KNEE,
            "how the GRM moves N_s of a `concurrency: auto` server: `knee` fits 004's L(N_e) curve (eq. 7) to what the "
                    + "gateways measured and takes the N_s reaching 95 % of the peak throughput (003 Fig. 7's knee); "
                    + "`amc` holds the mean latency at `latencyMax` (004 eq. 10, AM-C); `pmc` holds the abandon (drop) "
                    + "rate at `abandonMax` (004 eq. 13, PM-C, moved from the N_s in force so it rests at the bound — "
                    + "see grm.md)");
    static final ConfigKey<ServerConfig, Integer> CC_MIN = integer(CC + "min", (ServerConfig s) -> cc(s) == null ? null : cc(s).min(), 1,
            v -> v >= 1, ">= 1", "N_s never falls below this").docRule("≥ 1, ≤ max");
    static final ConfigKey<ServerConfig, Integer> CC_MAX = integer(CC + "max", (ServerConfig s) -> cc(s) == null ? null : cc(s).max(),
            100, v -> v >= 1, ">= 1", "N_s never rises above this");
    static final ConfigKey<ServerConfig, Double> CC_LATENCY_MAX = duration(CC + "latencyMax",
            (ServerConfig s) -> cc(s) == null ? null : cc(s).latencyMaxSeconds(), 2, v -> v > 0, "> 0", "AM-C's L_max");
    static final ConfigKey<ServerConfig, Double> CC_ABANDON_MAX = number(CC + "abandonMax",
            (ServerConfig s) -> cc(s) == null ? null : cc(s).abandonMax(), 0.1, v -> v > 0 && v < 1, "between 0 and 1",
            "PM-C's α_max").docRule("0 < x < 1");
    static final ConfigKey<ServerConfig, Double> CC_GAIN = number(CC + "gain", (ServerConfig s) -> cc(s) == null ? null : cc(s).gain(),
            0.5, v -> v > 0, "> 0", "γ of AM-C / PM-C");
    static final ConfigKey<ServerConfig, Integer> CC_MAX_STEP = integer(CC + "maxStep",
            (ServerConfig s) -> cc(s) == null ? null : cc(s).maxStep(), 2, v -> v >= 1, ">= 1",
            "N_s moves at most this much per control period");
    static final ConfigKey<ServerConfig, Integer> CC_HYSTERESIS = integer(CC + "hysteresis",
            (ServerConfig s) -> cc(s) == null ? null : cc(s).hysteresis(), 1, v -> v >= 1, ">= 1", "smaller changes are not made");
    static final ConfigKey<ServerConfig, String> HEALTH_PATH = string("health.path",
            (ServerConfig s) -> s.health().enabled() ? s.health().path() : null, null,
            "each gateway sends `GET <path>` to the server every `interval` on a connection of its own; 2xx/3xx "
                    + "within `timeout` passes").docDefault("none (no active check)")
            .docRule("starts with `/`; required when `health` is given");
    static final ConfigKey<ServerConfig, Double> HEALTH_INTERVAL = duration("health.interval",
            (ServerConfig s) -> s.health().enabled() ? s.health().intervalSeconds() : null, 5, v -> v > 0, "> 0",
            "time between probes");
    static final ConfigKey<ServerConfig, Double> HEALTH_TIMEOUT = duration("health.timeout",
            (ServerConfig s) -> s.health().enabled() ? s.health().timeoutSeconds() : null, 1, v -> v > 0, "> 0",
            "a slower probe fails").docDefault("min(1s, interval)").docRule("duration > 0, ≤ interval");

    static final List<ConfigKey<ServerConfig, ?>> KEYS = List.of(ID, URL, CONCURRENCY, ADAPTIVE_INITIAL, ADAPTIVE_MIN, ADAPTIVE_MAX, LOAD_URL, ADMIN_URL, POWER_OFF,
            POWER_BOOT, POWER_IDLE, POWER_BUSY, SIM_CORES, SIM_MEAN_DEMAND, SIM_DEMAND, SIM_IO_FRACTION, SIM_OVERHEAD,
            SIM_KNEE, CC_METHOD, CC_MIN, CC_MAX, CC_LATENCY_MAX, CC_ABANDON_MAX, CC_GAIN, CC_MAX_STEP, CC_HYSTERESIS,
            HEALTH_PATH, HEALTH_INTERVAL, HEALTH_TIMEOUT);

    /** The N_s control when it is not the default (the writer leaves the default out). */
    private static ServerConfig.ConcurrencyControl cc(ServerConfig s) {
        return s.control().equals(defaultControl()) ? null : s.control();
    }

    private static ServerConfig.ConcurrencyControl.Method ccOrNullMethod(ServerConfig s) {
        return cc(s) == null ? null : cc(s).method();
    }

    /** The N_s control's defaults, from the keys above. */
    static ServerConfig.ConcurrencyControl defaultControl() {
        return new ServerConfig.ConcurrencyControl(CC_METHOD.defaultValue(), CC_MIN.defaultValue(), CC_MAX.defaultValue(),
                CC_LATENCY_MAX.defaultValue(), CC_ABANDON_MAX.defaultValue(), CC_GAIN.defaultValue(),
                CC_MAX_STEP.defaultValue(), CC_HYSTERESIS.defaultValue());
    }

    static List<ServerConfig> read(Node root, Set<String> classNames) {
        root.require("servers");
        List<ServerConfig> servers = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        List<Node> nodes = root.list("servers");
        if (root.has("servers") && nodes.isEmpty() && root.errors().isEmpty()) {
            root.error("servers", "an empty list (expected: at least one server)");
        }
        for (Node s : nodes) {
            ServerConfig sc = readServer(s, classNames);
            if (sc != null) {
                if (!ids.add(sc.id())) {
                    s.error("id", sc.id() + " (expected: an id no other server has)");
                }
                servers.add(sc);
            }
        }
        return servers;
    }

    private static ServerConfig readServer(Node s, Set<String> classNames) {
        String id = ConfigValues.id(s, ID.leaf());
        URI url = null;
        if (s.require(URL.leaf())) {
            url = ConfigValues.uri(s, URL.leaf(), URL.read(s));
        }
        int concurrency = ServerConfig.DEFAULT_CONCURRENCY;
        boolean auto = false;
        ServerConfig.AdaptiveLimit.Algorithm algorithm = null;
        if (s.has("concurrency")) {
            String raw = s.string("concurrency", Integer.toString(ServerConfig.DEFAULT_CONCURRENCY));
            if ("auto".equals(raw)) {
                auto = true;
            } else if ("gradient2".equals(raw)) {
                algorithm = ServerConfig.AdaptiveLimit.Algorithm.GRADIENT2;
            } else if ("vegas".equals(raw)) {
                algorithm = ServerConfig.AdaptiveLimit.Algorithm.VEGAS;
            } else {
                concurrency = s.integer("concurrency", ServerConfig.DEFAULT_CONCURRENCY, v -> v >= 1,
                        ">= 1, auto, gradient2 or vegas");
            }
        }
        ServerConfig.AdaptiveLimit adaptive = null;
        if (s.has("adaptiveLimit")) {
            Node al = s.object("adaptiveLimit");
            int initial = ADAPTIVE_INITIAL.read(al);
            int min = ADAPTIVE_MIN.read(al);
            int max = ADAPTIVE_MAX.read(al);
            al.finish();
            if (algorithm == null) {
                s.error("adaptiveLimit", "set (expected: only with concurrency: gradient2 or vegas)");
            } else if (min > initial || initial > max) {
                al.error("max", max + " (expected: >= adaptiveLimit.initial " + initial + " >= adaptiveLimit.min " + min
                        + ")");
            } else {
                adaptive = new ServerConfig.AdaptiveLimit(algorithm, initial, min, max);
            }
        } else if (algorithm != null) {
            adaptive = ServerConfig.AdaptiveLimit.of(algorithm);
        }
        if (adaptive != null) {
            concurrency = adaptive.initial();
        }
        Node pw = s.object("power");
        ServerConfig.PowerDraw power = new ServerConfig.PowerDraw(POWER_OFF.read(pw), POWER_BOOT.read(pw),
                POWER_IDLE.read(pw), POWER_BUSY.read(pw));
        pw.finish();
        URI admin = s.has(ADMIN_URL.leaf()) ? ConfigValues.uri(s, ADMIN_URL.leaf(), ADMIN_URL.read(s)) : null;
        URI load = s.has(LOAD_URL.leaf()) ? ConfigValues.uri(s, LOAD_URL.leaf(), LOAD_URL.read(s)) : null;
        Node sim = s.object("sim");
        double meanDemand = SIM_MEAN_DEMAND.read(sim);
        Node dem = sim.object("demand");
        Map<String, Double> demand = new LinkedHashMap<>();
        for (String cls : classNames) {
            if (dem.has(cls)) {
                demand.put(cls, dem.duration(cls, meanDemand, v -> v > 0, "> 0"));
            }
        }
        dem.finish();
        ServerConfig.SimSpec spec = new ServerConfig.SimSpec(SIM_CORES.read(sim), meanDemand, demand,
                SIM_IO_FRACTION.read(sim), SIM_OVERHEAD.read(sim), SIM_KNEE.read(sim));
        sim.finish();
        Node cc = s.object("concurrencyControl");
        ServerConfig.ConcurrencyControl control = new ServerConfig.ConcurrencyControl(CC_METHOD.read(cc),
                CC_MIN.read(cc), CC_MAX.read(cc), CC_LATENCY_MAX.read(cc), CC_ABANDON_MAX.read(cc), CC_GAIN.read(cc),
                CC_MAX_STEP.read(cc), CC_HYSTERESIS.read(cc));
        cc.finish();
        if (control.min() > control.max()) {
            cc.error("min", control.min() + " (expected: <= concurrencyControl.max, " + control.max() + ")");
        }
        ServerConfig.HealthCheck health = s.has("health") ? readHealth(s.object("health")) : ServerConfig.HealthCheck.OFF;
        s.finish();
        if (id == null || url == null) {
            return null;
        }
        return new ServerConfig(id, url, concurrency, auto, power, admin, spec, control, health, load, adaptive);
    }

    private static ServerConfig.HealthCheck readHealth(Node h) {
        String path = null;
        if (h.require("path")) {
            path = HEALTH_PATH.read(h);
            if (path != null && !path.startsWith("/")) {
                h.error("path", path + " (expected: a path starting with /)");
                path = null;
            }
        }
        double interval = HEALTH_INTERVAL.read(h);
        double timeout = HEALTH_TIMEOUT.read(h, Math.min(1, interval > 0 ? interval : 1));
        h.finish();
        if (interval > 0 && timeout > interval) {
            h.error("timeout", Durations.format(timeout) + " (expected: <= interval, " + Durations.format(interval) + ")");
        }
        if (path == null || !(interval > 0) || !(timeout > 0) || timeout > interval) {
            return ServerConfig.HealthCheck.OFF; // the errors above fail the load
        }
        return new ServerConfig.HealthCheck(path, interval, timeout);
    }

    /** Each server's keys against their rules, unique ids, N_s ≥ 1 and min ≤ max. */
    static void check(List<ServerConfig> servers, List<String> errors) {
        if (servers.isEmpty()) {
            errors.add("servers: an empty list (expected: at least one server)");
        }
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < servers.size(); i++) {
            ServerConfig s = servers.get(i);
            String path = "servers[" + i + "]";
            Sections.check(s, path, KEYS, errors);
            if (!ids.add(s.id())) {
                errors.add(path + ".id: " + s.id() + " (expected: an id no other server has)");
            }
            if (s.concurrency() < 1) {
                errors.add(path + ".concurrency: " + s.concurrency() + " (expected: >= 1, auto, gradient2 or vegas)");
            }
            if (s.control().min() > s.control().max()) {
                errors.add(path + ".concurrencyControl.min: " + s.control().min()
                        + " (expected: <= concurrencyControl.max, " + s.control().max() + ")");
            }
        }
    }

    static Map<String, Object> write(ServerConfig s) {
        Map<String, Object> tree = Sections.write(s, KEYS);
        tree.put("concurrency", s.autoConcurrency() ? "auto"
                : s.adaptiveLimit() != null ? s.adaptiveLimit().algorithm().wireName() : s.concurrency());
        if (!s.sim().demandSeconds().isEmpty()) {
            Map<String, Object> demand = new LinkedHashMap<>();
            s.sim().demandSeconds().forEach((k, v) -> demand.put(k, Durations.format(v)));
            Sections.put(tree, "sim.demand", demand);
        }
        return tree;
    }
}
