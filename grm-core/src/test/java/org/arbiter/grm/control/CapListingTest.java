package org.arbiter.grm.control;

import static org.arbiter.grm.control.StageFixtures.T;
import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.junit.jupiter.api.Test;

/** Which servers an allocation names: those given slots and those the gateway holds a cap on, no others. */
final class CapListingTest {

    private static final Map<String, Integer> PLANNED = Map.of("s1", 2, "s2", 0, "s3", 0, "s4", 0, "s5", 1);

    private static GatewayStats reporting(String gateway, Map<String, Integer> caps) {
        Map<String, GatewayStats.ServerStats> servers = new java.util.LinkedHashMap<>();
        caps.forEach((s, n) -> servers.put(s, new GatewayStats.ServerStats(0, n, 0, 0, 0, 0, true)));
        return new GatewayStats(1, T, gateway, 30, 1, Map.of(), servers);
    }

    private static Allocation last(String gateway, Map<String, Integer> caps) {
        return new Allocation(1, T, gateway, 3, Map.of("premium", 1.0), caps, "grm", T.toEpochMilli());
    }

    @Test
    void aConfiguredAllocation_namesTheServersGivenSlotsOnly() {
        assertThat(CapListing.POSITIVE.of("g1", PLANNED)).isEqualTo(Map.of("s1", 2, "s5", 1));
    }

    @Test
    void aCapTheLastAllocationGave_isTakenBackByName() {
        CapListing l = new CapListing(Map.of(), Map.of("g1", last("g1", Map.of("s2", 3, "s3", 0))));
        assertThat(l.of("g1", PLANNED)).isEqualTo(Map.of("s1", 2, "s2", 0, "s5", 1));
        assertThat(l.of("g2", PLANNED)).as("another gateway's caps are not g2's").isEqualTo(Map.of("s1", 2, "s5", 1));
    }

    @Test
    void aCapTheGatewayReports_provisionalOrNot_isTakenBackByName() {
        CapListing l = new CapListing(Map.of("g1", reporting("g1", Map.of("s3", 4, "s4", 0))), Map.of());
        assertThat(l.of("g1", PLANNED)).isEqualTo(Map.of("s1", 2, "s3", 0, "s5", 1));
    }

    @Test
    void aHeldServerThePlanLeavesOut_notOn_isNamedZero() {
        CapListing l = new CapListing(Map.of("g1", reporting("g1", Map.of("s9", 1))),
                Map.of("g1", last("g1", Map.of("s8", 2))));
        assertThat(l.of("g1", PLANNED)).isEqualTo(Map.of("s1", 2, "s5", 1, "s8", 0, "s9", 0));
    }
}
