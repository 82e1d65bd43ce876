package org.arbiter.grm.optimize;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/*
 * Design note — the fast exact paths (issue 32).
 *
 * The DP tabulates every flow's value at every unit (F·M' model evaluations) and convolves the
 * tables (F·M' log M'); at 2 000 flows × 10 000 units that is most of a GRM step. Where the items
 * promise a shape (Optimizer.Item.concaveAfterFlat: non-decreasing, constant up to some unit a,
 * concave from a on), the optimum is found from O(F log M' + M') evaluations instead:
 *
 * Hull. A flow's value is flat at c = v(L) on [L, a) and concave from a. Its upper concave
 * envelope on [L, H] is a chord from (L, c) to the tangent point r (the first k ≥ a where the next
 * gain v(k+1) − v(k) is no larger than the chord slope (v(k) − c)/(k − L); the predicate is monotone
 * on a concave tail, so r is found by bisection), then the tail itself. The hull's gains are
 * non-increasing: the chord's slope s on each of its r − L units, then v(k+1) − v(k).
 *
 * sum (marginal gains). The units go one segment at a time to the flow whose next hull gain is the
 * largest (a binary heap; ties to the earlier flow, as the DP gives earlier flows the units; a chord
 * is taken whole if it fits). Greedy on concave functions is optimal for the hull problem
 * max Σ hull_i(x_i), Σ x_i = M', and hull_i ≥ v_i, so when every flow ends at a point where its
 * hull equals its value (at L, or at r or beyond) the allocation is optimal for the true problem.
 * At most one chord can end part-taken (the budget ran out inside it); then the hull value of the
 * greedy result is an upper bound, and a cheap repair is tried first: the flow keeps its part-chord,
 * or goes back to L with its units continuing down the heap; if either reaches the bound (to
 * rounding) it is optimal.
 *
 * min (level search). Each class's hull H_c(n) (base + the best class total with n units, on the
 * hulls) is concave and non-decreasing. Water-filling, one unit at a time to the class whose H_c is
 * lowest (its own heap picks the flow), reaches the largest common level m* of the hull problem:
 * every class d ended with n_d units, its last one given while H_d(n_d − 1) was the minimum ≤ m*,
 * so any allocation whose every class exceeds m* needs more than M' units. It stops early when the
 * lowest class can rise no further (no room or gain 0: concave, so never again), and a class of
 * constant flows caps the level at its value. Then each class is set to u_c(m*), its fewest units
 * with H_c ≥ m* (the recorded sequence, no re-evaluation), and the units left over go by the sum
 * path's greedy across all flows: the hull problem's lexicographic optimum (largest minimum, then
 * largest total). If every flow ends on its hull, it is the true problem's lexicographic optimum.
 *
 * Branching. When a flow j ends inside its chord (and, for sum, the repair does not prove the
 * answer), its range is split in two: [L_j, a_j − 1], its flat part, where it is a constant flow
 * (its room becomes slack worth 0), and [a_j, H_j], where it is concave from its lower bound (no
 * chord). Every allocation lies in one branch, each branch is solved the same way (recursively), and
 * the better optimum (sum; min: the larger minimum, then the larger total) is the optimum. At most
 * 32 branch solves; beyond that, or when every branch is infeasible, the DP decides.
 *
 * Constant flows keep their lower bound; their room is a slack of zero-valued units that comes
 * after every variable flow at equal gain (the DP puts it last in the chain). Cost: per flow two
 * bisections (O(log M') evaluations), then one evaluation and O(log F) heap work per unit:
 * O(F log M' + M' log F) with no table of F·M'. Memory O(F + M').
 *
 * Floating point: gains are differences as computed; a shape promised by the model can be broken
 * by rounding at the 1e-16 level, which shifts the objective by as much, never by a unit's worth.
 */

/** The optimiser's fast exact paths for shaped items. See the design note above. */
final class Marginal {

    /** Relative tolerance for "the repair reaches the hull bound". */
    private static final double TOLERANCE = 1e-12;

    private final List<? extends Optimizer.Item> items;
    private final int free;
    // per variable flow j (items index idx[j]):
    private final int[] idx;
    private final int[] lower;
    private final int[] hi;      // most units this flow may hold here: min(upper, lower + free)
    private final int[] chordEnd; // r: hull = chord on [lower, r], tail from r (r == lower: no chord)
    private final int[] firstAbove; // a: the first unit whose value exceeds the flat value
    private final double[] flat;  // c = v(lower)
    private final double[] slope; // the chord's slope
    private final int[] pos;
    private final int[] cachedAt;      // the unit whose value cachedValue holds
    private final double[] cachedValue;
    private final double[] gain;       // the next unit's hull gain (NaN when exhausted)
    private final boolean[] excluded;  // left at its lower bound by the sum path's repair
    private final int slackId;
    private final int slackRoom;
    private int slackTaken;

