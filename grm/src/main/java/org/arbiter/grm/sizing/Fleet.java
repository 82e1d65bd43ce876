package org.arbiter.grm.sizing;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.IntToDoubleFunction;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.config.SizingConfig;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.grm.capacity.CapacityEstimator;
import org.arbiter.grm.concurrency.ConcurrencyController;

/*
 * Design note — the fleet: what the GRM knows and decides about its servers (docs/architecture.md,
 * control loop steps 5 and 7; 000 §5 and §7.5; 004).
 *
 * Every control period, from the live gateways' latest statistics:
 *
 *   drains    a DRAINING server is drained once every live gateway reports cap 0 on it (the gateway
 *             applied the drain's allocation, so it sends no more) and nothing in flight there; then
 *             it is due to shut down: an OFF actuation goes out, and the model is OFF a shutdown
 *             delay later (or when the actuator sees it off);
 *   capacity  the estimator (sizing.estimator: queue, static, utilization; always static under the
 *             static policy) gets one sample per period: the gateways' 000 §5.3 counters summed over
 *             every class queue of every gateway and divided by the number of servers that had a
 *             cap through the period (a server that finished booting meanwhile served nothing yet)
 *             — the servers are alike, so one per-server estimate serves them all. K is the
 *             effective bound min(queue limit, queue timeout × service rate);
 *   forecast  λ̂ (sizing.forecast): trend = the total arrival rate extrapolated T_c = startupDelay
 *             ahead by a least-squares line over the last max(T_c, 3 periods, 16 statistics windows)
 *             when the slope stands out of the noise, else the window's mean level; never below
 *             the current rate less two standard deviations of its counting noise; current = the
 *             measured rate;
 *   N_s       each `concurrency: auto` server's controller (knee fit, AM-C or PM-C, bounded)
 *             gets (Σ_g mean in-flight, throughput-weighted mean service time, Σ_g throughput,
 *             drop share of all arrivals) while it is ON and served something;
 *   pins      a server the operator pinned (console POWER override) goes to its pinned state and
 *             is left out of the sizing below, which sizes the rest for the load the pinned-on
 *             servers do not carry; under sizing off every unpinned server is on;
 *   sizing    the policy says how many servers to keep on; SizingController turns that into at
 *             most one order per period: on after the warm-up of the last power-on; off only when
 *             the rest carry λ̂ and the highest rate of the last start-up + shutdown delay (the
 *             trend line's level instead while the load falls by more than its noise), and
 *             not within that break-even time of the last power-on.
 *             utility: the smallest k whose optimal Ω with the first k servers (a callback into
 *             the GRM's solver) reaches sizing.utilityFloor; one more while Ω(on) is below it;
 *             no decision for a statistics window after a change; the capacity check still
 *             guards a power-off once an estimate exists.
 *
 * Power states are the model's (PowerStateMachine): orders move them at once (ON → DRAINING,
 * OFF → BOOTING), time completes boots and shutdowns, and observations (actuator feedback) override
 * the model — the state follows what the server does. A PowerOrder is emitted on every state
 * change; an Actuation when a server must physically act: ON when ordered on, OFF when its drain
 * completed (so no request in flight is cut).
 *
 * Energy: per server, watts by state, idle→busy by the share of its N_s slots in use; joules
 * integrate it. The simulator, which knows the exact utilisation, meters its own servers.
 *
 * Core class: time in seconds as an argument; not thread-safe (the control thread or simulator).
 */

