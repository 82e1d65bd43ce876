package org.arbiter.sim.run;

import static java.util.Objects.requireNonNull;

import org.arbiter.common.config.ClusterConfig;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.sim.SimScenario;
import org.arbiter.sim.Simulator;

/**
 * One run of an experiment, as every {@link Backend} takes it: the cluster and the load, both in
 * the experiment's own seconds (a live backend scales them; the simulator runs them as they are),
 * and where the allocations come from. The load is the load generator's {@link Scenario}, so the
 * live backend hands it to the real load generator and the simulated one converts it with
 * {@link SimScenario#from}; its seed is the run's seed (the simulator's, the load generator's, and
 * what a live backend derives its simservers' seeds from).
 *
 * <p>What a backend measures beyond the shared {@link RunOutcome} (the live meters, the live
 * wiring: ports, the broker, the power actuator) is the backend's, never the spec's.
 *
 * @param cluster the cluster; servers are emulated from their {@code sim} section
 * @param load    the load; its classes must be classes of {@code cluster}
 * @param control GRM: the GRM decides the allocations; CONFIGURED: the gateways keep the configured one
 */
public record RunSpec(ClusterConfig cluster, Scenario load, Simulator.Control control) {

    public RunSpec {
        requireNonNull(cluster, "cluster");
        requireNonNull(load, "load");
        requireNonNull(control, "control");
        SimScenario.from(load, cluster, "the run's cluster"); // every problem at once, before any backend starts
    }

    /** A run whose allocations the GRM decides. */
    public static RunSpec withGrm(ClusterConfig cluster, Scenario load) {
        return new RunSpec(cluster, load, Simulator.Control.GRM);
    }

    /** The run's seed: the load's. */
    public long seed() {
        return load.seed();
    }

    /** The run's length in the experiment's seconds. */
    public double seconds() {
        return load.totalSeconds();
    }

    /** The load as the simulator runs it. */
    public SimScenario simScenario() {
        return SimScenario.from(load, cluster, "the run's cluster");
    }
}