    private Marginal(List<? extends Optimizer.Item> items, int free, List<Integer> variable, int slackRoom) {
        this.items = items;
        this.free = free;
        int f = variable.size();
        idx = new int[f];
        lower = new int[f];
        hi = new int[f];
        chordEnd = new int[f];
        firstAbove = new int[f];
        flat = new double[f];
        slope = new double[f];
        pos = new int[f];
        cachedAt = new int[f];
        cachedValue = new double[f];
        gain = new double[f];
        excluded = new boolean[f];
        slackId = f;
        this.slackRoom = slackRoom;
        for (int j = 0; j < f; j++) {
            idx[j] = variable.get(j);
            hull(j);
        }
    }

    /** True when every variable item promises the shape the fast paths rely on. */
    static boolean applies(List<? extends Optimizer.Item> items) {
        for (Optimizer.Item it : items) {
            if (!it.isConstant() && !it.concaveAfterFlat()) {
                return false;
            }
        }
        return true;
    }

    /** Branches tried before the DP decides (each is one fast solve). */
    private static final int BRANCH_BUDGET = 32;

    /** A branch with no allocation at all (its bounds cannot hold the units). */
    private static final Optimizer.Result INFEASIBLE = new Optimizer.Result(new int[0], Double.NaN, Optimizer.Path.MARGINAL);

    /** The sum optimum, or null when the fast path cannot prove it (the DP then decides). */
    static Optimizer.Result maximiseSum(List<? extends Optimizer.Item> items, int totalUnits) {
        Optimizer.Result r = branch(new ArrayList<>(items), totalUnits, false, 0, new int[] {BRANCH_BUDGET});
        return r == INFEASIBLE ? null : r;
    }

    /** The min optimum (lexicographic: largest minimum, then largest total), or null (the DP decides). */
    static Optimizer.Result maximiseMin(List<? extends Optimizer.Item> items, int totalUnits, int groups) {
        boolean large = dpTooLarge(items, totalUnits);
        // at a size where each branch is a large solve, a few branches, then the threshold search
        Optimizer.Result r = branch(new ArrayList<>(items), totalUnits, true, groups,
                new int[] {large ? 4 : BRANCH_BUDGET});
        if (r == null && large) {
            // many classes end inside a chord and the DP's tables would not fit a period: the minimum
            // by per-class thresholds on true values (exact), the total by marginal gains
            return Thresholds.solve(items, totalUnits, groups);
        }
        return r == INFEASIBLE ? null : r;
    }

    /**
     * One attempt; when a chord ends part-taken at flow j, two branches split j's range: [L_j, a_j − 1],
     * its flat part (a constant flow there: its room is slack worth 0), and [a_j, H_j], where it is
     * concave (no chord). Every allocation lies in one of them, so the better of the two optima is the
     * optimum. Each is solved the same way; null when a branch cannot be proved within the budget.
     */
    private static Optimizer.Result branch(List<Optimizer.Item> items, int totalUnits, boolean min, int groups,
                                           int[] budget) {
        int[] units = new int[items.size()];
        int free;
        try {
            free = Optimizer.prepare(items, totalUnits, units);
        } catch (Optimizer.InfeasibleException e) {
            return INFEASIBLE;
        }
        Marginal m = of(items, free);
        int[] split = new int[2];
        Optimizer.Result r = min ? m.levelAttempt(units, free, groups, split) : m.marginalAttempt(units, free, split);
        if (r != null) {
            return r;
        }
        if (--budget[0] < 0) {
            return null;
        }
        int j = split[0];
        Optimizer.Item it = items.get(j);
        List<Optimizer.Item> off = new ArrayList<>(items);
        off.set(j, new Bounded(it, it.lower(), split[1] - 1, true));
        Optimizer.Result atLower = branch(off, totalUnits, min, groups, budget);
        if (atLower == null) {
            return null;
        }
        List<Optimizer.Item> on = new ArrayList<>(items);
        on.set(j, new Bounded(it, split[1], it.upper(), false));
        Optimizer.Result above = branch(on, totalUnits, min, groups, budget);
        if (above == null) {
            return null;
        }
        if (atLower == INFEASIBLE) {
            return above;
        }
        if (above == INFEASIBLE) {
            return atLower;
        }
        return better(items, atLower, above, min) ? above : atLower;
    }

    /** The DP's size, variable flows × free units, above which the threshold search answers min instead. */
    static final long DP_LIMIT = 20_000_000L;

    private static boolean dpTooLarge(List<? extends Optimizer.Item> items, int totalUnits) {
        long variable = 0;
        long lower = 0;
        for (Optimizer.Item it : items) {
            variable += it.isConstant() ? 0 : 1;
            lower += it.lower();
        }
        return variable * Math.max(0, totalUnits - lower) > DP_LIMIT;
    }