/** The GRM's model of its servers: power states, N_s, capacity, sizing orders, energy. See the design note. */
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

    /** With several gateways, a backlog counts when each had one for at least this share of the period. */
    static final double SATURATED_SHARE = 0.9;

    /** Statistics windows the λ̂ trend line is fitted over. */
    static final int FORECAST_WINDOWS = 16;

    private final ClusterConfig config;
    private final SizingConfig sizing;
    private final List<ServerConfig> servers;
    private final List<PowerStateMachine> power = new ArrayList<>();
    private final ConcurrencyController[] ns;
    private final long[] sequence;
    private final boolean[] shutdownSent;
    private final boolean[] capped;
    private final CapacityEstimator capacity;
    private final SizingController controller;
    private final RateForecast forecast;
    private int utilityWanted;
    private double utilityHoldUntil = Double.NEGATIVE_INFINITY;
    private double lastForecast;
    /** (time, rate) over the last break-even time, for the power-off rule. */
    private final java.util.ArrayDeque<double[]> recentRates = new java.util.ArrayDeque<>();
    /** Queue timeout per class, for the effective queue bound. */
    private final Map<String, Double> queueTimeouts = new LinkedHashMap<>();

    /** All servers start ON (the configuration is what runs until the GRM says otherwise). */
    public Fleet(ClusterConfig config, double nowSeconds) {
        this.config = requireNonNull(config, "config");
        this.sizing = config.sizing();
        this.servers = config.servers();
        this.ns = new ConcurrencyController[servers.size()];
        this.sequence = new long[servers.size()];
        this.shutdownSent = new boolean[servers.size()];
        this.capped = new boolean[servers.size()];
        java.util.Arrays.fill(capped, true);
        for (int i = 0; i < servers.size(); i++) {
            ServerConfig s = servers.get(i);
            ServerConfig.PowerDraw w = s.power();
            power.add(new PowerStateMachine(ServerState.ON,
                    new ServerConfig.PowerDraw(w.offWatts(), w.bootWatts(), w.idleWatts(), w.busyWatts()),
                    sizing.startupDelaySeconds(), sizing.shutdownDelaySeconds(), nowSeconds));
            if (s.autoConcurrency()) {
                ns[i] = controllerFor(s, (int) Math.ceil(config.control().statsWindowSeconds()
                        / config.control().periodSeconds()));
            }
        }
        // policy static means the configured capacity (ConfigLoader requires staticCapacity for it)
        SizingConfig.Estimator estimator = sizing.policy() == SizingConfig.Policy.STATIC
                ? SizingConfig.Estimator.STATIC : sizing.estimator();
        this.capacity = switch (estimator) {
            case STATIC -> CapacityEstimator.ofStatic(sizing.staticCapacity());
            case UTILIZATION -> CapacityEstimator.ofUtilization(0.5);
            case QUEUE -> CapacityEstimator.ofQueueMonitoring(sizing.dropRatio(), sizing.startupDelaySeconds(), 0.9);
        };
        SizingPolicy policy = switch (sizing.policy()) {
            case STATIC, QUEUE -> SizingPolicy.byCapacity(1.0);
            case SCHEDULE -> SizingPolicy.schedule(sizing.scheduleSlotSeconds(),
                    sizing.schedule().stream().mapToInt(Integer::intValue).toArray());
            case UTILITY -> (now, rate, c, n) -> utilityWanted;
            case OFF -> SizingPolicy.alwaysOn();
        };
        this.controller = sizing.policy() == SizingConfig.Policy.OFF ? null
                : new SizingController(policy, sizing.minServers(), sizing.maxServers(), sizing.warmUpSeconds(),
                        sizing.startupDelaySeconds() + sizing.shutdownDelaySeconds());
        // the line is fitted over FORECAST_WINDOWS statistics windows (each rate is counted over one:
        // that many independent samples), at least T_c and three periods
        double w = config.control().statsWindowSeconds();
        this.forecast = new RateForecast(
                Math.max(Math.max(sizing.startupDelaySeconds(), 3 * config.control().periodSeconds()), FORECAST_WINDOWS * w),
                sizing.startupDelaySeconds(), w / config.control().periodSeconds(), w);
        this.utilityWanted = servers.size();
        config.classes().forEach(c -> queueTimeouts.put(c.name(), c.queue().timeoutSeconds()));
    }

    private static ConcurrencyController controllerFor(ServerConfig s, int hold) {
        ServerConfig.ConcurrencyControl c = s.control();
        int start = Math.max(c.min(), Math.min(c.max(), s.concurrency()));
        ConcurrencyController inner = switch (c.method()) {
            case AMC -> ConcurrencyController.ofLatencyBound(start, c.latencyMaxSeconds(), c.gain());
            case PMC -> ConcurrencyController.ofAbandonBound(start, c.abandonMax(), c.gain());
            case KNEE -> ConcurrencyController.ofKnee(start, c.min(), c.max(), hold);
        };
        return ConcurrencyController.bounded(inner, c.min(), c.max(), c.maxStep(), c.hysteresis());
    }

    /**
     * One control period.
     *
     * @param nowSeconds time
     * @param at         the same instant, for the messages
     * @param live       the live gateways' latest statistics
     * @param omega      the utility policy's Ω with the first k ON-able servers (null: not available)
     */
    public Step step(double nowSeconds, Instant at, Map<String, GatewayStats> live, IntToDoubleFunction omega) {
        return step(nowSeconds, at, live, omega, Map.of());
    }

    /**
     * As above, with the operator's power pins (console overrides: server → ON or OFF). A pinned
     * server is ordered to its pinned state and left alone by the sizing policy, which sizes the
     * rest for the load the pinned-on servers do not carry.
     */
    public Step step(double nowSeconds, Instant at, Map<String, GatewayStats> live, IntToDoubleFunction omega,
                     Map<String, ServerState> pins) {
        ServerState[] before = states();
        List<Actuation> actuations = new ArrayList<>();
        Measured m = measure(live);
        int on = 0;
        for (int i = 0; i < servers.size(); i++) {
            PowerStateMachine p = power.get(i);
            // A gateway that still holds a cap on the server (it has not yet applied the cap-0
            // allocation of a drain) may send it more: the drain is not complete, whatever is in flight.
            int pending = (int) Math.round(m.inFlight[i]);
            if (m.sending[i] && pending == 0) {
                pending = 1;
            }
            p.load(pending, m.meanInFlight[i] / Math.max(1, concurrency(i)), nowSeconds);
            on += p.state() == ServerState.ON ? 1 : 0;
        }
        // shutdowns that became due: the drain completed, so the server may go down now
        for (int i = 0; i < servers.size(); i++) {
            shutdownIfDrained(i, actuations);
        }
        sampleCapacity(m);
        double trend = forecast.update(nowSeconds, m.rate);
        lastForecast = sizing.forecast() == SizingConfig.Forecast.CURRENT ? m.rate : trend;
        for (int i = 0; i < servers.size(); i++) {
            if (ns[i] != null && power.get(i).state() == ServerState.ON && m.throughput[i] > 0) {
                ns[i].update(new ConcurrencyController.Sample(m.meanInFlight[i], m.serviceWeighted[i] / m.throughput[i],
                        m.throughput[i], m.abandon()));
            }
        }
        size(nowSeconds, m.rate, on, omega, pins, actuations);
        for (int i = 0; i < servers.size(); i++) {
            capped[i] = power.get(i).state() == ServerState.ON; // these get caps until the next step
        }
        return new Step(ordersFor(before, at), actuations);
    }

    /** What the live gateways' latest statistics say, summed over gateways (per server) and over every class queue. */
    private static final class Measured {
        final double[] inFlight;
        final boolean[] sending;
        final double[] meanInFlight;
        final double[] throughput;
        final double[] serviceWeighted;
        long arrivals;
        long accepted;
        long dropped;
        double queueSeen;
        double peak;
        long queueLimit;
        double period;
        double rate;
        double windowArrivals;
        double windowDrops;
        /** Per gateway holding caps on a server that served the period: (backlog seconds, dispatched, period). */
        final List<double[]> backlogs = new ArrayList<>();

        Measured(int n) {
            inFlight = new double[n];
            sending = new boolean[n];
            meanInFlight = new double[n];
            throughput = new double[n];
            serviceWeighted = new double[n];
        }

        /** Share of the window's arrivals that were dropped. */
        double abandon() {
            return windowArrivals <= 0 ? 0 : Math.min(1, windowDrops / windowArrivals);
        }
    }

    private Measured measure(Map<String, GatewayStats> live) {
        int n = servers.size();
        Measured m = new Measured(n);
        for (GatewayStats g : live.values()) {
            boolean holdsCaps = false; // on a server that served the period
            for (int i = 0; i < n; i++) {
                GatewayStats.ServerStats s = g.servers().get(servers.get(i).id());
                if (s != null) {
                    m.inFlight[i] += s.inFlight();
                    m.sending[i] |= s.cap() > 0;
                    m.meanInFlight[i] += s.meanInFlight();
                    m.throughput[i] += s.throughput();
                    m.serviceWeighted[i] += s.throughput() * s.meanServiceTime();
                    holdsCaps |= capped[i] && s.cap() > 0;
                }
            }
            if (holdsCaps) {
                m.backlogs.add(new double[] {g.backlog().seconds(), g.backlog().dispatched(), g.backlog().periodSeconds()});
            }
            for (Map.Entry<String, GatewayStats.ClassStats> e : g.classes().entrySet()) {
                GatewayStats.ClassStats c = e.getValue();
                m.rate += c.arrivalRate();
                m.windowArrivals += c.arrivalRate() * g.windowSeconds();
                m.windowDrops += c.dropped();
                GatewayStats.PeriodCounters p = c.period();
                m.arrivals += p.arrivals();
                m.accepted += p.accepted();
                m.dropped += p.dropped();
                m.queueSeen += p.meanQueueSeenByArrivals() * p.arrivals();
                m.peak += p.peakArrivalRate();
                // K as the estimator means it: the backlog that overflows. With a queue timeout a
                // request also "overflows" once it would wait longer than the timeout, i.e. beyond
                // timeout × service rate requests; the smaller bound is the effective K (000's accept
                // queue had no timeout).
                double timeout = queueTimeouts.getOrDefault(e.getKey(), Double.POSITIVE_INFINITY);
                double served = p.periodSeconds() > 0 ? p.accepted() / p.periodSeconds() : 0;
                m.queueLimit += served > 0 ? (long) Math.min(p.queueLimit(), Math.max(1, timeout * served)) : p.queueLimit();
                m.period = Math.max(m.period, p.periodSeconds());
            }
        }
        return m;
    }

    /**
     * One capacity sample, per server: the servers that had a cap through the period (ON at the end
     * of the last step and not down since) — not one that finished booting during it and has had no
     * cap yet.
     */
    private void sampleCapacity(Measured m) {
        int served = 0;
        double busy = 0;
        for (int i = 0; i < servers.size(); i++) {
            ServerState st = power.get(i).state();
            if (capped[i] && (st == ServerState.ON || st == ServerState.DRAINING)) {
                served++;
                busy += Math.min(1, m.meanInFlight[i] / Math.max(1, concurrency(i)));
            }
        }
        // the backlog's service rate: while a gateway has a backlog, its slots are all busy — but the
        // servers are saturated only if every gateway's are (a processor-sharing server with idle
        // slots elsewhere serves the busy ones faster). One gateway: its backlog; several: only a
        // period in which each was backlogged nearly throughout, as the sum of their rates.
        double backlogSeconds = 0;
        double backlogAccepted = 0;
        if (served > 0 && m.backlogs.size() == 1) {
            backlogSeconds = m.backlogs.get(0)[0];
            backlogAccepted = m.backlogs.get(0)[1] / served;
        } else if (served > 0 && m.backlogs.size() > 1
                && m.backlogs.stream().allMatch(b -> b[2] > 0 && b[0] >= SATURATED_SHARE * b[2])) {
            backlogSeconds = m.backlogs.stream().mapToDouble(b -> b[0]).min().orElse(0);
            double rate = m.backlogs.stream().mapToDouble(b -> b[1] / b[0]).sum();
            backlogAccepted = rate * backlogSeconds / served;
        }
        if (served > 0 && m.period > 0 && m.arrivals + m.accepted > 0) {
            capacity.update(new CapacityEstimator.Sample(m.period, Math.round((double) m.arrivals / served),
                    Math.round((double) m.accepted / served), Math.round((double) m.dropped / served),
                    m.arrivals == 0 ? 0 : m.queueSeen / m.arrivals / served, m.peak / served,
                    (int) Math.max(1, m.queueLimit / served), busy / served,
                    Math.min(m.period, backlogSeconds), backlogAccepted));
        }
    }

    /** Operator pins first, then the sizing policy over the servers nobody pinned. */
    private void size(double nowSeconds, double rate, int on, IntToDoubleFunction omega, Map<String, ServerState> pins,
                      List<Actuation> actuations) {
        List<Integer> free = new ArrayList<>();
        int pinnedOn = 0;
        for (int i = 0; i < servers.size(); i++) {
            ServerState pin = pins.get(servers.get(i).id());
            PowerStateMachine m = power.get(i);
            if (pin == ServerState.ON) {
                pinnedOn++;
                if (m.powerOn(nowSeconds)) {
                    actuations.add(new Actuation(servers.get(i).id(), ServerState.ON, "operator pinned it on"));
                }
            } else if (pin == ServerState.OFF) {
                if (m.powerOff(nowSeconds)) {
                    shutdownIfDrained(i, actuations);
                }
            } else {
                free.add(i);
            }
        }
        if (controller == null) {
            // sizing off: every server the operator does not hold off is on (a released pin comes back)
            for (int i : free) {
                ServerState st = power.get(i).state();
                if ((st == ServerState.OFF || st == ServerState.DRAINING) && power.get(i).powerOn(nowSeconds)) {
                    actuations.add(new Actuation(servers.get(i).id(), ServerState.ON, "sizing off: every server on"));
                }
            }
            return;
        }
        if (free.isEmpty()) {
            return;
        }
        boolean utility = sizing.policy() == SizingConfig.Policy.UTILITY;
        double c = capacityPerServer();
        double load = Math.max(0, lastForecast - pinnedOn * c);
        if (utility) {
            utilityWanted = utilityWanted(omega, on, nowSeconds) - pinnedOn;
            // Ω decides how many; the capacity estimate, once known, still guards a power-off
            // (the GRM's M/M/1 model is optimistic near saturation: it does not see queue timeouts)
            c = c > 0 ? c : Double.POSITIVE_INFINITY;
        }
        // "turn one off only when the rest carry the load": the load seen over the last break-even
        // time, not one window's dip (a server switched off at a dip is back within minutes, and a
        // power cycle costs more than the idle time it saved) — unless the load is falling by more
        // than its noise: then the trend line's level now, since the recent peak is behind it
        double peak = recentPeak(nowSeconds, rate);
        double offLoad = Math.max(0, (forecast.falling() ? forecast.level() : peak) - pinnedOn * c);
        List<SizingController.Order> decided = controller.step(nowSeconds, load, offLoad, c,
                free.stream().map(power::get).toList());
        if (!decided.isEmpty() && utility) {
            utilityHoldUntil = nowSeconds + config.control().statsWindowSeconds();
        }
        for (SizingController.Order o : decided) {
            int i = free.get(o.server());
            if (o.target() == ServerState.ON) {
                actuations.add(new Actuation(servers.get(i).id(), ServerState.ON,
                        "sizing " + sizing.policy() + ": forecast " + round(lastForecast) + " req/s"));
            } else {
                shutdownIfDrained(i, actuations);
            }
        }
    }

    /** The highest rate measured over the last break-even time (start-up + shutdown delay). */
    private double recentPeak(double nowSeconds, double rate) {
        recentRates.addLast(new double[] {nowSeconds, rate});
        double horizon = sizing.startupDelaySeconds() + sizing.shutdownDelaySeconds();
        while (!recentRates.isEmpty() && recentRates.peekFirst()[0] < nowSeconds - horizon) {
            recentRates.removeFirst();
        }
        return recentRates.stream().mapToDouble(x -> x[1]).max().orElse(rate);
    }

    /** A drained server shuts down: one OFF actuation per drain. */
    private void shutdownIfDrained(int i, List<Actuation> actuations) {
        PowerStateMachine m = power.get(i);
        boolean drained = m.state() == ServerState.DRAINING && m.dueAt() < Double.POSITIVE_INFINITY
                || m.state() == ServerState.OFF;
        if (m.state() == ServerState.ON || m.state() == ServerState.BOOTING) {
            shutdownSent[i] = false;
        } else if (drained && !shutdownSent[i]) {
            shutdownSent[i] = true;
            actuations.add(new Actuation(servers.get(i).id(), ServerState.OFF, "drained"));
        }
    }

    private int utilityWanted(IntToDoubleFunction omega, int on, double nowSeconds) {
        int n = servers.size();
        if (omega == null) {
            return n;
        }
        if (nowSeconds < utilityHoldUntil) {
            // the statistics Ω is computed from still mix in the time before the last change:
            // judging them again would remove a second server on the first one's evidence
            int up = 0;
            for (PowerStateMachine m : power) {
                up += m.state() == ServerState.ON || m.state() == ServerState.BOOTING ? 1 : 0;
            }
            return up;
        }
        int min = Math.max(1, sizing.minServers());
        if (on > 0 && omega.applyAsDouble(on) < sizing.utilityFloor()) {
            return Math.min(n, on + 1);
        }
        // hysteresis: one fewer only when Ω with one fewer still clears the floor
        if (on > min && omega.applyAsDouble(on - 1) >= sizing.utilityFloor()) {
            return on - 1;
        }
        return Math.max(on, min);
    }

    private List<PowerOrder> ordersFor(ServerState[] before, Instant at) {
        List<PowerOrder> out = new ArrayList<>();
        for (int i = 0; i < servers.size(); i++) {
            ServerState now = power.get(i).state();
            if (now != before[i]) {
                ServerState target = now == ServerState.ON || now == ServerState.BOOTING ? ServerState.ON : ServerState.OFF;
                out.add(new PowerOrder(Message.VERSION, at, servers.get(i).id(), target, now,
                        before[i] + " -> " + now, ++sequence[i]));
            }
        }
        return out;
    }

    /**
     * Actuator feedback: the server was seen up (serving) or down (off, not booting). The state
     * follows it: seen up, an OFF or BOOTING server is ON; seen down, any server is OFF (a boot that
     * failed, a drain that completed early, a crash). A server seen in transition (booting, shutting
     * down) is not an observation. Returns the order recording a change, if any.
     */
    public List<PowerOrder> observed(String server, boolean up, double nowSeconds, Instant at) {
        ServerState[] before = states();
        int i = index(server);
        power.get(i).observed(up, nowSeconds);
        return ordersFor(before, at);
    }

    /** Advances the model's clock (boots and shutdowns that completed); returns the state changes. */
    public List<PowerOrder> advance(double nowSeconds, Instant at) {
        ServerState[] before = states();
        power.forEach(m -> m.advance(nowSeconds));
        return ordersFor(before, at);
    }

    private int index(String server) {
        for (int i = 0; i < servers.size(); i++) {
            if (servers.get(i).id().equals(server)) {
                return i;
            }
        }
        throw new IllegalArgumentException("server: " + server + " (expected: one of the configured servers)");
    }

    private ServerState[] states() {
        ServerState[] out = new ServerState[servers.size()];
        for (int i = 0; i < out.length; i++) {
            out[i] = power.get(i).state();
        }
        return out;
    }

    private int concurrency(int i) {
        return ns[i] != null ? ns[i].current() : servers.get(i).concurrency();
    }

    /** The state of {@code server}. */
    public ServerState state(String server) {
        return power.get(index(server)).state();
    }

    /** N_s of every ON server (the only ones that get caps), in configuration order. */
    public Map<String, Integer> onConcurrency() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < servers.size(); i++) {
            if (power.get(i).state() == ServerState.ON) {
                out.put(servers.get(i).id(), concurrency(i));
            }
        }
        return out;
    }

    /** N_s of every server, whatever its state. */
    public Map<String, Integer> allConcurrency() {
        Map<String, Integer> out = new LinkedHashMap<>();
        for (int i = 0; i < servers.size(); i++) {
            out.put(servers.get(i).id(), concurrency(i));
        }
        return out;
    }

    /** Per server: state, N_s, capacity estimate, watts. */
    public Map<String, Decision.Server> servers() {
        Map<String, Decision.Server> out = new LinkedHashMap<>();
        double c = capacityPerServer();
        for (int i = 0; i < servers.size(); i++) {
            PowerStateMachine m = power.get(i);
            out.put(servers.get(i).id(), new Decision.Server(m.state(), concurrency(i), c, m.watts()));
        }
        return out;
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
        return lastForecast;
    }

    /** Joules the servers used so far (the model's estimate). */
    public double energyJoules() {
        return power.stream().mapToDouble(PowerStateMachine::joules).sum();
    }

    /** Joules the same work would have taken with every server always on (see PowerStateMachine). */
    public double alwaysOnJoules() {
        return power.stream().mapToDouble(PowerStateMachine::alwaysOnJoules).sum();
    }

    /** Energy saved against always-on, percent (0 before any time has passed). */
    public double savedPercent() {
        double base = alwaysOnJoules();
        return base <= 0 ? 0 : 100 * (1 - energyJoules() / base);
    }

    private static double round(double d) {
        return Math.round(d * 10) / 10.0;
    }
}
