package org.arbiter.grm.optimize;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.lifecycle.AfterProperty;
import org.junit.jupiter.api.Test;

/**
 * The fast exact paths ({@link Marginal}) against exhaustive enumeration, the plain-recursion oracle
 * and the DP, on tables of the shape they are allowed for: non-decreasing, flat (003's unstable
 * flows, at the cap; or under a work-conserving floor), then concave. Each property also counts how
 * often the fast path answered (all of 919 instances when measured; at least 95 % asserted), so that
 * it cannot pass by falling back to the DP.
 */
final class MarginalProperties {

    private int fast;
    private int tried;

    @AfterProperty
    void theFastPathAnsweredMostInstances() {
        if (tried > 20) {
            assertThat(fast).as("instances the fast path proved, of %d", tried).isGreaterThanOrEqualTo(tried * 95 / 100);
        }
    }

    @Property(tries = 400, edgeCases = EdgeCasesMode.NONE)
    void sumAndMin_equalBruteForce(@ForAll long seed) {
        Random rnd = new Random(seed);
        int total = 2 + rnd.nextInt(11);
        List<OptimizerProperties.TableItem> items = shapedItems(rnd, 1 + rnd.nextInt(4), total, 1 + rnd.nextInt(3));
        if (!OptimizerProperties.feasible(items, total)) {
            return;
        }
        Optimizer.Result sum = Optimizer.maximiseSum(items, total);
        Optimizer.Result min = Optimizer.maximiseMin(items, total);
        assertThat(sum.objective()).isCloseTo(OptimizerProperties.brute(items, total, false), within(1e-9));
        assertThat(min.objective()).isCloseTo(OptimizerProperties.brute(items, total, true), within(1e-9));
        // min is lexicographic: the largest total among the allocations with the best minimum
        assertThat(OptimizerProperties.objective(items, min.units(), false))
                .isCloseTo(bruteLexTotal(items, total, min.objective()), within(1e-9));
        OptimizerProperties.assertValid(items, total, sum);
        OptimizerProperties.assertValid(items, total, min);
        count(sum, min);
    }

    @Property(tries = 200, edgeCases = EdgeCasesMode.NONE)
    void sumAndMin_equalTheDpAndTheOracle_onLargerInstances(@ForAll long seed) {
        Random rnd = new Random(seed);
        int total = 20 + rnd.nextInt(200);
        List<OptimizerProperties.TableItem> items = shapedItems(rnd, 2 + rnd.nextInt(12), total, 1 + rnd.nextInt(4));
        if (!OptimizerProperties.feasible(items, total)) {
            return;
        }
        Optimizer.Result sum = Optimizer.maximiseSum(items, total);
        Optimizer.Result min = Optimizer.maximiseMin(items, total);
        Optimizer.Result sumDp = Optimizer.maximiseSumByDp(items, total);
        Optimizer.Result minDp = Optimizer.maximiseMinByDp(items, total);
        assertThat(sum.objective()).isCloseTo(sumDp.objective(), within(1e-9));
        assertThat(min.objective()).isCloseTo(minDp.objective(), within(1e-9));
        if (total <= 140 && items.size() <= 8) {
            assertThat(sum.objective()).isCloseTo(ReferenceOptimizer.maximiseSum(items, total), within(1e-9));
            assertThat(min.objective()).isCloseTo(ReferenceOptimizer.maximiseMin(items, total), within(1e-9));
        }
        // min is lexicographic: the DP's total where its threshold search runs; where a class's room
        // is below the free units the DP merges max-min with a heuristic tie-break, and the level
        // path's total is at least its total
        assertThat(OptimizerProperties.objective(items, min.units(), false))
                .isGreaterThanOrEqualTo(OptimizerProperties.objective(items, minDp.units(), false) - 1e-9);
        OptimizerProperties.assertValid(items, total, sum);
        OptimizerProperties.assertValid(items, total, min);
        count(sum, min);
    }

    /** The threshold search (what min uses when branching one chord at a time would not end), called directly. */
    @Property(tries = 300, edgeCases = EdgeCasesMode.NONE)
    void thresholds_reachTheDpsMinimum(@ForAll long seed) {
        Random rnd = new Random(seed);
        int total = 5 + rnd.nextInt(150);
        int groups = 1 + rnd.nextInt(5);
        List<OptimizerProperties.TableItem> items = shapedItems(rnd, 2 + rnd.nextInt(12), total, groups);
        if (!OptimizerProperties.feasible(items, total)) {
            return;
        }
        int present = items.stream().mapToInt(OptimizerProperties.TableItem::group).max().orElse(0) + 1;
        Optimizer.Result t = Marginal.Thresholds.solve(items, total, present);
        Optimizer.Result dp = Optimizer.maximiseMinByDp(items, total);
        tried++;
        if (t == null) {
            return;
        }
        fast++;
        assertThat(t.path()).isEqualTo(Optimizer.Path.THRESHOLDS);
        assertThat(t.objective()).isCloseTo(dp.objective(), within(1e-9));
        OptimizerProperties.assertValid(items, total, t);
    }

    @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
    void anItemWithoutThePromise_keepsTheDp(@ForAll long seed) {
        Random rnd = new Random(seed);
        int total = 10 + rnd.nextInt(40);
        List<OptimizerProperties.TableItem> items = shapedItems(rnd, 2 + rnd.nextInt(5), total, 2);
        OptimizerProperties.TableItem plain = new OptimizerProperties.TableItem(0, 0, total,
                OptimizerProperties.shape(rnd, total + 1));
        items.add(plain);
        if (!OptimizerProperties.feasible(items, total) || plain.isConstant()) {
            return;
        }
        assertThat(Optimizer.maximiseSum(items, total).path()).isEqualTo(Optimizer.Path.DP);
        assertThat(Optimizer.maximiseMin(items, total).path()).isEqualTo(Optimizer.Path.DP);
    }

