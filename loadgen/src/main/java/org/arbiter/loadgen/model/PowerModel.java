package org.arbiter.loadgen.model;

import static java.util.Objects.requireNonNull;

/*
 * Design note — a server's power states and energy (000 §7.5).
 *
 * States: OFF → (powerOn) BOOTING → (after bootDelay) ON → (powerOff) SHUTTING_DOWN → (after
 * shutdownDelay) OFF. A server serves requests only while ON. Power draw by state: off 0 W,
 * booting and shutting down at the boot figure, on at idle + (busy − idle) · busyFraction, so an
 * idle machine draws 60 W and a fully busy one 65 W by default. Energy is the exact integral of
 * that piecewise-constant draw: the caller reports every change of busy fraction with the time it
 * happened, and transitions are applied at their due time, not when the caller notices them.
 *
 * Thread-safety: not thread-safe; time is passed in (seconds) and must not go backwards.
 */

/** Power state machine and energy meter of one server, on the caller's clock. See the design note. */
public final class PowerModel {

    /** Power states. Only {@code ON} serves requests. */
    public enum State { OFF, BOOTING, ON, SHUTTING_DOWN }

    /**
     * Power draw by state, in watts.
     *
     * @param off     while OFF
     * @param booting while BOOTING or SHUTTING_DOWN
     * @param idle    ON with no CPU busy
     * @param busy    ON with every CPU busy
     */
    public record Watts(double off, double booting, double idle, double busy) {
        public Watts {
            check("off", off);
            check("booting", booting);
            check("idle", idle);
            check("busy", busy);
        }

        private static void check(String name, double w) {
            if (!(w >= 0) || Double.isInfinite(w)) {
                throw new IllegalArgumentException("watts." + name + ": " + w + " (expected: >= 0)");
            }
        }

        /** 000 §7.5: off 0 W, booting and idle 60 W, busy 65 W. */
        public static Watts paper() {
            return new Watts(0, 60, 60, 65);
        }
    }

    private final Watts watts;
    private final double bootDelaySeconds;
    private final double shutdownDelaySeconds;
    private State state;
    private double transitionAt = Double.POSITIVE_INFINITY;
    private double busyFraction;
    private double now;
    private double joules;

    /**
     * @param initial  state at {@code nowSeconds}; BOOTING and SHUTTING_DOWN start their delay then
     */
    public PowerModel(Watts watts, double bootDelaySeconds, double shutdownDelaySeconds, State initial, double nowSeconds) {
        this.watts = requireNonNull(watts, "watts");
        if (!(bootDelaySeconds >= 0)) {
            throw new IllegalArgumentException("bootDelaySeconds: " + bootDelaySeconds + " (expected: >= 0)");
        }
        if (!(shutdownDelaySeconds >= 0)) {
            throw new IllegalArgumentException("shutdownDelaySeconds: " + shutdownDelaySeconds + " (expected: >= 0)");
        }
        this.bootDelaySeconds = bootDelaySeconds;
        this.shutdownDelaySeconds = shutdownDelaySeconds;
        this.state = requireNonNull(initial, "initial");
        this.now = nowSeconds;
        if (initial == State.BOOTING) {
            transitionAt = nowSeconds + bootDelaySeconds;
        } else if (initial == State.SHUTTING_DOWN) {
            transitionAt = nowSeconds + shutdownDelaySeconds;
        }
    }

    /**
     * Moves to {@code t}, applying a transition that fell due on the way and integrating energy.
     *
     * @return the state at {@code t}
     */
    public State advanceTo(double t) {
        if (transitionAt <= t) {
            integrate(transitionAt);
            state = state == State.BOOTING ? State.ON : State.OFF;
            transitionAt = Double.POSITIVE_INFINITY;
            if (state == State.OFF) {
                busyFraction = 0;
            }
        }
        integrate(t);
        return state;
    }

    /** When the pending BOOTING → ON or SHUTTING_DOWN → OFF transition happens (+∞ if none). */
    public double nextTransitionTime() {
        return transitionAt;
    }

    /**
     * Orders power-on at {@code t}: OFF becomes BOOTING. Ignored in any other state.
     *
     * @return whether the order changed the state
     */
    public boolean powerOn(double t) {
        advanceTo(t);
        if (state != State.OFF) {
            return false;
        }
        state = State.BOOTING;
        transitionAt = t + bootDelaySeconds;
        return true;
    }

    /**
     * Orders power-off at {@code t}: ON becomes SHUTTING_DOWN. Ignored in any other state.
     *
     * @return whether the order changed the state
     */
    public boolean powerOff(double t) {
        advanceTo(t);
        if (state != State.ON) {
            return false;
        }
        state = State.SHUTTING_DOWN;
        transitionAt = t + shutdownDelaySeconds;
        busyFraction = 0;
        return true;
    }

    /** The machine stops at once (a crash): OFF, no delay. */
    public void crash(double t) {
        advanceTo(t);
        state = State.OFF;
        transitionAt = Double.POSITIVE_INFINITY;
        busyFraction = 0;
    }

    /** The CPU busy fraction changed at {@code t} (0..1); counts only while ON. */
    public void busyFraction(double fraction, double t) {
        advanceTo(t);
        busyFraction = Math.max(0, Math.min(1, fraction));
    }

    public State state() {
        return state;
    }

    /** The draw now, in watts. */
    public double watts() {
        return switch (state) {
            case OFF -> watts.off();
            case BOOTING, SHUTTING_DOWN -> watts.booting();
            case ON -> watts.idle() + (watts.busy() - watts.idle()) * busyFraction;
        };
    }

    /** Energy used up to the last time passed in, in joules. */
    public double joules() {
        return joules;
    }

    private void integrate(double t) {
        if (t > now) {
            joules += watts() * (t - now);
            now = t;
        }
    }
}
