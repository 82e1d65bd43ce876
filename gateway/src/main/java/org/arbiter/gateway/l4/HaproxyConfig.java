package org.arbiter.gateway.l4;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.Durations;
import org.arbiter.common.config.GatewayConfig;

/*
 * An HAProxy configuration for the L4 switch in front of the gateways (architecture.md's data
 * loop: clients -> L4 switch -> gateways).
 *
 * What:    one TCP frontend on `bind`, one backend with one server per gateways[] entry, PROXY v2
 *          on every connection (send-proxy-v2), least connections (balance leastconn: a gateway
 *          whose clients keep connections open gets fewer new ones), and an HTTP health check of
 *          each gateway's /ready on its admin port (option httpchk GET /ready, check port
 *          <adminPort>). A draining gateway's /ready is 503, so the switch stops sending it new
 *          connections after `fall` failed checks; meanwhile a connection it refuses (the drain
 *          closes its listener) is retried on another gateway (retries + option redispatch 1).
 * Timeouts: the client and server inactivity timeouts cover the longest a request may legitimately
 *          wait without a byte moving: the longest class queue timeout plus the backend timeout,
 *          or the gateway's idle timeout if that is longer, plus 5 s. A shorter timeout would have
 *          HAProxy cut a request the gateway is still holding.
 * Rules:   every gateway must have proxyProtocol: true (else the PROXY header would reach the HTTP
 *          parser), a drainDelay the health check can see, fixed ports and a host the switch can
 *          reach (not a wildcard). The switch's own address must
 *          be in gateway.trustedProxies; the file cannot say what it is, so that is documented,
 *          not checked.
 * Pure:    text in, text out; no I/O. Thread-safe (stateless).
 */

/** Writes the HAProxy configuration of an L4 switch in front of a cluster's gateways; see the note in the source. */
public final class HaproxyConfig {

    /** Health-check interval. */
    public static final String CHECK_INTERVAL = "1s";
    /** Failed checks before a gateway is taken out, passed checks before it is taken back. */
    public static final int FALL = 2;
    /** Passed checks before a gateway is taken back. */
    public static final int RISE = 2;

    /** The least {@code gateways[].drainDelay}: the switch sees /ready fail within FALL × inter, plus 1 s. */
    public static final double MIN_DRAIN_DELAY_SECONDS = FALL * 1.0 + 1;

    private HaproxyConfig() {
    }

    /** A problem with the file that makes a switch configuration impossible (each line: path, value, rule). */
    public static final class Invalid extends IllegalArgumentException {
        private final List<String> errors;

        Invalid(List<String> errors) {
            super(String.join("; ", errors));
            this.errors = List.copyOf(errors);
        }

        public List<String> errors() {
            return errors;
        }
    }

