package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.gateway.ServerHealth.Failure;
import org.arbiter.gateway.ServerHealth.State;
import org.junit.jupiter.api.Test;

/** The ejection state machine on virtual time. */
final class ServerHealthTest {

    private static final long S = 1_000_000_000L;

    private final List<ServerHealth.Transition> log = new ArrayList<>();

    private ServerHealth health(int threshold, double base, double max, boolean probe) {
        ServerHealth h = new ServerHealth(new String[] {"s1"}, new DispatchConfig.Ejection(threshold, base, max),
                new boolean[] {probe});
        h.listener(log::add);
        return h;
    }

    @Test
    void thresholdFailuresInARow_ejectOnce_andLogTheCause() {
        ServerHealth h = health(3, 1, 30, false);
        h.failure(0, Failure.CONNECT_REFUSED, 0);
        h.failure(0, Failure.CONNECT_REFUSED, 1);
        assertThat(h.admits(0, 2)).isTrue();
        h.failure(0, Failure.CONNECT_REFUSED, 2);
        assertThat(h.state(0, 3)).isEqualTo(State.DOWN);
        h.failure(0, Failure.CONNECT_REFUSED, 4); // late failures while down change nothing
        assertThat(log).hasSize(1);
        assertThat(log.get(0).message()).isEqualTo("server s1 down: connection refused (3 in a row)");
        assertThat(log.get(0).backoffNanos()).isEqualTo(S);
    }

    @Test
    void aSuccess_resetsTheCount_andKeepAliveRacesDoNotCount() {
        ServerHealth h = health(2, 1, 30, false);
        h.failure(0, Failure.RESET, 0);
        h.success(0, 1);
        h.failure(0, Failure.SERVER_ERROR, 2);
        h.failure(0, Failure.KEEP_ALIVE_CLOSED, 3);
        h.failure(0, Failure.KEEP_ALIVE_CLOSED, 4);
        assertThat(h.state(0, 5)).isEqualTo(State.UP);
        h.failure(0, Failure.TIMEOUT, 6);
        assertThat(h.state(0, 7)).isEqualTo(State.DOWN);
        assertThat(log.get(0).message()).isEqualTo("server s1 down: backend timeout (2 in a row)");
    }

    @Test
    void afterTheBackoff_oneTrial_successBringsItUp() {
        ServerHealth h = health(1, 1, 30, false);
        h.failure(0, Failure.CONNECT_REFUSED, 0);
        assertThat(h.admits(0, S - 1)).isFalse();
        assertThat(h.admits(0, S)).isTrue();
        assertThat(h.state(0, S)).isEqualTo(State.HALF_OPEN);
        assertThat(h.dispatched(0, S)).isTrue();
        assertThat(h.admits(0, S)).as("one trial at a time").isFalse();
        h.success(0, S + 5);
        assertThat(h.state(0, S + 5)).isEqualTo(State.UP);
        assertThat(log).extracting(ServerHealth.Transition::message)
                .containsExactly("server s1 down: connection refused (1 in a row)", "server s1 up");
    }

    @Test
    void failedTrials_doubleTheBackoffUpToMax_andAStableServerStartsAfresh() {
        ServerHealth h = health(1, 1, 5, false);
        long now = 0;
        h.failure(0, Failure.CONNECT_REFUSED, now);
        List<Long> backoffs = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            long until = h.downUntil(0);
            backoffs.add((until - now) / S);
            now = until;
            assertThat(h.admits(0, now)).isTrue();
            h.dispatched(0, now);
            h.failure(0, Failure.CONNECT_REFUSED, now);
        }
        assertThat(backoffs).containsExactly(1L, 2L, 4L, 5L, 5L);
        assertThat(log).hasSize(1); // one down, however many trials fail
        now = h.downUntil(0);
        h.dispatched(0, now);
        h.success(0, now);
        // flaps within max of coming back: the backoff keeps growing
        h.failure(0, Failure.RESET, now + S);
        assertThat(h.downUntil(0) - (now + S)).isEqualTo(5 * S);
        now = h.downUntil(0);
        h.dispatched(0, now);
        h.success(0, now);
        // up for max: back to the base
        h.failure(0, Failure.RESET, now + 5 * S);
        assertThat(h.downUntil(0) - (now + 5 * S)).isEqualTo(S);
        assertThat(h.downTransitions(0)).isEqualTo(3);
        assertThat(h.upTransitions(0)).isEqualTo(2);
    }

    @Test
    void withAnActiveCheck_theProbeIsTheTrial() {
        ServerHealth h = health(2, 1, 30, true);
        h.failure(0, Failure.PROBE, 0);
        h.failure(0, Failure.PROBE, 1);
        h.success(0, S / 2); // a probe passing during the backoff does not cut it short
        assertThat(h.state(0, S / 2)).isEqualTo(State.DOWN);
        assertThat(h.state(0, S + 1)).isEqualTo(State.HALF_OPEN);
        assertThat(h.admits(0, S + 1)).as("no client request is the trial").isFalse();
        h.success(0, S + 2);
        assertThat(h.admits(0, S + 2)).isTrue();
    }

    @Test
    void abandonedTrial_letsAnotherGo() {
        ServerHealth h = health(1, 1, 30, false);
        h.failure(0, Failure.CONNECT_REFUSED, 0);
        h.dispatched(0, S);
        h.trialEnded(0, S + 1);
        assertThat(h.admits(0, S + 1)).isTrue();
    }

    @Test
    void hold_isTheSimulatorsShortSkip_withoutTrialOrTransition() {
        ServerHealth h = health(3, 1, 30, false);
        h.hold(0, 0);
        assertThat(h.admits(0, S - 1)).isFalse();
        assertThat(h.state(0, S)).isEqualTo(State.UP);
        assertThat(log).isEmpty();
    }
}
