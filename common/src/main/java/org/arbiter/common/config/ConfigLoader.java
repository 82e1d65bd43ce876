package org.arbiter.common.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
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
    /** Largest {@code cluster.yaml} read, in bytes (and characters of text given to {@link #parse}). */
    public static final int MAX_FILE_BYTES = 4 << 20;
    private static final YamlReader READER = new YamlReader(MAX_FILE_BYTES);
    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");

    private ConfigLoader() {
    }

    /**
     * Loads and validates a file. At most {@link #MAX_FILE_BYTES} are read: a larger file (or an
     * endless one such as {@code /dev/zero}, whose size the file system reports as 0) is refused
     * after {@code MAX_FILE_BYTES + 1} bytes, never read whole.
     *
     * @throws ConfigException listing every problem
     */
    public static ClusterConfig load(Path file) {
        return parse(readText(file, MAX_FILE_BYTES));
    }

    /**
     * The text of a file of at most {@code maxBytes} bytes of UTF-8, read through a bounded stream.
     *
     * @throws ConfigException with one line: missing, unreadable, too large or not UTF-8
     */
    static String readText(Path file, int maxBytes) {
        byte[] bytes;
        try (InputStream in = Files.newInputStream(file)) {
            bytes = in.readNBytes(maxBytes + 1);
        } catch (NoSuchFileException e) {
            throw new ConfigException(List.of(file + ": no such file"));
        } catch (IOException e) {
            throw new ConfigException(List.of(file + ": cannot read (" + e.getMessage() + ")"));
        }
        if (bytes.length > maxBytes) {
            throw new ConfigException(List.of(file + ": larger than " + Durations.formatBytes(maxBytes)
                    + " (expected: a configuration file of at most " + Durations.formatBytes(maxBytes) + ")"));
        }
        try {
            return StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT).decode(ByteBuffer.wrap(bytes)).toString();
        } catch (CharacterCodingException e) {
            throw new ConfigException(List.of(file + ": not UTF-8 text (expected: a YAML file in UTF-8)"));
        }
    }

    /**
     * Parses and validates YAML text: one document of plain YAML (no tags but the core schema's,
     * each key once per mapping, aliases bounded; see {@code YamlReader}).
     *
     * @throws ConfigException listing every problem
     */
    public static ClusterConfig parse(String yaml) {
        if (yaml.length() > MAX_FILE_BYTES) {
            throw new ConfigException(List.of("(yaml): " + yaml.length() + " characters (expected: at most "
                    + MAX_FILE_BYTES + ")"));
        }
        YamlReader.Result read = READER.read(yaml);
        List<String> errors = new ArrayList<>(read.errors());
        ClusterConfig config = read(Node.root(read.root(), errors), errors);
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
        List<Node> proxyProtocolAt = new ArrayList<>();
        for (Node g : root.list("gateways")) {
            String id = id(g, "id");
            String host = g.string("host", GatewayConfig.DEFAULT_HOST);
            int port = g.integer("port", GatewayConfig.DEFAULT_PORT, v -> v >= 0 && v <= 65535, "0..65535");
            int adminPort = g.integer("adminPort", GatewayConfig.defaultAdminPort(port), v -> v >= 0 && v <= 65535,
                    "0..65535");
            double drainTimeout = g.duration("drainTimeout", GatewayConfig.DEFAULT_DRAIN_TIMEOUT_SECONDS,
                    v -> v >= 0 && v <= 3600, "0..1h");
            double startupGrace = g.duration("startupGrace", GatewayConfig.DEFAULT_STARTUP_GRACE_SECONDS,
                    v -> v >= 0 && v <= 3600, "0..1h");
            int adminMaxConnections = g.integer("adminMaxConnections", GatewayConfig.DEFAULT_ADMIN_MAX_CONNECTIONS,
                    v -> v >= 1 && v <= 65536, "1..65536");
            double drainDelay = g.duration("drainDelay", 0, v -> v >= 0 && v <= 3600, "0..1h");
            boolean proxyProtocol = g.bool("proxyProtocol", false);
            if (proxyProtocol) {
                proxyProtocolAt.add(g);
            }
            TlsConfig tls = readTls(g);
            boolean http2 = g.bool("http2", true);
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
                gateways.add(new GatewayConfig(id, host, port, adminPort, Math.max(0, drainTimeout),
                        Math.max(0, startupGrace), Math.max(1, adminMaxConnections), Math.max(0, drainDelay), proxyProtocol, tls, http2));
            }
        }
        if (gateways.isEmpty() && !root.has("gateways")) {
            gateways.add(GatewayConfig.defaultGateway());
        }

        Node d = root.object("dispatch");
        DispatchConfig dd = DispatchConfig.DEFAULT;
        Node poll = d.object("poll");
        int pollCount = poll.integer("count", d.has("pollSize") ? d.integer("pollSize", dd.pollSize(), v -> v >= 1, ">= 1")
                : dd.pollSize(), v -> v >= 1, ">= 1");
        double pollDeadline = poll.duration("deadline", dd.pollDeadlineSeconds(), v -> v > 0, "> 0");
        poll.finish();
        DispatchConfig dispatch = new DispatchConfig(
                d.choice("scheduler", DispatchConfig.Scheduler.class, dd.scheduler()),
                d.choice("balancer", DispatchConfig.Balancer.class, dd.balancer()),
                pollCount,
                d.duration("backendTimeout", dd.backendTimeoutSeconds(), v -> v > 0, "> 0"),
                d.duration("connectTimeout", dd.connectTimeoutSeconds(), v -> v > 0, "> 0"),
                d.bytes("maxBodyBytes", dd.maxBodyBytes(), 0),
                d.bytes("maxHeaderBytes", dd.maxHeaderBytes(), 256),
                d.duration("idleTimeout", dd.idleTimeoutSeconds(), v -> v > 0, "> 0"),
                d.bool("classHeader", dd.classHeader()),
                readEjection(d.object("ejection")),
                readAdaptive(d.object("adaptive")), pollDeadline,
                readBackendTls(d.object("tls")));
        d.finish();

        Node k = root.object("control");
        ControlConfig kd = ControlConfig.DEFAULT;
        ControlConfig control = new ControlConfig(
                k.duration("period", kd.periodSeconds(), v -> v > 0, "> 0"),
                k.duration("reportPeriod", kd.reportPeriodSeconds(), v -> v > 0, "> 0"),
                k.duration("statsWindow", kd.statsWindowSeconds(), v -> v > 0, "> 0"),
                k.choice("combine", ControlConfig.Combine.class, kd.combine()),
                k.integer("granularity", kd.granularity(), v -> v >= 1 && v <= 1000, "1..1000"),
                k.number("minWeight", kd.minWeight(), v -> v >= 0, ">= 0"),
                k.number("responseTimeCap", kd.responseTimeCap(), v -> v > 1, "> 1"),
                k.choice("prediction", ControlConfig.Prediction.class, kd.prediction()),
                k.number("gain", kd.gain(), v -> v >= 0, ">= 0"),
                k.duration("maxClockSkew", kd.maxClockSkewSeconds(), v -> v >= 0 && v <= 3600, "0s..1h"),
                readLiu(k.object("liu")));
        k.finish();
        if (control.statsWindowSeconds() < control.reportPeriodSeconds()) {
            k.error("statsWindow", Durations.format(control.statsWindowSeconds())
                    + " (expected: >= control.reportPeriod, " + Durations.format(control.reportPeriodSeconds()) + ")");
        }

        Node z = root.object("sizing");
        Node zs = z.object("schedule");
        SizingConfig zd = SizingConfig.DEFAULT;
        SizingConfig sizing = new SizingConfig(
                z.choice("policy", SizingConfig.Policy.class, zd.policy()),
                z.integer("minServers", zd.minServers(), v -> v >= 0, ">= 0"),
                z.integer("maxServers", zd.maxServers(), v -> v >= 0, ">= 0 (0 = all servers)"),
                z.duration("startupDelay", zd.startupDelaySeconds(), v -> v >= 0, ">= 0"),
                z.duration("shutdownDelay", zd.shutdownDelaySeconds(), v -> v >= 0, ">= 0"),
                z.number("dropRatio", zd.dropRatio(), v -> v > 0 && v < 1, "between 0 and 1"),
                z.number("utilityFloor", zd.utilityFloor(), v -> true, "a number"),
                z.number("staticCapacity", zd.staticCapacity(), v -> v >= 0, ">= 0"),
                z.choice("estimator", SizingConfig.Estimator.class, zd.estimator()),
                z.duration("warmUp", zd.warmUpSeconds(), v -> v >= 0, ">= 0"),
                zs.duration("slot", zd.scheduleSlotSeconds(), v -> v > 0, "> 0"),
                scheduleServers(zs),
                z.choice("forecast", SizingConfig.Forecast.class, zd.forecast()));
        zs.finish();
        z.finish();
        if (sizing.policy() == SizingConfig.Policy.SCHEDULE && sizing.schedule().isEmpty()) {
            z.error("schedule.servers", "missing (expected: a list of server counts, one per slot, when policy is schedule)");
        }
        boolean staticEstimate = switch (sizing.policy()) {
            case STATIC -> true;
            case QUEUE -> sizing.estimator() == SizingConfig.Estimator.STATIC;
            case OFF, UTILITY, SCHEDULE -> false;
        };
        if (staticEstimate && sizing.staticCapacity() <= 0) {
            z.error("staticCapacity", "missing (expected: requests/s one server sustains, > 0, for the static estimator)");
        }
        if (sizing.maxServers() > 0 && sizing.minServers() > sizing.maxServers()) {
            z.error("minServers", sizing.minServers() + " (expected: <= sizing.maxServers, " + sizing.maxServers() + ")");
        }

        Node p = root.object("power");
        PowerConfig pd = PowerConfig.DEFAULT;
        PowerConfig.Actuator actuator = p.choice("actuator", PowerConfig.Actuator.class, pd.actuator());
        String command = p.string("command", pd.command());
        double powerTimeout = p.duration("timeout", pd.timeoutSeconds(), v -> v > 0, "> 0");
        int attempts = p.integer("attempts", pd.attempts(), v -> v >= 1, ">= 1");
        double retryDelay = p.duration("retryDelay", pd.retryDelaySeconds(), v -> v >= 0, ">= 0");
        p.finish();
        if (actuator == PowerConfig.Actuator.EXEC && command == null) {
            p.error("command", "missing (expected: a command template with {server} and {action} when actuator is exec)");
        }
        if (actuator == PowerConfig.Actuator.HTTP) {
            for (int i = 0; i < servers.size(); i++) {
                if (servers.get(i) != null && servers.get(i).adminUrl() == null) {
                    p.error("actuator", "http, but servers[" + i + "] (" + servers.get(i).id()
                            + ") has no adminUrl (expected: every server's admin API when actuator is http)");
                }
            }
        }
        PowerConfig power = new PowerConfig(actuator, command, powerTimeout > 0 ? powerTimeout : pd.timeoutSeconds(),
                Math.max(1, attempts), Math.max(0, retryDelay));

        KafkaConfig kafka = KafkaSection.read(root.object("kafka"));

        Node o = root.object("console");
        int consolePort = o.integer("port", ConsoleConfig.DEFAULT.port(), v -> v >= 0 && v <= 65535, "0..65535");
        boolean publicRead = o.bool("publicRead", ConsoleConfig.DEFAULT.publicRead());
        List<ConsoleConfig.User> users = new ArrayList<>();
        for (Node u : o.list("users")) {
            String name = u.require("name") ? u.string("name", null) : null;
            String hash = u.require("passwordHash") ? u.string("passwordHash", null) : null;
            if (hash != null && !hash.matches("pbkdf2:[0-9]+:[0-9a-fA-F]+:[0-9a-fA-F]+")) {
                u.error("passwordHash", "not a PBKDF2 hash (expected: pbkdf2:<iterations>:<salt hex>:<hash hex>, "
                        + "as printed by 'arbiter console hash-password')");
            }
            ConsoleConfig.Role role = u.choice("role", ConsoleConfig.Role.class, ConsoleConfig.Role.VIEWER);
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
            ConsoleConfig.Role role = t.choice("role", ConsoleConfig.Role.class, ConsoleConfig.Role.VIEWER);
            t.finish();
            tokens.add(new ConsoleConfig.Token(name, sha, role));
        }
        ConsoleConfig.Login login = readLogin(o.object("login"));
        o.finish();
        ConsoleConfig console = new ConsoleConfig(consolePort, publicRead, users, tokens, login);

        GatewayHttpConfig gatewayHttp = readGatewayHttp(root.object("gateway"));
        if (gatewayHttp.trustedProxies().isEmpty()) {
            for (Node g : proxyProtocolAt) {
                g.error("proxyProtocol", "true (expected: gateway.trustedProxies to list the L4 switch's addresses; "
                        + "with none, every PROXY header would be refused)");
            }
        }

        Node gr = root.object("grm");
        String grmHost = gr.string("host", GrmConfig.DEFAULT_HOST);
        if (grmHost != null && grmHost.isBlank()) {
            gr.error("host", "\"" + grmHost + "\" (expected: an address to bind)");
            grmHost = GrmConfig.DEFAULT_HOST;
        }
        int grmAdminPort = gr.integer("adminPort", GrmConfig.DEFAULT_ADMIN_PORT, v -> v >= 0 && v <= 65535, "0..65535");
        gr.finish();
        GrmConfig grm = new GrmConfig(grmHost == null ? GrmConfig.DEFAULT_HOST : grmHost,
                grmAdminPort >= 0 && grmAdminPort <= 65535 ? grmAdminPort : GrmConfig.DEFAULT_ADMIN_PORT);

        root.finish();
        return new ClusterConfig(classes, servers, gateways, dispatch, control, sizing, power, kafka, console,
                gatewayHttp, grm);
    }

    private static ConsoleConfig.Login readLogin(Node l) {
        ConsoleConfig.Login d = ConsoleConfig.Login.DEFAULT;
        int free = l.integer("freeFailures", d.freeFailures(), v -> v >= 0 && v <= 1000, "0..1000");
        double delay = l.duration("delay", d.delaySeconds(), v -> v > 0 && v <= 86400, "> 0 and <= 1d");
        double maxDelay = l.duration("maxDelay", Math.max(delay, d.maxDelaySeconds()), v -> v > 0 && v <= 86400,
                "> 0 and <= 1d");
        int lockoutAfter = l.integer("lockoutAfter", Math.max(d.lockoutAfter(), free + 1), v -> v >= 0 && v <= 1000,
                "0..1000 (0 = never)");
        double lockout = l.duration("lockout", d.lockoutSeconds(), v -> v > 0 && v <= 7 * 86400, "> 0 and <= 7d");
        double forget = l.duration("forgetAfter", Math.max(lockout, d.forgetAfterSeconds()), v -> v > 0 && v <= 30 * 86400,
                "> 0 and <= 30d");
        l.finish();
        boolean ok = true;
        if (maxDelay < delay) {
            l.error("maxDelay", Durations.format(maxDelay) + " (expected: >= console.login.delay, " + Durations.format(delay) + ")");
            ok = false;
        }
        if (lockoutAfter != 0 && lockoutAfter <= free) {
            l.error("lockoutAfter", lockoutAfter + " (expected: 0 or > console.login.freeFailures, " + free + ")");
            ok = false;
        }
        return ok ? new ConsoleConfig.Login(free, delay, maxDelay, lockoutAfter, lockout, forget) : d;
    }

    private static ClassConfig readClass(Node c) {
        String name = id(c, "name");
        double target = 0;
        if (c.require("target")) {
            target = c.duration("target", 0, v -> v > 0, "> 0");
        }
        Node u = c.object("utility");
        ClassConfig.UtilitySpec ud = ClassConfig.UtilitySpec.DEFAULT;
        ClassConfig.UtilitySpec utility = new ClassConfig.UtilitySpec(
                u.number("phi", ud.phi(), v -> v >= 0, ">= 0"),
                u.number("alpha", ud.alpha(), v -> v > 0, "> 0"),
                u.number("beta", ud.beta(), v -> v > 0, "> 0"));
        u.finish();
        ClassConfig.YieldSpec yield = null;
        if (c.has("yield")) {
            Node y = c.object("yield");
            ClassConfig.YieldSpec.Shape shape = y.choice("shape", ClassConfig.YieldSpec.Shape.class, ClassConfig.YieldSpec.Shape.HYBRID);
            // `value` is the full yield C (issue 17's name); `full`, its first name here, is still read
            double value = y.number("value", 1, v -> v >= 0, ">= 0");
            double full = y.has("full") ? y.number("full", 1, v -> v >= 0, ">= 0") : value;
            if (y.has("full") && y.has("value")) {
                y.error("value", "given together with full (expected: one of them; full is the older name of value)");
            }
            double penalty = y.number("dropPenalty", 0, v -> v >= 0, ">= 0");
            double deadline = y.duration("deadline", target > 0 ? target : 1, v -> v > 0, "> 0");
            double pre = y.duration("preDeadline", deadline / 2, v -> v >= 0, ">= 0");
            y.finish();
            if (pre > deadline) {
                y.error("preDeadline", Durations.format(pre) + " (expected: <= deadline, " + Durations.format(deadline) + ")");
            }
            if (shape == ClassConfig.YieldSpec.Shape.HYBRID && penalty > full) {
                // 002 §2.2: a yield function is non-increasing; hybrid falls from full to dropPenalty at the deadline
                y.error("dropPenalty", penalty + " (expected: <= value, " + full + ", for a hybrid yield)");
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
        ClassConfig.QueueConfig qd = ClassConfig.QueueConfig.DEFAULT;
        ClassConfig.QueueConfig queue = new ClassConfig.QueueConfig(
                q.integer("limit", qd.limit(), v -> v >= 0, ">= 0"),
                q.duration("timeout", qd.timeoutSeconds(), v -> v > 0, "> 0"));
        q.finish();
        boolean isDefault = c.bool("default", false);
        double think = c.duration("thinkTime", Double.POSITIVE_INFINITY, v -> v >= 0, ">= 0");
        c.finish();
        if (name == null) {
            return null;
        }
        return new ClassConfig(name, target, utility, yield, weight, minShare, match, queue, isDefault, think);
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
        String sourceText = m.string("source", null);
        Cidr source = null;
        if (sourceText != null) {
            try {
                source = Cidr.parse(sourceText);
            } catch (IllegalArgumentException e) {
                m.error("source", e.getMessage());
            }
        }
        m.finish();
        return new MatchRule(headers, path, method, host, source);
    }

    private static GatewayHttpConfig readGatewayHttp(Node g) {
        List<Cidr> trusted = new ArrayList<>();
        JsonNode raw = g.rawValue("trustedProxies");
        if (raw != null && !raw.isNull()) {
            if (!raw.isArray()) {
                g.error("trustedProxies", raw + " (expected: a list of IPv4 or IPv6 CIDR blocks, e.g. [10.0.0.0/8, fd00::/8])");
            } else {
                for (int i = 0; i < raw.size(); i++) {
                    JsonNode n = raw.get(i);
                    try {
                        if (!n.isTextual()) {
                            throw new IllegalArgumentException(n + " (expected: an IPv4 or IPv6 CIDR block as a string)");
                        }
                        trusted.add(Cidr.parse(n.asText()));
                    } catch (IllegalArgumentException e) {
                        g.error("trustedProxies[" + i + "]", e.getMessage());
                    }
                }
            }
        }
        Node a = g.object("accessLog");
        GatewayHttpConfig.AccessLog accessLog = GatewayHttpConfig.AccessLog.OFF;
        if (g.has("accessLog")) {
            String path = a.require("path") ? a.string("path", null) : null;
            if (path != null && path.isBlank()) {
                a.error("path", "an empty string (expected: a file path)");
                path = null;
            }
            GatewayHttpConfig.AccessLog.Format format = a.choice("format", GatewayHttpConfig.AccessLog.Format.class,
                    GatewayHttpConfig.AccessLog.Format.COMBINED);
            long maxFileBytes = a.bytes("maxFileSize", 100L << 20, 1024);
            int maxFiles = a.integer("maxFiles", 10, v -> v >= 1 && v <= 1000, "1..1000");
            if (path != null && format != null) {
                accessLog = new GatewayHttpConfig.AccessLog(path, format, Math.max(1024, maxFileBytes),
                        Math.max(1, Math.min(1000, maxFiles)));
            }
        }
        a.finish();
        int threads = g.integer("threads", 0, v -> v >= 0 && v <= GatewayHttpConfig.MAX_THREADS,
                "0.." + GatewayHttpConfig.MAX_THREADS + ", 0 for one per core");
        GatewayHttpConfig.Transport transport = g.choice("transport", GatewayHttpConfig.Transport.class,
                GatewayHttpConfig.Transport.AUTO);
        g.finish();
        return new GatewayHttpConfig(trusted, accessLog, Math.max(0, Math.min(GatewayHttpConfig.MAX_THREADS, threads)),
                transport == null ? GatewayHttpConfig.Transport.AUTO : transport);
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
        int concurrency = ServerConfig.DEFAULT_CONCURRENCY;
        boolean auto = false;
        if (s.has("concurrency")) {
            String raw = s.string("concurrency", Integer.toString(ServerConfig.DEFAULT_CONCURRENCY));
            if ("auto".equals(raw)) {
                auto = true;
                concurrency = ServerConfig.DEFAULT_CONCURRENCY;
            } else {
                concurrency = s.integer("concurrency", ServerConfig.DEFAULT_CONCURRENCY, v -> v >= 1, ">= 1, or auto");
            }
        }
        Node pw = s.object("power");
        ServerConfig.PowerDraw pd = ServerConfig.PowerDraw.DEFAULT;
        ServerConfig.PowerDraw power = new ServerConfig.PowerDraw(
                pw.number("off", pd.offWatts(), v -> v >= 0, ">= 0"),
                pw.number("boot", pd.bootWatts(), v -> v >= 0, ">= 0"),
                pw.number("idle", pd.idleWatts(), v -> v >= 0, ">= 0"),
                pw.number("busy", pd.busyWatts(), v -> v >= 0, ">= 0"));
        pw.finish();
        URI admin = s.has("adminUrl") ? uri(s, "adminUrl", s.string("adminUrl", null)) : null;
        URI load = s.has("loadUrl") ? uri(s, "loadUrl", s.string("loadUrl", null)) : null;
        Node sim = s.object("sim");
        ServerConfig.SimSpec sd = ServerConfig.SimSpec.DEFAULT;
        double meanDemand = sim.duration("meanDemand", sd.meanDemandSeconds(), v -> v > 0, "> 0");
        Node dem = sim.object("demand");
        Map<String, Double> demand = new LinkedHashMap<>();
        for (String cls : classNames) {
            if (dem.has(cls)) {
                demand.put(cls, dem.duration(cls, meanDemand, v -> v > 0, "> 0"));
            }
        }
        dem.finish();
        ServerConfig.SimSpec spec = new ServerConfig.SimSpec(
                sim.integer("cores", sd.cores(), v -> v >= 1, ">= 1"),
                meanDemand,
                demand,
                sim.number("ioFraction", sd.ioFraction(), v -> v >= 0 && v < 1, "0 <= x < 1"),
                sim.number("overhead", sd.overhead(), v -> v >= 0, ">= 0"),
                sim.integer("knee", sd.knee(), v -> v >= 1, ">= 1"));
        sim.finish();
        Node cc = s.object("concurrencyControl");
        ServerConfig.ConcurrencyControl d = ServerConfig.ConcurrencyControl.DEFAULT;
        ServerConfig.ConcurrencyControl control = new ServerConfig.ConcurrencyControl(
                cc.choice("method", ServerConfig.ConcurrencyControl.Method.class, d.method()),
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
        ServerConfig.HealthCheck health = s.has("health") ? readHealth(s.object("health")) : ServerConfig.HealthCheck.OFF;
        s.finish();
        if (id == null || url == null) {
            return null;
        }
        return new ServerConfig(id, url, concurrency, auto, power, admin, spec, control, health, load);
    }

    /** {@code control.liu}: 001's gains, each checked with its path ({@code control.liu.pi.kp}). */
    private static ControlConfig.Liu readLiu(Node l) {
        ControlConfig.Liu d = ControlConfig.Liu.DEFAULT;
        double k = l.number("k", d.k(), v -> v >= 0 && v <= 1000, "0..1000");
        Node pi = l.object("pi");
        double kp = pi.number("kp", d.kp(), v -> v >= 0 && v <= 1000, "0..1000");
        double ki = pi.number("ki", d.ki(), v -> v >= 0 && v <= 1000, "0..1000");
        pi.finish();
        l.finish();
        return new ControlConfig.Liu(k, kp, ki);   // a bad value was reported and replaced by its default
    }

    private static DispatchConfig.Ejection readEjection(Node e) {
        DispatchConfig.Ejection d = DispatchConfig.Ejection.DEFAULT;
        int threshold = e.integer("threshold", d.threshold(), v -> v >= 1 && v <= 1000, "1..1000");
        double base = e.duration("baseBackoff", d.baseBackoffSeconds(), v -> v > 0, "> 0");
        double max = e.duration("maxBackoff", Math.max(d.maxBackoffSeconds(), base), v -> v > 0, "> 0");
        e.finish();
        if (max < base) {
            e.error("maxBackoff", Durations.format(max) + " (expected: >= dispatch.ejection.baseBackoff, "
                    + Durations.format(base) + ")");
        }
        return new DispatchConfig.Ejection(threshold, base, Math.max(max, base)); // bad values fell back to defaults
    }

    private static DispatchConfig.Adaptive readAdaptive(Node a) {
        DispatchConfig.Adaptive d = DispatchConfig.Adaptive.DEFAULT;
        double ratio = a.number("dropRatio", d.dropRatio(), v -> v >= 0 && v < 1, "0 <= x < 1");
        double window = a.duration("window", d.windowSeconds(), v -> v > 0, "> 0");
        a.finish();
        return new DispatchConfig.Adaptive(ratio, window);
    }

    private static ServerConfig.HealthCheck readHealth(Node h) {
        String path = null;
        if (h.require("path")) {
            path = h.string("path", null);
            if (path != null && !path.startsWith("/")) {
                h.error("path", path + " (expected: a path starting with /)");
                path = null;
            }
        }
        double interval = h.duration("interval", 5, v -> v > 0, "> 0");
        double timeout = h.duration("timeout", Math.min(1, interval > 0 ? interval : 1), v -> v > 0, "> 0");
        h.finish();
        if (interval > 0 && timeout > interval) {
            h.error("timeout", Durations.format(timeout) + " (expected: <= interval, " + Durations.format(interval) + ")");
        }
        if (path == null || !(interval > 0) || !(timeout > 0) || timeout > interval) {
            return ServerConfig.HealthCheck.OFF; // the errors above fail the load
        }
        return new ServerConfig.HealthCheck(path, interval, timeout);
    }

    private static URI uri(Node n, String key, String text) {
        if (text == null) {
            return null;
        }
        try {
            URI u = new URI(text);
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null
                    || u.getPort() < 0) {
                n.error(key, text + " (expected: http://host:port or https://host:port)");
                return null;
            }
            return u;
        } catch (URISyntaxException e) {
            n.error(key, text + " (expected: http://host:port or https://host:port)");
            return null;
        }
    }

    /** {@code gateways[].tls}: absent is {@link TlsConfig#OFF}. Files must exist and be readable. */
    private static TlsConfig readTls(Node g) {
        if (!g.has("tls")) {
            return TlsConfig.OFF;
        }
        Node t = g.object("tls");
        Path cert = pemFile(t, "cert", true);
        Path key = pemFile(t, "key", true);
        List<String> protocols = new ArrayList<>();
        JsonNode raw = t.rawValue("protocols");
        if (raw != null && !raw.isNull()) {
            if (!raw.isArray() || raw.isEmpty()) {
                t.error("protocols", raw + " (expected: a non-empty list of " + TlsConfig.KNOWN_PROTOCOLS + ")");
            } else {
                for (int i = 0; i < raw.size(); i++) {
                    String p = raw.get(i).asText();
                    if (!raw.get(i).isTextual() || !TlsConfig.KNOWN_PROTOCOLS.contains(p)) {
                        t.error("protocols[" + i + "]", raw.get(i) + " (expected: one of " + TlsConfig.KNOWN_PROTOCOLS + ")");
                    } else {
                        protocols.add(p);
                    }
                }
            }
        }
        java.util.Map<String, TlsConfig.CertKey> sni = new java.util.LinkedHashMap<>();
        t.objectMap("sni").forEach((name, n) -> {
            Path c = pemFile(n, "cert", true);
            Path k = pemFile(n, "key", true);
            n.finish();
            String host = name.toLowerCase(java.util.Locale.ROOT);
            if (!host.matches("(\\*\\.)?[a-z0-9]([a-z0-9.-]*[a-z0-9])?")) {
                t.error("sni." + name, "(expected: a host name, or *.domain)");
            } else if (c != null && k != null) {
                sni.put(host, new TlsConfig.CertKey(c, k));
            }
        });
        t.finish();
        if (cert == null || key == null) {
            return TlsConfig.OFF; // the errors above fail the load
        }
        return new TlsConfig(cert, key, protocols, sni);
    }

    /** {@code dispatch.tls}: {@code ca} (PEM, default the JVM's trust store) and {@code verify} (default true). */
    private static BackendTls readBackendTls(Node t) {
        Path ca = pemFile(t, "ca", false);
        boolean verify = t.bool("verify", true);
        t.finish();
        return new BackendTls(ca, verify);
    }

    /** A PEM file named by {@code key}: it must exist and be readable. Null when absent (an error if required). */
    private static Path pemFile(Node n, String key, boolean required) {
        if (required ? !n.require(key) : !n.has(key)) {
            return null;
        }
        String text = n.string(key, null);
        if (text == null) {
            return null;
        }
        Path p = Path.of(text);
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            n.error(key, text + " (expected: a readable PEM file)");
            return null;
        }
        return p;
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