    /** Whether b beats a: sum by the objective; min by the minimum, then the total (ties keep a). */
    private static boolean better(List<? extends Optimizer.Item> items, Optimizer.Result a, Optimizer.Result b,
                                  boolean min) {
        double tol = TOLERANCE * (1 + Math.abs(a.objective()));
        if (b.objective() > a.objective() + tol) {
            return true;
        }
        if (!min || b.objective() < a.objective() - tol) {
            return false;
        }
        double ta = Optimizer.sum(items, a.units());
        return Optimizer.sum(items, b.units()) > ta + TOLERANCE * (1 + Math.abs(ta));
    }

    /** An item within narrower bounds (a branch); {@code flat}: the bounds lie in its flat part. */
    private record Bounded(Optimizer.Item item, int lower, int upper, boolean flat) implements Optimizer.Item {
        @Override
        public int group() {
            return item.group();
        }

        @Override
        public double value(int units) {
            return item.value(units);
        }

        @Override
        public boolean isConstant() {
            return flat || lower == upper || item.isConstant();
        }

        @Override
        public boolean concaveAfterFlat() {
            return item.concaveAfterFlat();
        }
    }

    /**
     * sum by marginal gains: the answer when every flow ends on its hull (or the one part-chord's
     * repair reaches the hull bound); else null, with the part-chord's item and a in {@code split}.
     */
    private Optimizer.Result marginalAttempt(int[] units, int free, int[] split) {
        Heap heap = heapOf(allFlows(idx.length), true);
        if (greedy(heap, free) > 0) {
            throw new IllegalStateException("units without room after prepare()");
        }
        int partial = partialChord();
        if (partial < 0) {
            return result(units, Optimizer.Path.MARGINAL, false, 0);
        }
        double bound = hullTotal();
        int[] keep = allocation(units);
        double kept = Optimizer.sum(items, keep);
        split[0] = idx[partial];
        split[1] = firstAbove[partial];
        // repair: the part-chord's flow back at its lower bound, its units down the heap
        int back = pos[partial] - lower[partial];
        pos[partial] = lower[partial];
        excluded[partial] = true;
        greedy(heap, back);
        int[] moved = allocation(units);
        double movedValue = Optimizer.sum(items, moved);
        double best = Math.max(kept, movedValue);
        if (best < bound - TOLERANCE * (1 + Math.abs(bound))) {
            return null;
        }
        return new Optimizer.Result(movedValue > kept ? moved : keep, best, Optimizer.Path.MARGINAL);
    }

    /**
     * min by the common level, then marginal gains: the lexicographic answer when every flow ends on
     * its hull; else null, with a part-chord's item and a in {@code split}.
     */
    private Optimizer.Result levelAttempt(int[] units, int free, int groups, int[] split) {
        int f = idx.length;
        double[] base = new double[groups];
        boolean[] variableGroup = new boolean[groups];
        for (int i = 0; i < items.size(); i++) {
            base[items.get(i).group()] += items.get(i).value(units[i]);
        }
        List<List<Integer>> members = new ArrayList<>();
        for (int g = 0; g < groups; g++) {
            members.add(new ArrayList<>());
        }
        for (int j = 0; j < f; j++) {
            int g = items.get(idx[j]).group();
            members.get(g).add(j);
            variableGroup[g] = true;
        }
        int[] classes = new int[groups];
        int count = 0;
        for (int g = 0; g < groups; g++) {
            if (variableGroup[g]) {
                classes[count++] = g;
            }
        }
        // water-filling over class hulls, one unit at a time to the lowest class
        Heap[] within = new Heap[groups];
        double[] level = base.clone();
        Heap lowest = new Heap(groups, false);
        for (int k = 0; k < count; k++) {
            int g = classes[k];
            within[g] = heapOf(members.get(g), false);
            lowest.push(g, level[g]);
        }
        int[] stepFlow = new int[free];
        double[] stepLevel = new double[free];
        int steps = 0;
        while (steps < free && !lowest.isEmpty()) {
            int g = lowest.top();
            Heap h = within[g];
            if (h.isEmpty() || !(gain[h.top()] > 0)) {
                break; // the lowest class can rise no further: its level is the optimum
            }
            int j = h.pop();
            level[g] += gain[j];
            advance(j, 1);
            if (!Double.isNaN(gain[j])) {
                h.push(j, gain[j]);
            }
            lowest.pop();
            lowest.push(g, level[g]);
            stepFlow[steps] = j;
            stepLevel[steps] = level[g];
            steps++;
        }
        double target = Double.POSITIVE_INFINITY;
        for (int k = 0; k < count; k++) {
            target = Math.min(target, level[classes[k]]);
        }
        // a class of constant flows only cannot rise: when it is the lowest, the others need only reach it
        boolean[] present = new boolean[groups];
        for (Optimizer.Item it : items) {
            present[it.group()] = true;
        }
        for (int g = 0; g < groups; g++) {
            if (present[g] && !variableGroup[g]) {
                target = Math.min(target, base[g]);
            }
        }
        // each class at its fewest units reaching the level: replay its steps up to the first at or above it
        for (int j = 0; j < f; j++) {
            reset(j);
        }
        // "at or above" to rounding: the levels are sums of gains, and a class exactly at the level by its
        // values must not be pushed past it by 1e-16 of rounding in another class's sum
        double reach = target - TOLERANCE * (1 + Math.abs(target));
        boolean[] reached = new boolean[groups];
        for (int k = 0; k < count; k++) {
            reached[classes[k]] = base[classes[k]] >= reach;
        }
        int used = 0;
        for (int s = 0; s < steps; s++) {
            int j = stepFlow[s];
            int g = items.get(idx[j]).group();
            if (!reached[g]) {
                pos[j]++;
                used++;
                reached[g] = stepLevel[s] >= reach;
            }
        }
        for (int j = 0; j < f; j++) {
            settle(j);
        }
        // the rest to the largest total, across every flow
        Heap all = heapOf(allFlows(f), true);
        if (greedy(all, free - used) > 0) {
            throw new IllegalStateException("units without room after prepare()");
        }
        int partial = partialChord();
        if (partial >= 0) {
            split[0] = idx[partial];
            split[1] = firstAbove[partial];
            return null;
        }
        return result(units, Optimizer.Path.LEVEL, true, groups);
    }

