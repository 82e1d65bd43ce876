package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.LongSupplier;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.override.PinSelection;
import org.arbiter.common.utility.UtilityFunction;
import org.arbiter.grm.ClassPool;
import org.arbiter.grm.Damping;
import org.arbiter.grm.model.PredictionErrors;
import org.arbiter.grm.GrmSolver;
import org.arbiter.grm.Problem;
import org.arbiter.grm.ProblemException;
import org.arbiter.grm.Solution;
import org.arbiter.grm.optimize.CapPartition;
import org.arbiter.grm.sizing.Fleet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GRM's control step (docs/architecture.md, control loop steps 1-8) over the pure
 * {@link GrmSolver}: builds the problem from the live gateways' statistics, the configuration and
 * the overrides in force (pinned weights, pinned N_s, changed targets and utilities), solves it,
 * and turns the solution into one {@link Allocation} per live gateway, all with one new
 * (epoch, counter) stamp from the {@link EpochClock}, and a {@link Decision} with the same stamp.
 * Until any gateway is live it hands out the configured allocation (the classes' configured
 * weights, N_s split evenly) to every gateway that has none yet.
 *
 * <p>Operator pins never stop the loop: weight and N_s pins go through {@link PinSelection}
 * every period, against the live gateways and the ON servers. Pins are taken in the order they
 * were set and one that would make the set infeasible is left out; the rest of the cluster is
 * optimised as usual and the decision's {@code pins} names each pin left out and why. Only a
 * problem infeasible without any operator pin (minimum weights and shares above N, a
 * configuration matter) publishes nothing: the last allocation stays in force, and the decision
 * says why.
 *
 * <p>Core class: time comes in as an argument and solve time from an injected ticker. Not
 * thread-safe; one control thread (or the simulator) calls it.
 */
public final class GrmStep implements ControlStep {

    private static final Logger LOG = LoggerFactory.getLogger(GrmStep.class);

    private final ClusterConfig config;
    private final String grmId;
    private final LongSupplier nanoTicker;
    private long sequence;
    private Fleet fleet;
    private List<Decision.PinStatus> leftOut = List.of();
    /** liu prediction with a PI term: one controller per flow, updated once per period (001 Fig. 2). */
    private final Map<Problem.FlowId, org.arbiter.grm.model.LiuControl.Pi> pis = new java.util.HashMap<>();
    private final Map<Problem.FlowId, Double> deltaMu = new java.util.HashMap<>();
    /** Per class: {Σ weight·S, Σ weight, when last updated (s)}, S̃ = the ratio; see {@link #updateServiceTimes}. */
    private final Map<String, double[]> serviceTimes = new java.util.HashMap<>();
    /** The time constant of the service-time smoothing, in statistics windows. */
    static final double SERVICE_TIME_WINDOWS = 4;
    /**
     * The least number of requests the service-time smoothing spans: S̃ of exponential demands from
     * 1 000 requests has a 3 % standard error (a light class's 4 windows can hold 200: 7 %).
     */
    static final double SERVICE_TIME_REQUESTS = 1000;
    /** ... but never more than this many statistics windows (a near-idle class still follows a change within 10 min at W = 30 s). */
    static final double SERVICE_TIME_MAX_WINDOWS = 20;
    /** How much of the difference a new error sample moves ē_c. */
    static final double ERROR_SMOOTHING = 0.1;
    /** ē_c assumed until the class's first prediction has been checked (one statistics window after the first decision). */
    static final double ERROR_PRIOR = 0.1;
    private final PredictionErrors ownErrors;
    /** How many statistics windows back the reported prediction error looks ({@link #recentPredictionErrors()}). */
    static final int RECENT_ERROR_WINDOWS = 4;
    private final java.util.Deque<PredictionErrors.Sample> recentErrors = new java.util.ArrayDeque<>();
    private final Map<String, Double> meanError = new java.util.TreeMap<>();
    private Damping.Chosen lastChoice;

