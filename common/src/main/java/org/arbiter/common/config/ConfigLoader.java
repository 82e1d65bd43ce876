package org.arbiter.common.config;

import com.fasterxml.jackson.core.JacksonException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * Reads and validates {@code cluster.yaml}. Validation reports <em>all</em> problems at once, each
 * naming its YAML path and the rule it breaks ({@code classes[1].target: -2s (expected: > 0)});
 * unknown keys are errors, with a "did you mean" when a known key is close. Every default is set
 * here and documented in docs/configuration.md.
 *
 * <p>Stateless and thread-safe.
 */
public final class ConfigLoader {

    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private ConfigLoader() {
    }

    /** Loads and validates a file. @throws ConfigException listing every problem */
    public static ClusterConfig load(Path file) {
        String text;
        try {
            text = Files.readString(file);
        } catch (NoSuchFileException e) {
            throw new ConfigException(List.of(file + ": no such file"));
        } catch (IOException e) {
            throw new ConfigException(List.of(file + ": cannot read (" + e.getMessage() + ")"));
        }
        return parse(text);
    }

    /** Parses and validates YAML text. @throws ConfigException listing every problem */
    public static ClusterConfig parse(String yaml) {
        JsonNode root;
        try {
            root = YAML.readTree(yaml);
        } catch (JacksonException e) {
            String where = e.getLocation() == null ? "" : " at line " + e.getLocation().getLineNr()
                    + ", column " + e.getLocation().getColumnNr();
            throw new ConfigException(List.of("(yaml): not valid YAML" + where + " (" + e.getOriginalMessage() + ")"));
        }
        List<String> errors = new ArrayList<>();
        ClusterConfig config = read(Node.root(root, errors), errors);
        if (!errors.isEmpty()) {
            throw new ConfigException(errors);
        }
        return config;
    }

