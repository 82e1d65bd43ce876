package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.bool;
import static org.arbiter.common.config.ConfigKey.choice;
import static org.arbiter.common.config.ConfigKey.duration;
import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.shaped;
import static org.arbiter.common.config.ConfigKey.string;

import com.fasterxml.jackson.databind.JsonNode;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The {@code gateways} list, declared once: each gateway's id, addresses, drain, admin limits, PROXY
 * protocol, HTTP/2 and TLS, with the rules across gateways (unique ids and ports).
 *
 * <p>Stateless and thread-safe.
 */
final class GatewaysSection {

    private GatewaysSection() {
    }

    static final ConfigKey<GatewayConfig, String> ID = string("id", GatewayConfig::id, null, "the gateway, as statistics and allocations name it")
            .docDefault("— (required)").docRule("unique");
    static final ConfigKey<GatewayConfig, String> HOST = string("host", GatewayConfig::host, "127.0.0.1",
            "address to bind").docDefault("127.0.0.1").docRule("an address");
    static final ConfigKey<GatewayConfig, Integer> PORT = integer("port", GatewayConfig::port, 8080,
            v -> v >= 0 && v <= 65535, "0..65535", "the request port").docRule("0..65535, unique (0 = any free port)");
    static final ConfigKey<GatewayConfig, Integer> ADMIN_PORT = integer("adminPort", GatewayConfig::adminPort, 8180,
            v -> v >= 0 && v <= 65535, "0..65535",
            "`/health`, `/ready`, `/allocation`, `/stats`, `/metrics` (Prometheus text); `POST /drain`, `POST /reload` "
                    + "with the token of `gateway.adminTokenFile`")
            .docDefault("port + 100").docRule("0..65535, unique");
    static final ConfigKey<GatewayConfig, String> ADMIN_HOST = string("adminHost", GatewayConfig::adminHost, "127.0.0.1",
            "address the admin port binds; not `host`: set it (e.g. to `0.0.0.0`) only when a health checker or "
                    + "scraper on another machine must reach `/ready` or `/metrics`")
            .docRule("an address");
    static final ConfigKey<GatewayConfig, Double> DRAIN_TIMEOUT = duration("drainTimeout",
            GatewayConfig::drainTimeoutSeconds, 30, v -> v >= 0 && v <= 3600, "0..1h",
            "on SIGTERM or `POST /drain`, queued and in-flight requests are answered normally for this long; what is "
                    + "left then gets 503 `draining` with `Retry-After: 1` ([gateway.md](gateway.md#drain-and-readiness))");
    static final ConfigKey<GatewayConfig, Double> STARTUP_GRACE = duration("startupGrace",
            GatewayConfig::startupGraceSeconds, 10, v -> v >= 0 && v <= 3600, "0..1h",
            "with a Kafka bootstrap, `/ready` is 503 `awaitingAllocation` until the GRM's first allocation is applied, "
                    + "for at most this long after both ports listen; then ready on the configured allocation. "
                    + "Standalone gateways are ready at once");
    static final ConfigKey<GatewayConfig, Integer> ADMIN_MAX_CONNECTIONS = integer("adminMaxConnections",
            GatewayConfig::adminMaxConnections, 256, v -> v >= 1 && v <= 65536, "1..65536",
            "open admin connections beyond this get 503 and are closed at once; the admin port also applies "
                    + "`dispatch.maxHeaderBytes` (431) and `dispatch.idleTimeout` (connections without a complete "
                    + "request are closed)");
    static final ConfigKey<GatewayConfig, Double> DRAIN_DELAY = duration("drainDelay", GatewayConfig::drainDelaySeconds,
            0, v -> v >= 0 && v <= 3600, "0..1h",
            "on a drain, `/ready` turns 503 at once but the request port keeps accepting and serving for this long "
                    + "before it closes, so an L4 switch's health check takes the gateway out before it refuses "
                    + "connections; behind `arbiter switch haproxy` it must be ≥ 3s "
                    + "([gateway.md](gateway.md#drain-and-readiness))");
    static final ConfigKey<GatewayConfig, Boolean> PROXY_PROTOCOL = bool("proxyProtocol", GatewayConfig::proxyProtocol,
            false, "the request port expects a PROXY protocol v1 or v2 header from peers in `gateway.trustedProxies` "
                    + "and takes the client's address from it; a trusted peer without one, or any other peer with one, "
                    + "is closed ([gateway.md](gateway.md#proxy-protocol-behind-an-l4-switch))")
            .docRule("true, false; true needs a non-empty `gateway.trustedProxies` (`gateways[1].proxyProtocol: true "
                    + "(expected: gateway.trustedProxies to list the L4 switch's addresses; ...)`)");
    static final ConfigKey<GatewayConfig, Object> TLS_CERT_KEY = shaped("tls.cert`, `tls.key", "none (plain HTTP)",
            "readable PEM files (the key PKCS#8, as `openssl req -nodes` and `openssl genpkey` write it); paths "
                    + "relative to the working directory",
            "TLS termination on the request port with this certificate chain ([gateway.md](gateway.md#tls)). Error: "
                    + "`gateways[0].tls.cert: /etc/x.pem (expected: a readable PEM file)`");
    static final ConfigKey<GatewayConfig, Object> TLS_PROTOCOLS = shaped("tls.protocols",
            "the provider's (TLSv1.3, TLSv1.2)", "non-empty list of `TLSv1.3`, `TLSv1.2`", "the protocol versions offered");
    static final ConfigKey<GatewayConfig, Object> TLS_SNI = shaped("tls.sni", "none",
            "mapping of host name (or `*.domain`) to `{cert, key}`",
            "another certificate for clients that ask for that name by SNI; other names get `tls.cert`");
    static final ConfigKey<GatewayConfig, Boolean> HTTP2 = bool("http2", GatewayConfig::http2, true,
            "HTTP/2 on the request port: `h2` by ALPN with `tls`, `h2c` by prior knowledge or `Upgrade: h2c` without; "
                    + "false: HTTP/1.1 only (an HTTP/2 preface gets 505) ([gateway.md](gateway.md#http2))");