    /**
     * @param config     the cluster
     * @param grmId      named in decisions
     * @param nanoTicker measures solve time ({@code System::nanoTime} live, a fake in tests)
     */
    public GrmStep(ClusterConfig config, String grmId, LongSupplier nanoTicker) {
        this.config = requireNonNull(config, "config");
        this.grmId = requireNonNull(grmId, "grmId");
        this.nanoTicker = requireNonNull(nanoTicker, "nanoTicker");
        this.ownErrors = new PredictionErrors(config.control().statsWindowSeconds(), false);
    }

    @Override
    public Result step(Instant now, Map<String, GatewayStats> live, Set<String> gone, OverrideBook overrides,
                       Map<String, Allocation> lastAllocations, EpochClock clock) {
        double t = seconds(now);
        Fleet fl = fleet(now);
        Map<String, Allocation> held = held(live, gone, lastAllocations);
        List<Allocation> newlyGone = newlyGone(live, gone, lastAllocations);
        if (live.isEmpty()) {
            List<PowerOrder> changes = fl.advance(t, now);
            List<Allocation> initial = new ArrayList<>();
            List<String> missing = config.gateways().stream().map(GatewayConfig::id)
                    .filter(g -> !lastAllocations.containsKey(g)).toList();
            CapReserve reserve = new CapReserve(held.values(), configuredConcurrency(overrides));
            if (!missing.isEmpty() || !newlyGone.isEmpty() || !reserve.cut().isEmpty()) {
                EpochClock.Stamp stamp = clock.next(now);
                for (String g : missing) {
                    // the N_s the gateways that have an allocation do not hold, split evenly (all of it at the start)
                    initial.add(configured(g, missing, reserve.free(), now, stamp, overrides, "configured"));
                }
                initial.addAll(goneAndCut(newlyGone, reserve, lastAllocations, now, stamp));
            }
            return new Result(initial, null, changes, List.of());
        }
        sequence++;
        live = new java.util.TreeMap<>(live); // gateway order fixes tie-breaking: same input, same answer
        updatePi(live, overrides);
        updateServiceTimes(live, t);
        Map<String, GatewayStats> liveNow = live;
        Fleet.Step fs = fl.step(t, now, live, servers -> omegaWith(servers, liveNow, overrides, lastAllocations),
                overrides.powerPins());
        Map<String, Integer> on = fl.onConcurrency();
        if (on.isEmpty()) {
            // nothing is ON (all booting): every gateway queues until a server comes up
            EpochClock.Stamp stamp = clock.next(now);
            List<Allocation> out = new ArrayList<>();
            for (String g : live.keySet()) {
                Allocation last = lastAllocations.get(g);
                Map<String, Double> w = new LinkedHashMap<>();
                config.classes().forEach(c -> w.put(c.name(), c.weight()));
                out.add(new Allocation(Message.VERSION, now, g, stamp.counter(),
                        last != null ? last.weights() : w, Map.of(), "grm: no server on", stamp.epoch()));
            }
            out.addAll(goneAndCut(newlyGone, new CapReserve(held.values(), Map.of()), lastAllocations, now, stamp));
            return new Result(out, null, fs.orders(), fs.actuations());
        }
        Built built;
        try {
            built = build(live, overrides, lastAllocations, on, held);
        } catch (ProblemException e) {
            LOG.warn("no valid problem, keeping the last allocation: {}", String.join("; ", e.errors()));
            CapReserve kept = keptInForce(configuredConcurrency(overrides), live, held, lastAllocations);
            List<Allocation> out = kept.cut().isEmpty() && newlyGone.isEmpty() ? List.of()
                    : goneAndCut(newlyGone, kept, lastAllocations, now, clock.next(now));
            return new Result(out, null, fs.orders(), fs.actuations());
        }
        Problem problem = built.problem();
        if (problem == null) {
            // the gateways left out of this period hold every slot: the live ones get none until those
            // report again or are gone (their weights unchanged)
            EpochClock.Stamp stamp = clock.next(now);
            List<Allocation> out = new ArrayList<>();
            for (String g : live.keySet()) {
                Map<String, Integer> zero = new LinkedHashMap<>();
                built.reserve().free().keySet().forEach(id -> zero.put(id, 0));
                Allocation last = lastAllocations.get(g);
                Map<String, Double> w = new LinkedHashMap<>();
                config.classes().forEach(c -> w.put(c.name(), c.weight()));
                out.add(new Allocation(Message.VERSION, now, g, stamp.counter(), last != null ? last.weights() : w, zero,
                        "grm: every slot held", stamp.epoch()));
            }
            out.addAll(goneAndCut(newlyGone, built.reserve(), lastAllocations, now, stamp));
            return new Result(out, null, fs.orders(), fs.actuations());
        }
        if (problem.flows().stream().allMatch(f -> f.arrivalRate() == 0)) {
            // idle: no arrivals anywhere, so every flow model is constant and any allocation is
            // "optimal"; publish the neutral one (configured weights, the N_s the left-out gateways
            // do not hold split evenly over the live gateways) instead of whatever the DP's tie-breaking picks
            EpochClock.Stamp stamp = clock.next(now);
            List<Allocation> out = new ArrayList<>();
            for (String g : live.keySet()) {
                out.add(configured(g, List.copyOf(live.keySet()), built.reserve().free(), now, stamp, overrides,
                        "grm: idle"));
            }
            out.addAll(goneAndCut(newlyGone, built.reserve(), lastAllocations, now, stamp));
            return new Result(out, null, fs.orders(), fs.actuations());
        }
        long started = nanoTicker.getAsLong();
        Solution solution;
        try {
            solution = GrmSolver.solve(problem);
        } catch (ProblemException e) {
            LOG.warn("no feasible allocation, keeping the last one: {}", String.join("; ", e.errors()));
            // the last caps stay in force, cut where N_s fell below them (an N_s pin, a server no longer ON)
            CapReserve kept = keptInForce(built.pins().concurrency(), live, held, lastAllocations);
            boolean publish = !kept.cut().isEmpty() || !newlyGone.isEmpty();
            EpochClock.Stamp stamp = publish ? clock.next(now) : clock.begin(now);
            return new Result(publish ? goneAndCut(newlyGone, kept, lastAllocations, now, stamp) : List.of(),
                    decision(now, built, null, 0, stamp, live, overrides), fs.orders(), fs.actuations());
        }
        // a class split evenly over the gateways when that is within the model's error (Damping)
        Map<String, Double> errors = new LinkedHashMap<>();
        config.classes().forEach(c -> errors.put(c.name(), meanError.getOrDefault(c.name(), ERROR_PRIOR)));
        Damping.Chosen chosen = Damping.choose(problem, solution, errors);
        solution = chosen.solution();
        lastChoice = chosen;
        double solveSeconds = (nanoTicker.getAsLong() - started) / 1e9;
        EpochClock.Stamp stamp = clock.next(now);
        List<Allocation> out = new ArrayList<>();
        for (String g : live.keySet()) {
            Map<String, Integer> caps = new LinkedHashMap<>(solution.serverCaps().get(g));
            built.reserve().free().forEach((id, n) -> caps.putIfAbsent(id, 0)); // a server the left-out hold in full
            out.add(new Allocation(Message.VERSION, now, g, stamp.counter(), solution.weights().get(g),
                    caps, "grm", stamp.epoch()));
        }
        out.addAll(goneAndCut(newlyGone, built.reserve(), lastAllocations, now, stamp));
        logLeftOut(built.pins());
        Decision d = decision(now, built, solution, solveSeconds, stamp, live, overrides);
        if (d != null) {
            track(d, t);
            try {
                d = d.withPredictionErrors(recentSummary());
            } catch (IllegalArgumentException e) { // a figure out of the record's range: publish without it
                LOG.warn("decision without prediction errors this period: {}", e.getMessage());
            }
        }
        return new Result(out, d, fs.orders(), fs.actuations());
    }