    private static ClusterConfig read(Node root, List<String> errors) {
        root.require("classes");
        List<ClassConfig> classes = new ArrayList<>();
        Set<String> classNames = new HashSet<>();
        List<Node> classNodes = root.list("classes");
        if (root.has("classes") && classNodes.isEmpty() && errors.isEmpty()) {
            root.error("classes", "an empty list (expected: at least one class)");
        }
        for (Node c : classNodes) {
            ClassConfig cc = readClass(c);
            if (cc != null) {
                if (!classNames.add(cc.name())) {
                    c.error("name", cc.name() + " (expected: a name no other class has)");
                }
                classes.add(cc);
            }
        }
        long defaults = classes.stream().filter(ClassConfig::isDefault).count();
        if (!classes.isEmpty() && defaults != 1) {
            root.error("classes", defaults + " classes marked default (expected: exactly one class with default: true)");
        }

        root.require("servers");
        List<ServerConfig> servers = new ArrayList<>();
        Set<String> serverIds = new HashSet<>();
        List<Node> serverNodes = root.list("servers");
        if (root.has("servers") && serverNodes.isEmpty() && errors.isEmpty()) {
            root.error("servers", "an empty list (expected: at least one server)");
        }
        for (Node s : serverNodes) {
            ServerConfig sc = readServer(s, classNames);
            if (sc != null) {
                if (!serverIds.add(sc.id())) {
                    s.error("id", sc.id() + " (expected: an id no other server has)");
                }
                servers.add(sc);
            }
        }

        List<GatewayConfig> gateways = new ArrayList<>();
        Set<String> gatewayIds = new HashSet<>();
        Set<Integer> ports = new HashSet<>();
        for (Node g : root.list("gateways")) {
            String id = id(g, "id");
            String host = g.string("host", "127.0.0.1");
            int port = g.integer("port", 8080, v -> v >= 0 && v <= 65535, "0..65535");
            int adminPort = g.integer("adminPort", port == 0 ? 0 : port + 100, v -> v >= 0 && v <= 65535, "0..65535");
            g.finish();
            if (id != null) {
                if (!gatewayIds.add(id)) {
                    g.error("id", id + " (expected: an id no other gateway has)");
                }
                if (port != 0 && !ports.add(port)) {
                    g.error("port", port + " (expected: a port no other gateway uses)");
                }
                if (adminPort != 0 && !ports.add(adminPort)) {
                    g.error("adminPort", adminPort + " (expected: a port no other gateway uses)");
                }
                gateways.add(new GatewayConfig(id, host, port, adminPort));
            }
        }
        if (gateways.isEmpty() && !root.has("gateways")) {
            gateways.add(new GatewayConfig("g1", "127.0.0.1", 8080, 8180));
        }

        Node d = root.object("dispatch");
        DispatchConfig dispatch = new DispatchConfig(
                d.choice("scheduler", "wrr", "wrr", "fcfs", "priority", "edf", "yid", "greedy", "adaptive"),
                d.choice("balancer", "least-outstanding", "least-outstanding", "random-poll"),
                d.integer("pollSize", 2, v -> v >= 1, ">= 1"),
                d.duration("backendTimeout", 60, v -> v > 0, "> 0"),
                d.duration("connectTimeout", 2, v -> v > 0, "> 0"),
                d.bytes("maxBodyBytes", 10L << 20, 0),
                d.bytes("maxHeaderBytes", 16L << 10, 256),
                d.duration("idleTimeout", 60, v -> v > 0, "> 0"),
                d.bool("classHeader", true));
        d.finish();

        Node k = root.object("control");
        ControlConfig control = new ControlConfig(
                k.duration("period", 5, v -> v > 0, "> 0"),
                k.duration("reportPeriod", 5, v -> v > 0, "> 0"),
                k.duration("statsWindow", 30, v -> v > 0, "> 0"),
                k.choice("combine", "min", "min", "sum"),
                k.integer("granularity", 1, v -> v >= 1 && v <= 1000, "1..1000"),
                k.number("minWeight", 1, v -> v >= 0, ">= 0"),
                k.number("responseTimeCap", 10, v -> v > 1, "> 1"),
                k.choice("prediction", "mm1", "mm1", "queue-length"),
                k.number("gain", 1, v -> v >= 0, ">= 0"),
                k.duration("maxClockSkew", ControlConfig.DEFAULT_MAX_CLOCK_SKEW_SECONDS, v -> v >= 0 && v <= 3600, "0s..1h"));
        k.finish();
        if (control.statsWindowSeconds() < control.reportPeriodSeconds()) {
            k.error("statsWindow", Durations.format(control.statsWindowSeconds())
                    + " (expected: >= control.reportPeriod, " + Durations.format(control.reportPeriodSeconds()) + ")");
        }

        Node z = root.object("sizing");
        Node zs = z.object("schedule");
        SizingConfig sizing = new SizingConfig(
                z.choice("policy", "off", "off", "static", "queue", "utility", "schedule"),
                z.integer("minServers", 1, v -> v >= 0, ">= 0"),
                z.integer("maxServers", 0, v -> v >= 0, ">= 0 (0 = all servers)"),
                z.duration("startupDelay", 60, v -> v >= 0, ">= 0"),
                z.duration("shutdownDelay", 60, v -> v >= 0, ">= 0"),
                z.number("dropRatio", 0.01, v -> v > 0 && v < 1, "between 0 and 1"),
                z.number("utilityFloor", 0, v -> true, "a number"),
                z.number("staticCapacity", 0, v -> v >= 0, ">= 0"),
                z.choice("estimator", "queue", "queue", "static", "utilization"),
                z.duration("warmUp", 10, v -> v >= 0, ">= 0"),
                zs.duration("slot", 1800, v -> v > 0, "> 0"),
                scheduleServers(zs),
                z.choice("forecast", "trend", "trend", "current"));
        zs.finish();
        z.finish();
        if ("schedule".equals(sizing.policy()) && sizing.schedule().isEmpty()) {
            z.error("schedule.servers", "missing (expected: a list of server counts, one per slot, when policy is schedule)");
        }
        if (("static".equals(sizing.policy()) || "static".equals(sizing.estimator())) && sizing.staticCapacity() <= 0
                && !"off".equals(sizing.policy()) && !"schedule".equals(sizing.policy())
                && !"utility".equals(sizing.policy())) {
            z.error("staticCapacity", "missing (expected: requests/s one server sustains, > 0, for the static estimator)");
        }
        if (sizing.maxServers() > 0 && sizing.minServers() > sizing.maxServers()) {
            z.error("minServers", sizing.minServers() + " (expected: <= sizing.maxServers, " + sizing.maxServers() + ")");
        }

        Node p = root.object("power");
        String actuator = p.choice("actuator", "log", "log", "exec", "http");
        String command = p.string("command", null);
        double powerTimeout = p.duration("timeout", 60, v -> v > 0, "> 0");
        int attempts = p.integer("attempts", 3, v -> v >= 1, ">= 1");
        double retryDelay = p.duration("retryDelay", 1, v -> v >= 0, ">= 0");
        p.finish();
        if ("exec".equals(actuator) && command == null) {
            p.error("command", "missing (expected: a command template with {server} and {action} when actuator is exec)");
        }
        if ("http".equals(actuator)) {
            for (int i = 0; i < servers.size(); i++) {
                if (servers.get(i) != null && servers.get(i).adminUrl() == null) {
                    p.error("actuator", "http, but servers[" + i + "] (" + servers.get(i).id()
                            + ") has no adminUrl (expected: every server's admin API when actuator is http)");
                }
            }
        }
        PowerConfig power = new PowerConfig(actuator, command, powerTimeout > 0 ? powerTimeout : 60,
                Math.max(1, attempts), Math.max(0, retryDelay));

        Node f = root.object("kafka");
        KafkaConfig kafka = new KafkaConfig(
                f.string("bootstrap", null),
                f.string("topicPrefix", "arbiter."),
                f.stringMap("properties"));
        f.finish();

        Node o = root.object("console");
        int consolePort = o.integer("port", 8090, v -> v >= 0 && v <= 65535, "0..65535");
        boolean publicRead = o.bool("publicRead", false);
        List<ConsoleConfig.User> users = new ArrayList<>();
        for (Node u : o.list("users")) {
            String name = u.require("name") ? u.string("name", null) : null;
            String hash = u.require("passwordHash") ? u.string("passwordHash", null) : null;
            if (hash != null && !hash.matches("pbkdf2:[0-9]+:[0-9a-fA-F]+:[0-9a-fA-F]+")) {
                u.error("passwordHash", "not a PBKDF2 hash (expected: pbkdf2:<iterations>:<salt hex>:<hash hex>, "
                        + "as printed by 'arbiter console hash-password')");
            }
            String role = u.choice("role", "viewer", "admin", "viewer");
            u.finish();
            users.add(new ConsoleConfig.User(name, hash, role));
        }
        List<ConsoleConfig.Token> tokens = new ArrayList<>();
        for (Node t : o.list("tokens")) {
            String name = t.require("name") ? t.string("name", null) : null;
            String sha = t.require("sha256") ? t.string("sha256", null) : null;
            if (sha != null && !sha.matches("[0-9a-fA-F]{64}")) {
                t.error("sha256", sha + " (expected: 64 hex digits, the SHA-256 of the token)");
            }
            String role = t.choice("role", "viewer", "admin", "viewer");
            t.finish();
            tokens.add(new ConsoleConfig.Token(name, sha, role));
        }
        o.finish();
        ConsoleConfig console = new ConsoleConfig(consolePort, publicRead, users, tokens);

        root.finish();
        return new ClusterConfig(classes, servers, gateways, dispatch, control, sizing, power, kafka, console);
    }

