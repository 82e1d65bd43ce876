package org.arbiter.grm;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.override.PinSelection;
import org.arbiter.grm.model.FlowModel;
import org.arbiter.grm.optimize.CapPartition;
import org.arbiter.grm.optimize.Optimizer;

/**
 * The GRM core (003 §IV): from a {@link Problem} to a {@link Solution} — flow models (eq. 8-9,
 * or with 001's queue-length feedback), class utilities (003 eq. 7 / 002 yields), the exact DP
 * optimiser (003 eq. 2-3, see {@link Optimizer}) and the N(g,s) partition (003 eq. 5-6, see
 * {@link CapPartition}). Pure: no clock, no threads, no I/O. Stateless and thread-safe.
 */
public final class GrmSolver {

    private GrmSolver() {
    }

    /**
     * Solves one problem.
     *
     * @throws ProblemException when no allocation satisfies the lower bounds and pins
     */
    public static Solution solve(Problem problem) {
        requireNonNull(problem, "problem");
        Problem.Parameters p = problem.parameters();
        int q = p.granularity();
        int n = problem.totalConcurrency();
        int totalUnits = problem.totalUnits();
        List<String> gateways = problem.gateways();
        Map<String, Integer> classIndex = new LinkedHashMap<>();
        for (Problem.Flow f : problem.flows()) {
            classIndex.putIfAbsent(f.cls(), classIndex.size());
        }

        // bounds in long, saturating (PinSelection's arithmetic): a huge pin or minWeight cannot wrap
        long lowerSum = 0;
        long[] lowerUnits = new long[problem.flows().size()];
        for (int i = 0; i < lowerUnits.length; i++) {
            Problem.Flow f = problem.flows().get(i);
            Double pin = problem.pins().get(f.id());
            if (pin != null) {
                lowerUnits[i] = PinSelection.pinUnits(pin, q);
            } else {
                Problem.ClassSpec c = problem.classNamed(f.cls());
                lowerUnits[i] = PinSelection.lowerUnits(p.minWeight(), c.minShare(), n, gateways.size(), q);
            }
            lowerSum = PinSelection.add(lowerSum, lowerUnits[i]);
        }
        if (lowerSum > totalUnits) {
            throw new ProblemException(List.of("flows: the lower bounds (minWeight " + p.minWeight()
                    + ", minShare, pins) need " + format(lowerSum / (double) q) + " of N = " + n
                    + " (expected: N >= the sum of lower bounds)"));
        }
        int[] lowers = new int[lowerUnits.length];   // each ≤ lowerSum ≤ totalUnits, an int
        for (int i = 0; i < lowers.length; i++) {
            lowers[i] = (int) lowerUnits[i];
        }

        List<Item> items = new ArrayList<>();
        for (int i = 0; i < lowers.length; i++) {
            Problem.Flow f = problem.flows().get(i);
            Problem.ClassSpec c = problem.classNamed(f.cls());
            FlowModel model = model(f, c, p, problem.deltaMu().getOrDefault(f.id(), 0.0));
            boolean pinned = problem.pins().containsKey(f.id());
            int upper = pinned ? lowers[i] : (int) (totalUnits - (lowerSum - lowers[i]));
            items.add(new Item(classIndex.get(f.cls()), lowers[i], upper, model, c, q));
        }
        Optimizer.Result r;
        try {
            r = p.combine() == Problem.Combine.SUM
                    ? Optimizer.maximiseSum(items, totalUnits)
                    : Optimizer.maximiseMin(items, totalUnits);
        } catch (Optimizer.InfeasibleException e) {
            throw new ProblemException(List.of("flows: " + e.getMessage()));
        }

        checkAllocation(r.units(), items, totalUnits);
        Map<String, Map<String, Double>> weights = new LinkedHashMap<>();
        Map<Problem.FlowId, Solution.Prediction> predicted = new LinkedHashMap<>();
        Map<String, Double> gatewayWeights = new LinkedHashMap<>();
        for (int i = 0; i < items.size(); i++) {
            Problem.Flow f = problem.flows().get(i);
            double w = r.units()[i] / (double) q;
            weights.computeIfAbsent(f.gateway(), g -> new LinkedHashMap<>()).put(f.cls(), w);
            gatewayWeights.merge(f.gateway(), w, Double::sum);
            Item it = items.get(i);
            double t = it.model.predict(w);
            predicted.put(f.id(), new Solution.Prediction(t, it.cls.utility().utility(t)));
        }
        Map<String, Integer> serverCaps = new LinkedHashMap<>();
        problem.servers().forEach(s -> serverCaps.put(s.id(), s.concurrency()));
        Map<String, Map<String, Integer>> caps = CapPartition.partition(gatewayWeights, serverCaps);
        return new Solution(r.objective(), weights, caps, predicted);
    }

