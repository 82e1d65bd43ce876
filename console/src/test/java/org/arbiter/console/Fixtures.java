package org.arbiter.console;

import java.time.Instant;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.Message;
import org.arbiter.console.auth.Authenticator;
import org.arbiter.console.auth.Pbkdf2;

/** Shared test configuration: two classes, two servers, two gateways (g2 an HAProxy), an admin and a viewer. */
public final class Fixtures {

    public static final String ADMIN_PASSWORD = "correct horse";
    public static final String VIEWER_PASSWORD = "battery staple";
    public static final String ADMIN_TOKEN = "admin-token-0123456789";
    public static final String VIEWER_TOKEN = "viewer-token-0123456789";

    private Fixtures() {
    }

    /** cluster.yaml text; cheap PBKDF2 (1000 iterations) so tests stay fast. */
    public static String yaml(boolean publicRead, String bootstrap) {
        String admin = Pbkdf2.hash(ADMIN_PASSWORD.toCharArray(), 1_000, new byte[] {1, 2, 3, 4, 5, 6, 7, 8});
        String viewer = Pbkdf2.hash(VIEWER_PASSWORD.toCharArray(), 1_000, new byte[] {8, 7, 6, 5, 4, 3, 2, 1});
        return """
                classes:
                  - {name: premium, target: 2s, match: {header: {X-Class: premium}}}
                  - {name: basic, target: 3s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
                  - {id: s2, url: "http://127.0.0.1:9002", concurrency: 10}
                gateways:
                  - {id: g1, port: 8080}
                  - {id: g2, port: 8081, kind: haproxy}
                control: {period: 1s, reportPeriod: 1s, statsWindow: 5s}
                kafka: {bootstrap: "%s"}
                console:
                  port: 0
                  publicRead: %s
                  users:
                    - {name: alice, passwordHash: "%s", role: admin}
                    - {name: bob, passwordHash: "%s", role: viewer}
                  tokens:
                    - {name: ci, sha256: "%s", role: admin}
                    - {name: dash, sha256: "%s", role: viewer}
                """.formatted(bootstrap == null ? "" : bootstrap, publicRead, admin, viewer,
                Authenticator.sha256Hex(ADMIN_TOKEN), Authenticator.sha256Hex(VIEWER_TOKEN));
    }

    public static ClusterConfig config(boolean publicRead, String bootstrap) {
        return ConfigLoader.parse(yaml(publicRead, bootstrap));
    }

    public static ClusterConfig config() {
        return config(false, null);
    }

    /** A report from {@code gateway} with premium and basic at the given response time. */
    public static GatewayStats stats(String gateway, Instant at, double responseTime, double throughput) {
        GatewayStats.ClassStats premium = new GatewayStats.ClassStats(throughput, throughput, responseTime, 0.1,
                responseTime - 0.1, responseTime * 1.5, 2, 3, 4, 6, Map.of("queueFull", 1L), null);
        GatewayStats.ClassStats basic = new GatewayStats.ClassStats(throughput / 2, throughput / 2, responseTime * 2, 0.2,
                responseTime, responseTime * 3, 1, 1, 2, 4, Map.of(), null);
        return new GatewayStats(Message.VERSION, at, gateway, 5, 1, Map.of("premium", premium, "basic", basic),
                Map.of("s1", new GatewayStats.ServerStats(3, 5, throughput, 1, 3, 0, true)));
    }
}
