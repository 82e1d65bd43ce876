package org.arbiter.grm.optimize;

import java.util.ArrayList;
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
        Optimizer.Result r = branch(new ArrayList<>(items), totalUnits, true, groups, new int[] {BRANCH_BUDGET});
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
        Marginal m = this;
        int f = m.idx.length;
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
            int g = items.get(m.idx[j]).group();
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
            within[g] = m.heapOf(members.get(g), false);
            lowest.push(g, level[g]);
        }
        int[] stepFlow = new int[free];
        double[] stepLevel = new double[free];
        int steps = 0;
        while (steps < free && !lowest.isEmpty()) {
            int g = lowest.top();
            Heap h = within[g];
            if (h.isEmpty() || !(m.gain[h.top()] > 0)) {
                break; // the lowest class can rise no further: its level is the optimum
            }
            int j = h.pop();
            level[g] += m.gain[j];
            m.advance(j, 1);
            if (!Double.isNaN(m.gain[j])) {
                h.push(j, m.gain[j]);
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
            m.reset(j);
        }
        boolean[] reached = new boolean[groups];
        for (int k = 0; k < count; k++) {
            reached[classes[k]] = base[classes[k]] >= target;
        }
        int used = 0;
        for (int s = 0; s < steps; s++) {
            int j = stepFlow[s];
            int g = items.get(m.idx[j]).group();
            if (!reached[g]) {
                m.pos[j]++;
                used++;
                reached[g] = stepLevel[s] >= target;
            }
        }
        for (int j = 0; j < f; j++) {
            m.settle(j);
        }
        // the rest to the largest total, across every flow
        Heap all = m.heapOf(allFlows(f), true);
        if (m.greedy(all, free - used) > 0) {
            throw new IllegalStateException("units without room after prepare()");
        }
        int partial = m.partialChord();
        if (partial >= 0) {
            split[0] = idx[partial];
            split[1] = firstAbove[partial];
            return null;
        }
        return m.result(units, Optimizer.Path.LEVEL, true, groups);
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