    /**
     * The configuration text.
     *
     * @param cluster the cluster.yaml
     * @param bind    HAProxy's {@code bind} address for clients, {@code host:port} ({@code :80}, {@code 0.0.0.0:80})
     * @param source  where the configuration came from, for the header comment
     * @throws Invalid naming every gateway that cannot sit behind the switch
     */
    public static String generate(ClusterConfig cluster, String bind, String source) {
        requireNonNull(cluster, "cluster");
        requireNonNull(bind, "bind");
        requireNonNull(source, "source");
        List<String> errors = new ArrayList<>();
        if (!bind.matches("(\\[[0-9A-Fa-f:.]+\\]|[0-9A-Za-z.*-]*):[0-9]{1,5}") || port(bind) > 65535) {
            errors.add("--bind: " + bind + " (expected: host:port or :port, e.g. 0.0.0.0:80)");
        }
        List<GatewayConfig> gateways = cluster.gateways();
        if (gateways.isEmpty()) {
            errors.add("gateways: an empty list (expected: at least one gateway behind the switch)");
        }
        for (int i = 0; i < gateways.size(); i++) {
            GatewayConfig g = gateways.get(i);
            if (!g.proxyProtocol()) {
                errors.add("gateways[" + i + "].proxyProtocol: false (expected: true: the switch sends a PROXY v2 header"
                        + " on every connection)");
            }
            if (g.drainDelaySeconds() < MIN_DRAIN_DELAY_SECONDS) {
                errors.add("gateways[" + i + "].drainDelay: " + Durations.format(g.drainDelaySeconds()) + " (expected: >= "
                        + Durations.format(MIN_DRAIN_DELAY_SECONDS) + ", so that the switch sees /ready fail (fall " + FALL
                        + " x inter " + CHECK_INTERVAL + ") before the gateway refuses connections)");
            }
            if (isWildcard(g.host())) {
                errors.add("gateways[" + i + "].host: " + g.host() + " (expected: an address the switch can reach,"
                        + " not a wildcard)");
            } else if (!g.adminHost().equals(g.host()) && !isWildcard(g.adminHost())) {
                errors.add("gateways[" + i + "].adminHost: " + g.adminHost() + " (expected: " + g.host()
                        + " (the host) or a wildcard: the switch checks /ready at host:adminPort)");
            }
            if (g.port() == 0 || g.adminPort() == 0) {
                errors.add("gateways[" + i + "]: port " + g.port() + ", adminPort " + g.adminPort()
                        + " (expected: fixed ports, not 0, so the switch knows where to connect)");
            }
        }
        if (cluster.gatewayHttp().trustedProxies().isEmpty()) {
            errors.add("gateway.trustedProxies: an empty list (expected: the switch's addresses, so that the gateways"
                    + " believe its PROXY headers)");
        }
        if (!errors.isEmpty()) {
            throw new Invalid(errors);
        }
        double timeoutSeconds = inactivityTimeoutSeconds(cluster);
        String timeout = (long) Math.ceil(timeoutSeconds) + "s";
        StringBuilder sb = new StringBuilder(1024);
        sb.append("# The L4 switch in front of Arbiter's gateways, written by 'arbiter switch haproxy' from ")
                .append(source.replaceAll("[\\r\\n]", " ")).append(".\n")
                .append("# Regenerate it when gateways change. The gateways must list this switch's address in\n")
                .append("# gateway.trustedProxies; they refuse PROXY headers from anyone else.\n")
                .append("# No global maxconn: HAProxy derives it from the file-descriptor limit (ulimit -n).\n")
                .append("\n")
                .append("defaults\n")
                .append("    mode tcp\n")
                .append("    timeout connect 5s\n")
                .append("    # the longest class queue timeout + dispatch.backendTimeout (or dispatch.idleTimeout) + 5s\n")
                .append("    timeout client ").append(timeout).append('\n')
                .append("    timeout server ").append(timeout).append('\n')
                .append("    timeout check 2s\n")
                .append("    # a connection a gateway refuses (it is draining) is tried again on another one\n")
                .append("    retries 3\n")
                .append("    option redispatch 1\n")
                .append("\n")
                .append("frontend arbiter\n")
                .append("    bind ").append(bind).append('\n')
                .append("    default_backend arbiter-gateways\n")
                .append("\n")
                .append("backend arbiter-gateways\n")
                .append("    balance leastconn\n")
                .append("    # a gateway is in while its admin /ready answers 200; draining or starting, it is 503\n")
                .append("    option httpchk GET /ready\n")
                .append("    http-check expect status 200\n")
                .append("    default-server inter ").append(CHECK_INTERVAL).append(" fall ").append(FALL)
                .append(" rise ").append(RISE).append('\n');
        for (GatewayConfig g : gateways) {
            sb.append("    server ").append(g.id()).append(' ').append(address(g.host())).append(':').append(g.port())
                    .append(" send-proxy-v2 check port ").append(g.adminPort()).append('\n');
        }
        return sb.toString();
    }

    /** Seconds without a byte either way after which the switch may cut a connection. */
    static double inactivityTimeoutSeconds(ClusterConfig cluster) {
        double queue = 0;
        for (ClassConfig c : cluster.classes()) {
            queue = Math.max(queue, c.queue().timeoutSeconds());
        }
        return Math.max(queue + cluster.dispatch().backendTimeoutSeconds(), cluster.dispatch().idleTimeoutSeconds()) + 5;
    }

    private static int port(String bind) {
        String p = bind.substring(bind.lastIndexOf(':') + 1);
        return p.matches("[0-9]{1,5}") ? Integer.parseInt(p) : Integer.MAX_VALUE;
    }

    private static boolean isWildcard(String host) {
        String h = host.toLowerCase(Locale.ROOT);
        return h.equals("0.0.0.0") || h.equals("::") || h.equals("[::]") || h.equals("*") || h.isEmpty();
    }

    private static String address(String host) {
        return host.indexOf(':') >= 0 && !host.startsWith("[") ? "[" + host + "]" : host;
    }
}
