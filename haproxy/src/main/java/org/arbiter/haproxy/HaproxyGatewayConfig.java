package org.arbiter.haproxy;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Pattern;
import org.arbiter.common.config.BackendTls;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.MatchRule;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.PoolAllocations;
import org.arbiter.gateway.allocation.ConfiguredAllocation;

/*
 * HAProxy 2.6 as an Arbiter gateway (gateways[].kind: haproxy): the configuration file that
 * `arbiter haproxy config` writes and `arbiter agent haproxy` then drives through the Runtime API.
 *
 * Shape:    frontend gateway.<id> on the gateway's host:port; with proxyProtocol: true, accept-proxy and
 *           only peers in gateway.trustedProxies may connect (Arbiter's gateway would also serve a direct
 *           client without a PROXY header; here every connection must come through the switch);
 *           one backend class.<c> per class in file order (HaproxyNames), balance leastconn, one server
 *           line per server the class may use (every server; with pools: the servers of the class's pool).
 * Classify: as RuleClassifier, first match wins in file order, every condition of a rule must hold.
 *           Each condition is a named ACL <class>.<kind>, and the rule is `use_backend class.<c> if` all
 *           of them; unmatched requests go to the default class (default_backend). The conditions:
 *             header exact    req.fhdr(<name>,1) -m str "<value>"   (the first occurrence, commas kept;
 *                                                                    an empty value: -m len 0)
 *             header regex:   req.fhdr(<name>,1) -m reg "^(?:<re>)$" (the whole value, as Matcher.matches)
 *             path prefix     path -m beg ["-i"] "<prefix>"          (-i with caseInsensitive)
 *             method          method -i <METHOD>
 *             host            req.hdr(host,1) -m reg -i "^<host, quoted>(:[0-9]+)?$" (port ignored)
 *             source          src <cidr>                             (the PROXY header's address with accept-proxy)
 * Caps:     the configured allocation (ConfiguredAllocation, shared with the file's other gateways),
 *           per pool (PoolAllocations.byPool: each pool's weights of its own classes and caps of its own
 *           servers) split into per-(class, server) caps N(g,c,s) by CapSplit, written as the agent's
 *           Reconciler sets them at runtime: maxconn N weight min(N, 256), and N = 0 as maxconn 1
 *           weight 0 (HAProxy's maxconn 0 is unlimited; weight 0 takes no new request). The agent
 *           replaces them with the GRM's allocations.
 * Timeouts: timeout connect = dispatch.connectTimeout; timeout server = dispatch.backendTimeout (a server
 *           silent that long: 504); timeout client, http-request and http-keep-alive = dispatch.idleTimeout
 *           (an idle or trickling client connection); timeout tunnel = dispatch.tunnelIdleTimeout (an
 *           upgraded connection); each backend's timeout queue = its class's queue.timeout (503, answered
 *           with Retry-After: 1 as the gateway answers overload); hard-stop-after = the gateway's
 *           drainTimeout (what an old process still serves after a reload or soft stop).
 * Health:   a server with servers[].health gets one check of its own, in backend health.<s> (GET path
 *           every interval, timeout, fall = dispatch.ejection.threshold, rise 1), which every class
 *           backend's server <s> tracks: one probe per server as the gateway sends, not one per class,
 *           and each server's own path (HAProxy's httpchk is per backend, and a class backend holds servers
 *           with different paths).
 * TLS:      https servers get ssl verify required with dispatch.tls.ca (or @system-ca), verify none when
 *           dispatch.tls.verify is false, and sni str(<host>) for a host name (HAProxy then checks the
 *           certificate against it). TLS termination on the gateway (gateways[].tls) is not written.
 * Not mapped: queue.limit (HAProxy does not bound a backend's queue), maxBodyBytes, maxHeaderBytes
 *           (HAProxy's tune.bufsize), the X-Forwarded-* rules of gateway.trustedProxies, drainDelay,
 *           the schedulers and balancers other than least-outstanding (leastconn weighted by the caps is
 *           the one HAProxy has).
 * Differs:  paths are matched as HAProxy receives them, without Arbiter's normalisation (HAProxy 2.6's
 *           normalize-uri is experimental); regex: runs in PCRE2, not java.util.regex (the common syntax
 *           is the same; haproxy -c refuses what PCRE2 cannot compile); an https server named by an IP
 *           address is verified without a name check (HAProxy checks names against the SNI only).
 * Pure:     text in, text out; no I/O, no clock. Thread-safe (stateless).
 */