    private static Marginal of(List<? extends Optimizer.Item> items, int free) {
        List<Integer> variable = new ArrayList<>();
        long room = 0;
        for (int i = 0; i < items.size(); i++) {
            Optimizer.Item it = items.get(i);
            if (it.isConstant()) {
                room += it.upper() - it.lower();
            } else {
                variable.add(i);
            }
        }
        return new Marginal(items, free, variable, (int) Math.min(free, room));
    }

    private static List<Integer> allFlows(int f) {
        List<Integer> all = new ArrayList<>(f);
        for (int j = 0; j < f; j++) {
            all.add(j);
        }
        return all;
    }

    private double v(int j, int k) {
        return items.get(idx[j]).value(k);
    }

    /** The flow's flat value, its chord to the tangent point, and its first gain. */
    private void hull(int j) {
        Optimizer.Item it = items.get(idx[j]);
        int lo = it.lower();
        lower[j] = lo;
        hi[j] = (int) Math.min(it.upper(), (long) lo + free);
        flat[j] = v(j, lo);
        chordEnd[j] = lo;
        pos[j] = lo;
        cachedAt[j] = lo;
        cachedValue[j] = flat[j];
        if (hi[j] == lo) {
            gain[j] = Double.NaN;
            return;
        }
        if (v(j, hi[j]) <= flat[j]) { // flat throughout (non-decreasing): every gain is 0
            chordEnd[j] = hi[j];
            slope[j] = 0;
            gain[j] = 0;
            return;
        }
        // a: the first unit above the flat value
        int a = lo + 1;
        int b = hi[j];
        while (a < b) {
            int mid = (a + b) >>> 1;
            if (v(j, mid) > flat[j]) {
                b = mid;
            } else {
                a = mid + 1;
            }
        }
        // r: the first k ≥ a whose next gain is at most the chord slope from (lo, c)
        int r0 = a;
        int r1 = hi[j];
        while (r0 < r1) {
            int mid = (r0 + r1) >>> 1;
            double vm = v(j, mid);
            if (v(j, mid + 1) - vm <= (vm - flat[j]) / (mid - lo)) {
                r1 = mid;
            } else {
                r0 = mid + 1;
            }
        }
        firstAbove[j] = a;
        chordEnd[j] = r0;
        slope[j] = (v(j, r0) - flat[j]) / (r0 - lo);
        gain[j] = slope[j];
    }

    /** Takes n units of flow j (within its chord, or one tail unit), updating its next gain. */
    private void advance(int j, int n) {
        pos[j] += n;
        settle(j);
    }

    /** Sets the flow's next gain for its current position (one evaluation per tail unit: v(p) is cached). */
    private void settle(int j) {
        int p = pos[j];
        if (p >= hi[j]) {
            gain[j] = Double.NaN;
            return;
        }
        if (p < chordEnd[j]) {
            gain[j] = slope[j];
            return;
        }
        double vp = cachedAt[j] == p ? cachedValue[j] : v(j, p);
        double next = v(j, p + 1);
        cachedAt[j] = p + 1;
        cachedValue[j] = next;
        gain[j] = next - vp;
    }

    private void reset(int j) {
        pos[j] = lower[j];
    }

    private Heap heapOf(List<Integer> flows, boolean withSlack) {
        Heap h = new Heap(flows.size() + 1, true);
        for (int j : flows) {
            if (!Double.isNaN(gain[j])) {
                h.push(j, gain[j]);
            }
        }
        if (withSlack && slackTaken < slackRoom) {
            h.push(slackId, 0);
        }
        return h;
    }