    @Test
    void aBudgetThatEndsInsideAChord_isBranchedOn_andTheFlatPartIsABranch() {
        // two identical flows unstable below 4 units; 6 units: one is made stable (4 + 2 spare), the
        // chord of the other cannot be completed, and the repair must see that 6 on one beats 3 + 3
        double[] v = new double[7];
        for (int x = 0; x < v.length; x++) {
            v[x] = x < 4 ? -10 : -1.0 / (x - 3);
        }
        List<OptimizerProperties.TableItem> items = List.of(
                new OptimizerProperties.TableItem(0, 0, 6, v, true), new OptimizerProperties.TableItem(0, 0, 6, v, true));
        Optimizer.Result sum = Optimizer.maximiseSum(items, 6);
        assertThat(sum.objective()).isCloseTo(OptimizerProperties.brute(items, 6, false), within(1e-12));
        assertThat(sum.objective()).isCloseTo(-10 + -1.0 / 3, within(1e-12));
        assertThat(sum.path()).isEqualTo(Optimizer.Path.MARGINAL);
    }

    @Test
    void aFlowLeftInItsFlatPart_whenNothingElseHasRoom() {
        // 11 units, the second flow holds at most 7: the first must take 4 it cannot use (its flat part),
        // which beats making it stable at 10 and starving the second
        double[] first = {-9, -9, -9, -9, -9, -9, -9, -9, -9, -5.84, -3.64, -2.67};
        double[] second = {-7.67, -7.67, -7.67, -7.67, -7.67, -7.67, 0.0, 0.69};
        List<OptimizerProperties.TableItem> items = List.of(
                new OptimizerProperties.TableItem(0, 0, 11, first, true), new OptimizerProperties.TableItem(1, 1, 7, second, true));
        Optimizer.Result sum = Optimizer.maximiseSum(items, 11);
        assertThat(sum.units()).containsExactly(4, 7);
        assertThat(sum.path()).isEqualTo(Optimizer.Path.MARGINAL);
    }

    /** The largest total over the allocations whose min objective reaches {@code best}: brute force. */
    private static double bruteLexTotal(List<OptimizerProperties.TableItem> items, int total, double best) {
        double[] out = {Double.NEGATIVE_INFINITY};
        lex(items, new int[items.size()], 0, total, best, out);
        return out[0];
    }

    private static void lex(List<OptimizerProperties.TableItem> items, int[] k, int i, int left, double best, double[] out) {
        if (i == k.length) {
            if (left == 0 && OptimizerProperties.objective(items, k, true) >= best - 1e-9) {
                out[0] = Math.max(out[0], OptimizerProperties.objective(items, k, false));
            }
            return;
        }
        for (int x = items.get(i).lower(); x <= Math.min(items.get(i).upper(), left); x++) {
            k[i] = x;
            lex(items, k, i + 1, left - x, best, out);
        }
    }

    private void count(Optimizer.Result sum, Optimizer.Result min) {
        tried += 2;
        fast += (sum.path() == Optimizer.Path.MARGINAL ? 1 : 0) + (min.path() == Optimizer.Path.LEVEL ? 1 : 0);
    }

    /** Items whose tables are non-decreasing, flat, then concave (the promise holds by construction). */
    static List<OptimizerProperties.TableItem> shapedItems(Random rnd, int count, int total, int groups) {
        List<OptimizerProperties.TableItem> items = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            int lower = rnd.nextInt(3);
            boolean pinned = rnd.nextInt(10) == 0;
            int upper = pinned ? lower : lower + rnd.nextInt(total + 1);
            double[] v = shaped(rnd, upper + 1);
            items.add(new OptimizerProperties.TableItem(rnd.nextInt(groups), lower, upper, v, true));
        }
        return items;
    }

    /** One of the shapes 003 eq. 7 (α = β = 1) of an open-loop prediction takes, in units. */
    static double[] shaped(Random rnd, int n) {
        double[] v = new double[n];
        double tau = 1 + rnd.nextInt(4);
        double cap = 10 * tau;
        switch (rnd.nextInt(5)) {
            case 0, 1 -> { // eq. 9: unstable (at the cap) below λ/μ, then 1/(μ − λ/w), with a floor at S̃ sometimes
                double lambda = 0.2 + rnd.nextDouble() * n * 0.6;
                double mu = 0.5 + rnd.nextDouble() * 2;
                double s = rnd.nextBoolean() ? 1 / mu : 0;
                double floor = rnd.nextInt(3) == 0 ? rnd.nextDouble() * n * 0.5 : 0;
                for (int x = 0; x < n; x++) {
                    double w = Math.max(x, floor);
                    double d = mu - lambda / Math.max(w, 1e-9);
                    double t = d <= 0 ? cap : Math.min(Math.max(s, 1 / d), cap);
                    v[x] = tau - t;
                }
            }
            case 2 -> { // concave from the start, rising then flat
                double a = rnd.nextDouble() * 5;
                int top = rnd.nextInt(n + 1);
                for (int x = 0; x < n; x++) {
                    v[x] = a * Math.sqrt(Math.min(x, top));
                }
            }
            case 3 -> { // linear, ties between flows
                int slope = rnd.nextInt(3);
                for (int x = 0; x < n; x++) {
                    v[x] = slope * x;
                }
            }
            default -> { // flat, then a step onto a concave tail (a large jump at stability)
                int a = rnd.nextInt(n);
                double jump = rnd.nextDouble() * 20;
                for (int x = 0; x < n; x++) {
                    v[x] = x < a ? -jump : Math.log(1 + x - a);
                }
            }
        }
        return v;
    }
}