/** Writes the HAProxy 2.6 configuration of a gateway of {@code kind: haproxy}; see the note in the source. */
public final class HaproxyGatewayConfig {

    /** HAProxy's largest server weight. */

    /** HAProxy's longest timeout, 2^31 - 1 ms. */
    static final long MAX_TIMEOUT_MILLIS = Integer.MAX_VALUE;

    private static final Pattern HEADER_NAME = Pattern.compile("[A-Za-z0-9_.-]+");
    /** A word HAProxy's parser reads as it is: no quote, backslash, '#', '$', space or control character. */
    private static final Pattern PLAIN_WORD = Pattern.compile("[A-Za-z0-9._~/:@%+,;=\\[\\]-]+");

    private HaproxyGatewayConfig() {
    }

    /**
     * What the cluster file does not say.
     *
     * @param socket    the Runtime API's unix socket ({@code stats socket}), e.g. {@code /run/haproxy/arbiter-g1.sock}
     * @param stateFile HAProxy's {@code server-state-file}, loaded at start so that a reload keeps the agent's settings
     * @param source    the cluster file's path, for the header comment
     */
    public record Options(String socket, String stateFile, String source) {
        public Options {
            requireNonNull(socket, "socket");
            requireNonNull(stateFile, "stateFile");
            requireNonNull(source, "source");
        }
    }

    /** Problems that make the configuration impossible, every one at once (each line: path, value, rule). */
    public static final class Invalid extends Exception {
        private final List<String> errors;

        Invalid(List<String> errors) {
            super(String.join("; ", errors));
            this.errors = List.copyOf(errors);
        }

        /** One line per problem: {@code path: value (expected: rule)}. */
        public List<String> errors() {
            return errors;
        }
    }

    /**
     * The configuration text.
     *
     * @param cluster   the cluster file
     * @param gatewayId the gateway HAProxy serves as ({@code gateways[].id}, {@code kind: haproxy})
     * @param options   the socket, state file and source
     * @throws Invalid naming every problem: an unknown gateway, one not of kind haproxy, TLS termination, a
     *                 request port of 0, a match rule or option HAProxy's configuration cannot carry
     */
    public static String generate(ClusterConfig cluster, String gatewayId, Options options) throws Invalid {
        requireNonNull(cluster, "cluster");
        requireNonNull(gatewayId, "gatewayId");
        requireNonNull(options, "options");
        List<String> errors = new ArrayList<>();
        GatewayConfig gateway = checkGateway(cluster, gatewayId, errors);
        checkLine("--socket", options.socket(), errors);
        checkLine("--state-file", options.stateFile(), errors);
        if (options.socket().isEmpty()) {
            errors.add("--socket: an empty path (expected: the Runtime API socket, e.g. /run/haproxy/arbiter-"
                    + gatewayId + ".sock)");
        }
        if (options.stateFile().isEmpty()) {
            errors.add("--state-file: an empty path (expected: a file, e.g. /var/lib/haproxy/arbiter-" + gatewayId
                    + ".state)");
        }
        for (int i = 0; i < cluster.classes().size(); i++) {
            checkMatch(cluster.classes().get(i).match(), "classes[" + i + "].match", errors);
        }
        for (int i = 0; i < cluster.servers().size(); i++) {
            ServerConfig s = cluster.servers().get(i);
            checkLine("servers[" + i + "].health.path", s.health().path(), errors);
        }
        BackendTls tls = cluster.dispatch().tls();
        if (tls.ca() != null) {
            checkLine("dispatch.tls.ca", tls.ca().toString(), errors);
        }
        if (!errors.isEmpty()) {
            throw new Invalid(errors);
        }
        return write(cluster, gateway, options, caps(cluster, gatewayId));
    }