    /**
     * Gives {@code budget} units down the heap, largest gain first (a chord whole when it fits, else
     * what is left of the budget: the caller decides what a part-chord means). Returns the units
     * that found no room.
     */
    private int greedy(Heap heap, int budget) {
        int left = budget;
        while (left > 0 && !heap.isEmpty()) {
            int j = heap.pop();
            if (j != slackId && excluded[j]) {
                continue;
            }
            if (j == slackId) {
                int take = Math.min(left, slackRoom - slackTaken);
                slackTaken += take;
                left -= take;
                continue; // slack is last at gain 0 and takes all it can
            }
            int n = pos[j] < chordEnd[j] ? Math.min(chordEnd[j] - pos[j], left) : 1;
            advance(j, n);
            left -= n;
            if (!Double.isNaN(gain[j])) {
                heap.push(j, gain[j]);
            }
        }
        return left;
    }

    /** A flow that ends inside its chord (its hull above its value there), or −1. */
    private int partialChord() {
        for (int j = 0; j < idx.length; j++) {
            if (pos[j] > lower[j] && pos[j] < chordEnd[j] && slope[j] > 0) {
                return j;
            }
        }
        return -1;
    }

    /** Σ of the hull values at the current positions plus the constant flows (the sum path's bound). */
    private double hullTotal() {
        double total = 0;
        boolean[] variable = new boolean[items.size()];
        for (int j = 0; j < idx.length; j++) {
            variable[idx[j]] = true;
            int p = pos[j];
            total += p < chordEnd[j] ? flat[j] + slope[j] * (p - lower[j]) : v(j, p);
        }
        for (int i = 0; i < items.size(); i++) {
            if (!variable[i]) {
                total += items.get(i).value(items.get(i).lower());
            }
        }
        return total;
    }

    /** The units per item: positions for the variable flows, slack to the constant ones (last first). */
    private int[] allocation(int[] lowerUnits) {
        int[] out = lowerUnits.clone();
        for (int j = 0; j < idx.length; j++) {
            out[idx[j]] = pos[j];
        }
        int slack = slackTaken;
        for (int i = items.size() - 1; i >= 0 && slack > 0; i--) {
            if (items.get(i).isConstant()) {
                int give = Math.min(items.get(i).upper() - out[i], slack);
                out[i] += give;
                slack -= give;
            }
        }
        return out;
    }

    private Optimizer.Result result(int[] lowerUnits, Optimizer.Path path, boolean min, int groups) {
        int[] out = allocation(lowerUnits);
        return new Optimizer.Result(out, min ? Optimizer.min(items, out, groups) : Optimizer.sum(items, out), path);
    }


    /**
     * min when branching on part-taken chords one at a time would not end (hundreds of classes, each
     * reaching the level inside a chord): the largest level m every class reaches on its true values
     * within the units, Σ_c u_c(m) ≤ M', by bisection on m; u_c(m), the fewest units for class c to
     * reach m, is the class's own greedy on its hulls, branching on the flow whose chord the level is
     * crossed inside (its flat part, or from a_j on). The minimum is exact (the bisection ends on
     * adjacent doubles, or the allocation found is the largest feasible level); the units left over
     * go by marginal gains, chords only whole, so the total is the greedy's, not proved the largest.
     */
    static final class Thresholds {
        /** Class-local solves per feasibility test before the DP decides. */
        private static final int SOLVES = 200_000;

        private final Marginal m;
        private final int[][] members;   // per class (group), its variable flows (Marginal indices)
        private final double[] base;
        private final int groups;
        private int solves;

        private Thresholds(Marginal m, int[][] members, double[] base, int groups) {
            this.m = m;
            this.members = members;
            this.base = base;
            this.groups = groups;
            this.sequences = new Sequence[groups];
        }