    /**
     * The gateways left out of this period that keep their caps in force: every configured gateway
     * with a last allocation that is neither live nor gone ({@link CapReserve}).
     */
    private Map<String, Allocation> held(Map<String, GatewayStats> live, Set<String> gone,
                                         Map<String, Allocation> lastAllocations) {
        Map<String, Allocation> held = new java.util.TreeMap<>();
        for (GatewayConfig g : config.gateways()) {
            Allocation a = lastAllocations.get(g.id());
            if (a != null && !live.containsKey(g.id()) && !gone.contains(g.id())) {
                held.put(g.id(), a);
            }
        }
        return held;
    }

    /**
     * Gateways gone whose last allocation still gives them a slot: each gets its weights with a cap of 0
     * on every server (stamped when published), so that what is in force there is what the GRM counts.
     */
    private List<Allocation> newlyGone(Map<String, GatewayStats> live, Set<String> gone,
                                       Map<String, Allocation> lastAllocations) {
        List<Allocation> out = new ArrayList<>();
        for (String g : new java.util.TreeSet<>(gone)) {
            Allocation a = lastAllocations.get(g);
            if (a != null && !live.containsKey(g) && a.serverCaps().values().stream().anyMatch(n -> n > 0)) {
                Map<String, Integer> zero = new java.util.TreeMap<>();
                a.serverCaps().keySet().forEach(s -> zero.put(s, 0));
                config.servers().forEach(s -> zero.put(s.id(), 0));
                out.add(new Allocation(Message.VERSION, a.at(), g, 0, a.weights(), zero, "grm: gateway gone", 0));
            }
        }
        return out;
    }

