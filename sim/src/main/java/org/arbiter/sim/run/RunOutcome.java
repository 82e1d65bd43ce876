package org.arbiter.sim.run;

import static java.util.Objects.requireNonNull;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.loadgen.client.ResultRecorder;

/**
 * What one {@link RunSpec} measured on a backend, in the experiment's seconds (a live backend has
 * divided its wall times by the time scale), the same record from every backend so that an
 * experiment reads its live and its simulated run alike.
 *
 * @param seconds        the run's length in the experiment's seconds (the spec's)
 * @param classes        per class of the cluster, in configuration order
 * @param answers        per class asked for ({@link Backend#run(RunSpec, java.util.Set)}): every request, its
 *                       start and response time in the experiment's seconds and how it ended, in no set order
 * @param energyJoules   the servers' energy over the run, in the experiment's seconds (the simulator's power
 *                       models; live, what the simservers metered over the run's wall time ÷ the time scale)
 * @param meanServersUp  servers ON or BOOTING, averaged over the run (the simulator's report instants; live,
 *                       samples every 50 ms)
 * @param powerOffs      servers that went OFF during the run
 * @param powerOns       servers that came back from OFF during the run
 * @param allocations    allocations the first gateway received during the run (the simulator: the GRM published)
 * @param weights        per class, the first gateway's weight w(g,c) over the run
 */
public record RunOutcome(double seconds, Map<String, ClassOutcome> classes, Map<String, List<ResultRecorder.Request>> answers,
                         double energyJoules, double meanServersUp, long powerOffs, long powerOns, long allocations,
                         Map<String, Weight> weights) {

    public RunOutcome {
        classes = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(classes, "classes")));
        Map<String, List<ResultRecorder.Request>> a = new LinkedHashMap<>();
        requireNonNull(answers, "answers").forEach((k, v) -> a.put(k, List.copyOf(v)));
        answers = Collections.unmodifiableMap(a);
        weights = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(weights, "weights")));
    }

    /**
     * One class over the whole run.
     *
     * @param rejected            refused by the gateway (503: queue full or, in the simulator, timed out in the queue)
     * @param timedOut            not answered within the load's timeout (live only; the simulator has no client timeout)
     * @param lost                sent to a server that was not on, cut off by a power-off or a failure, or never answered
     * @param errors              answered with an error other than 503 (live only)
     * @param meanResponseSeconds of the requests answered OK, in the experiment's seconds
     */
    public record ClassOutcome(long sent, long ok, long rejected, long timedOut, long lost, long errors,
                               double meanResponseSeconds) {

        /** Requests that did not end in a response: rejected + timed out + lost + errors. */
        public long dropped() {
            return rejected + timedOut + lost + errors;
        }
    }

    /** A class's weight at the first gateway over the run: its mean and its largest value. */
    public record Weight(double mean, double max) {

        /** A class never given a weight. */
        public static final Weight NONE = new Weight(0, 0);
    }

    /** The class named {@code name}; a class with no requests when there is none. */
    public ClassOutcome cls(String name) {
        return classes.getOrDefault(name, new ClassOutcome(0, 0, 0, 0, 0, 0, 0));
    }

    /** Every request of class {@code name}, if they were asked for. */
    public List<ResultRecorder.Request> answersOf(String name) {
        return answers.getOrDefault(name, List.of());
    }

    /** Requests sent, over every class. */
    public long sent() {
        return classes.values().stream().mapToLong(ClassOutcome::sent).sum();
    }

    /** Requests that did not end in a response, over every class. */
    public long dropped() {
        return classes.values().stream().mapToLong(ClassOutcome::dropped).sum();
    }

    /** Dropped over sent, %, rounded to five decimals (0 when nothing was sent). */
    public double droppedPercent() {
        long sent = sent();
        return sent == 0 ? 0.0 : Math.round(100.0 * dropped() / sent * 1e5) / 1e5;
    }
}
