package org.arbiter.grm.sizing;

import java.util.List;

/**
 * The fleet's energy, from the power model: per server, watts by state, idle → busy by the share
 * of its N_s slots in use; joules integrate it (PowerStateMachine). The simulator, which knows the
 * exact utilisation, meters its own servers. Not thread-safe.
 */
public final class EnergyMeter {

    private final List<PowerStateMachine> machines;

    EnergyMeter(List<PowerStateMachine> machines) {
        this.machines = List.copyOf(machines);
    }

    /** Joules the servers used so far (the model's estimate). */
    public double joules() {
        return machines.stream().mapToDouble(PowerStateMachine::joules).sum();
    }

    /** Joules the same work would have taken with every server always on. */
    public double alwaysOnJoules() {
        return machines.stream().mapToDouble(PowerStateMachine::alwaysOnJoules).sum();
    }

    /** Energy saved against always-on, percent (0 before any time has passed). */
    public double savedPercent() {
        double base = alwaysOnJoules();
        return base <= 0 ? 0 : 100 * (1 - joules() / base);
    }

    /** The servers' draw now, watts. */
    public double watts() {
        return machines.stream().mapToDouble(PowerStateMachine::watts).sum();
    }
}
