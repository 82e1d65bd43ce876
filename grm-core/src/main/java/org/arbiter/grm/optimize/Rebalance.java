package org.arbiter.grm.optimize;

import java.util.List;

/*
 * Design note — handing back units a flow cannot use.
 *
 * With the slot model (FlowModel, "Slots") and a work-conserving scheduler, a flow's value table is
 * flat wherever more weight buys it nothing: a closed-loop flow of n clients never uses more than n
 * slots, and a flow that can borrow the slots its gateway's other flows leave idle gains nothing from
 * weight below what it borrows. Many allocations then reach the same objective, and the optimiser's
 * tie rule (earlier flows take the units) picks one of them by input order: in 003 §V's light phase A
 * (5 and 5 clients on 10 slots, every allocation equally good) it gave premium 9 slots and basic 1.
 *
 * This step picks among the optimal allocations by a rule that does not depend on the order:
 *
 * 1. every eligible flow gives back the units on the flat top of its table: it keeps the fewest
 *    units k' ≥ its lower bound at which its value is still the value at its allocation k
 *    (|v(k') − v(k)| ≤ 1e-9·(1 + |v(k)|));
 * 2. the units given back go first to the unmet demand of the flows that are not at their top
 *    (demand_i − k'_i, demand_i the units the flow would hold unconstrained), in proportion to it,
 *    whole units by largest remainder;
 * 3. the rest one unit at a time to the eligible flow holding the fewest (water-filling, so two
 *    equal flows end equal whatever their order; an odd unit goes to the earlier one);
 *
 * each flow within its upper bound. No value
 * decreases as long as the tables are non-decreasing; the caller checks the objective and keeps the
 * optimiser's allocation otherwise.
 *
 * Pure and stateless.
 */

/** Redistributes units on the flat tops of value tables (see the design note). */
public final class Rebalance {

    private Rebalance() {
    }

    /**
     * @param items        the optimiser's items
     * @param units        the optimiser's allocation (not modified)
     * @param demandUnits  per item, the units it would hold unconstrained (≥ 0)
     * @param eligible     per item, whether it takes part (others keep their units)
     * @return the rebalanced allocation, Σ unchanged
     */
    public static int[] apply(List<? extends Optimizer.Item> items, int[] units, double[] demandUnits,
                              boolean[] eligible) {
        int n = items.size();
        int[] out = units.clone();
        long released = 0;
        boolean[] atTop = new boolean[n];
        for (int i = 0; i < n; i++) {
            Optimizer.Item it = items.get(i);
            if (!eligible[i] || it.isConstant()) {
                continue;
            }
            double v = it.value(out[i]);
            int k = out[i];
            while (k > it.lower() && close(it.value(k - 1), v)) {
                k--;
            }
            released += out[i] - k;
            atTop[i] = k < out[i];
            out[i] = k;
        }
        if (released == 0) {
            return units.clone();
        }
        // 2. unmet demand, in proportion (a flow that gave units back is at its top: it has none)
        double[] need = new double[n];
        double needSum = 0;
        for (int i = 0; i < n; i++) {
            if (eligible[i] && !items.get(i).isConstant() && !atTop[i]) {
                need[i] = Math.max(0, Math.min(demandUnits[i], items.get(i).upper()) - out[i]);
                needSum += need[i];
            }
        }
        long toNeed = Math.min(released, (long) Math.floor(needSum));
        if (toNeed > 0) {
            released -= give(items, out, need, needSum, toNeed);
        }
        // 3. evenly: one unit at a time to the eligible flow holding the fewest (ties: input order), by a
        //    heap on (units held, index): the same order as scanning every flow for each unit
        if (released > 0) {
            Marginal.Heap fewest = new Marginal.Heap(n, false);
            for (int i = 0; i < n; i++) {
                if (eligible[i] && !items.get(i).isConstant() && out[i] < items.get(i).upper()) {
                    fewest.push(i, out[i]);
                }
            }
            while (released > 0) {
                if (fewest.isEmpty()) {
                    return units.clone(); // nowhere to put them within the bounds: keep the optimiser's
                }
                int best = fewest.pop();
                out[best]++;
                released--;
                if (out[best] < items.get(best).upper()) {
                    fewest.push(best, out[best]);
                }
            }
        }
        return out;
    }

    /** Gives {@code total} units in proportion to {@code share}, within the upper bounds; returns what was given. */
    private static long give(List<? extends Optimizer.Item> items, int[] out, double[] share, double shareSum,
                             long total) {
        int n = out.length;
        long given = 0;
        double[] rest = new double[n];
        for (int i = 0; i < n; i++) {
            if (share[i] <= 0) {
                rest[i] = -1;
                continue;
            }
            double exact = total * share[i] / shareSum;
            int whole = (int) Math.min(Math.floor(exact), items.get(i).upper() - out[i]);
            out[i] += whole;
            given += whole;
            rest[i] = out[i] < items.get(i).upper() ? exact - Math.floor(exact) : -1;
        }
        while (given < total) {
            int best = -1;
            for (int i = 0; i < n; i++) {
                if (rest[i] >= 0 && (best < 0 || rest[i] > rest[best])) {
                    best = i;
                }
            }
            if (best < 0) {
                break;
            }
            out[best]++;
            given++;
            rest[best] = -1;
        }
        return given;
    }

    private static boolean close(double a, double b) {
        return Math.abs(a - b) <= 1e-9 * (1 + Math.abs(b));
    }
}
