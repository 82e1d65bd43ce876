package org.arbiter.sim;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;
import org.arbiter.loadgen.client.Scenario;

/**
 * The load a simulation applies, phase by phase and per class: closed-loop clients (think time
 * Exp(think)) and open-loop sources — Poisson rates, 001's Pareto on/off sources and compressed
 * diurnal days, in the load generator's scenario format ({@link Scenario.Pareto},
 * {@link Scenario.Diurnal}) and drawn by the same pure {@code ArrivalProcess}es.
 *
 * @param thinkSeconds mean think time of closed-loop clients
 * @param phases       in order
 * @param seed         the random seed: same seed, same run
 * @param failures     server failures, in any order
 */
public record SimScenario(double thinkSeconds, List<Phase> phases, long seed, List<Failure> failures) {

    /**
     * Server {@code server} (a servers[].id) fails at {@code atSeconds}: every request it holds is lost
     * (an error to its client); it refuses connections until {@code recoverSeconds} (+∞: never), when it
     * comes back empty.
     */
    public record Failure(String server, double atSeconds, double recoverSeconds) {
        public Failure {
            requireNonNull(server, "server");
            if (!(atSeconds >= 0)) {
                throw new IllegalArgumentException("failures.at: " + atSeconds + " (expected: >= 0)");
            }
            if (!(recoverSeconds > atSeconds)) {
                throw new IllegalArgumentException("failures.recover: " + recoverSeconds + " (expected: later than at, "
                        + atSeconds + ")");
            }
        }
    }

    /** No failures. */
    public SimScenario(double thinkSeconds, List<Phase> phases, long seed) {
        this(thinkSeconds, phases, seed, List.of());
    }

    /**
     * @param clients closed-loop clients per class
     * @param rates   open-loop Poisson arrivals per class, req/s
     * @param pareto  001's on/off sources per class (ON from the phase's start)
     * @param diurnal compressed days per class: trough at the phase's start and end, peak half-way
     */
    public record Phase(String name, double durationSeconds, Map<String, Integer> clients, Map<String, Double> rates,
                        Map<String, Scenario.Pareto> pareto, Map<String, Scenario.Diurnal> diurnal) {
        public Phase {
            requireNonNull(name, "name");
            if (!(durationSeconds > 0)) {
                throw new IllegalArgumentException("phases." + name + ".duration: " + durationSeconds + " (expected: > 0)");
            }
            clients = Map.copyOf(clients == null ? Map.of() : clients);
            rates = Map.copyOf(rates == null ? Map.of() : rates);
            pareto = Map.copyOf(pareto == null ? Map.of() : pareto);
            diurnal = Map.copyOf(diurnal == null ? Map.of() : diurnal);
        }

        /** Closed-loop clients and Poisson rates only. */
        public Phase(String name, double durationSeconds, Map<String, Integer> clients, Map<String, Double> rates) {
            this(name, durationSeconds, clients, rates, null, null);
        }
    }

    public SimScenario {
        phases = List.copyOf(requireNonNull(phases, "phases"));
        failures = List.copyOf(requireNonNull(failures, "failures"));
        if (phases.isEmpty()) {
            throw new IllegalArgumentException("phases: an empty list (expected: at least one phase)");
        }
    }

    public double totalSeconds() {
        return phases.stream().mapToDouble(Phase::durationSeconds).sum();
    }
}
