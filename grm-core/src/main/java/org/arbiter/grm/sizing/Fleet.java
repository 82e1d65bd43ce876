package org.arbiter.grm.sizing;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;

/*
 * Design note — the fleet: what the GRM knows and decides about its servers (docs/architecture.md,
 * control loop steps 5 and 7; 000 §5 and §7.5; 004).
 *
 * Every control period, from the live gateways' latest statistics (FleetSample reads them once), in
 * this order; each line names the class that owns that part:
 *
 *   drains    (ServerPower) a DRAINING server is drained once every live gateway reports cap 0 on it (the gateway
 *             applied the drain's allocation, so it sends no more) and nothing in flight there; then
 *             it is due to shut down: an OFF actuation goes out, and the model is OFF a shutdown
 *             delay later (or when the actuator sees it off);
 *   capacity  (CapacityTracker) the estimator (sizing.estimator: queue, static, utilization; always static under the
 *             static policy) gets one sample per period: the gateways' 000 §5.3 counters summed over
 *             every class queue of every gateway and divided by the number of servers that had a
 *             cap through the period (a server that finished booting meanwhile served nothing yet)
 *             — the servers are alike, so one per-server estimate serves them all. K is the
 *             effective bound min(queue limit, queue timeout × service rate);
 *   forecast  (LoadForecast) λ̂ (sizing.forecast): trend = the total arrival rate extrapolated T_c = startupDelay
 *             ahead by a least-squares line over the last max(T_c, 3 periods, 16 statistics windows)
 *             when the slope stands out of the noise, else the window's mean level; never below
 *             the current rate less two standard deviations of its counting noise; current = the
 *             measured rate;
 *   N_s       (AutoConcurrency) each `concurrency: auto` server's controller (knee fit, AM-C or PM-C, bounded)
 *             gets (Σ_g mean in-flight, throughput-weighted mean service time, Σ_g throughput,
 *             drop share of all arrivals) while it is ON and served something;
 *   pins      (SizingDecision) a server the operator pinned (console POWER override) goes to its pinned state and
 *             is left out of the sizing below, which sizes the rest for the load the pinned-on
 *             servers do not carry; under sizing off every unpinned server is on;
 *   sizing    (SizingDecision) the policy says how many servers to keep on; SizingController turns that into at
 *             most one order per period: on after the warm-up of the last power-on; off only when
 *             the rest carry λ̂ and the highest rate of the last start-up + shutdown delay (the
 *             trend line's level instead while the load falls by more than its noise), and
 *             not within that break-even time of the last power-on.
 *             utility: the smallest k whose optimal Ω with the first k servers (asked of the
 *             UtilityOfSize the step hands in: id → N_s in, Ω out) reaches sizing.utilityFloor; one more while Ω(on) is below it;
 *             no decision for a statistics window after a change; the capacity check still
 *             guards a power-off once an estimate exists.
 *
 * Power states are the model's (PowerStateMachine): orders move them at once (ON → DRAINING,
 * OFF → BOOTING), time completes boots and shutdowns, and observations (actuator feedback) override
 * the model — the state follows what the server does. A PowerOrder is emitted on every state
 * change; an Actuation when a server must physically act: ON when ordered on, OFF when its drain
 * completed (so no request in flight is cut).
 *
 * Energy (EnergyMeter): per server, watts by state, idle→busy by the share of its N_s slots in use; joules
 * integrate it. The simulator, which knows the exact utilisation, meters its own servers.
 *
 * Core class: time in seconds as an argument; not thread-safe (the control thread or simulator).
 */

/**
 * The GRM's model of its servers: a facade over its parts, one per responsibility — ServerPower
 * (power states and drains), CapacityTracker (c), LoadForecast (λ̂), AutoConcurrency (N_s),
 * SizingDecision (pins and the policy) and EnergyMeter. See the design note.
 */
public final class Fleet {

    /** A physical action for an actuator: power {@code server} on or off. */
    public record Actuation(String server, ServerState action, String reason) {
    }

    /** What a period decided about the servers. */
    public record Step(List<PowerOrder> orders, List<Actuation> actuations) {
        public Step {
            orders = List.copyOf(orders);
            actuations = List.copyOf(actuations);
        }
    }

    private final List<ServerConfig> servers;
    /** Each configured server's place in {@link #servers}. */
    private final Map<String, Integer> serverIndex = new HashMap<>();
    private final ServerPower power;
    private final AutoConcurrency ns;
    private final CapacityTracker capacity;
    private final LoadForecast forecast;
    private final SizingDecision sizing;
    private final EnergyMeter energy;
    /** Queue timeout per class, for the effective queue bound. */
    private final Map<String, Double> queueTimeouts = new LinkedHashMap<>();

    /** All servers start ON (the configuration is what runs until the GRM says otherwise). */
    public Fleet(ClusterConfig config, double nowSeconds) {
        requireNonNull(config, "config");
        this.servers = config.servers();
        for (int i = 0; i < servers.size(); i++) {
            serverIndex.put(servers.get(i).id(), i);
        }
        this.power = new ServerPower(servers, config.sizing(), nowSeconds);
        this.ns = new AutoConcurrency(config);
        this.capacity = new CapacityTracker(config.sizing(), servers.size());
        this.forecast = new LoadForecast(config);
        this.sizing = new SizingDecision(config);
        this.energy = new EnergyMeter(power.machines());
        config.classes().forEach(c -> queueTimeouts.put(c.name(), c.queue().timeoutSeconds()));
    }