    /**
     * N(g,c,s) of the configured allocation: per pool, the pool's class weights and server caps split by
     * {@link CapSplit}; every class present, with the servers of its pool.
     */
    static Map<String, Map<String, Integer>> caps(ClusterConfig cluster, String gatewayId) {
        // the stamp is not written: any instant gives the same caps
        Allocation initial = ConfiguredAllocation.of(cluster, gatewayId, false, Instant.EPOCH);
        return CapSplit.of(PoolAllocations.of(cluster, initial).byPool(), cluster);
    }

    // ------------------------------------------------------------------ checks

    private static GatewayConfig checkGateway(ClusterConfig cluster, String id, List<String> errors) {
        Optional<GatewayConfig> found = cluster.gateway(id);
        if (found.isEmpty()) {
            errors.add("--gateway: " + id + " (expected: one of gateways[].id "
                    + cluster.gateways().stream().map(GatewayConfig::id).toList() + ")");
            return null;
        }
        GatewayConfig g = found.get();
        String at = "gateways[" + g.id() + "]";
        if (g.kind() != GatewayConfig.Kind.HAPROXY) {
            errors.add(at + ".kind: " + g.kind() + " (expected: haproxy — arbiter haproxy config writes HAProxy's file"
                    + " for an haproxy gateway)");
        }
        if (g.tls().enabled()) {
            errors.add(at + ".tls.cert: " + g.tls().cert() + " (expected: none for an haproxy gateway — arbiter haproxy"
                    + " config does not write TLS termination; terminate TLS in front of HAProxy, e.g. on the L4"
                    + " switch, and remove " + at + ".tls)");
        }
        if (g.port() == 0) {
            errors.add(at + ".port: 0 (expected: a fixed port — HAProxy binds the port the file names, and clients"
                    + " must know it)");
        }
        checkLine(at + ".host", g.host(), errors);
        return g;
    }

    private static void checkMatch(MatchRule m, String at, List<String> errors) {
        for (Map.Entry<String, String> h : new TreeMap<>(m.headers()).entrySet()) {
            if (!HEADER_NAME.matcher(h.getKey()).matches()) {
                errors.add(at + ".header: " + shown(h.getKey()) + " (expected: a header name of letters, digits, '-',"
                        + " '_' or '.' — the names arbiter haproxy config can write into HAProxy's req.fhdr())");
            }
            checkLine(at + ".header." + shown(h.getKey()), h.getValue(), errors);
        }
        if (m.path() != null) {
            checkLine(at + ".path", m.path(), errors);
        }
        if (m.method() != null) {
            checkLine(at + ".method", m.method(), errors);
        }
        if (m.host() != null) {
            checkLine(at + ".host", m.host(), errors);
        }
    }

