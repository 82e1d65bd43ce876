package org.arbiter.gateway.scheduler;

import org.arbiter.gateway.Scheduler;

/*
 * Model (003 §III-A, eq. 1; docs/architecture.md, data loop step 3): gateway g runs at most N_g = Σ_s N(g,s)
 * requests at once; class c is guaranteed the share w(g,c)·N_g / w_g of them. The scheduler is
 * 003's dynamic-boundary, work-conserving WRR: a class with an empty queue is not a
 * candidate, so its idle share is lent to the backlogged classes, and every slot that frees goes
 * to the backlogged class furthest below its share, so a lender gets its share back as slots turn
 * over.
 *
 * "Furthest below its share": let B be the backlogged classes, n = (requests in flight of
 * classes in B) + 1 the slots B holds once the free one is filled, and W_B = Σ_{c∈B} w(g,c). The
 * released class maximises the deficit  n·w(g,c)/W_B − inflight_c ; ties go round-robin, starting
 * after the class released last. The rule was first worded as "smallest inflight_c / w(g,c)";
 * that ratio order and the deficit order agree whenever a class is more than a slot away from
 * its share, but with three or more classes the ratio order can leave a class more than one slot
 * off for good (jqwik found w = 0.1/0.1/0.23, N_g = 15: the small-weight classes with nothing in
 * flight win every tie at ratio 0). The deficit order keeps |inflight_c − share_c| < 1 once
 * reached: when a slot of class j frees, the deficits sum to 1 and only j can be at ≥ 1, and then
 * j is the maximum (proof in docs/gateway.md). Weights may be fractional; if every backlogged
 * class has w = 0 they share equally.
 *
 * Thread-safety: none; confined to the thread that drives the core (state: the RR cursor).
 */

/** Work-conserving weighted round-robin over w(g,c); see the design note in the source. */
public final class WeightedRoundRobin implements Scheduler {

    private static final double EPS = 1e-9;

    private int cursor;

    @Override
    public int next(ClassView v) {
        int n = v.classCount();
        double weightSum = 0;
        int slots = 1;
        int backlogged = 0;
        int only = -1;
        for (int c = 0; c < n; c++) {
            if (v.backlog(c) > 0) {
                weightSum += v.weight(c);
                slots += v.inFlight(c);
                backlogged++;
                only = c;
            }
        }
        if (backlogged == 0) {
            return -1;
        }
        if (backlogged == 1) { // the only candidate (the common case: a request dispatched as it arrives)
            cursor = (only + 1) % n;
            return only;
        }
        boolean equal = !(weightSum > 0);
        double perWeight = equal ? (double) slots / backlogged : slots / weightSum;
        int best = -1;
        double bestDeficit = 0;
        for (int i = 0; i < n; i++) {
            int c = (cursor + i) % n;
            if (v.backlog(c) == 0) {
                continue;
            }
            double deficit = (equal ? 1 : v.weight(c)) * perWeight - v.inFlight(c);
            if (best < 0 || deficit > bestDeficit + EPS) {
                best = c;
                bestDeficit = deficit;
            }
        }
        cursor = (best + 1) % n;
        return best;
    }
}
