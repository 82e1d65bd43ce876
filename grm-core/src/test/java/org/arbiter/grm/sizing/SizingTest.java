package org.arbiter.grm.sizing;

import org.arbiter.common.config.ServerConfig;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.ArrayList;
import java.util.List;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.api.Test;

final class SizingTest {

    static final ServerConfig.PowerDraw W = new ServerConfig.PowerDraw(0, 60, 60, 65);

    @Test
    void powerStates_followOrdersAndDelays_andEnergyIntegrates() {
        PowerStateMachine m = new PowerStateMachine(ServerState.OFF, W, 60, 30, 0);
        assertThat(m.powerOn(10)).isTrue();
        m.advance(69);
        assertThat(m.state()).isEqualTo(ServerState.BOOTING);
        m.advance(70);
        assertThat(m.state()).isEqualTo(ServerState.ON);
        m.load(3, 1.0, 100); // busy from 100 s
        assertThat(m.powerOff(200)).isTrue();
        m.advance(300);
        assertThat(m.state()).isEqualTo(ServerState.DRAINING); // requests still in flight
        m.load(0, 0, 300);
        m.advance(331);
        assertThat(m.state()).isEqualTo(ServerState.OFF);
        // 60 W booting 10-70, 60 W idle 70-100, 65 W busy 100-300, 60 W idle draining 300-330.
        assertThat(m.joules()).isCloseTo(60 * 60 + 60 * 30 + 65 * 200 + 60 * 30, within(1e-6));
    }

    @Test
    void controller_followsDemand_oneStepAtATime_andNeverBelowTheLoad() {
        List<PowerStateMachine> servers = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            servers.add(new PowerStateMachine(ServerState.ON, W, 10, 10, 0));
        }
        SizingController c = new SizingController(SizingPolicy.byCapacity(1.0), 1, 0, 10);
        // Demand of 1.5 servers: servers go off one per period, down to 2.
        for (int t = 0; t < 200; t += 5) {
            c.step(t, 150, 100, servers);
        }
        long on = servers.stream().filter(s -> s.state() == ServerState.ON).count();
        assertThat(on).isEqualTo(2);
        // Demand rises to 4.2 servers: they come back, one at a time after each warm-up.
        List<SizingController.Order> orders = new ArrayList<>();
        for (int t = 200; t < 400; t += 5) {
            orders.addAll(c.step(t, 420, 100, servers));
        }
        assertThat(orders).extracting(SizingController.Order::target).containsOnly(ServerState.ON);
        assertThat(servers.stream().filter(s -> s.state() == ServerState.ON).count()).isEqualTo(5);
    }

    @Test
    void drainedServerShuttingDown_isNotTurnedBackOn_anotherOneIs() {
        PowerStateMachine m = new PowerStateMachine(ServerState.ON, W, 60, 60, 0);
        m.powerOff(10);
        m.load(0, 0, 15); // drained: shutting down until 75
        assertThat(m.powerOn(20)).isFalse();
        assertThat(m.state()).isEqualTo(ServerState.DRAINING);
        m.advance(75);
        assertThat(m.state()).isEqualTo(ServerState.OFF);
        assertThat(m.powerOn(80)).isTrue();

        PowerStateMachine undrained = new PowerStateMachine(ServerState.ON, W, 60, 60, 0);
        undrained.load(2, 0.5, 0);
        undrained.powerOff(10);
        assertThat(undrained.powerOn(20)).isTrue(); // never went down: the drain is cancelled
        assertThat(undrained.state()).isEqualTo(ServerState.ON);

        List<PowerStateMachine> servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            servers.add(new PowerStateMachine(ServerState.OFF, W, 60, 60, 0));
        }
        PowerStateMachine shuttingDown = new PowerStateMachine(ServerState.ON, W, 60, 60, 0);
        shuttingDown.powerOff(0);
        servers.set(0, shuttingDown);
        SizingController c = new SizingController(SizingPolicy.byCapacity(1.0), 0, 0, 10);
        assertThat(c.step(5, 50, 100, servers)).containsExactly(new SizingController.Order(1, ServerState.ON));
        assertThat(servers.get(0).state()).isEqualTo(ServerState.DRAINING);
        assertThat(servers.get(1).state()).isEqualTo(ServerState.BOOTING);
    }

    @Test
    void afterAPowerOn_noPowerOffForTheBreakEvenHold() {
        List<PowerStateMachine> servers = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            servers.add(new PowerStateMachine(i < 2 ? ServerState.ON : ServerState.OFF, W, 60, 60, 0));
        }
        SizingController c = new SizingController(SizingPolicy.byCapacity(1.0), 1, 0, 10, 120);
        assertThat(c.step(0, 250, 100, servers)).containsExactly(new SizingController.Order(2, ServerState.ON));
        // the forecast falls back at once: one server could go, but not before 120 s after the power-on
        for (int t = 5; t < 120; t += 5) {
            assertThat(c.step(t, 150, 100, servers)).isEmpty();
        }
        assertThat(c.step(120, 150, 100, servers)).containsExactly(new SizingController.Order(2, ServerState.OFF));
    }

    @Test
    void schedule_isATimetable() {
        SizingPolicy p = SizingPolicy.schedule(1800, new int[] {1, 3});
        assertThat(p.wanted(0, 0, 0, 5)).isEqualTo(1);
        assertThat(p.wanted(1800, 0, 0, 5)).isEqualTo(3);
        assertThat(p.wanted(3600, 0, 0, 5)).isEqualTo(1);
    }
}