    private static ClassConfig readClass(Node c) {
        String name = id(c, "name");
        double target = 0;
        if (c.require("target")) {
            target = c.duration("target", 0, v -> v > 0, "> 0");
        }
        Node u = c.object("utility");
        ClassConfig.UtilitySpec utility = new ClassConfig.UtilitySpec(
                u.number("phi", 1, v -> v >= 0, ">= 0"),
                u.number("alpha", 1, v -> v > 0, "> 0"),
                u.number("beta", 1, v -> v > 0, "> 0"));
        u.finish();
        ClassConfig.YieldSpec yield = null;
        if (c.has("yield")) {
            Node y = c.object("yield");
            String shape = y.choice("shape", "hybrid", "hybrid", "throughput", "response-time");
            double full = y.number("full", 1, v -> v >= 0, ">= 0");
            double penalty = y.number("dropPenalty", 0, v -> v >= 0, ">= 0");
            double deadline = y.duration("deadline", target > 0 ? target : 1, v -> v > 0, "> 0");
            double pre = y.duration("preDeadline", deadline / 2, v -> v >= 0, ">= 0");
            y.finish();
            if (pre > deadline) {
                y.error("preDeadline", Durations.format(pre) + " (expected: <= deadline, " + Durations.format(deadline) + ")");
            }
            yield = new ClassConfig.YieldSpec(shape, full, penalty, deadline, pre);
            if (c.has("utility")) {
                c.error("yield", "given together with utility (expected: one of utility or yield)");
            }
        }
        double weight = c.number("weight", 1, v -> v > 0, "> 0");
        double minShare = c.number("minShare", 0, v -> v >= 0 && v <= 1, "between 0 and 1");
        MatchRule match = readMatch(c.object("match"));
        Node q = c.object("queue");
        ClassConfig.QueueConfig queue = new ClassConfig.QueueConfig(
                q.integer("limit", 1000, v -> v >= 0, ">= 0"),
                q.duration("timeout", 30, v -> v > 0, "> 0"));
        q.finish();
        boolean isDefault = c.bool("default", false);
        c.finish();
        if (name == null) {
            return null;
        }
        return new ClassConfig(name, target, utility, yield, weight, minShare, match, queue, isDefault);
    }

