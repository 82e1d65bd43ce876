package org.arbiter.loadgen.server;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import org.arbiter.loadgen.model.PowerModel;

/**
 * How a simserver behaves. Durations in seconds, already multiplied by the time scale. Start from
 * {@link #defaults()} (003's server: 10 cores, 1 s demands) and change what you need with the
 * {@code with…} methods.
 *
 * @param port                 request port on 127.0.0.1 (0 = any)
 * @param adminPort            admin port on 127.0.0.1 (0 = any)
 * @param cores                virtual CPUs
 * @param meanDemandSeconds    mean of the exponential service demand
 * @param demandSeconds        per-class mean demand (class from {@code classHeader}); others use the mean
 * @param ioFraction           share of the demand that holds no CPU
 * @param overhead             efficiency loss per request above the knee
 * @param knee                 concurrency above which the overhead applies
 * @param real                 spin the real CPU and sleep, instead of emulating
 * @param bootDelaySeconds     BOOTING → ON
 * @param shutdownDelaySeconds SHUTTING_DOWN → OFF
 * @param classHeader          request header naming the class
 * @param watts                power draw by state
 * @param seed                 random seed of the demands and injected errors
 */
public record SimServerOptions(int port, int adminPort, int cores, double meanDemandSeconds, Map<String, Double> demandSeconds,
                               double ioFraction, double overhead, int knee, boolean real, double bootDelaySeconds,
                               double shutdownDelaySeconds, String classHeader, PowerModel.Watts watts, long seed) {

    public SimServerOptions {
        demandSeconds = Map.copyOf(demandSeconds);
        requireNonNull(classHeader, "classHeader");
        requireNonNull(watts, "watts");
        if (port < 0 || port > 65535) {
            throw new IllegalArgumentException("--port: " + port + " (expected: 0..65535)");
        }
        if (adminPort < 0 || adminPort > 65535) {
            throw new IllegalArgumentException("--admin-port: " + adminPort + " (expected: 0..65535)");
        }
        if (cores < 1) {
            throw new IllegalArgumentException("--cores: " + cores + " (expected: >= 1)");
        }
        if (!(meanDemandSeconds > 0)) {
            throw new IllegalArgumentException("--mean-demand: " + meanDemandSeconds + "s (expected: > 0)");
        }
        demandSeconds.forEach((c, d) -> {
            if (!(d > 0)) {
                throw new IllegalArgumentException("--demand: " + c + "=" + d + "s (expected: > 0)");
            }
        });
        if (!(ioFraction >= 0 && ioFraction < 1)) {
            throw new IllegalArgumentException("--io-fraction: " + ioFraction + " (expected: 0 <= x < 1)");
        }
        if (!(overhead >= 0)) {
            throw new IllegalArgumentException("--overhead: " + overhead + " (expected: >= 0)");
        }
        if (knee < 0) {
            throw new IllegalArgumentException("--knee: " + knee + " (expected: >= 0)");
        }
        if (!(bootDelaySeconds >= 0)) {
            throw new IllegalArgumentException("--boot-delay: " + bootDelaySeconds + "s (expected: >= 0)");
        }
        if (!(shutdownDelaySeconds >= 0)) {
            throw new IllegalArgumentException("--shutdown-delay: " + shutdownDelaySeconds + "s (expected: >= 0)");
        }
    }

    /** 003's server: 10 cores, knee 10, Exp(1 s) demands; 60 s boot and shutdown; 000's watts; any ports. */
    public static SimServerOptions defaults() {
        return new SimServerOptions(0, 0, 10, 1.0, Map.of(), 0, 0, 10, false, 60, 60, "X-Class",
                PowerModel.Watts.paper(), 1);
    }

    /** The mean demand of a request of class {@code cls} (null: no class header). */
    public double meanDemandOf(String cls) {
        return cls == null ? meanDemandSeconds : demandSeconds.getOrDefault(cls, meanDemandSeconds);
    }

    public SimServerOptions withPorts(int newPort, int newAdminPort) {
        return new SimServerOptions(newPort, newAdminPort, cores, meanDemandSeconds, demandSeconds, ioFraction, overhead,
                knee, real, bootDelaySeconds, shutdownDelaySeconds, classHeader, watts, seed);
    }

    public SimServerOptions withDemand(int newCores, double newMeanDemand, double newOverhead) {
        return new SimServerOptions(port, adminPort, newCores, newMeanDemand, demandSeconds, ioFraction, newOverhead,
                knee, real, bootDelaySeconds, shutdownDelaySeconds, classHeader, watts, seed);
    }

    public SimServerOptions withKnee(int newKnee) {
        return new SimServerOptions(port, adminPort, cores, meanDemandSeconds, demandSeconds, ioFraction, overhead,
                newKnee, real, bootDelaySeconds, shutdownDelaySeconds, classHeader, watts, seed);
    }

    public SimServerOptions withDelays(double boot, double shutdown) {
        return new SimServerOptions(port, adminPort, cores, meanDemandSeconds, demandSeconds, ioFraction, overhead,
                knee, real, boot, shutdown, classHeader, watts, seed);
    }

    public SimServerOptions withSeed(long newSeed) {
        return new SimServerOptions(port, adminPort, cores, meanDemandSeconds, demandSeconds, ioFraction, overhead,
                knee, real, bootDelaySeconds, shutdownDelaySeconds, classHeader, watts, newSeed);
    }
}