    /** A value written into one line of HAProxy's file: no newline or other control character. */
    private static void checkLine(String at, String value, List<String> errors) {
        if (value.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f)) {
            errors.add(at + ": \"" + shown(value) + "\" (expected: no newline or other control character — a value"
                    + " of HAProxy's configuration is one line)");
        }
    }

    /** {@code text} with control characters spelled out, so that an error stays one line. */
    private static String shown(String text) {
        StringBuilder sb = new StringBuilder(text.length());
        for (char ch : text.toCharArray()) {
            switch (ch) {
                case '\n' -> sb.append("\\n");
                case '\r' -> sb.append("\\r");
                case '\t' -> sb.append("\\t");
                default -> {
                    if (ch < 0x20 || ch == 0x7f) {
                        sb.append(String.format("\\u%04x", (int) ch));
                    } else {
                        sb.append(ch);
                    }
                }
            }
        }
        return sb.toString();
    }

    // ------------------------------------------------------------------ writing

    private static String write(ClusterConfig cluster, GatewayConfig g, Options options,
                                Map<String, Map<String, Integer>> caps) {
        DispatchConfig d = cluster.dispatch();
        StringBuilder sb = new StringBuilder(4096);
        sb.append("# HAProxy as Arbiter gateway ").append(g.id()).append(", generated by 'arbiter haproxy config' from ")
                .append(options.source().replaceAll("[\\r\\n]", " ")).append(".\n")
                .append("# Do not edit: regenerate it when the cluster file changes, then reload HAProxy.\n")
                .append("# One backend per traffic class (class.<name>). Each server line's maxconn and weight are the\n")
                .append("# configured allocation's per-(class, server) caps; 'arbiter agent haproxy' sets them at runtime\n")
                .append("# through the stats socket from the GRM's allocations (a cap of 0 is maxconn 1 weight 0).\n")
                .append("# Before a reload, save what the agent set: echo 'show servers state' | socat stdio unix:")
                .append(options.socket()).append(" > ").append(options.stateFile()).append('\n')
                .append('\n');

        sb.append("global\n")
                .append("    # the agent's socket: owner and group may use it (the package's agent runs in the group haproxy)\n")
                .append("    stats socket ").append(word(options.socket()))
                .append(" mode 660 level admin expose-fd listeners\n")
                .append("    stats timeout 30s\n")
                .append("    server-state-file ").append(word(options.stateFile())).append('\n');
        if (g.drainTimeoutSeconds() > 0) {
            sb.append("    # gateways[").append(g.id()).append("].drainTimeout: what an old process still serves after a")
                    .append(" reload or soft stop\n")
                    .append("    hard-stop-after ").append(duration(g.drainTimeoutSeconds())).append('\n');
        }
        sb.append('\n');

        sb.append("defaults\n")
                .append("    mode http\n")
                .append("    option http-keep-alive\n")
                .append("    # dispatch.connectTimeout\n")
                .append("    timeout connect ").append(duration(d.connectTimeoutSeconds())).append('\n')
                .append("    # dispatch.backendTimeout: a server silent this long gets the client a 504\n")
                .append("    timeout server ").append(duration(d.backendTimeoutSeconds())).append('\n')
                .append("    # dispatch.idleTimeout: an idle client connection, or one trickling its request\n")
                .append("    timeout client ").append(duration(d.idleTimeoutSeconds())).append('\n')
                .append("    timeout http-request ").append(duration(d.idleTimeoutSeconds())).append('\n')
                .append("    timeout http-keep-alive ").append(duration(d.idleTimeoutSeconds())).append('\n')
                .append("    # dispatch.tunnelIdleTimeout: an upgraded connection (WebSocket) with no byte either way\n")
                .append("    timeout tunnel ").append(duration(d.tunnelIdleTimeoutSeconds())).append('\n')
                .append("    load-server-state-from-file global\n")
                .append('\n');

        sb.append("frontend ").append(HaproxyNames.frontend(g.id())).append('\n')
                .append("    bind ").append(address(g.host())).append(':').append(g.port())
                .append(g.proxyProtocol() ? " accept-proxy" : "").append('\n');
        if (g.proxyProtocol() && !cluster.gatewayHttp().trustedProxies().isEmpty()) {
            // tcp-request connection rules see the TCP peer, not the PROXY header's address
            sb.append("    # gateway.trustedProxies: only they may send the PROXY header every connection must carry\n")
                    .append("    tcp-request connection reject unless { src");
            cluster.gatewayHttp().trustedProxies().forEach(cidr -> sb.append(' ').append(cidr));
            sb.append(" }\n");
        }
        List<ClassConfig> classes = cluster.classes();
        for (int i = 0; i < classes.size(); i++) {
            ClassConfig c = classes.get(i);
            if (c.match().isEmpty()) {
                continue;
            }
            sb.append("    # classes[").append(i).append("] ").append(c.name()).append(": every condition must hold\n");
            List<String> acls = acls(c.name(), c.match(), sb);
            sb.append("    use_backend ").append(HaproxyNames.backend(c.name())).append(" if ")
                    .append(String.join(" ", acls)).append('\n');
        }
        sb.append("    default_backend ").append(HaproxyNames.backend(cluster.defaultClass().name())).append('\n')
                .append("    # overload (a queue timeout, no server): 503, with Retry-After as Arbiter's gateway answers\n")
                .append("    http-after-response set-header Retry-After 1 if { status 503 }\n");

        Set<String> used = new LinkedHashSet<>();
        for (ClassConfig c : classes) {
            Map<String, Integer> row = caps.getOrDefault(c.name(), Map.of());
            sb.append('\n')
                    .append("backend ").append(HaproxyNames.backend(c.name())).append('\n')
                    .append("    balance leastconn\n")
                    .append("    timeout queue ").append(duration(c.queue().timeoutSeconds())).append('\n');
            if (d.classHeader()) {
                sb.append("    http-after-response set-header X-Arbiter-Class ").append(c.name()).append('\n');
            }
            for (ServerConfig s : cluster.servers()) {
                Integer cap = row.get(s.id());
                if (cap == null) {
                    continue; // another pool's server
                }
                used.add(s.id());
                Reconciler.Setting initial = Reconciler.setting(cap, 1); // drain states are the agent's
                sb.append("    server ").append(HaproxyNames.server(s.id())).append(' ').append(target(s.url()))
                        .append(" maxconn ").append(initial.maxconn()).append(" weight ").append(initial.weight())
                        .append(ssl(s.url(), d.tls()));
                if (s.health().enabled()) {
                    sb.append(" track ").append(HaproxyNames.health(s.id())).append('/').append(HaproxyNames.server(s.id()));
                }
                sb.append('\n');
            }
        }

        for (int i = 0; i < cluster.servers().size(); i++) {
            ServerConfig s = cluster.servers().get(i);
            ServerConfig.HealthCheck h = s.health();
            if (!h.enabled() || !used.contains(s.id())) {
                continue;
            }
            sb.append('\n')
                    .append("backend ").append(HaproxyNames.health(s.id())).append('\n')
                    .append("    # servers[").append(i).append("].health, tracked by ").append(s.id())
                    .append(" in every class backend; fall = dispatch.ejection.threshold\n")
                    .append("    option httpchk GET ").append(word(h.path())).append(" HTTP/1.1\n")
                    .append("    http-check send hdr Host ").append(word(target(s.url()))).append('\n')
                    .append("    timeout check ").append(duration(h.timeoutSeconds())).append('\n')
                    .append("    server ").append(HaproxyNames.server(s.id())).append(' ').append(target(s.url()))
                    .append(" check inter ").append(duration(h.intervalSeconds()))
                    .append(" fall ").append(d.ejection().threshold()).append(" rise 1")
                    .append(ssl(s.url(), d.tls())).append('\n');
        }
        return sb.toString();
    }

    /** Writes the ACL lines of one rule into {@code sb}; returns their names (all must hold). */
    private static List<String> acls(String className, MatchRule m, StringBuilder sb) {
        List<String> names = new ArrayList<>();
        int n = 0;
        for (Map.Entry<String, String> h : new TreeMap<>(m.headers()).entrySet()) {
            String name = className + ".header." + n++;
            String v = h.getValue();
            String fetch = "req.fhdr(" + h.getKey() + ",1)";
            if (v.startsWith("regex:")) {
                acl(sb, name, fetch + " -m reg " + quoted("^(?:" + v.substring("regex:".length()) + ")$"));
            } else if (v.isEmpty()) {
                acl(sb, name, fetch + " -m len 0"); // HAProxy drops an empty -m str pattern
            } else {
                acl(sb, name, fetch + " -m str " + (v.startsWith("-") ? "-- " : "") + quoted(v)); // "--": not a flag
            }
            names.add(name);
        }
        if (m.path() != null) {
            String name = className + ".path";
            acl(sb, name, "path -m beg " + (m.caseInsensitive() ? "-i " : "") + quoted(m.path()));
            names.add(name);
        }
        if (m.method() != null) {
            String name = className + ".method";
            acl(sb, name, "method -i " + m.method().toUpperCase(Locale.ROOT));
            names.add(name);
        }
        if (m.host() != null) {
            String name = className + ".host";
            acl(sb, name, "req.hdr(host,1) -m reg -i " + quoted("^" + regexLiteral(m.host()) + "(:[0-9]+)?$"));
            names.add(name);
        }
        if (m.source() != null) {
            String name = className + ".source";
            acl(sb, name, "src " + m.source());
            names.add(name);
        }
        return names;
    }

    private static void acl(StringBuilder sb, String name, String criterion) {
        sb.append("    acl ").append(name).append(' ').append(criterion).append('\n');
    }

    /** The server options for an https server: verified TLS as dispatch.tls says; nothing for http. */
    private static String ssl(URI url, BackendTls tls) {
        if (!"https".equalsIgnoreCase(url.getScheme())) {
            return "";
        }
        if (!tls.verify()) {
            return " ssl verify none";
        }
        String host = url.getHost();
        boolean name = !host.startsWith("[") && !host.matches("[0-9.]+");
        return " ssl verify required ca-file " + (tls.ca() == null ? "@system-ca" : word(tls.ca().toString()))
                + (name ? " sni str(" + host + ")" : "");
    }

    /**
     * {@code host:port} of a server URL (the scheme's port when none is given): the server line's address, and
     * the Host header the gateway's probe sends.
     */
    private static String target(URI url) {
        return url.getHost() + ':' + port(url);
    }

    private static int port(URI url) {
        return url.getPort() > 0 ? url.getPort() : "https".equalsIgnoreCase(url.getScheme()) ? 443 : 80;
    }

    private static String address(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }

    /** {@code text} as one word of HAProxy's configuration: as it is when plain, else double-quoted. */
    static String word(String text) {
        return PLAIN_WORD.matcher(text).matches() ? text : quoted(text);
    }

    /**
     * {@code text} in double quotes, with the characters HAProxy interprets there escaped: backslash, double
     * quote and '$' (environment variables).
     */
    static String quoted(String text) {
        StringBuilder sb = new StringBuilder(text.length() + 2).append('"');
        for (char ch : text.toCharArray()) {
            if (ch == '\\' || ch == '"' || ch == '$') {
                sb.append('\\');
            }
            sb.append(ch);
        }
        return sb.append('"').toString();
    }

    /** {@code text} as a PCRE literal: every character but letters and digits escaped. */
    private static String regexLiteral(String text) {
        StringBuilder sb = new StringBuilder(text.length() * 2);
        for (char ch : text.toCharArray()) {
            if (!Character.isLetterOrDigit(ch) && ch < 0x80) {
                sb.append('\\');
            }
            sb.append(ch);
        }
        return sb.toString();
    }

    /**
     * An HAProxy duration: whole seconds as {@code Ns}, anything else rounded up to whole milliseconds
     * ({@code Nms}, at least 1), at most HAProxy's 2^31 - 1 ms.
     */
    static String duration(double seconds) {
        double millis = Math.ceil(seconds * 1000);
        if (millis >= MAX_TIMEOUT_MILLIS) {
            return MAX_TIMEOUT_MILLIS + "ms";
        }
        if (seconds == Math.rint(seconds) && seconds >= 1) {
            return (long) seconds + "s";
        }
        return Math.max(1, (long) millis) + "ms";
    }
}