    static final ConfigKey<GatewayConfig, GatewayConfig.Kind> KIND = choice("kind", GatewayConfig::kind,
            GatewayConfig.Kind.class, GatewayConfig.Kind.ARBITER,
            "what runs as this gateway: `arbiter` (`arbiter gateway`), or `haproxy` — an HAProxy 2.6+ process whose "
                    + "configuration `arbiter haproxy config` writes and whose caps `arbiter agent haproxy` sets "
                    + "([operations.md](operations.md#driving-haproxy)); the GRM treats both alike");

    static final List<ConfigKey<GatewayConfig, ?>> KEYS = List.of(ID, KIND, HOST, PORT, ADMIN_PORT, ADMIN_HOST, DRAIN_TIMEOUT,
            STARTUP_GRACE, ADMIN_MAX_CONNECTIONS, DRAIN_DELAY, PROXY_PROTOCOL, HTTP2, TLS_CERT_KEY, TLS_PROTOCOLS,
            TLS_SNI);

    /** The gateways; none given is one default gateway. {@code proxyProtocolAt} collects the entries that ask for PROXY. */
    static List<GatewayConfig> read(Node root, List<Node> proxyProtocolAt) {
        List<GatewayConfig> gateways = new ArrayList<>();
        Set<String> ids = new HashSet<>();
        Set<Integer> ports = new HashSet<>();
        for (Node g : root.list("gateways")) {
            String id = ConfigValues.id(g, ID.leaf());
            GatewayConfig.Kind kind = KIND.read(g);
            String host = HOST.read(g);
            int port = PORT.read(g);
            int adminPort = ADMIN_PORT.read(g, GatewayConfig.defaultAdminPort(port));
            String adminHost = ADMIN_HOST.read(g);
            double drainTimeout = DRAIN_TIMEOUT.read(g);
            double startupGrace = STARTUP_GRACE.read(g);
            int adminMaxConnections = ADMIN_MAX_CONNECTIONS.read(g);
            double drainDelay = DRAIN_DELAY.read(g);
            boolean proxyProtocol = PROXY_PROTOCOL.read(g);
            if (proxyProtocol) {
                proxyProtocolAt.add(g);
            }
            TlsConfig tls = readTls(g);
            boolean http2 = HTTP2.read(g);
            g.finish();
            if (id != null) {
                if (!ids.add(id)) {
                    g.error("id", id + " (expected: an id no other gateway has)");
                }
                if (port != 0 && !ports.add(port)) {
                    g.error("port", port + " (expected: a port no other gateway uses)");
                }
                if (adminPort != 0 && !ports.add(adminPort)) {
                    g.error("adminPort", adminPort + " (expected: a port no other gateway uses)");
                }
                gateways.add(new GatewayConfig(id, host, port, adminPort, drainTimeout, startupGrace,
                        adminMaxConnections, drainDelay, proxyProtocol, tls, http2,
                        adminHost == null ? ADMIN_HOST.defaultValue() : adminHost, kind));
            }
        }
        if (gateways.isEmpty() && !root.has("gateways")) {
            gateways.add(GatewayConfig.defaultGateway());
        }
        return gateways;
    }

