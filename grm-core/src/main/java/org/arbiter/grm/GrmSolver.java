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
import org.arbiter.grm.optimize.Rebalance;

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
        return solve(problem, false);
    }

    /**
     * Solves one problem by the dynamic programme alone, never the fast paths: the reference the fast
     * paths are tested and benchmarked against.
     *
     * @throws ProblemException when no allocation satisfies the lower bounds and pins
     */
    public static Solution solveByDp(Problem problem) {
        return solve(problem, true, true);
    }

    /**
     * {@link #solve} without the N(g,s) partition ({@code serverCaps} empty): for a caller that may not keep
     * this solution (the damping) and partitions the one it keeps with {@link #withCaps}.
     */
    public static Solution solveWithoutCaps(Problem problem) {
        return solve(problem, false, false);
    }

    /**
     * {@code s} with its N(g,s) partition: as {@link #solve} would have made it for the same weights (the
     * gateways' weights summed in flow order), or {@code s} itself when it has one.
     */
    public static Solution withCaps(Problem problem, Solution s) {
        if (!s.serverCaps().isEmpty()) {
            return s;
        }
        Map<String, Double> gatewayWeights = new LinkedHashMap<>();
        for (Problem.Flow f : problem.flows()) {
            gatewayWeights.merge(f.gateway(), s.weights().getOrDefault(f.gateway(), Map.of()).getOrDefault(f.cls(), 0.0),
                    Double::sum);
        }
        return new Solution(s.objective(), s.weights(), partition(problem, gatewayWeights), s.predicted(), s.path());
    }

    private static Map<String, Map<String, Integer>> partition(Problem problem, Map<String, Double> gatewayWeights) {
        Map<String, Integer> serverCaps = new LinkedHashMap<>();
        problem.servers().forEach(s -> serverCaps.put(s.id(), s.concurrency()));
        return CapPartition.partition(gatewayWeights, serverCaps);
    }

    private static Solution solve(Problem problem, boolean dpOnly) {
        return solve(problem, dpOnly, true);
    }

    private static Solution solve(Problem problem, boolean dpOnly, boolean withCaps) {
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
        Map<Problem.FlowId, Double> floors = borrowable(problem);
        double[] demandUnits = new double[lowers.length];
        boolean[] slotModel = new boolean[lowers.length];
        for (int i = 0; i < lowers.length; i++) {
            Problem.Flow f = problem.flows().get(i);
            Problem.ClassSpec c = problem.classNamed(f.cls());
            FlowModel model = model(f, c, p, problem.deltaMu().getOrDefault(f.id(), 0.0));
            boolean pinned = problem.pins().containsKey(f.id());
            int upper = pinned ? lowers[i] : (int) (totalUnits - (lowerSum - lowers[i]));
            items.add(new Item(classIndex.get(f.cls()), lowers[i], upper, model, c, q,
                    floors.getOrDefault(f.id(), 0.0)));
            slotModel[i] = !pinned && model.serviceTimeSeconds() > 0;
            demandUnits[i] = q * demandSlots(f, c);
        }
        Optimizer.Result r;
        try {
            if (dpOnly) {
                r = p.combine() == Problem.Combine.SUM
                        ? Optimizer.maximiseSumByDp(items, totalUnits)
                        : Optimizer.maximiseMinByDp(items, totalUnits);
            } else {
                r = p.combine() == Problem.Combine.SUM
                        ? Optimizer.maximiseSum(items, totalUnits)
                        : Optimizer.maximiseMin(items, totalUnits);
            }
        } catch (Optimizer.InfeasibleException e) {
            throw new ProblemException(List.of("flows: " + e.getMessage()));
        }

        int[] rebalanced = Rebalance.apply(items, r.units(), demandUnits, slotModel);
        double again = p.combine() == Problem.Combine.SUM ? Optimizer.sum(items, rebalanced)
                : Optimizer.min(items, rebalanced, classIndex.size());
        if (again >= r.objective() - 1e-9 * (1 + Math.abs(r.objective()))) {
            r = new Optimizer.Result(rebalanced, r.objective(), r.path());
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
            double t = it.model.predict(Math.max(w, it.floor));
            predicted.put(f.id(), new Solution.Prediction(t, it.cls.utility().utility(t)));
        }
        Map<String, Map<String, Integer>> caps = withCaps ? partition(problem, gatewayWeights) : Map.of();
        return new Solution(r.objective(), weights, caps, predicted, r.path().label());
    }

    /**
     * The given allocation valued under the problem's models: each flow's prediction and utility, the
     * objective (sum of the utilities, or the smallest class total Σ_g U_c), the N(g,s) partition.
     * The weights are taken as they are (no bound is checked); a flow without a weight counts as 0.
     */
    public static Solution evaluate(Problem problem, Map<String, Map<String, Double>> weights) {
        return evaluate(problem, weights, true);
    }

    /**
     * {@link #evaluate} without the N(g,s) partition (its {@code serverCaps} empty): the objective and
     * the predictions only, for comparing allocations (the partition of 1 000 servers over 100
     * gateways is most of an evaluation's cost).
     */
    public static Solution value(Problem problem, Map<String, Map<String, Double>> weights) {
        return evaluate(problem, weights, false);
    }

    private static Solution evaluate(Problem problem, Map<String, Map<String, Double>> weights, boolean withCaps) {
        requireNonNull(problem, "problem");
        requireNonNull(weights, "weights");
        Problem.Parameters p = problem.parameters();
        Map<String, Map<String, Double>> w = new LinkedHashMap<>();
        Map<Problem.FlowId, Solution.Prediction> predicted = new LinkedHashMap<>();
        Map<String, Double> gatewayWeights = new LinkedHashMap<>();
        Map<String, Double> classTotals = new LinkedHashMap<>();
        double sum = 0;
        Map<Problem.FlowId, Double> floors = borrowable(problem);
        for (Problem.Flow f : problem.flows()) {
            Problem.ClassSpec c = problem.classNamed(f.cls());
            double x = weights.getOrDefault(f.gateway(), Map.of()).getOrDefault(f.cls(), 0.0);
            w.computeIfAbsent(f.gateway(), g -> new LinkedHashMap<>()).put(f.cls(), x);
            gatewayWeights.merge(f.gateway(), x, Double::sum);
            double t = model(f, c, p, problem.deltaMu().getOrDefault(f.id(), 0.0))
                    .predict(Math.max(x, floors.getOrDefault(f.id(), 0.0)));
            double u = c.utility().utility(t);
            predicted.put(f.id(), new Solution.Prediction(t, u));
            classTotals.merge(f.cls(), u, Double::sum);
            sum += u;
        }
        double objective = p.combine() == Problem.Combine.SUM ? sum
                : classTotals.values().stream().mapToDouble(Double::doubleValue).min().orElse(0);
        if (!withCaps) {
            return new Solution(objective, w, Map.of(), predicted);
        }
        return new Solution(objective, w, partition(problem, gatewayWeights), predicted);
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

    /**
     * Work conservation (slot model only): the slots a flow can count on whatever its weight, because
     * the other flows leave them idle. The gateway's WRR lends a flow the slots of its N_g that the
     * others do not use; they use at most their demand, so the flow holds at least
     * N_g − Σ_{o≠f} demand_o. Only with one gateway, where N_g = N: with several, N_g follows from the
     * weights being chosen (003 eq. 5-6) and the floor is left out. Absent (0) for a flow whose
     * gateway has a flow with arrivals but no service time measured (its demand is unknown), and
     * outside the mm1 prediction.
     */
    static Map<Problem.FlowId, Double> borrowable(Problem problem) {
        Map<Problem.FlowId, Double> out = new LinkedHashMap<>();
        if (problem.parameters().prediction() != Problem.Prediction.MM1) {
            return out;
        }
        if (problem.gateways().size() != 1) {
            return out;
        }
        double all = 0;
        for (Problem.Flow f : problem.flows()) {
            all += demandSlots(f, problem.classNamed(f.cls()));
        }
        int n = problem.totalConcurrency();
        for (Problem.Flow f : problem.flows()) {
            double others = all - demandSlots(f, problem.classNamed(f.cls()));
            if (f.serviceTime() > 0 && f.arrivalRate() > 0 && Double.isFinite(others)) {
                out.put(f.id(), Math.max(0, n - others));
            }
        }
        return out;
    }

    /**
     * The slots a flow would hold unconstrained: its closed-loop clients' n·S̃/(Z + S̃) (n = λ̃(Z + t̃),
     * each busy S̃ out of every Z + S̃ when it never waits), or λ̃·S̃ open loop; 0 without arrivals, +∞
     * with arrivals and no service time measured.
     */
    static double demandSlots(Problem.Flow f, Problem.ClassSpec c) {
        if (f.arrivalRate() == 0) {
            return 0;
        }
        if (!(f.serviceTime() > 0)) {
            return Double.POSITIVE_INFINITY;
        }
        double z = c.thinkTimeSeconds();
        if (z < Double.POSITIVE_INFINITY) {
            double n = f.arrivalRate() * (z + f.responseTime());
            return n * f.serviceTime() / (z + f.serviceTime());
        }
        return f.arrivalRate() * f.serviceTime();
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

        final double floor;

        Item(int group, int lower, int upper, FlowModel model, Problem.ClassSpec cls, int q, double floor) {
            this.floor = floor;
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
            return cls.utility().utility(model.predict(Math.max(units / (double) q, floor)));
        }

        @Override
        public boolean isConstant() {
            return lower == upper || model.isConstant();
        }

        /**
         * U(t(max(w, floor))) with t convex and non-increasing below the cap and U concave and
         * non-increasing: flat while the flow is unstable (at the cap) or under its floor, concave after.
         */
        @Override
        public boolean concaveAfterFlat() {
            return model.convexInWeight() && cls.utility().concaveNonIncreasing();
        }
    }
}
