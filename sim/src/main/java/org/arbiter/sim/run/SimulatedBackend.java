package org.arbiter.sim.run;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.loadgen.client.ResultRecorder;
import org.arbiter.sim.SimResult;
import org.arbiter.sim.Simulator;

/**
 * The simulated backend: a {@link RunSpec} on the {@link Simulator}, in virtual time, the
 * allocations from the GRM or the configuration as the spec says. Deterministic under the spec's
 * seed. Stateless and thread-safe (each run owns its simulator).
 *
 * <p>How the simulator's measures become a {@link RunOutcome}: per class the sent, OK, rejected
 * (queue full or timed out in the queue) and lost requests summed over the phases, the mean
 * response the OK-weighted mean of the phases'; no client timeouts or errors (the simulator has
 * none). Servers up: ON or BOOTING at each report instant, averaged. Power-ons: the boots counted
 * at the last report instant; power-offs: as many, plus the servers powered (not OFF) at the start
 * (all of them) less those powered at the last report instant. Allocations: those the GRM
 * published; weights: the first gateway's w(g,c) in each of them.
 */
public final class SimulatedBackend implements Backend {

    public SimulatedBackend() {
    }

    /**
     * The simulator of {@code spec}, not yet run: for an experiment that needs more of the simulator
     * than the outcome (the GRM's decisions, the power series) and still builds its run from the spec.
     */
    public Simulator simulator(RunSpec spec) {
        requireNonNull(spec, "spec");
        return Simulator.of(spec.cluster(), spec.simScenario(), spec.control());
    }

    @Override
    public RunOutcome run(RunSpec spec, Set<String> answersOf) {
        requireNonNull(answersOf, "answersOf");
        Map<String, List<ResultRecorder.Request>> answers = new LinkedHashMap<>();
        answersOf.forEach(c -> answers.put(c, new ArrayList<>()));
        Simulator sim = simulator(spec);
        if (!answersOf.isEmpty()) {
            sim.withRequests((cls, phase, sent, answered, outcome) -> {
                List<ResultRecorder.Request> list = answers.get(cls);
                if (list != null) {
                    list.add(new ResultRecorder.Request(sent, answered - sent, outcome));
                }
            });
        }
        return outcome(spec, sim.run(), answers);
    }

    /** The outcome of {@code r}, a run of {@code spec} (see the class's Javadoc). */
    static RunOutcome outcome(RunSpec spec, SimResult r, Map<String, List<ResultRecorder.Request>> answers) {
        ClusterConfig c = spec.cluster();
        Map<String, RunOutcome.ClassOutcome> classes = new LinkedHashMap<>();
        for (ClassConfig cls : c.classes()) {
            long sent = 0;
            long ok = 0;
            long rejected = 0;
            long lost = 0;
            double responseSum = 0;
            for (SimResult.PhaseResult p : r.phases()) {
                SimResult.ClassResult x = p.classes().get(cls.name());
                if (x != null) {
                    sent += x.sent();
                    ok += x.ok();
                    rejected += x.rejected();
                    lost += x.lost();
                    responseSum += x.ok() * x.meanResponseSeconds();
                }
            }
            classes.put(cls.name(), new RunOutcome.ClassOutcome(sent, ok, rejected, 0, lost, 0,
                    ok == 0 ? 0 : responseSum / ok));
        }
        List<SimResult.PowerPoint> power = r.power();
        double up = power.stream().mapToInt(x -> x.serversOn() + x.serversBooting()).average().orElse(0);
        long ons = 0;
        long offs = 0;
        if (!power.isEmpty()) {
            SimResult.PowerPoint last = power.get(power.size() - 1);
            ons = last.boots();
            offs = ons + c.servers().size() - (last.serversOn() + last.serversBooting() + last.serversShuttingDown());
        }
        Map<String, RunOutcome.Weight> weights = new LinkedHashMap<>();
        String first = c.gateways().isEmpty() ? null : c.gateways().get(0).id();
        for (ClassConfig cls : c.classes()) {
            double sum = 0;
            double max = 0;
            int n = 0;
            for (SimResult.AllocationPoint a : first == null ? List.<SimResult.AllocationPoint>of() : r.allocations()) {
                double w = a.weights().getOrDefault(first, Map.of()).getOrDefault(cls.name(), 0.0);
                sum += w;
                max = Math.max(max, w);
                n++;
            }
            weights.put(cls.name(), n == 0 ? RunOutcome.Weight.NONE : new RunOutcome.Weight(sum / n, max));
        }
        return new RunOutcome(spec.seconds(), classes, answers, r.totalEnergyJoules(), up, offs, ons,
                r.allocations().size(), weights);
    }
}