    private static MatchRule readMatch(Node m) {
        Map<String, String> headers = new LinkedHashMap<>(m.stringMap("header"));
        for (Map.Entry<String, String> h : headers.entrySet()) {
            if (h.getValue().startsWith("regex:")) {
                try {
                    Pattern.compile(h.getValue().substring("regex:".length()));
                } catch (PatternSyntaxException e) {
                    m.error("header." + h.getKey(), h.getValue() + " (expected: a valid regular expression: "
                            + e.getDescription() + ")");
                }
            }
        }
        String path = m.string("path", null);
        if (path != null && !path.startsWith("/")) {
            m.error("path", path + " (expected: a path prefix starting with /)");
        }
        String method = m.string("method", null);
        if (method != null && !method.matches("[A-Za-z]+")) {
            m.error("method", method + " (expected: an HTTP method such as GET)");
        }
        String host = m.string("host", null);
        m.finish();
        return new MatchRule(headers, path, method, host);
    }

    private static List<Integer> scheduleServers(Node schedule) {
        List<Integer> out = new ArrayList<>();
        JsonNode raw = schedule.rawValue("servers");
        if (raw == null || raw.isNull()) {
            return out;
        }
        if (!raw.isArray()) {
            schedule.error("servers", raw + " (expected: a list of whole numbers >= 0)");
            return out;
        }
        for (int i = 0; i < raw.size(); i++) {
            JsonNode n = raw.get(i);
            if (!n.canConvertToInt() || !n.isIntegralNumber() || n.asInt() < 0) {
                schedule.error("servers[" + i + "]", n + " (expected: a whole number >= 0)");
            } else {
                out.add(n.asInt());
            }
        }
        return out;
    }

