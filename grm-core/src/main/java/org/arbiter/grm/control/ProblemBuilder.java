package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.GrmConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.override.PinSelection;
import org.arbiter.common.utility.UtilityFunction;
import org.arbiter.grm.ClassPool;
import org.arbiter.grm.Problem;
import org.arbiter.grm.ProblemException;

/*
 * Design note — stage 2 of the GRM step: the problem builder.
 *
 * What it computes: the period's optimisation problem (003 §IV, eq. 2-4) over the servers given
 * (id → N_s, the ON servers), from the live gateways' statistics and the flow estimates:
 *
 * - Pins: the operator's weight and N_s pins that can be met together (PinSelection, against the
 *   live gateways and these servers); the N_s pins replace the servers' N_s.
 * - Reserve: the caps of the gateways left out of the period stay in force, so only
 *   free(s) = N_s − Σ_held N(g,s) is shared among the live gateways (CapReserve); the problem's
 *   servers are those with free(s) > 0. When N_s pins leave nothing free there is no problem: the
 *   left-out gateways hold every slot.
 * - Classes: each with its target and utility in force (EffectiveClass), U_c (003 eq. 7 or a yield),
 *   its minimum share (002 §2.3) and the response-time cap.
 * - Flows, one per (live gateway, class): λ̃, t̃ and ℓ as measured, w̃ the weight in force when
 *   measured (the gateway's, else its last allocation's, else the configured one; at least 1/q),
 *   the slots in use X̃·S̃ and S̃ from the estimates, then pooled into one model per class across the
 *   gateways (ClassPool); Δμ per flow for liu with the PI term.
 *
 * Output: Built — the problem (absent when every slot is held), the pins' outcome, the flows as each
 * gateway measured them (for the decision) and the reserve. Stateless over the configuration: the
 * utility policy's probe (Ω with a set of servers) calls it with other servers and nothing held.
 *
 * Thread-safe (no state of its own); its inputs must not change while it runs.
 */

/** Stage 2 of {@link GrmStep}: the period's {@link Problem} from the statistics and the estimates; see the design note. */
final class ProblemBuilder {

    /**
     * What the builder is given.
     *
     * @param live              the live gateways' latest statistics, in gateway order
     * @param classes           the configured classes with their overrides in force ({@link OverrideBook#effective}),
     *                          in configuration order
     * @param overrides         every override in force (the weight and N_s pins among them are selected)
     * @param lastAllocations   the allocation last published for each gateway
     * @param serverConcurrency id → N_s before pins, of the servers that get caps
     * @param held              the last allocations of the gateways left out (their caps stay in force), in the order
     *                          they are served when N_s is too small for all
     * @param estimates         stage 1's output
     */
    record Input(Map<String, GatewayStats> live, List<ClassConfig> classes, List<OperatorOverride> overrides,
                 Map<String, Allocation> lastAllocations, Map<String, Integer> serverConcurrency,
                 Collection<Allocation> held, FlowEstimates estimates, boolean holdWeights) {

        /** Without holding the weights. */
        Input(Map<String, GatewayStats> live, List<ClassConfig> classes, List<OperatorOverride> overrides,
              Map<String, Allocation> lastAllocations, Map<String, Integer> serverConcurrency,
              Collection<Allocation> held, FlowEstimates estimates) {
            this(live, classes, overrides, lastAllocations, serverConcurrency, held, estimates, false);
        }

        /**
         * The same input with every flow held at its weight in force ({@code grm.model: paper} while no
         * measurement has been taken wholly under the weights in force: see {@link GrmStep}).
         */
        Input holding(boolean hold) {
            return new Input(live, classes, overrides, lastAllocations, serverConcurrency, held, estimates, hold);
        }

        Input {
            requireNonNull(live, "live");
            requireNonNull(classes, "classes");
            requireNonNull(overrides, "overrides");
            requireNonNull(lastAllocations, "lastAllocations");
            requireNonNull(serverConcurrency, "serverConcurrency");
            requireNonNull(held, "held");
            requireNonNull(estimates, "estimates");
        }

        /** The same input over other servers with nothing held: the utility policy's probe. */
        Input over(Map<String, Integer> servers) {
            return new Input(live, classes, overrides, lastAllocations, servers, List.of(), estimates, holdWeights);
        }
    }

    /**
     * A period's problem and what became of the operator's pins in it.
     *
     * @param problem  the problem; null when the left-out gateways hold every slot ({@link #everySlotHeld})
     * @param pins     the pins applied and left out, with N_s after pins
     * @param measured the flows as each gateway measured them (before pooling), for the decision
     * @param reserve  what the left-out gateways hold and what is free for the live ones
     */
    record Built(Problem problem, PinSelection.Outcome pins, List<Problem.Flow> measured, CapReserve reserve) {
        Built {
            requireNonNull(pins, "pins");
            measured = List.copyOf(measured);
            requireNonNull(reserve, "reserve");
        }

        /** True when the left-out gateways hold every slot: nothing to share, no problem to solve. */
        boolean everySlotHeld() {
            return problem == null;
        }
    }

    private final ClusterConfig config;