    /**
     * When nothing is solved, every gateway's last caps stay in force, the live gateways' too: they
     * are cut (held gateways first, then the live ones, each in id order) where they no longer fit N_s.
     */
    private CapReserve keptInForce(Map<String, Integer> ns, Map<String, GatewayStats> live,
                                   Map<String, Allocation> held, Map<String, Allocation> lastAllocations) {
        Map<String, Allocation> kept = new LinkedHashMap<>(held);
        new java.util.TreeSet<>(live.keySet()).forEach(g -> {
            Allocation a = lastAllocations.get(g);
            if (a != null) {
                kept.put(g, a);
            }
        });
        return new CapReserve(kept.values(), ns);
    }

    /** The allocations of gateways newly gone (caps 0) and of gateways whose caps were cut to fit, stamped. */
    private static List<Allocation> goneAndCut(List<Allocation> newlyGone, CapReserve reserve,
                                               Map<String, Allocation> lastAllocations, Instant now,
                                               EpochClock.Stamp stamp) {
        List<Allocation> out = new ArrayList<>();
        for (Allocation a : newlyGone) {
            out.add(new Allocation(Message.VERSION, now, a.gateway(), stamp.counter(), a.weights(), a.serverCaps(),
                    a.source(), stamp.epoch()));
        }
        reserve.cut().forEach((g, caps) -> out.add(new Allocation(Message.VERSION, now, g, stamp.counter(),
                lastAllocations.get(g).weights(), caps, "grm: caps cut to fit", stamp.epoch())));
        return out;
    }

    /**
     * Checks this GRM's own predictions against the measurements of later decisions
     * ({@link PredictionErrors}) and keeps, per class, a moving mean ē_c of the absolute relative error
     * (each new sample moves it by {@value #ERROR_SMOOTHING} of the difference), which sizes the damping;
     * and the samples of the last {@value #RECENT_ERROR_WINDOWS} statistics windows, which are reported.
     */
    private void track(Decision d, double nowSeconds) {
        for (PredictionErrors.Sample s : ownErrors.accept(d)) {
            double e = Math.abs(s.relative());
            if (Double.isFinite(e)) {
                recentErrors.addLast(s);
                meanError.merge(s.cls(), ERROR_PRIOR + ERROR_SMOOTHING * (e - ERROR_PRIOR),
                        (old, x) -> old + ERROR_SMOOTHING * (e - old));
            }
        }
        double from = nowSeconds - RECENT_ERROR_WINDOWS * config.control().statsWindowSeconds();
        while (!recentErrors.isEmpty() && recentErrors.peekFirst().measuredSeconds() < from) {
            recentErrors.pollFirst();
        }
    }

