package org.arbiter.live;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 33: 003's four phases with two HAProxy 2.6 processes and their agents in place of Arbiter's two
 * gateways (same GRM, simserver and closed-loop clients), against the same run with Arbiter's gateways, in one
 * invocation: 300 paper seconds per phase at scale 0.05 (15 s of wall time). Not shorter: at 200 s the B and C
 * weights came out a whole slot apart once (the GRM flaps between neighbouring allocations there, and a
 * shorter phase averages fewer flaps). Skipped where HAProxy is not installed (CI installs it).
 *
 * <p>Asserted: every request of both runs answered 2xx; the agents read back applied at least 98 % of the
 * allocations they saw in force (a sampling interval of 0.05 s against a control period of 0.25 s: an
 * allocation is replaced before it is verified only when the machine stalls the agent for a whole period;
 * 963 of 963 in the documented run); the pooled premium weight within one slot of the Arbiter run's in every
 * phase.
 *
 * <p>Not asserted here: the response-time and throughput ratios between the two runs (docs/experiments.md
 * gives them for seeds 1-3 on a quiet machine). The two runs follow each other, and on CI the dist module's
 * fault campaign runs beside them: there the Arbiter run's phase A came out 1.47 × slower than the HAProxy
 * run's (0.68 ×, throughput 1.24 ×) — the machine's load, not either gateway, so a 25 % bound would test the
 * neighbour.
 */
final class LiveHaproxyPhasesTest {

    @TempDir
    Path work;

    @Test
    void haproxyGatewaysFollowTheGrmAsArbitersDo() throws Exception {
        Assumptions.assumeTrue(LiveExperiments.haproxyInstalled(), "haproxy is not installed");
        LiveExperiments.GatewaysComparison c = LiveExperiments.phasesAgainstHaproxy(1, 300, 0.05, work,
                System.out::println);
        assertThat(c.arbiter().answered()).isEqualTo(c.arbiter().sent()).isPositive();
        assertThat(c.haproxy().answered()).as("every request through HAProxy answered 2xx")
                .isEqualTo(c.haproxy().sent()).isPositive();
        assertThat(c.allocationsSeen()).isGreaterThan(100);
        assertThat((double) c.allocationsVerified()).as("allocations read back applied")
                .isGreaterThanOrEqualTo(0.98 * c.allocationsSeen());
        for (LiveExperiments.PhaseDelta d : c.deltas()) {
            assertThat(Math.abs(d.premiumWeightDifference())).as("phase %s: pooled premium weight", d.phase())
                    .isLessThanOrEqualTo(1.0);
        }
    }
}
