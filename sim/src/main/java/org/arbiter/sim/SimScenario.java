package org.arbiter.sim;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigException;
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

    /**
     * The load generator's scenario {@code load} as the simulator runs it against {@code cluster}: its
     * think time, phases (clients, rates, Pareto and diurnal sources), seed and failures. What only a
     * real client needs (request shapes, the timeout) has no meaning in virtual time and is left out.
     * The one conversion from the loadgen format: {@code arbiter sim} and the run specs of the
     * experiments ({@code sim.run.RunSpec}) both use it.
     *
     * @param clusterName how the problems name the cluster (a file, or "the run's cluster")
     * @throws ConfigException naming every class the phases load that the cluster lacks and every failure
     *                         of an unknown server or after the scenario's end, all at once
     */
    public static SimScenario from(Scenario load, ClusterConfig cluster, String clusterName) {
        requireNonNull(load, "load");
        requireNonNull(cluster, "cluster");
        List<String> errors = new ArrayList<>();
        List<Phase> phases = new ArrayList<>();
        for (Scenario.Phase p : load.phases()) {
            for (var source : List.of(Map.entry("clients", p.clients().keySet()), Map.entry("rate", p.rates().keySet()),
                    Map.entry("pareto", p.pareto().keySet()), Map.entry("diurnal", p.diurnal().keySet()))) {
                for (String c : source.getValue()) {
                    if (cluster.classNamed(c).isEmpty()) {
                        errors.add("phases." + p.name() + "." + source.getKey() + "." + c + ": (expected: a class of "
                                + clusterName + ")");
                    }
                }
            }
            phases.add(new Phase(p.name(), p.durationSeconds(), p.clients(), p.rates(), p.pareto(), p.diurnal()));
        }
        List<Failure> failures = new ArrayList<>();
        double length = load.totalSeconds();
        for (int i = 0; i < load.failures().size(); i++) {
            Scenario.Failure f = load.failures().get(i);
            if (cluster.servers().stream().noneMatch(x -> x.id().equals(f.server()))) {
                errors.add("failures[" + i + "].server: " + f.server() + " (expected: one of "
                        + String.join(", ", cluster.servers().stream().map(x -> x.id()).toList()) + ", the servers of "
                        + clusterName + ")");
            } else if (f.atSeconds() >= length) {
                errors.add("failures[" + i + "].at: " + f.atSeconds() + "s (expected: before the scenario's end, "
                        + length + "s)");
            } else {
                failures.add(new Failure(f.server(), f.atSeconds(), f.recoverSeconds()));
            }
        }
        if (!errors.isEmpty()) {
            throw new ConfigException(errors);
        }
        return new SimScenario(load.thinkSeconds(), phases, load.seed(), failures);
    }
}