    /**
     * The given allocation valued under the problem's models: each flow's prediction and utility, the
     * objective (sum of the utilities, or the smallest class total Σ_g U_c), the N(g,s) partition.
     * The weights are taken as they are (no bound is checked); a flow without a weight counts as 0.
     */
    public static Solution evaluate(Problem problem, Map<String, Map<String, Double>> weights) {
        requireNonNull(problem, "problem");
        requireNonNull(weights, "weights");
        Problem.Parameters p = problem.parameters();
        Map<String, Map<String, Double>> w = new LinkedHashMap<>();
        Map<Problem.FlowId, Solution.Prediction> predicted = new LinkedHashMap<>();
        Map<String, Double> gatewayWeights = new LinkedHashMap<>();
        Map<String, Double> classTotals = new LinkedHashMap<>();
        double sum = 0;
        for (Problem.Flow f : problem.flows()) {
            Problem.ClassSpec c = problem.classNamed(f.cls());
            double x = weights.getOrDefault(f.gateway(), Map.of()).getOrDefault(f.cls(), 0.0);
            w.computeIfAbsent(f.gateway(), g -> new LinkedHashMap<>()).put(f.cls(), x);
            gatewayWeights.merge(f.gateway(), x, Double::sum);
            double t = model(f, c, p, problem.deltaMu().getOrDefault(f.id(), 0.0)).predict(x);
            double u = c.utility().utility(t);
            predicted.put(f.id(), new Solution.Prediction(t, u));
            classTotals.merge(f.cls(), u, Double::sum);
            sum += u;
        }
        double objective = p.combine() == Problem.Combine.SUM ? sum
                : classTotals.values().stream().mapToDouble(Double::doubleValue).min().orElse(0);
        Map<String, Integer> serverCaps = new LinkedHashMap<>();
        problem.servers().forEach(s -> serverCaps.put(s.id(), s.concurrency()));
        return new Solution(objective, w, CapPartition.partition(gatewayWeights, serverCaps), predicted);
    }

    /** Belt and braces: an allocation that breaks a bound or misses N is a bug, never returned. */
    private static void checkAllocation(int[] units, List<Item> items, int totalUnits) {
        long sum = 0;
        for (int i = 0; i < units.length; i++) {
            if (units[i] < items.get(i).lower || units[i] > items.get(i).upper) {
                throw new IllegalStateException("flow " + i + ": " + units[i] + " units (expected: within ["
                        + items.get(i).lower + ", " + items.get(i).upper + "])");
            }
            sum += units[i];
        }
        if (sum != totalUnits) {
            throw new IllegalStateException("allocation: " + sum + " units (expected: " + totalUnits + ")");
        }
    }

    /** The flow model of one flow of {@code problem} under its prediction mode, with its PI term if any. */
    public static FlowModel model(Problem problem, Problem.Flow f) {
        return model(f, problem.classNamed(f.cls()), problem.parameters(), problem.deltaMu().getOrDefault(f.id(), 0.0));
    }

    /** The flow model of one flow under the problem's prediction mode, with liu's PI term Δμ (req/s). */
    private static FlowModel model(Problem.Flow f, Problem.ClassSpec c, Problem.Parameters p, double deltaMu) {
        double cap = c.responseTimeCap() * c.targetSeconds();
        double w = f.weightForModel();
        FlowModel m = switch (p.prediction()) {
            case QUEUE_LENGTH -> FlowModel.queueLength(f.arrivalRate(), f.responseTime(), w, cap,
                    f.queueLength(), p.controlPeriodSeconds(), p.gain());
            case LIU -> FlowModel.liu(f.arrivalRate(), f.responseTime(), w, cap, f.queueLength(),
                    c.targetSeconds(), p.liuK(), deltaMu);
            case MM1 -> FlowModel.mm1(f.arrivalRate(), f.responseTime(), w, cap).withServiceTime(f.serviceTime());
        };
        return c.thinkTimeSeconds() < Double.POSITIVE_INFINITY ? m.withThinkTime(c.thinkTimeSeconds()) : m;
    }

    private static String format(double d) {
        return d == Math.rint(d) ? Long.toString((long) d) : Double.toString(d);
    }

    /** A flow as the optimiser sees it (the optimiser reads each value once, so no cache). */
    private static final class Item implements Optimizer.Item {
        final int group;
        final int lower;
        final int upper;
        final FlowModel model;
        final Problem.ClassSpec cls;
        final int q;

        Item(int group, int lower, int upper, FlowModel model, Problem.ClassSpec cls, int q) {
            this.group = group;
            this.lower = lower;
            this.upper = upper;
            this.model = model;
            this.cls = cls;
            this.q = q;
        }

        @Override
        public int group() {
            return group;
        }

        @Override
        public int lower() {
            return lower;
        }

        @Override
        public int upper() {
            return upper;
        }

        @Override
        public double value(int units) {
            return cls.utility().utility(model.predict(units / (double) q));
        }

        @Override
        public boolean isConstant() {
            return lower == upper || model.isConstant();
        }
    }
}
