package org.arbiter.grm.sizing;

import org.arbiter.common.config.ServerConfig.PowerDraw;
import static java.util.Objects.requireNonNull;

import org.arbiter.common.message.ServerState;

/*
 * Design note — a server's power states (docs/architecture.md, control loop step 7; 000 §7.5).
 *
 * OFF → BOOTING → ON → DRAINING → OFF. An order to power on moves an OFF server to BOOTING; it is
 * ON once the start-up delay has passed. An order to power off moves an ON server to DRAINING: the
 * gateways stop sending it new requests and let the ones in flight finish; once the last one has
 * finished it shuts down, and is OFF the shutdown delay later. Orders that do not apply to the current
 * state are ignored (powering on a BOOTING server, off a DRAINING one, on a drained server that is
 * shutting down: it cannot be turned on until it is completely shut down, 000 §7.5.4). The state follows what the
 * server does: an actuator that reports the server actually up or down overrides the model.
 *
 * Energy: the power drawn is off/boot/idle watts by state, and idle + (busy − idle)·utilisation
 * while ON or DRAINING; joules integrate it over time.
 *
 * Core class: time is passed in (seconds). Not thread-safe.
 */

/** One server's power state and energy. See the design note. */
public final class PowerStateMachine {

    private final PowerDraw power;
    private final double startupSeconds;
    private final double shutdownSeconds;
    private ServerState state;
    private double since;
    private double lastSeconds;
    private double utilisation;
    private double joules;
    private double dynamicJoules;
    private final double startSeconds;
    private int inFlight;
    private double drainedAt = Double.NaN;

    public PowerStateMachine(ServerState initial, PowerDraw power, double startupSeconds, double shutdownSeconds,
                             double nowSeconds) {
        this.state = requireNonNull(initial, "initial");
        this.power = requireNonNull(power, "power");
        this.startupSeconds = startupSeconds;
        this.shutdownSeconds = shutdownSeconds;
        this.since = nowSeconds;
        this.lastSeconds = nowSeconds;
        this.startSeconds = nowSeconds;
    }

    /** Advances time: integrates energy and completes boots and drains that are due. */
    public void advance(double nowSeconds) {
        while (true) {
            double due = dueAt();
            if (due > nowSeconds) {
                break;
            }
            integrate(due);
            state = state == ServerState.BOOTING ? ServerState.ON : ServerState.OFF;
            since = due;
            drainedAt = Double.NaN;
        }
        integrate(nowSeconds);
    }

    /** When the current transition completes (+∞ when none is under way or a drain still has work). */
    public double dueAt() {
        if (state == ServerState.BOOTING) {
            return since + startupSeconds;
        }
        if (state == ServerState.DRAINING && !Double.isNaN(drainedAt)) {
            return drainedAt + shutdownSeconds;
        }
        return Double.POSITIVE_INFINITY;
    }

    private void integrate(double to) {
        if (to > lastSeconds) {
            joules += watts() * (to - lastSeconds);
            if (state == ServerState.ON || state == ServerState.DRAINING) {
                dynamicJoules += (power.busyWatts() - power.idleWatts()) * utilisation * (to - lastSeconds);
            }
            lastSeconds = to;
        }
    }

    /** Orders ON; returns true when it changed something. */
    public boolean powerOn(double nowSeconds) {
        advance(nowSeconds);
        if (state == ServerState.OFF) {
            state = ServerState.BOOTING;
            since = nowSeconds;
            return true;
        }
        if (state == ServerState.DRAINING && Double.isNaN(drainedAt)) {
            state = ServerState.ON; // cancel the drain: it never went down
            since = nowSeconds;
            return true;
        }
        return false; // includes a drained server that is shutting down: it must be OFF before it boots again (000 §7.5.4)
    }

    /** Orders OFF; returns true when it changed something. */
    public boolean powerOff(double nowSeconds) {
        advance(nowSeconds);
        if (state == ServerState.ON) {
            state = ServerState.DRAINING;
            since = nowSeconds;
            drainedAt = inFlight == 0 ? nowSeconds : Double.NaN;
            return true;
        }
        return false;
    }

    /**
     * The server was seen up (serving) or down (off, not booting) — actuator feedback: the state
     * follows reality. Seen down while BOOTING means the boot failed (a booting server is seen in
     * transition, which is no observation), so the state is OFF.
     */
    public void observed(boolean up, double nowSeconds) {
        advance(nowSeconds);
        if (up && (state == ServerState.OFF || state == ServerState.BOOTING)) {
            state = ServerState.ON;
            since = nowSeconds;
        } else if (!up && state != ServerState.OFF) {
            state = ServerState.OFF;
            since = nowSeconds;
            drainedAt = Double.NaN;
        }
    }

    /** Current load, for the energy model and drains. */
    public void load(int requestsInFlight, double busyFraction, double nowSeconds) {
        advance(nowSeconds);
        inFlight = requestsInFlight;
        utilisation = Math.max(0, Math.min(1, busyFraction));
        if (state == ServerState.DRAINING && inFlight == 0 && Double.isNaN(drainedAt)) {
            drainedAt = nowSeconds;
        }
    }

    public ServerState state() {
        return state;
    }

    /** Watts drawn now. */
    public double watts() {
        return switch (state) {
            case OFF -> power.offWatts();
            case BOOTING -> power.bootWatts();
            case ON, DRAINING -> power.idleWatts() + (power.busyWatts() - power.idleWatts()) * utilisation;
        };
    }

    public double joules() {
        return joules;
    }

    /**
     * What this server would have used always on, doing the same work: idle watts throughout plus
     * the load-dependent part it actually drew (exact for the linear power model when the work
     * moves between servers of the same model).
     */
    public double alwaysOnJoules() {
        return power.idleWatts() * (lastSeconds - startSeconds) + dynamicJoules;
    }
}
