package org.arbiter.sim.cli;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.annotation.JsonPropertyOrder;
import com.fasterxml.jackson.annotation.JsonUnwrapped;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;
import org.arbiter.loadgen.client.LoadSummary;
import org.arbiter.sim.SimResult;

/**
 * The summary.json that {@code arbiter sim} writes: the load generator's summary (its keys at the top
 * level, as the live load generator writes them), the simulator's speed and the servers' energy.
 * Immutable.
 *
 * @param load                           what the simulated clients measured
 * @param simulatedRequestsPerWallSecond requests simulated per wall-clock second (varies with the machine)
 */
@JsonPropertyOrder({"load", "simulatedRequestsPerWallSecond", "energy"})
public record SimSummary(@JsonUnwrapped LoadSummary load, long simulatedRequestsPerWallSecond, Energy energy) {

    public SimSummary {
        requireNonNull(load, "load");
        requireNonNull(energy, "energy");
    }

    /**
     * The servers' energy over the run.
     *
     * @param totalJoules  Σ over the servers, rounded to J
     * @param serverJoules per server (configuration order), rounded to J
     * @param meanWatts    total joules over the run's simulated seconds, to 0.1 W
     * @param lostRequests requests lost (in flight on a server that failed or was cut off)
     */
    @JsonPropertyOrder({"totalJoules", "serverJoules", "meanWatts", "lostRequests"})
    public record Energy(long totalJoules, Map<String, Long> serverJoules, double meanWatts, long lostRequests) {

        public Energy {
            serverJoules = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(serverJoules, "serverJoules")));
        }
    }

    /** The summary of a simulated run of {@code simulatedSeconds}. */
    public static SimSummary of(LoadSummary load, SimResult r, double simulatedSeconds) {
        Map<String, Long> perServer = new LinkedHashMap<>();
        r.energyJoules().forEach((id, j) -> perServer.put(id, Math.round(j)));
        Energy energy = new Energy(Math.round(r.totalEnergyJoules()), perServer,
                Math.round(r.totalEnergyJoules() / simulatedSeconds * 10) / 10.0, r.lost());
        return new SimSummary(load, Math.round(r.requestsPerWallSecond()), energy);
    }
}