    /**
     * Per class, the mean absolute relative prediction error over the predictions checked in the last
     * {@value #RECENT_ERROR_WINDOWS} statistics windows (measured then), every gateway's flows together;
     * a class with none checked there is absent. What the decisions carry, and so the GRM's meter and
     * the console.
     */
    public Map<String, PredictionErrors.Summary> recentPredictionErrors() {
        Map<String, List<PredictionErrors.Sample>> byClass = new java.util.TreeMap<>();
        recentErrors.forEach(s -> byClass.computeIfAbsent(s.cls(), c -> new ArrayList<>()).add(s));
        Map<String, PredictionErrors.Summary> out = new java.util.TreeMap<>();
        byClass.forEach((c, list) -> out.put(c, PredictionErrors.Summary.of(list)));
        return out;
    }

    private Map<String, Decision.PredictionError> recentSummary() {
        Map<String, Decision.PredictionError> out = new LinkedHashMap<>();
        recentPredictionErrors().forEach((c, s) -> out.put(c, new Decision.PredictionError(s.meanAbs(), s.samples())));
        return out;
    }

    /** Per flow, the latest checked prediction. */
    public Map<String, Map<String, PredictionErrors.Sample>> predictionErrors() {
        return ownErrors.latest();
    }

    /** Per class, ē_c: the moving mean absolute relative prediction error that sizes the damping. */
    public Map<String, Double> meanPredictionError() {
        return Map.copyOf(meanError);
    }

    /** What the last solved period published (the optimum or its even split), or null. */
    public Damping.Chosen lastChoice() {
        return lastChoice;
    }

    /** Logs the pins left out when that set changes (not every period: the decisions carry it). */
    private void logLeftOut(PinSelection.Outcome pins) {
        List<Decision.PinStatus> now = pins.statuses().stream().filter(p -> !p.applied()).toList();
        if (!now.equals(leftOut)) {
            leftOut = now;
            if (now.isEmpty()) {
                LOG.info("every operator pin is applied");
            } else {
                LOG.warn("operator pins not applied (the rest of the cluster is optimised as usual): {}",
                        String.join("; ", now.stream().map(p -> p.id() + ": " + p.reason()).toList()));
            }
        }
    }

    @Override
    public List<PowerOrder> observed(String server, boolean up, Instant now) {
        return fleet(now).observed(server, up, seconds(now), now);
    }

    @Override
    public java.util.Optional<Fleet> fleet() {
        return java.util.Optional.ofNullable(fleet);
    }

    /** The fleet (power states, N_s, capacity, energy), created at the first step. */
    public Fleet fleet(Instant now) {
        if (fleet == null) {
            fleet = new Fleet(config, seconds(now));
        }
        return fleet;
    }

    private static double seconds(Instant t) {
        return t.getEpochSecond() + t.getNano() / 1e9;
    }

    /** The utility policy's probe: optimal Ω with just {@code servers} on (id → N_s; −∞ when infeasible). */
    private double omegaWith(Map<String, Integer> servers, Map<String, GatewayStats> live, OverrideBook overrides,
                             Map<String, Allocation> lastAllocations) {
        if (servers.isEmpty()) {
            return Double.NEGATIVE_INFINITY;
        }
        try {
            return GrmSolver.solve(problem(live, overrides, lastAllocations, servers)).objective();
        } catch (ProblemException e) {
            return Double.NEGATIVE_INFINITY;
        }
    }

    /**
     * liu with {@code control.liu.pi}: each flow's Δμ from its measured mean response time against its
     * class target (001 Fig. 2), once per period; a flow with nothing measured holds its integral.
     */
    private void updatePi(Map<String, GatewayStats> live, OverrideBook overrides) {
        ControlConfig.Liu liu = config.control().liu();
        if (config.control().prediction() != ControlConfig.Prediction.LIU || !liu.hasPi()) {
            return;
        }
        for (Map.Entry<String, GatewayStats> g : live.entrySet()) {
            for (ClassConfig c : config.classes()) {
                GatewayStats.ClassStats cs = g.getValue().classes().get(c.name());
                double measured = cs != null && cs.meanResponseTime() > 0 ? cs.meanResponseTime() : Double.NaN;
                Problem.FlowId id = new Problem.FlowId(g.getKey(), c.name());
                double d = pis.computeIfAbsent(id, f -> new org.arbiter.grm.model.LiuControl.Pi(liu.kp(), liu.ki()))
                        .update(measured, overrides.effective(c).targetSeconds(), config.control().periodSeconds());
                deltaMu.put(id, d);
            }
        }
    }