    /**
     * One control period.
     *
     * @param nowSeconds time
     * @param at         the same instant, for the messages
     * @param live       the live gateways' latest statistics
     * @param omega      the utility policy's Ω over a set of servers (null: not available)
     */
    public Step step(double nowSeconds, Instant at, Map<String, GatewayStats> live, UtilityOfSize omega) {
        return step(nowSeconds, at, live, omega, Map.of());
    }

    /**
     * As above, with the operator's power pins (console overrides: server → ON or OFF). A pinned
     * server is ordered to its pinned state and left alone by the sizing policy, which sizes the
     * rest for the load the pinned-on servers do not carry.
     */
    public Step step(double nowSeconds, Instant at, Map<String, GatewayStats> live, UtilityOfSize omega,
                     Map<String, ServerState> pins) {
        ServerState[] before = power.states();
        List<Actuation> actuations = new ArrayList<>();
        FleetSample m = FleetSample.of(serverIndex, live, capacity.capped(), queueTimeouts);
        int on = 0;
        for (int i = 0; i < servers.size(); i++) {
            PowerStateMachine p = power.machine(i);
            // A gateway that still holds a cap on the server (it has not yet applied the cap-0
            // allocation of a drain) may send it more: the drain is not complete, whatever is in flight.
            int pending = (int) Math.round(m.inFlight[i]);
            if (m.sending[i] && pending == 0) {
                pending = 1;
            }
            p.load(pending, m.meanInFlight[i] / Math.max(1, ns.current(i)), nowSeconds);
            on += p.state() == ServerState.ON ? 1 : 0;
        }
        // shutdowns that became due: the drain completed, so the server may go down now
        for (int i = 0; i < servers.size(); i++) {
            power.shutdownIfDrained(i, actuations);
        }
        capacity.sample(m, power, ns::current);
        forecast.update(nowSeconds, m.rate);
        ns.update(m, power);
        sizing.decide(new SizingDecision.Input(nowSeconds, m.rate, on, capacity.estimate(), omega, pins, ns::current),
                power, forecast, actuations);
        capacity.holdCaps(power); // the ON servers get caps until the next step
        return new Step(power.ordersSince(before, at), actuations);
    }

    /**
     * Actuator feedback: the server was seen up (serving) or down (off, not booting). The state
     * follows it: seen up, an OFF or BOOTING server is ON; seen down, any server is OFF (a boot that
     * failed, a drain that completed early, a crash). A server seen in transition (booting, shutting
     * down) is not an observation. Returns the order recording a change, if any.
     */
    public List<PowerOrder> observed(String server, boolean up, double nowSeconds, Instant at) {
        return power.observed(server, up, nowSeconds, at);
    }

    /** Advances the model's clock (boots and shutdowns that completed); returns the state changes. */
    public List<PowerOrder> advance(double nowSeconds, Instant at) {
        return power.advance(nowSeconds, at);
    }

    /** The state of {@code server}. */
    public ServerState state(String server) {
        return power.state(power.index(server));
    }

    /** N_s of every ON server (the only ones that get caps), in configuration order. */
    public Map<String, Integer> onConcurrency() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < servers.size(); i++) {
            if (power.state(i) == ServerState.ON) {
                out.put(servers.get(i).id(), ns.current(i));
            }
        }
        return out;
    }

    /** N_s of every server, whatever its state. */
    public Map<String, Integer> allConcurrency() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < servers.size(); i++) {
            out.put(servers.get(i).id(), ns.current(i));
        }
        return out;
    }

    /** Per server: state, N_s, capacity estimate, watts. */
    public Map<String, Decision.Server> servers() {
        Map<String, Decision.Server> out = new LinkedHashMap<>();
        double c = capacityPerServer();
        for (int i = 0; i < servers.size(); i++) {
            PowerStateMachine m = power.machine(i);
            out.put(servers.get(i).id(), new Decision.Server(m.state(), ns.current(i), c, m.watts()));
        }
        return out;
    }

    /**
     * The servers the sizing wants on: ON + BOOTING, what the fleet is steering to (a DRAINING
     * server is on its way off, an OFF one stays off until ordered on). The metric an autoscaler
     * follows ({@code arbiter_fleet_desired_servers}).
     */
    public int desiredServers() {
        return power.upOrBooting();
    }

    /** The capacity estimate of one server, req/s (0 = unknown). */
    public double capacityPerServer() {
        return capacity.estimate();
    }

    /** The service rate the capacity estimator measured in the gateways' backlog, req/s per server (0 = none). */
    public double measuredServiceRate() {
        return capacity.serviceRate();
    }

    /** Seconds of backlog that measurement covers. */
    public double measuredBacklogSeconds() {
        return capacity.backlogSeconds();
    }

    /** λ̂ at the last step, req/s. */
    public double forecastRate() {
        return forecast.forecast();
    }

    /** The fleet's energy meter (the model's estimate). */
    public EnergyMeter energy() {
        return energy;
    }

    /** Joules the servers used so far (the model's estimate). */
    public double energyJoules() {
        return energy.joules();
    }

    /** Joules the same work would have taken with every server always on (see PowerStateMachine). */
    public double alwaysOnJoules() {
        return energy.alwaysOnJoules();
    }

    /** Energy saved against always-on, percent (0 before any time has passed). */
    public double savedPercent() {
        return energy.savedPercent();
    }
}
