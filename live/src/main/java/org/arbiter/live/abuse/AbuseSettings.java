package org.arbiter.live.abuse;

import static java.util.Objects.requireNonNull;

import java.util.List;

/**
 * How big and how long the abuse campaign is. Immutable.
 *
 * @param launcher              the command that runs {@code arbiter} (see {@code FaultCampaign.javaLauncher})
 * @param connections           connections per idle attack (h2c, h2 by ALPN, slowloris)
 * @param idleTimeoutSeconds    the gateways' {@code dispatch.idleTimeout}
 * @param beforeSeconds         ordinary load before each attack (the resources' baseline)
 * @param settleSeconds         ordinary load after each attack before "after" is read
 * @param baselineSeconds       the run without any attack, per gateway
 * @param clientThreads         closed-loop ordinary clients
 * @param requestTimeoutSeconds an ordinary request without an answer in this long is a failure
 * @param maxBodyBytes          the gateways' {@code dispatch.maxBodyBytes}
 * @param slowDemandSeconds     mean backend demand of {@code GET /slow}
 * @param pipelined             requests written at once on one connection (the oversized POST in the middle)
 * @param reloads               {@code POST /reload} requests of the reload flood
 * @param amplifyBytes          length of the amplifying config's anchored string
 * @param amplifyAliases        aliases to it
 * @param checkTimeoutSeconds   {@code config check} on the amplifying config is killed after this long
 * @param memoryBoundBytes      peak resident memory above the baseline that still counts as bounded
 * @param h2Connections         connections of the h2 bodies attack
 * @param h2Streams             streams per connection
 * @param h2BodyBytes           the body of each stream (at most {@code maxBodyBytes})
 * @param h2SendSeconds         how long bodies are pushed at most
 * @param wsTunnels             WebSocket tunnels of the idle WebSocket attack
 */
public record AbuseSettings(List<String> launcher, int connections, double idleTimeoutSeconds, double beforeSeconds,
                            double settleSeconds, double baselineSeconds, int clientThreads, double requestTimeoutSeconds,
                            long maxBodyBytes, double slowDemandSeconds, int pipelined, int reloads, int amplifyBytes,
                            int amplifyAliases, double checkTimeoutSeconds, long memoryBoundBytes, int h2Connections,
                            int h2Streams, long h2BodyBytes, double h2SendSeconds, int wsTunnels) {

    public AbuseSettings {
        launcher = List.copyOf(requireNonNull(launcher, "launcher"));
        if (launcher.isEmpty()) {
            throw new IllegalArgumentException("launcher: [] (expected: a command)");
        }
        range("connections", connections, 1, 10_000);
        positive("idleTimeoutSeconds", idleTimeoutSeconds);
        positive("beforeSeconds", beforeSeconds);
        positive("settleSeconds", settleSeconds);
        positive("baselineSeconds", baselineSeconds);
        range("clientThreads", clientThreads, 1, 64);
        positive("requestTimeoutSeconds", requestTimeoutSeconds);
        if (maxBodyBytes < 1) {
            throw new IllegalArgumentException("maxBodyBytes: " + maxBodyBytes + " (expected: > 0)");
        }
        positive("slowDemandSeconds", slowDemandSeconds);
        range("pipelined", pipelined, 3, 1000);
        range("reloads", reloads, 1, 100_000);
        range("amplifyBytes", amplifyBytes, 1, 64 << 20);
        range("amplifyAliases", amplifyAliases, 1, 100_000);
        positive("checkTimeoutSeconds", checkTimeoutSeconds);
        if (memoryBoundBytes < 1) {
            throw new IllegalArgumentException("memoryBoundBytes: " + memoryBoundBytes + " (expected: > 0)");
        }
        range("h2Connections", h2Connections, 1, 64);
        range("h2Streams", h2Streams, 1, 1 << 16);
        if (h2BodyBytes < 1 || h2BodyBytes > maxBodyBytes) {
            throw new IllegalArgumentException("h2BodyBytes: " + h2BodyBytes + " (expected: 1.." + maxBodyBytes
                    + ", the gateway's maxBodyBytes)");
        }
        positive("h2SendSeconds", h2SendSeconds);
        range("wsTunnels", wsTunnels, 1, 10_000);
    }

    /**
     * The campaign of issue 30: 2 000 connections per idle attack, idle timeout 2 s, body limit 10 MiB,
     * 4 h2 connections x 256 streams x 9.5 MB bodies for at most 30 s, 1 000 WebSocket tunnels, 64 pipelined
     * requests, 200 reloads, a 4 MB string with 1 000 aliases (the file stays under the loader's
     * 4 MiB limit), memory bound 256 MiB.
     */
    public static AbuseSettings full(List<String> launcher, int connections) {
        return new AbuseSettings(launcher, connections, 2, 2, 4, 5, 4, 5, 10 << 20, 2, 64, 200, 4_000_000, 1000, 20,
                256L << 20, 4, 256, 9_500_000, 30, 1000);
    }

    /**
     * The CI version: {@code connections} per idle attack, 1 s idle timeout, shorter windows, a 64 KiB
     * string, 1 h2 connection x 16 streams x 256 KiB bodies for at most 3 s, body limit 1 MiB, 50 tunnels.
     */
    public static AbuseSettings quick(List<String> launcher, int connections) {
        return new AbuseSettings(launcher, connections, 1, 0.5, 1, 1, 3, 3, 1 << 20, 2, 16, 20, 64 << 10, 50, 20,
                256L << 20, 1, 16, 256 << 10, 3, 50);
    }

    /** How long an idle connection may stay open before it counts as not closed: 2 idle timeouts plus 0.5 s. */
    public double closeBoundSeconds() {
        return 2 * idleTimeoutSeconds + 0.5;
    }

    private static void positive(String name, double v) {
        if (!(v > 0 && v <= 3600)) {
            throw new IllegalArgumentException(name + ": " + v + " (expected: 0 < x <= 3600)");
        }
    }

    private static void range(String name, int v, int min, int max) {
        if (v < min || v > max) {
            throw new IllegalArgumentException(name + ": " + v + " (expected: " + min + ".." + max + ")");
        }
    }
}