    /**
     * The slot model's S̃ per class (docs/grm.md, "The flow model"): a request's mean time at a server is
     * a property of the class, not of the gateway or the allocation, so it is pooled over the gateways
     * (weighted by throughput) and smoothed over time: each period adds the window's mean with the
     * weight of the requests completed since the last one, X̃·Δt, and older weight decays by
     * e^{−Δt/T}; S̃ = Σ weight·S_window / Σ weight. T = {@value #SERVICE_TIME_WINDOWS} statistics windows,
     * or the time the class takes to complete {@value #SERVICE_TIME_REQUESTS} requests if that is
     * longer (1 000 / X̃), at most {@value #SERVICE_TIME_MAX_WINDOWS} windows. Normalised, it has no
     * start-up bias (an EWMA started from the first window kept e^{−t/T} of that window, often a
     * transient of a few requests), and a window with few completions counts for few. One window's
     * mean over a light class is noisy (75 requests of Exp(1 s): ±12 %), and every prediction scales
     * with it. Once per period.
     */
    private void updateServiceTimes(Map<String, GatewayStats> live, double nowSeconds) {
        double window = config.control().statsWindowSeconds();
        for (ClassConfig c : config.classes()) {
            double xs = 0;
            double x = 0;
            for (GatewayStats g : live.values()) {
                GatewayStats.ClassStats cs = g.classes().get(c.name());
                if (cs != null && serviceTime(cs) > 0) {
                    xs += cs.throughput() * cs.meanServiceTime();
                    x += cs.throughput();
                }
            }
            if (x > 0) {
                double mean = xs / x;
                double[] st = serviceTimes.computeIfAbsent(c.name(), k -> new double[] {0, 0, nowSeconds});
                double dt = Math.max(0, nowSeconds - st[2]);
                double horizon = Math.min(Math.max(SERVICE_TIME_WINDOWS * window, SERVICE_TIME_REQUESTS / x),
                        SERVICE_TIME_MAX_WINDOWS * window);
                double decay = Math.exp(-dt / horizon);
                double weight = x * (dt > 0 ? dt : config.control().periodSeconds());
                st[0] = st[0] * decay + weight * mean;
                st[1] = st[1] * decay + weight;
                st[2] = nowSeconds;
            }
        }
    }

    /** The class's smoothed S̃ when there is one, else what the flow's gateway measured (0: nothing). */
    private double serviceTimeFor(String cls, GatewayStats.ClassStats cs) {
        double[] st = serviceTimes.get(cls);
        return st != null && st[1] > 0 ? st[0] / st[1] : serviceTime(cs);
    }

    /** A period's problem (null when the left-out gateways hold every slot) and what became of the operator's pins in it. */
    record Built(Problem problem, PinSelection.Outcome pins, List<Problem.Flow> measured, CapReserve reserve) {
    }

    /** The problem for this period, over the servers given (id → N_s before pins). */
    Problem problem(Map<String, GatewayStats> live, OverrideBook overrides, Map<String, Allocation> lastAllocations,
                    Map<String, Integer> serverConcurrency) {
        return build(live, overrides, lastAllocations, serverConcurrency, Map.of()).problem();
    }

