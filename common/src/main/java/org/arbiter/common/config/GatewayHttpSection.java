package org.arbiter.common.config;

import static org.arbiter.common.config.ConfigKey.bytes;
import static org.arbiter.common.config.ConfigKey.choice;
import static org.arbiter.common.config.ConfigKey.integer;
import static org.arbiter.common.config.ConfigKey.shaped;
import static org.arbiter.common.config.ConfigKey.string;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The {@code gateway} section, declared once: what every gateway's HTTP front end shares (trusted
 * proxies, access log, event loops and transport, the admin token file).
 *
 * <p>Stateless and thread-safe.
 */
final class GatewayHttpSection {

    private GatewayHttpSection() {
    }

    static final ConfigKey<GatewayHttpConfig, Object> TRUSTED_PROXIES = shaped("trustedProxies", "`[]`",
            "list of IPv4 / IPv6 addresses or CIDR blocks (`10.0.0.0/8`, `192.168.1.7`, `fd00::/8`, `::1`); literals "
                    + "only, never a host name; prefix 0..32 / 0..128",
            "peers whose `X-Forwarded-For` is appended to and whose `X-Forwarded-Proto` / `-Host` / `Forwarded` are "
                    + "kept; from every other peer they are replaced (docs/gateway.md \"Forwarded headers\"). On a "
                    + "listener with `gateways[].proxyProtocol`, also the only peers whose PROXY header is believed "
                    + "(the L4 switch)");
    static final ConfigKey<GatewayHttpConfig, String> ACCESS_LOG_PATH = string("accessLog.path",
            (GatewayHttpConfig h) -> h.accessLog().path(), null, "the access log file").docDefault("none (no access log)")
            .docRule("required when `accessLog` is given; `{gateway}` is replaced by the gateway id");
    static final ConfigKey<GatewayHttpConfig, GatewayHttpConfig.AccessLog.Format> ACCESS_LOG_FORMAT = choice(
            "accessLog.format", (GatewayHttpConfig h) -> h.accessLog().format(), GatewayHttpConfig.AccessLog.Format.class,
            GatewayHttpConfig.AccessLog.Format.COMBINED, "line format (docs/gateway.md \"Access log\")");
    static final ConfigKey<GatewayHttpConfig, Long> ACCESS_LOG_MAX_FILE_SIZE = bytes("accessLog.maxFileSize",
            (GatewayHttpConfig h) -> h.accessLog().maxFileBytes(), 100L << 20, 1024, "the file is rolled to `path.1` at this size");
    static final ConfigKey<GatewayHttpConfig, Integer> ACCESS_LOG_MAX_FILES = integer("accessLog.maxFiles",
            (GatewayHttpConfig h) -> h.accessLog().maxFiles(), 10, v -> v >= 1 && v <= 1000, "1..1000",
            "rolled files kept (`path.1` … `path.N`)");
    static final ConfigKey<GatewayHttpConfig, Integer> THREADS = integer("threads", GatewayHttpConfig::threads, 0,
            v -> v >= 0 && v <= GatewayHttpConfig.MAX_THREADS, "0.." + GatewayHttpConfig.MAX_THREADS
                    + ", 0 for one per core",
            "the data plane's event loops per gateway process ([gateway](gateway.md#event-loops-and-transport)); "
                    + "several gateways in one JVM (the demo) each get this many")
            .docDefault("0 (one per core)").docRule("0.." + GatewayHttpConfig.MAX_THREADS);
    static final ConfigKey<GatewayHttpConfig, GatewayHttpConfig.Transport> TRANSPORT = choice("transport",
            GatewayHttpConfig::transport, GatewayHttpConfig.Transport.class, GatewayHttpConfig.Transport.AUTO,
            "the event loops' socket transport: `auto` is io_uring where the kernel offers it, else epoll where "
                    + "Netty's native library loads, else NIO; a named native transport that cannot load stops the start with the reason");

    static final ConfigKey<GatewayHttpConfig, String> ADMIN_TOKEN_FILE = string("adminTokenFile",
            GatewayHttpConfig::adminTokenFile, null,
            "the file holding the bearer token that the admin port's mutations (`POST /drain`, `POST /reload`) must "
                    + "send as `Authorization: Bearer <token>`; without it they are refused with 403. Reads stay open. "
                    + "Read when a gateway starts, which refuses to start if the file is readable by group or others, "
                    + "empty, or not one token of at least 16 visible characters "
                    + "([operations](operations.md#admin-port-token-exit-statuses))")
            .docDefault("none (mutations refused)")
            .docRule("a file path; the file: mode 0600 or 0400, one token (e.g. `openssl rand -hex 32`)");
    static final ConfigKey<GatewayHttpConfig, Integer> MAX_CONNECTIONS = integer("maxConnections",
            GatewayHttpConfig::maxConnections, 0, v -> v >= 0, ">= 0, 0 for 80 % of the file-descriptor limit",
            "open client connections on a gateway's data port beyond this are closed as they are accepted, before any "
                    + "byte is read, and counted (`arbiter_gateway_connections_refused_total`); 0 sizes it from the "
                    + "process's file-descriptor limit (80 % of `ulimit -n`, at most 1 000 000; 10 000 where the limit "
                    + "cannot be read)")
            .docDefault("0 (80 % of the descriptor limit)").docRule("integer ≥ 0");
    static final ConfigKey<GatewayHttpConfig, Long> BODY_BUDGET = bytes("bodyBudget",
            GatewayHttpConfig::bodyBudgetBytes, 0, 0,
            "the bytes of buffered request bodies a gateway holds at once, across all connections and HTTP/2 streams; "
                    + "a request whose body would exceed it is answered 503 `bodyBudget` with `Retry-After` "
                    + "([reliability](reliability.md#a-memory-budget-for-buffered-bodies)); 0 is a quarter of the "
                    + "maximum heap")
            .docDefault("0 (a quarter of the heap)");


