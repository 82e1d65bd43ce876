package org.arbiter.grm.optimize;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.List;
import java.util.function.IntToDoubleFunction;
import org.junit.jupiter.api.Test;

/** Units on flat value tops go to unmet demand first, then evenly (Rebalance's design note). */
final class RebalanceTest {

    record It(int group, int lower, int upper, IntToDoubleFunction v) implements Optimizer.Item {
        @Override
        public double value(int units) {
            return v.applyAsDouble(units);
        }

        @Override
        public boolean isConstant() {
            return false;
        }
    }

    /** Rises to its top at {@code top} units, flat after. */
    static It flatFrom(int top, int upper) {
        return new It(0, 1, upper, k -> Math.min(k, top));
    }

    @Test
    void flatTops_areHandedBack_toUnmetDemandThenEvenly() {
        List<It> items = List.of(flatFrom(2, 9), flatFrom(2, 9));
        // the optimiser's tie rule gave the first flow everything
        int[] out = Rebalance.apply(items, new int[] {9, 1}, new double[] {3, 3}, new boolean[] {true, true});
        assertThat(out).containsExactly(5, 5);
    }

    @Test
    void aFlowWithUnmetDemand_getsTheUnitsBeforeAnEvenSplit() {
        List<It> items = List.of(flatFrom(5, 9), flatFrom(1, 9));
        int[] out = Rebalance.apply(items, new int[] {9, 1}, new double[] {2.5, 10}, new boolean[] {true, true});
        assertThat(out).containsExactly(5, 5);
    }

    @Test
    void risingTables_andIneligibleFlows_keepTheirUnits() {
        List<It> items = List.of(new It(0, 1, 9, k -> k), flatFrom(1, 9));
        assertThat(Rebalance.apply(items, new int[] {6, 4}, new double[] {10, 10}, new boolean[] {true, true}))
                .containsExactly(9, 1);
        assertThat(Rebalance.apply(items, new int[] {6, 4}, new double[] {10, 10}, new boolean[] {true, false}))
                .containsExactly(6, 4);
    }
}
