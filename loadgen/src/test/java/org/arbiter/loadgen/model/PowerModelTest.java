package org.arbiter.loadgen.model;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.loadgen.model.PowerModel.State;
import org.junit.jupiter.api.Test;

final class PowerModelTest {

    @Test
    void energy_integratesTheDrawOfEachState_atThePapersWatts() {
        PowerModel p = new PowerModel(PowerModel.Watts.paper(), 60, 30, State.ON, 0);
        p.busyFraction(1, 100);                   // 100 s idle at 60 W = 6000 J
        p.busyFraction(0.5, 200);                 // 100 s busy at 65 W = 6500 J
        assertThat(p.watts()).isEqualTo(62.5);
        assertThat(p.powerOff(300)).isTrue();     // 100 s half busy at 62.5 W = 6250 J
        assertThat(p.state()).isEqualTo(State.SHUTTING_DOWN);
        assertThat(p.nextTransitionTime()).isEqualTo(330);
        assertThat(p.advanceTo(400)).isEqualTo(State.OFF); // 30 s at 60 W = 1800 J, then 70 s at 0 W
        assertThat(p.joules()).isCloseTo(6000 + 6500 + 6250 + 1800, within(1e-6));
    }

    @Test
    void powerOn_bootsForTheBootDelay_thenServes_andOrdersOutOfTurnAreIgnored() {
        PowerModel p = new PowerModel(PowerModel.Watts.paper(), 60, 30, State.OFF, 0);
        assertThat(p.powerOff(1)).isFalse();
        assertThat(p.powerOn(10)).isTrue();
        assertThat(p.powerOn(11)).isFalse();
        assertThat(p.advanceTo(69.9)).isEqualTo(State.BOOTING);
        assertThat(p.advanceTo(70)).isEqualTo(State.ON);
        assertThat(p.joules()).isCloseTo(60 * 60, within(1e-6));
        p.crash(80);
        assertThat(p.state()).isEqualTo(State.OFF);
        assertThat(p.watts()).isZero();
    }
}
