package org.arbiter.loadgen.server;

import java.util.Map;

/**
 * How a simserver behaves. Durations in seconds, already multiplied by the time scale.
 *
 * @param port                 request port (0 = any)
 * @param adminPort            admin port (0 = any)
 * @param cores                virtual CPUs
 * @param meanDemandSeconds    mean of the exponential service demand
 * @param demandSeconds        per-class mean demand (class from {@code classHeader})
 * @param ioFraction           share of the demand that holds no CPU
 * @param overhead             efficiency loss per request above the knee
 * @param knee                 concurrency above which the overhead applies
 * @param real                 spin the real CPU and sleep, instead of emulating
 * @param bootDelaySeconds     OFF → ON
 * @param shutdownDelaySeconds ON → OFF
 * @param classHeader          request header naming the class
 * @param watts                off, boot, idle, busy
 * @param seed                 random seed of the demands
 */
public record SimServerOptions(int port, int adminPort, int cores, double meanDemandSeconds, Map<String, Double> demandSeconds,
                               double ioFraction, double overhead, int knee, boolean real, double bootDelaySeconds,
                               double shutdownDelaySeconds, String classHeader, double[] watts, long seed) {

    public SimServerOptions {
        demandSeconds = Map.copyOf(demandSeconds);
        if (cores < 1) {
            throw new IllegalArgumentException("--cores: " + cores + " (expected: >= 1)");
        }
        if (!(meanDemandSeconds > 0)) {
            throw new IllegalArgumentException("--mean-demand: " + meanDemandSeconds + " (expected: > 0)");
        }
        if (!(ioFraction >= 0 && ioFraction < 1)) {
            throw new IllegalArgumentException("--io-fraction: " + ioFraction + " (expected: 0 <= x < 1)");
        }
        if (!(overhead >= 0)) {
            throw new IllegalArgumentException("--overhead: " + overhead + " (expected: >= 0)");
        }
    }

    /** 10 cores, 1 s demand, any ports: the paper's server. */
    public static SimServerOptions defaults() {
        return new SimServerOptions(0, 0, 10, 1.0, Map.of(), 0, 0, 10, false, 60, 60, "X-Class",
                new double[] {0, 60, 60, 65}, 1);
    }

    public SimServerOptions withPorts(int newPort, int newAdminPort) {
        return new SimServerOptions(newPort, newAdminPort, cores, meanDemandSeconds, demandSeconds, ioFraction, overhead,
                knee, real, bootDelaySeconds, shutdownDelaySeconds, classHeader, watts, seed);
    }

    public SimServerOptions withDemand(int newCores, double newMeanDemand, double newOverhead) {
        return new SimServerOptions(port, adminPort, newCores, newMeanDemand, demandSeconds, ioFraction, newOverhead,
                knee, real, bootDelaySeconds, shutdownDelaySeconds, classHeader, watts, seed);
    }

    public SimServerOptions withDelays(double boot, double shutdown) {
        return new SimServerOptions(port, adminPort, cores, meanDemandSeconds, demandSeconds, ioFraction, overhead,
                knee, real, boot, shutdown, classHeader, watts, seed);
    }
}