    ProblemBuilder(ClusterConfig config) {
        this.config = requireNonNull(config, "config");
    }

    /**
     * The problem for this period, with the pins that can be met together (see {@link PinSelection}),
     * sharing among the live gateways only the N_s the held gateways do not hold ({@link CapReserve}).
     *
     * @throws ProblemException when the configuration and the measurements make no valid problem
     */
    Built build(Input in) {
        Map<String, Double> minShares = new LinkedHashMap<>();
        config.classes().forEach(c -> minShares.put(c.name(), c.minShare()));
        PinSelection.Outcome pins = PinSelection.select(new PinSelection.Cluster(in.serverConcurrency(),
                List.copyOf(in.live().keySet()), minShares, config.control().minWeight(), config.control().granularity()),
                in.overrides());
        CapReserve reserve = new CapReserve(in.held(), pins.concurrency());
        if (!pins.concurrency().isEmpty() && reserve.freePositive().isEmpty()) {
            return new Built(null, pins, List.of(), reserve); // every slot held by gateways left out: nothing to share
        }
        List<Problem.Server> servers = new ArrayList<>();
        reserve.freePositive().forEach((id, n) -> servers.add(new Problem.Server(id, n)));
        // grm.model paper: 003 eq. 8-9 as printed — λ held fixed (no think time), w̃ the weight in force (no slots
        // in use), no service time (no slot model), one M/M/1 per flow (no pooling across gateways)
        boolean paper = config.grm().model() == GrmConfig.Model.PAPER;
        List<Problem.ClassSpec> classes = new ArrayList<>();
        for (int i = 0; i < config.classes().size(); i++) {
            ClassConfig c = config.classes().get(i);
            ClassConfig e = in.classes().get(i);
            classes.add(new Problem.ClassSpec(e.name(), e.targetSeconds(), UtilityFunction.of(e), e.minShare(),
                    config.control().responseTimeCap(), paper ? Double.POSITIVE_INFINITY : c.thinkTimeSeconds()));
        }
        int q = config.control().granularity();
        List<Problem.Flow> flows = new ArrayList<>();
        for (Map.Entry<String, GatewayStats> g : in.live().entrySet()) {
            Allocation last = in.lastAllocations().get(g.getKey());
            for (ClassConfig c : config.classes()) {
                GatewayStats.ClassStats cs = g.getValue().classes().get(c.name());
                double inForce = cs != null && cs.weight() > 0 ? cs.weight()
                        : last != null && last.weights().getOrDefault(c.name(), 0.0) > 0 ? last.weights().get(c.name())
                        : c.weight();
                inForce = Math.max(inForce, 1.0 / q);
                flows.add(cs == null
                        ? new Problem.Flow(g.getKey(), c.name(), 0, 0, inForce, 0)
                        : paper ? new Problem.Flow(g.getKey(), c.name(), cs.arrivalRate(), cs.meanResponseTime(), inForce,
                                cs.queueLength(), 0, 0)
                        : new Problem.Flow(g.getKey(), c.name(), cs.arrivalRate(), cs.meanResponseTime(), inForce,
                                cs.queueLength(), FlowEstimates.slotsInUse(cs), in.estimates().serviceTime(c.name(), cs)));
            }
        }
        Map<Problem.FlowId, Double> weightPins = new LinkedHashMap<>();
        pins.weightPins().forEach((f, w) -> weightPins.put(new Problem.FlowId(f.gateway(), f.cls()), w));
        if (paper && in.holdWeights()) {
            holdInForce(flows, servers, weightPins);
        }
        Problem.Parameters p = parameters(q);
        Map<Problem.FlowId, Double> dm = new LinkedHashMap<>();
        for (Problem.Flow f : flows) {
            Double d = in.estimates().deltaMu().get(f.id());
            if (d != null) {
                dm.put(f.id(), d);
            }
        }
        // one model per class across gateways (ClassPool); the decision keeps what each gateway measured
        Map<String, Double> think = new LinkedHashMap<>();
        config.classes().forEach(c -> think.put(c.name(), c.thinkTimeSeconds()));
        return new Built(new Problem(servers, classes, paper ? flows : ClassPool.pool(flows, think, weightPins.keySet()), p,
                weightPins, dm), pins, flows, reserve);
    }

    /**
     * Every flow not pinned stays at its weight in force, when those weights fill the N to share exactly (else
     * — a server came or went — the optimiser decides as usual).
     */
    private static void holdInForce(List<Problem.Flow> flows, List<Problem.Server> servers,
                                    Map<Problem.FlowId, Double> weightPins) {
        Map<Problem.FlowId, Double> held = new LinkedHashMap<>(weightPins);
        flows.forEach(f -> held.putIfAbsent(f.id(), f.weight()));
        double sum = held.values().stream().mapToDouble(Double::doubleValue).sum();
        long n = servers.stream().mapToLong(Problem.Server::concurrency).sum();
        if (Math.abs(sum - n) < 1e-9) {
            weightPins.putAll(held);
        }
    }

    private Problem.Parameters parameters(int q) {
        return new Problem.Parameters(
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
    }
}
