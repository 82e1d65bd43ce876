package org.arbiter.sim;

import static java.util.Objects.requireNonNull;

import java.util.List;
import java.util.Map;

/**
 * The load a simulation applies: closed-loop clients (think time Exp(think)) and open-loop
 * Poisson rates, per class, phase by phase.
 *
 * @param thinkSeconds mean think time of closed-loop clients
 * @param phases       in order
 * @param seed         the random seed: same seed, same run
 */
public record SimScenario(double thinkSeconds, List<Phase> phases, long seed) {

    /**
     * @param clients closed-loop clients per class
     * @param rates   open-loop Poisson arrivals per class, req/s
     */
    public record Phase(String name, double durationSeconds, Map<String, Integer> clients, Map<String, Double> rates) {
        public Phase {
            requireNonNull(name, "name");
            if (!(durationSeconds > 0)) {
                throw new IllegalArgumentException("phases." + name + ".duration: " + durationSeconds + " (expected: > 0)");
            }
            clients = Map.copyOf(clients == null ? Map.of() : clients);
            rates = Map.copyOf(rates == null ? Map.of() : rates);
        }
    }

    public SimScenario {
        phases = List.copyOf(requireNonNull(phases, "phases"));
        if (phases.isEmpty()) {
            throw new IllegalArgumentException("phases: an empty list (expected: at least one phase)");
        }
    }

    public double totalSeconds() {
        return phases.stream().mapToDouble(Phase::durationSeconds).sum();
    }
}
