package org.arbiter.sim.neptune;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

final class ServerPartitioningTest {

    private static final double[] G = {0.2, 0.2, 0.2};
    private static final double[] P = {16, 8, 4};

    @Test
    void underload_everyClassGetsItsDemand_andTheRestInProportionToDemand() {
        double[] a = ServerPartitioning.allocate(new double[] {1, 3, 4}, G, P, 16);
        assertThat(a).containsExactly(new double[] {2, 6, 8}, within(1e-9));
    }

    @Test
    void overload_guaranteesFirst_thenPriorityOrderUpToDemand() {
        // demand 1.6 + 14.4 + 9.6 = 25.6 on 16: first min(d, 3.2) = 1.6, 3.2, 3.2 (8 left); Gold is met, then Silver up to 14.4
        double[] a = ServerPartitioning.allocate(new double[] {1.6, 14.4, 9.6}, G, P, 16);
        assertThat(a).containsExactly(new double[] {1.6, 11.2, 3.2}, within(1e-9));
        assertThat(ServerPartitioning.dedicated(a)).containsExactly(1, 11, 3);
    }

    @Test
    void noServers_nothing_noDemand_equalShares() {
        assertThat(ServerPartitioning.allocate(new double[] {1, 1, 1}, G, P, 0)).containsOnly(0);
        assertThat(ServerPartitioning.allocate(new double[] {0, 0, 0}, G, P, 3)).containsOnly(1);
    }
}