        static Optimizer.Result solve(List<? extends Optimizer.Item> items, int totalUnits, int groups) {
            int[] units = new int[items.size()];
            int free = Optimizer.prepare(items, totalUnits, units);
            Marginal m = of(items, free);
            double[] base = new double[groups];
            boolean[] present = new boolean[groups];
            for (int i = 0; i < items.size(); i++) {
                base[items.get(i).group()] += items.get(i).value(units[i]);
                present[items.get(i).group()] = true;
            }
            List<List<Integer>> byGroup = new ArrayList<>();
            for (int g = 0; g < groups; g++) {
                byGroup.add(new ArrayList<>());
            }
            for (int j = 0; j < m.idx.length; j++) {
                byGroup.get(items.get(m.idx[j]).group()).add(j);
            }
            int[][] members = new int[groups][];
            double lo = Double.POSITIVE_INFINITY;
            double cap = Double.POSITIVE_INFINITY; // classes of constant flows cannot rise
            for (int g = 0; g < groups; g++) {
                members[g] = byGroup.get(g).stream().mapToInt(Integer::intValue).toArray();
                if (present[g]) {
                    lo = Math.min(lo, base[g]);
                    if (members[g].length == 0) {
                        cap = Math.min(cap, base[g]);
                    }
                }
            }
            Thresholds t = new Thresholds(m, members, base, groups);
            int[][] at = new int[groups][];
            if (t.need(lo, free, at) > free) {
                return null;
            }
            double hi = Math.min(cap, t.ceiling(free));
            int[][] best = at;
            double bestLevel = lo;
            if (hi > lo) {
                int[][] probe = new int[groups][];
                long need = t.need(hi, free, probe);
                if (need == Long.MIN_VALUE) {
                    return null;
                }
                if (need <= free) {
                    best = probe;
                    bestLevel = hi;
                } else {
                    for (int k = 0; k < 200 && Math.nextUp(lo) < hi; k++) {
                        double mid = lo + (hi - lo) / 2;
                        if (mid <= lo || mid >= hi) {
                            break;
                        }
                        probe = new int[groups][];
                        need = t.need(mid, free, probe);
                        if (need == Long.MIN_VALUE) {
                            return null;
                        }
                        if (need <= free) {
                            lo = mid;
                            best = probe;
                            bestLevel = mid;
                        } else {
                            hi = mid;
                        }
                    }
                }
            }
            // the thresholds' positions, then the rest by marginal gains (chords whole only)
            int used = 0;
            for (int j = 0; j < m.idx.length; j++) {
                m.pos[j] = m.lower[j];
            }
            for (int g = 0; g < groups; g++) {
                if (best[g] != null) {
                    for (int q = 0; q < members[g].length; q++) {
                        int j = members[g][q];
                        m.pos[j] = best[g][q];
                        used += best[g][q] - m.lower[j];
                    }
                }
            }
            for (int j = 0; j < m.idx.length; j++) {
                m.settle(j);
            }
            // units never lower a value, so any placement keeps every class at its level; a chord this
            // pass leaves part-taken is undone and its flow left out, a few times at most
            int left = free - used;
            for (int attempt = 0; ; attempt++) {
                Heap all = m.heapOf(allFlows(m.idx.length), true);
                int[] before = m.pos.clone();
                int slackBefore = m.slackTaken;
                if (m.greedy(all, left) > 0) {
                    return null;
                }
                int partial = -1;
                for (int j = 0; j < m.idx.length && partial < 0; j++) {
                    if (m.pos[j] != before[j] && m.pos[j] < m.chordEnd[j] && m.slope[j] > 0) {
                        partial = j;
                    }
                }
                if (partial < 0 || attempt == 8) {
                    break;
                }
                System.arraycopy(before, 0, m.pos, 0, before.length);
                m.slackTaken = slackBefore;
                m.excluded[partial] = true;
                for (int j = 0; j < m.idx.length; j++) {
                    m.settle(j);
                }
            }
            Optimizer.Result r = m.result(units, Optimizer.Path.THRESHOLDS, true, groups);
            // each class reached its level to rounding (TOLERANCE), so the minimum may sit that far below it
            return r.objective() >= bestLevel - 4 * TOLERANCE * (1 + Math.abs(bestLevel)) ? r : null;
        }

        /**
         * An upper bound for the bisection: the lowest class's total with each of its flows at the most
         * units it may hold (values never fall as units grow), O(F) evaluations.
         */
        private double ceiling(int free) {
            double hi = Double.POSITIVE_INFINITY;
            for (int g = 0; g < groups; g++) {
                if (members[g].length > 0) {
                    double top = base[g];
                    for (int j : members[g]) {
                        top += m.v(j, m.hi[j]) - m.flat[j];
                    }
                    hi = Math.min(hi, top);
                }
            }
            return hi;
        }

        /**
         * Σ_c u_c(level) (Long.MIN_VALUE: too many class-local solves; a value above {@code free}:
         * the level is out of reach), each class's positions into {@code at}.
         */
        private long need(double level, int free, int[][] at) {
            solves = 0;
            long total = 0;
            for (int g = 0; g < groups; g++) {
                if (members[g].length == 0) {
                    continue;
                }
                int[] mem = members[g];
                int budget = (int) Math.min(Integer.MAX_VALUE, free - total);
                // the class's own hull sequence first: where the level is crossed on a tail unit or at a
                // chord's end, the fewest units are read off it; only a crossing inside a chord branches
                Sequence sq = sequences[g] == null ? (sequences[g] = new Sequence(g)) : sequences[g];
                double goal = level - TOLERANCE * (1 + Math.abs(level));
                long u;
                int[] out = new int[mem.length];
                int n = sq.firstReaching(goal, budget);
                if (n < 0) {
                    u = (long) budget + 1; // the hull cannot reach it within the budget, nor can the values
                } else if (!sq.inner(n)) {
                    u = n;
                    sq.positions(n, out);
                } else {
                    int[] lowerAt = new int[mem.length];
                    for (int q = 0; q < mem.length; q++) {
                        lowerAt[q] = m.lower[mem[q]];
                    }
                    u = reach(g, level, lowerAt, new boolean[mem.length], budget, out, (long) budget + 1);
                    if (u == Long.MIN_VALUE) {
                        return Long.MIN_VALUE;
                    }
                }
                if (u > free - total) {
                    return (long) free + 1;
                }
                total += u;
                at[g] = out;
            }
            return total;
        }