    /**
     * The problem for this period, over the servers given (id → N_s before pins), with the pins
     * that can be met together (see {@link PinSelection}), sharing among the live gateways only
     * the N_s the {@code held} gateways (left out, their caps in force) do not hold ({@link CapReserve}).
     */
    Built build(Map<String, GatewayStats> live, OverrideBook overrides, Map<String, Allocation> lastAllocations,
                Map<String, Integer> serverConcurrency, Map<String, Allocation> held) {
        Map<String, Double> minShares = new LinkedHashMap<>();
        config.classes().forEach(c -> minShares.put(c.name(), c.minShare()));
        PinSelection.Outcome pins = PinSelection.select(new PinSelection.Cluster(serverConcurrency,
                List.copyOf(live.keySet()), minShares, config.control().minWeight(), config.control().granularity()),
                overrides.all());
        CapReserve reserve = new CapReserve(held.values(), pins.concurrency());
        if (!pins.concurrency().isEmpty() && reserve.freePositive().isEmpty()) {
            return new Built(null, pins, List.of(), reserve); // every slot held by gateways left out: nothing to share
        }
        List<Problem.Server> servers = new ArrayList<>();
        reserve.freePositive().forEach((id, n) -> servers.add(new Problem.Server(id, n)));
        List<Problem.ClassSpec> classes = new ArrayList<>();
        for (ClassConfig c : config.classes()) {
            ClassConfig e = overrides.effective(c);
            classes.add(new Problem.ClassSpec(e.name(), e.targetSeconds(), UtilityFunction.of(e), e.minShare(),
                    config.control().responseTimeCap(), c.thinkTimeSeconds()));
        }
        int q = config.control().granularity();
        List<Problem.Flow> flows = new ArrayList<>();
        for (Map.Entry<String, GatewayStats> g : live.entrySet()) {
            Allocation last = lastAllocations.get(g.getKey());
            for (ClassConfig c : config.classes()) {
                GatewayStats.ClassStats cs = g.getValue().classes().get(c.name());
                double inForce = cs != null && cs.weight() > 0 ? cs.weight()
                        : last != null && last.weights().getOrDefault(c.name(), 0.0) > 0 ? last.weights().get(c.name())
                        : c.weight();
                inForce = Math.max(inForce, 1.0 / q);
                flows.add(cs == null
                        ? new Problem.Flow(g.getKey(), c.name(), 0, 0, inForce, 0)
                        : new Problem.Flow(g.getKey(), c.name(), cs.arrivalRate(), cs.meanResponseTime(), inForce,
                                cs.queueLength(), slotsInUse(cs), serviceTimeFor(c.name(), cs)));
            }
        }
        Map<Problem.FlowId, Double> weightPins = new LinkedHashMap<>();
        pins.weightPins().forEach((f, w) -> weightPins.put(new Problem.FlowId(f.gateway(), f.cls()), w));
        Problem.Parameters p = new Problem.Parameters(
                switch (config.control().combine()) {
                    case SUM -> Problem.Combine.SUM;
                    case MIN -> Problem.Combine.MIN;
                },
                q, config.control().minWeight(),
                switch (config.control().prediction()) {
                    case QUEUE_LENGTH -> Problem.Prediction.QUEUE_LENGTH;
                    case LIU -> Problem.Prediction.LIU;
                    case MM1 -> Problem.Prediction.MM1;
                },
                config.control().periodSeconds(), config.control().gain(), config.control().liu().k());
        Map<Problem.FlowId, Double> dm = new LinkedHashMap<>();
        for (Problem.Flow f : flows) {
            Double d = deltaMu.get(f.id());
            if (d != null) {
                dm.put(f.id(), d);
            }
        }
        // one model per class across gateways (ClassPool); the decision keeps what each gateway measured
        Map<String, Double> think = new LinkedHashMap<>();
        config.classes().forEach(c -> think.put(c.name(), c.thinkTimeSeconds()));
        return new Built(new Problem(servers, classes, ClassPool.pool(flows, think, weightPins.keySet()), p, weightPins, dm), pins,
                List.copyOf(flows), reserve);
    }

    /**
     * The slots a flow held on average over the window, X̃·S̃ (Little's law at the servers): 003
     * §IV-C's "server threads concurrently executing" the flow, which under a work-conserving WRR
     * differs from its weight. 0 (not measured) without completions.
     */
    static double slotsInUse(GatewayStats.ClassStats cs) {
        double x = cs.throughput() * cs.meanServiceTime();
        return x > 0 && Double.isFinite(x) ? x : 0;
    }

    /** S̃, the mean time the flow's requests held a slot over the window; 0 (not measured) without completions. */
    static double serviceTime(GatewayStats.ClassStats cs) {
        double s = cs.meanServiceTime();
        return cs.throughput() > 0 && s > 0 && Double.isFinite(s) ? s : 0;
    }

