package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.function.LongSupplier;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GrmConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.override.PinSelection;
import org.arbiter.grm.Damping;
import org.arbiter.grm.GrmSolver;
import org.arbiter.grm.ProblemException;
import org.arbiter.grm.Solution;
import org.arbiter.grm.model.PredictionErrors;
import org.arbiter.grm.sizing.Fleet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The GRM's control step (docs/architecture.md, control loop steps 1-8), one period as a one-way
 * pipeline of typed stages, each with its design note and its own test:
 * <ol>
 *   <li>{@link FlowEstimator}: per class the smoothed service time S̃, per flow liu's PI term Δμ
 *       ({@link FlowEstimates});</li>
 *   <li>{@link ProblemBuilder}: the {@link org.arbiter.grm.Problem} over the ON servers (from the
 *       {@link Fleet}, which sizes the cluster first), with the operator's pins that can be met
 *       together ({@link PinSelection}) and the caps of the gateways left out of the period reserved
 *       ({@link CapReserve});</li>
 *   <li>{@link DampedSolver}: the optimum of 003 eq. 2-4 ({@link GrmSolver}), split evenly where that
 *       is within the model's error ({@link Damping}, ē_c from {@link PredictionTracker});</li>
 *   <li>{@link CapPlanner}: each gateway's weights and caps N(g,s), the left-out gateways' caps kept,
 *       the gone ones' set to 0;</li>
 *   <li>{@link Stamper}: one {@link Allocation} per planned gateway and a {@link Decision}, all with
 *       one new (epoch, counter) stamp from the {@link EpochClock}; the decision then feeds
 *       {@link PredictionTracker} and carries the recent prediction errors.</li>
 * </ol>
 * Until any gateway is live it hands out the configured allocation (the classes' configured
 * weights, N_s split evenly) to every gateway that has none yet. Where a stage has nothing to do
 * (no server ON, every slot held, no arrivals, no feasible problem) the step says what is published
 * instead and returns there.
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
    private final FlowEstimator estimator;
    private final ProblemBuilder builder;
    private final DampedSolver solver;
    private final CapPlanner planner;
    private final Stamper stamper;
    private final PredictionTracker errors;
    private long sequence;
    private Fleet fleet;
    private List<Decision.PinStatus> leftOutPins = List.of();
    /** When the published weights last changed (s; −∞: never): {@code grm.model: paper} holds a window after. */
    private double lastWeightChange = Double.NEGATIVE_INFINITY;
    private Damping.Chosen lastChoice;

    /**
     * @param config     the cluster
     * @param grmId      named in decisions
     * @param nanoTicker measures solve time ({@code System::nanoTime} live, a fake in tests)
     */
    public GrmStep(ClusterConfig config, String grmId, LongSupplier nanoTicker) {
        this.config = requireNonNull(config, "config");
        this.estimator = new FlowEstimator(config);
        this.builder = new ProblemBuilder(config);
        this.solver = new DampedSolver(nanoTicker);
        this.planner = new CapPlanner(config);
        this.stamper = new Stamper(config, grmId);
        this.errors = new PredictionTracker(config.control().statsWindowSeconds());
    }

    @Override
    public Result step(Instant now, Map<String, GatewayStats> liveStats, Set<String> gone, OverrideBook overrides,
                       Map<String, Allocation> lastAllocations, EpochClock clock) {
        double t = seconds(now);
        Fleet fl = fleet(now);
        CapPlanner.LeftOut leftOut = planner.leftOut(liveStats.keySet(), gone, lastAllocations);
        CapListing listing = new CapListing(liveStats, lastAllocations);
        if (liveStats.isEmpty()) {
            return beforeAnyGateway(now, fl, overrides, lastAllocations, leftOut, clock);
        }
        sequence++;
        Map<String, GatewayStats> live = new TreeMap<>(liveStats); // gateway order fixes tie-breaking: same input, same answer
        List<ClassConfig> classes = config.classes().stream().map(overrides::effective).toList();

        // 1. flow estimators: S̃ per class, Δμ per flow
        FlowEstimates estimates = estimator.estimate(new FlowEstimator.Input(live, targets(classes), t));

        // sizing: power orders for the fleet, the utility policy probing Ω with the builder and the solver
        ProblemBuilder.Input probe = new ProblemBuilder.Input(live, classes, overrides.all(), lastAllocations, Map.of(),
                List.of(), estimates);
        Fleet.Step fs = fl.step(t, now, live, servers -> omegaWith(probe.over(servers)), overrides.powerPins());
        Map<String, Integer> on = fl.onConcurrency();
        if (on.isEmpty()) { // nothing is ON (all booting): every gateway queues until a server comes up
            CapPlanner.Plan plan = planner.noServerOn(live.keySet(), leftOut, lastAllocations);
            return new Result(Stamper.allocations(plan, now, clock.next(now), listing), null, fs.orders(), fs.actuations());
        }

        // 2. problem builder: over the ON servers, less what the left-out gateways hold
        ProblemBuilder.Built built;
        ProblemBuilder.Input input = new ProblemBuilder.Input(live, classes, overrides.all(), lastAllocations, on,
                leftOut.held().values(), estimates);
        try {
            built = builder.build(input.holding(holding(t)));
        } catch (ProblemException e) {
            LOG.warn("no valid problem, keeping the last allocation: {}", String.join("; ", e.errors()));
            CapReserve kept = planner.keptInForce(configuredConcurrency(overrides), live.keySet(), leftOut, lastAllocations);
            CapPlanner.Plan plan = planner.withGoneAndCut(List.of(), kept, leftOut, lastAllocations);
            List<Allocation> out = plan.isEmpty() ? List.of() : Stamper.allocations(plan, now, clock.next(now), listing);
            return new Result(out, null, fs.orders(), fs.actuations());
        }
        if (built.everySlotHeld()) {
            CapPlanner.Plan plan = planner.everySlotHeld(live.keySet(), built.reserve(), leftOut, lastAllocations);
            return new Result(Stamper.allocations(plan, now, clock.next(now), listing), null, fs.orders(), fs.actuations());
        }
        if (built.problem().flows().stream().allMatch(f -> f.arrivalRate() == 0)) {
            // idle: no arrivals anywhere, so every flow model is constant and any allocation is
            // "optimal"; publish the neutral one (configured weights, the N_s the left-out gateways
            // do not hold split evenly over the live gateways) instead of whatever the DP's tie-breaking picks
            List<String> gateways = List.copyOf(live.keySet());
            CapPlanner.Plan plan = planner.withGoneAndCut(planner.configured(gateways, gateways, built.reserve().free(),
                    overrides.weightPins(), "grm: idle"), built.reserve(), leftOut, lastAllocations);
            return new Result(Stamper.allocations(plan, now, clock.next(now), listing), null, fs.orders(), fs.actuations());
        }

        // 3. solver: the optimum, split evenly where that is within the model's error (Damping)
        DampedSolver.Solved solved;
        try {
            solved = solver.solve(built.problem(), errors.meanErrors(config.classes()));
        } catch (ProblemException e) {
            LOG.warn("no feasible allocation, keeping the last one: {}", String.join("; ", e.errors()));
            // the last caps stay in force, cut where N_s fell below them (an N_s pin, a server no longer ON)
            CapReserve kept = planner.keptInForce(built.pins().concurrency(), live.keySet(), leftOut, lastAllocations);
            CapPlanner.Plan plan = planner.withGoneAndCut(List.of(), kept, leftOut, lastAllocations);
            EpochClock.Stamp stamp = plan.isEmpty() ? clock.begin(now) : clock.next(now);
            return new Result(Stamper.allocations(plan, now, stamp, listing),
                    stamper.decision(decisionInput(now, built, null, 0, live, overrides), stamp), fs.orders(),
                    fs.actuations());
        }
        if (config.grm().model() == GrmConfig.Model.PAPER && !holding(t)
                && !PaperMoveGate.significant(built.problem(), solved.solution(), live)) {
            // grm.model paper: a move only on a gain the window's measurement can tell from its noise
            try {
                built = builder.build(input.holding(true));
                solved = solver.solve(built.problem(), errors.meanErrors(config.classes()));
            } catch (ProblemException e) { // cannot be: the weights in force were feasible a period ago
                LOG.warn("could not hold the weights in force: {}", String.join("; ", e.errors()));
            }
        }
        lastChoice = solved.chosen();

        if (changedWeights(solved.solution(), lastAllocations)) {
            lastWeightChange = t;
        }

        // 4. cap partition and reserve: the solution's N(g,s), the left-out gateways' caps kept
        CapPlanner.Plan plan = planner.solved(live.keySet(), solved.solution(), built.reserve(), leftOut, lastAllocations);

        // 5. stamping: one (epoch, counter) for the allocations and the decision
        EpochClock.Stamp stamp = clock.next(now);
        List<Allocation> out = Stamper.allocations(plan, now, stamp, listing);
        logLeftOut(built.pins());
        Decision d = stamper.decision(decisionInput(now, built, solved.solution(), solved.solveSeconds(), live, overrides),
                stamp);
        if (d != null) {
            errors.track(d, t);
            try {
                d = d.withPredictionErrors(errors.recentForDecision());
            } catch (IllegalArgumentException e) { // a figure out of the record's range: publish without it
                LOG.warn("decision without prediction errors this period: {}", e.getMessage());
            }
        }
        return new Result(out, d, fs.orders(), fs.actuations());
    }

    /**
     * No gateway live: every configured gateway without an allocation gets the configured one (the
     * N_s the gateways that have an allocation do not hold, split evenly: all of it at the start);
     * the fleet only advances.
     */
    /**
     * {@code grm.model: paper}: whether every flow stays at its weight this period. 003 eq. 8 infers a flow's
     * service rate from λ̃, t̃ measured under the weight w̃ in force; until a statistics window has passed since
     * the weights last changed, the gateways' windows still hold what was measured under the old ones, and
     * eq. 9 fed that walks on past the allocation it would stop at on a measurement taken under w̃
     * (docs/grm.md). The flow model measures w̃ as the slots held, so it does not wait.
     */
    private boolean holding(double t) {
        return config.grm().model() == GrmConfig.Model.PAPER
                && t < lastWeightChange + config.control().statsWindowSeconds() - 1e-9;
    }

    /** Whether the solution gives some live flow another weight than its gateway's last allocation. */
    private static boolean changedWeights(Solution solution, Map<String, Allocation> lastAllocations) {
        for (var g : solution.weights().entrySet()) {
            Allocation last = lastAllocations.get(g.getKey());
            for (var c : g.getValue().entrySet()) {
                double before = last == null ? Double.NaN : last.weights().getOrDefault(c.getKey(), Double.NaN);
                if (!(Math.abs(before - c.getValue()) < 1e-9)) {
                    return true;
                }
            }
        }
        return false;
    }

    private Result beforeAnyGateway(Instant now, Fleet fl, OverrideBook overrides, Map<String, Allocation> lastAllocations,
                                    CapPlanner.LeftOut leftOut, EpochClock clock) {
        List<PowerOrder> changes = fl.advance(seconds(now), now);
        List<String> missing = config.gateways().stream().map(GatewayConfig::id)
                .filter(g -> !lastAllocations.containsKey(g)).toList();
        CapReserve reserve = new CapReserve(leftOut.held().values(), configuredConcurrency(overrides));
        CapPlanner.Plan plan = planner.withGoneAndCut(planner.configured(missing, missing, reserve.free(),
                overrides.weightPins(), "configured"), reserve, leftOut, lastAllocations);
        List<Allocation> out = plan.isEmpty() ? List.of()
                : Stamper.allocations(plan, now, clock.next(now), new CapListing(Map.of(), lastAllocations));
        return new Result(out, null, changes, List.of());
    }

    private Stamper.DecisionInput decisionInput(Instant now, ProblemBuilder.Built built, Solution solution,
                                                double solveSeconds, Map<String, GatewayStats> live,
                                                OverrideBook overrides) {
        return new Stamper.DecisionInput(now, sequence, built, solution, solveSeconds, List.copyOf(live.keySet()), fleet,
                overrides.ids());
    }

    /** Per class, the target in force. */
    private static Map<String, Double> targets(List<ClassConfig> classes) {
        Map<String, Double> out = new LinkedHashMap<>();
        classes.forEach(c -> out.put(c.name(), c.targetSeconds()));
        return out;
    }

    /** The utility policy's probe: optimal Ω with just the servers of {@code in} on (−∞ when none or infeasible). */
    private double omegaWith(ProblemBuilder.Input in) {
        if (in.serverConcurrency().isEmpty()) {
            return Double.NEGATIVE_INFINITY;
        }
        try {
            return GrmSolver.solve(builder.build(in).problem()).objective();
        } catch (ProblemException e) {
            return Double.NEGATIVE_INFINITY;
        }
    }

    /** The configured allocation: class weights as configured, N_s split evenly among gateways. */
    public Allocation configured(String gateway, Instant now, EpochClock.Stamp stamp, OverrideBook overrides) {
        List<CapPlanner.Planned> p = planner.configured(List.of(gateway),
                config.gateways().stream().map(GatewayConfig::id).toList(), configuredConcurrency(overrides),
                overrides.weightPins(), "configured");
        return Stamper.allocation(p.get(0), now, stamp, CapListing.POSITIVE);
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

    /**
     * Per class, the mean absolute relative prediction error over the predictions checked in the last
     * four statistics windows (measured then), every gateway's flows together; a class with none
     * checked there is absent. What the decisions carry, and so the GRM's meter and the console.
     */
    public Map<String, PredictionErrors.Summary> recentPredictionErrors() {
        return errors.recent();
    }

    /** Per flow, the latest checked prediction. */
    public Map<String, Map<String, PredictionErrors.Sample>> predictionErrors() {
        return errors.latest();
    }

    /** Per class, ē_c: the moving mean absolute relative prediction error that sizes the damping. */
    public Map<String, Double> meanPredictionError() {
        return errors.meanErrors();
    }

    /** What the last solved period published (the optimum or its even split), or null. */
    public Damping.Chosen lastChoice() {
        return lastChoice;
    }

    /** Logs the pins left out when that set changes (not every period: the decisions carry it). */
    private void logLeftOut(PinSelection.Outcome pins) {
        List<Decision.PinStatus> now = pins.statuses().stream().filter(p -> !p.applied()).toList();
        if (!now.equals(leftOutPins)) {
            leftOutPins = now;
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
    public Optional<Fleet> fleet() {
        return Optional.ofNullable(fleet);
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
}