        private Sequence[] sequences;

        /**
         * A class's greedy on its hulls, one unit at a time (a chord's units at its slope), extended as
         * far as the levels asked for: the level after each unit, the flow that took it, and whether it
         * lies inside a chord short of its end (there the hull is above the value).
         */
        private final class Sequence {
            private final int g;
            private final int[] pos;
            private final Heap heap;
            private double level;
            private double[] levels = new double[64];
            private int[] flows = new int[64];
            private boolean[] inner = new boolean[64];
            private int length;
            private boolean done;

            Sequence(int g) {
                this.g = g;
                int[] mem = members[g];
                pos = new int[mem.length];
                heap = new Heap(mem.length, true);
                level = base[g];
                for (int q = 0; q < mem.length; q++) {
                    pos[q] = m.lower[mem[q]];
                    double gq = gain(mem[q], pos[q], false);
                    if (!Double.isNaN(gq)) {
                        heap.push(q, gq);
                    }
                }
            }

            /** Units after which the level is at least goal (0: already), or −1 within budget + 1 units. */
            int firstReaching(double goal, int budget) {
                if (base[g] >= goal) {
                    return 0;
                }
                while (!done && length <= budget && (length == 0 || levels[length - 1] < goal)) {
                    step();
                }
                int lo = 0;
                int hi = length;
                while (lo < hi) {
                    int mid = (lo + hi) >>> 1;
                    if (levels[mid] >= goal) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                return lo < length && lo + 1 <= budget ? lo + 1 : -1;
            }

            boolean inner(int units) {
                return units > 0 && inner[units - 1];
            }

            void positions(int units, int[] out) {
                int[] mem = members[g];
                for (int q = 0; q < mem.length; q++) {
                    out[q] = m.lower[mem[q]];
                }
                for (int k = 0; k < units; k++) {
                    out[flows[k]]++;
                }
            }

            private void step() {
                if (heap.isEmpty()) {
                    done = true;
                    return;
                }
                int q = heap.pop();
                int j = members[g][q];
                double gq = gain(j, pos[q], false);
                if (!(gq > 0)) {
                    done = true; // concave: nothing in this class rises any more
                    return;
                }
                boolean inChord = pos[q] < m.chordEnd[j];
                level += gq;
                pos[q]++;
                if (length == levels.length) {
                    levels = Arrays.copyOf(levels, length * 2);
                    flows = Arrays.copyOf(flows, length * 2);
                    inner = Arrays.copyOf(inner, length * 2);
                }
                levels[length] = level;
                flows[length] = q;
                inner[length] = inChord && pos[q] < m.chordEnd[j];
                length++;
                double next = gain(j, pos[q], false);
                if (!Double.isNaN(next)) {
                    heap.push(q, next);
                }
            }
        }