    /** The configured allocation: class weights as configured, N_s split evenly among gateways. */
    public Allocation configured(String gateway, Instant now, EpochClock.Stamp stamp, OverrideBook overrides) {
        return configured(gateway, config.gateways().stream().map(GatewayConfig::id).toList(),
                configuredConcurrency(overrides), now, stamp, overrides, "configured");
    }

    /** N_s of every ON server (every configured server before the first step), with the N_s pins. */
    private Map<String, Integer> configuredConcurrency(OverrideBook overrides) {
        Map<String, Integer> ns = new LinkedHashMap<>();
        Map<String, Integer> nsPins = overrides.concurrencyPins();
        // before the first step every server is ON at its configured N_s, as the fleet starts
        Map<String, Integer> servers = new LinkedHashMap<>();
        if (fleet != null) {
            servers.putAll(fleet.onConcurrency());
        } else {
            config.servers().forEach(s -> servers.put(s.id(), s.concurrency()));
        }
        servers.forEach((id, n) -> ns.put(id, nsPins.getOrDefault(id, n)));
        return ns;
    }

    /** The configured allocation with {@code ns} (server → N_s) split evenly among {@code gateways}, stamped {@code source}. */
    private Allocation configured(String gateway, List<String> gateways, Map<String, Integer> ns, Instant now,
                                  EpochClock.Stamp stamp, OverrideBook overrides, String source) {
        Map<String, Double> weights = new LinkedHashMap<>();
        config.classes().forEach(c -> weights.put(c.name(), c.weight()));
        overrides.weightPins().forEach((f, w) -> {
            if (f.gateway().equals(gateway)) {
                weights.put(f.cls(), w);
            }
        });
        Map<String, Double> equal = new LinkedHashMap<>();
        gateways.forEach(g -> equal.put(g, 1.0));
        Map<String, Integer> caps = CapPartition.partition(equal, ns).get(gateway);
        return new Allocation(Message.VERSION, now, gateway, stamp.counter(), weights, caps, source, stamp.epoch());
    }

    /**
     * The period's decision, or null when it would break a {@link Decision} range (a model figure
     * gone NaN): the record is for the console, and must never keep the allocations from going out.
     */
    private Decision decision(Instant now, Built built, Solution solution, double solveSeconds, EpochClock.Stamp stamp,
                              Map<String, GatewayStats> live, OverrideBook overrides) {
        try {
            return decisionOf(now, built, solution, solveSeconds, stamp, live, overrides);
        } catch (IllegalArgumentException e) {
            LOG.warn("no decision record this period: {}", e.getMessage());
            return null;
        }
    }

    private Decision decisionOf(Instant now, Built built, Solution solution, double solveSeconds, EpochClock.Stamp stamp,
                                Map<String, GatewayStats> live, OverrideBook overrides) {
        Problem problem = built.problem();
        List<Decision.Flow> flows = new ArrayList<>();
        for (Problem.Flow f : built.measured()) {
            double w = solution == null ? f.weight() : solution.weights().get(f.gateway()).get(f.cls());
            Solution.Prediction pr = solution == null ? null : solution.predicted().get(f.id());
            flows.add(new Decision.Flow(f.gateway(), f.cls(), f.arrivalRate(), f.responseTime(), f.queueLength(),
                    f.weight(), w, pr == null ? Double.NaN : pr.responseTime(), pr == null ? Double.NaN : pr.utility(),
                    problem.pins().containsKey(f.id())));
        }
        Map<String, Decision.Server> servers = new LinkedHashMap<>(fleet.servers());
        // the period's N_s (pins applied), not the part the left-out gateways left free
        built.pins().concurrency().forEach((sid, n) -> servers.computeIfPresent(sid,
                (id, d) -> new Decision.Server(d.state(), n, d.capacity(), d.watts())));
        return new Decision(Message.VERSION, now, grmId, sequence, stamp.counter(), config.control().combine().wireName(),
                solution == null ? Double.NaN : solution.objective(), solveSeconds, List.copyOf(live.keySet()), flows,
                servers, fleet.energyJoules(), overrides.ids(), built.pins().statuses(), stamp.epoch());
    }
}