    /** {@code gateways[].tls}: absent is {@link TlsConfig#OFF}. Files must exist and be readable. */
    private static TlsConfig readTls(Node g) {
        if (!g.has("tls")) {
            return TlsConfig.OFF;
        }
        Node t = g.object("tls");
        Path cert = ConfigValues.pemFile(t, "cert", true);
        Path key = ConfigValues.pemFile(t, "key", true);
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
        Map<String, TlsConfig.CertKey> sni = new LinkedHashMap<>();
        t.objectMap("sni").forEach((name, n) -> {
            Path c = ConfigValues.pemFile(n, "cert", true);
            Path k = ConfigValues.pemFile(n, "key", true);
            n.finish();
            String host = name.toLowerCase(Locale.ROOT);
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

    /** Each gateway's keys against their rules, and unique ids and ports. */
    static void check(List<GatewayConfig> gateways, List<String> errors) {
        Set<String> ids = new HashSet<>();
        Set<Integer> ports = new HashSet<>();
        for (int i = 0; i < gateways.size(); i++) {
            GatewayConfig g = gateways.get(i);
            String path = "gateways[" + i + "]";
            Sections.check(g, path, KEYS, errors);
            if (!ids.add(g.id())) {
                errors.add(path + ".id: " + g.id() + " (expected: an id no other gateway has)");
            }
            if (g.port() != 0 && !ports.add(g.port())) {
                errors.add(path + ".port: " + g.port() + " (expected: a port no other gateway uses)");
            }
            if (g.adminPort() != 0 && !ports.add(g.adminPort())) {
                errors.add(path + ".adminPort: " + g.adminPort() + " (expected: a port no other gateway uses)");
            }
        }
    }

    static Map<String, Object> write(GatewayConfig g) {
        Map<String, Object> tree = Sections.write(g, KEYS);
        if (g.tls().enabled()) {
            Map<String, Object> tm = new LinkedHashMap<>();
            tm.put("cert", g.tls().cert().toString());
            tm.put("key", g.tls().key().toString());
            if (!g.tls().protocols().isEmpty()) {
                tm.put("protocols", g.tls().protocols());
            }
            if (!g.tls().sni().isEmpty()) {
                Map<String, Object> sni = new TreeMap<>();
                g.tls().sni().forEach((h, ck) -> {
                    Map<String, Object> m = new LinkedHashMap<>();
                    m.put("cert", ck.cert().toString());
                    m.put("key", ck.key().toString());
                    sni.put(h, m);
                });
                tm.put("sni", sni);
            }
            tree.put("tls", tm);
        }
        return tree;
    }
}
