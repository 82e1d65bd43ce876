package org.arbiter.sim.run;

import java.util.Set;

/**
 * Where a {@link RunSpec} runs: the simulator in virtual time ({@link SimulatedBackend}) or real
 * processes on loopback (the live module's {@code LiveBackend}, time-scaled). An experiment builds
 * its spec once and hands it to either, so its live and its simulated run cannot drift apart.
 *
 * <p>Implementations say in their Javadoc whether they are thread-safe; a run runs on the caller's thread.
 */
public interface Backend {

    /**
     * Runs {@code spec} to its end.
     *
     * @param answersOf the classes whose every request the outcome keeps ({@link RunOutcome#answers})
     */
    RunOutcome run(RunSpec spec, Set<String> answersOf) throws Exception;

    /** Runs {@code spec} to its end, keeping no request's answer. */
    default RunOutcome run(RunSpec spec) throws Exception {
        return run(spec, Set.of());
    }
}