        /**
         * The fewest units (above the lower bounds) with which class g's flows reach {@code level} on
         * their true values: its greedy on the hulls, and where the level is crossed inside flow q's
         * chord, the better of q flat (left at its lower bound) and q from a on, branch and bound: a
         * configuration whose hull count already reaches {@code cut} (the best known) is not explored
         * (returns cut). Positions into {@code out} when below cut; more than {@code budget}: out of
         * reach; Long.MIN_VALUE: too many solves.
         */
        private long reach(int g, double level, int[] lowerAt, boolean[] off, int budget, int[] out, long cut) {
            if (++solves > SOLVES) {
                return Long.MIN_VALUE;
            }
            int[] mem = members[g];
            int[] pos = lowerAt.clone();
            double[] gains = new double[mem.length];  // each flow's next hull gain, as pushed
            double[] valueAt = new double[mem.length]; // v(pos) on a tail (NaN: not known)
            double have = base[g];
            long used = 0;
            Heap h = new Heap(mem.length, true);
            for (int q = 0; q < mem.length; q++) {
                int j = mem[q];
                valueAt[q] = Double.NaN;
                if (pos[q] > m.lower[j]) { // raised to a: its value there, its units counted
                    valueAt[q] = m.v(j, pos[q]);
                    have += valueAt[q] - m.flat[j];
                    used += pos[q] - m.lower[j];
                }
                if (!off[q]) {
                    gains[q] = nextGain(j, pos[q], pos[q] > m.lower[j], valueAt, q);
                    if (!Double.isNaN(gains[q])) {
                        h.push(q, gains[q]);
                    }
                }
            }
            double goal = level - TOLERANCE * (1 + Math.abs(level)); // to rounding, as the level path
            while (have < goal) {
                if (used > budget || h.isEmpty()) {
                    return (long) budget + 1;
                }
                if (used >= cut) {
                    return cut; // this configuration already spends what the best known spends
                }
                int q = h.pop();
                int j = mem[q];
                boolean raised = lowerAt[q] > m.lower[j];
                double gq = gains[q];
                if (!(gq > 0)) {
                    return (long) budget + 1; // concave: nothing in this class rises any more
                }
                if (!raised && pos[q] < m.chordEnd[j]) {
                    int len = m.chordEnd[j] - pos[q];
                    double after = have + (m.v(j, m.chordEnd[j]) - m.v(j, pos[q]));
                    if (after >= goal && len > 1 && have + gq * (len - 1) >= goal) {
                        // crossed inside the chord: the hull's count here bounds every branch from below
                        long bound = used + (long) Math.ceil((goal - have) / gq);
                        if (bound >= cut) {
                            return cut; // this configuration cannot beat what is known
                        }
                        // q from a_j on (usually the cheaper), then q flat; each prunes by the other
                        int[] lower2 = lowerAt.clone();
                        lower2[q] = m.firstAbove[j];
                        int[] o2 = new int[mem.length];
                        long onCase = reach(g, level, lower2, off, budget, o2, cut);
                        if (onCase == Long.MIN_VALUE) {
                            return onCase;
                        }
                        boolean[] off2 = off.clone();
                        off2[q] = true;
                        int[] o1 = new int[mem.length];
                        long flatCase = reach(g, level, lowerAt, off2, budget, o1, Math.min(cut, onCase));
                        if (flatCase == Long.MIN_VALUE) {
                            return flatCase;
                        }
                        if (flatCase < onCase && flatCase < cut) {
                            System.arraycopy(o1, 0, out, 0, out.length);
                            return flatCase;
                        }
                        if (onCase < cut) {
                            System.arraycopy(o2, 0, out, 0, out.length);
                            return onCase;
                        }
                        return cut;
                    }
                    have = after;
                    used += len;
                    pos[q] = m.chordEnd[j];
                    valueAt[q] = Double.NaN;
                } else {
                    have += gq; // v(p + 1) − v(p), as computed for the push
                    used++;
                    pos[q]++;
                }
                gains[q] = nextGain(j, pos[q], raised, valueAt, q);
                if (!Double.isNaN(gains[q])) {
                    h.push(q, gains[q]);
                }
            }
            if (used > budget) {
                return (long) budget + 1;
            }
            System.arraycopy(pos, 0, out, 0, out.length);
            return used;
        }

        /**
         * {@link #gain}, one evaluation per tail unit: valueAt[q] holds v(p) when known and is left holding
         * v(p + 1), the value at the position the gain leads to.
         */
        private double nextGain(int j, int p, boolean raised, double[] valueAt, int q) {
            if (p >= m.hi[j]) {
                return Double.NaN;
            }
            if (!raised && p < m.chordEnd[j]) {
                return m.slope[j];
            }
            double vp = Double.isNaN(valueAt[q]) ? m.v(j, p) : valueAt[q];
            double next = m.v(j, p + 1);
            valueAt[q] = next;
            return next - vp;
        }

        /** Flow j's next hull gain at position p (raised: concave from its lower bound, no chord), NaN at its top. */
        private double gain(int j, int p, boolean raised) {
            if (p >= m.hi[j]) {
                return Double.NaN;
            }
            if (!raised && p < m.chordEnd[j]) {
                return m.slope[j];
            }
            return m.v(j, p + 1) - m.v(j, p);
        }
    }

    /**
     * A binary heap of ids keyed by a double: the largest key first ({@code max}) or the smallest;
     * equal keys: the smaller id first. Primitive arrays, no boxing.
     */
    static final class Heap {
        private final int[] ids;
        private final double[] keys;
        private final boolean max;
        private int size;

        Heap(int capacity, boolean max) {
            ids = new int[Math.max(1, capacity)];
            keys = new double[Math.max(1, capacity)];
            this.max = max;
        }

        boolean isEmpty() {
            return size == 0;
        }

        int top() {
            return ids[0];
        }

        void push(int id, double key) {
            int i = size++;
            ids[i] = id;
            keys[i] = key;
            while (i > 0) {
                int parent = (i - 1) >>> 1;
                if (!before(i, parent)) {
                    break;
                }
                swap(i, parent);
                i = parent;
            }
        }

        int pop() {
            int top = ids[0];
            size--;
            if (size > 0) {
                ids[0] = ids[size];
                keys[0] = keys[size];
                int i = 0;
                while (true) {
                    int l = 2 * i + 1;
                    if (l >= size) {
                        break;
                    }
                    int c = l + 1 < size && before(l + 1, l) ? l + 1 : l;
                    if (!before(c, i)) {
                        break;
                    }
                    swap(i, c);
                    i = c;
                }
            }
            return top;
        }

        private boolean before(int a, int b) {
            if (keys[a] != keys[b]) {
                return max ? keys[a] > keys[b] : keys[a] < keys[b];
            }
            return ids[a] < ids[b];
        }

        private void swap(int a, int b) {
            int id = ids[a];
            ids[a] = ids[b];
            ids[b] = id;
            double k = keys[a];
            keys[a] = keys[b];
            keys[b] = k;
        }
    }
}