    private static ServerConfig readServer(Node s, Set<String> classNames) {
        String id = id(s, "id");
        URI url = null;
        if (s.require("url")) {
            url = uri(s, "url", s.string("url", null));
        }
        int concurrency = 10;
        boolean auto = false;
        if (s.has("concurrency")) {
            String raw = s.string("concurrency", "10");
            if ("auto".equals(raw)) {
                auto = true;
                concurrency = 10;
            } else {
                concurrency = s.integer("concurrency", 10, v -> v >= 1, ">= 1, or auto");
            }
        }
        Node pw = s.object("power");
        ServerConfig.PowerModel power = new ServerConfig.PowerModel(
                pw.number("off", 0, v -> v >= 0, ">= 0"),
                pw.number("boot", 60, v -> v >= 0, ">= 0"),
                pw.number("idle", 60, v -> v >= 0, ">= 0"),
                pw.number("busy", 65, v -> v >= 0, ">= 0"));
        pw.finish();
        URI admin = s.has("adminUrl") ? uri(s, "adminUrl", s.string("adminUrl", null)) : null;
        Node sim = s.object("sim");
        double meanDemand = sim.duration("meanDemand", 1, v -> v > 0, "> 0");
        Node dem = sim.object("demand");
        Map<String, Double> demand = new LinkedHashMap<>();
        for (String cls : classNames) {
            if (dem.has(cls)) {
                demand.put(cls, dem.duration(cls, meanDemand, v -> v > 0, "> 0"));
            }
        }
        dem.finish();
        ServerConfig.SimSpec spec = new ServerConfig.SimSpec(
                sim.integer("cores", 10, v -> v >= 1, ">= 1"),
                meanDemand,
                demand,
                sim.number("ioFraction", 0, v -> v >= 0 && v < 1, "0 <= x < 1"),
                sim.number("overhead", 0, v -> v >= 0, ">= 0"),
                sim.integer("knee", 10, v -> v >= 1, ">= 1"));
        sim.finish();
        Node cc = s.object("concurrencyControl");
        ServerConfig.ConcurrencyControl d = ServerConfig.ConcurrencyControl.DEFAULT;
        ServerConfig.ConcurrencyControl control = new ServerConfig.ConcurrencyControl(
                cc.choice("method", d.method(), "knee", "amc", "pmc"),
                cc.integer("min", d.min(), v -> v >= 1, ">= 1"),
                cc.integer("max", d.max(), v -> v >= 1, ">= 1"),
                cc.duration("latencyMax", d.latencyMaxSeconds(), v -> v > 0, "> 0"),
                cc.number("abandonMax", d.abandonMax(), v -> v > 0 && v < 1, "between 0 and 1"),
                cc.number("gain", d.gain(), v -> v > 0, "> 0"),
                cc.integer("maxStep", d.maxStep(), v -> v >= 1, ">= 1"),
                cc.integer("hysteresis", d.hysteresis(), v -> v >= 1, ">= 1"));
        cc.finish();
        if (control.min() > control.max()) {
            cc.error("min", control.min() + " (expected: <= concurrencyControl.max, " + control.max() + ")");
        }
        s.finish();
        if (id == null || url == null) {
            return null;
        }
        return new ServerConfig(id, url, concurrency, auto, power, admin, spec, control);
    }

    private static URI uri(Node n, String key, String text) {
        if (text == null) {
            return null;
        }
        try {
            URI u = new URI(text);
            if (!"http".equals(u.getScheme()) || u.getHost() == null || u.getPort() < 0) {
                n.error(key, text + " (expected: http://host:port)");
                return null;
            }
            return u;
        } catch (URISyntaxException e) {
            n.error(key, text + " (expected: http://host:port)");
            return null;
        }
    }

    private static String id(Node n, String key) {
        if (!n.require(key)) {
            return null;
        }
        String v = n.string(key, null);
        if (v != null && !ID.matcher(v).matches()) {
            n.error(key, v + " (expected: letters, digits, '.', '_' or '-')");
            return null;
        }
        return v;
    }
}