    static final List<ConfigKey<GatewayHttpConfig, ?>> KEYS = List.of(TRUSTED_PROXIES, ACCESS_LOG_PATH,
            ACCESS_LOG_FORMAT, ACCESS_LOG_MAX_FILE_SIZE, ACCESS_LOG_MAX_FILES, THREADS, TRANSPORT, MAX_CONNECTIONS,
            BODY_BUDGET, ADMIN_TOKEN_FILE);

    /** A list of CIDR blocks at {@code key} of {@code g} (absent: empty); each bad one is an error naming its index. */
    static List<Cidr> cidrs(Node g, String key) {
        List<Cidr> trusted = new ArrayList<>();
        JsonNode raw = g.rawValue(key);
        if (raw != null && !raw.isNull()) {
            if (!raw.isArray()) {
                g.error(key, Node.shown(raw.toString()) + " (expected: a list of IPv4 or IPv6 CIDR blocks, e.g. [10.0.0.0/8, fd00::/8])");
            } else {
                for (int i = 0; i < raw.size(); i++) {
                    JsonNode n = raw.get(i);
                    try {
                        if (!n.isTextual()) {
                            throw new IllegalArgumentException(n + " (expected: an IPv4 or IPv6 CIDR block as a string)");
                        }
                        trusted.add(Cidr.parse(n.asText()));
                    } catch (IllegalArgumentException e) {
                        g.error(key + "[" + i + "]", e.getMessage());
                    }
                }
            }
        }
        return trusted;
    }

    static GatewayHttpConfig read(Node g) {
        List<Cidr> trusted = cidrs(g, "trustedProxies");
        Node a = g.object("accessLog");
        GatewayHttpConfig.AccessLog accessLog = GatewayHttpConfig.AccessLog.OFF;
        if (g.has("accessLog")) {
            String path = a.require("path") ? ACCESS_LOG_PATH.read(a) : null;
            if (path != null && path.isBlank()) {
                a.error("path", "an empty string (expected: a file path)");
                path = null;
            }
            GatewayHttpConfig.AccessLog.Format format = ACCESS_LOG_FORMAT.read(a);
            long maxFileBytes = ACCESS_LOG_MAX_FILE_SIZE.read(a);
            int maxFiles = ACCESS_LOG_MAX_FILES.read(a);
            if (path != null && format != null) {
                accessLog = new GatewayHttpConfig.AccessLog(path, format, maxFileBytes, maxFiles);
            }
        }
        a.finish();
        int threads = THREADS.read(g);
        GatewayHttpConfig.Transport transport = TRANSPORT.read(g);
        int maxConnections = MAX_CONNECTIONS.read(g);
        long bodyBudget = BODY_BUDGET.read(g);
        String adminTokenFile = ADMIN_TOKEN_FILE.read(g);
        if (adminTokenFile != null && adminTokenFile.isBlank()) {
            g.error("adminTokenFile", "an empty string (expected: a file path, or absent)");
            adminTokenFile = null;
        }
        g.finish();
        return new GatewayHttpConfig(trusted, accessLog, threads, transport == null ? TRANSPORT.defaultValue() : transport,
                maxConnections, bodyBudget, adminTokenFile);
    }

    /** Gateways that ask for PROXY headers need the switch's addresses among the trusted proxies. */
    static void across(GatewayHttpConfig http, List<Node> proxyProtocolAt) {
        if (http.trustedProxies().isEmpty()) {
            for (Node g : proxyProtocolAt) {
                g.error("proxyProtocol", "true (expected: gateway.trustedProxies to list the L4 switch's addresses; "
                        + "with none, every PROXY header would be refused)");
            }
        }
    }

    static void check(GatewayHttpConfig h, List<GatewayConfig> gateways, String path, List<String> errors) {
        Sections.check(h, path, KEYS, errors);
        if (h.trustedProxies().isEmpty()) {
            for (int i = 0; i < gateways.size(); i++) {
                if (gateways.get(i).proxyProtocol()) {
                    errors.add("gateways[" + i + "].proxyProtocol: true (expected: gateway.trustedProxies to list the "
                            + "L4 switch's addresses; with none, every PROXY header would be refused)");
                }
            }
        }
    }

    /** The tree; {@code accessLog} only when one is written. */
    static Map<String, Object> write(GatewayHttpConfig h) {
        Map<String, Object> tree = Sections.write(h, KEYS);
        tree.put("trustedProxies", h.trustedProxies().stream().map(Cidr::toString).toList());
        if (!h.accessLog().enabled()) {
            tree.remove("accessLog");
        }
        return tree;
    }
}
