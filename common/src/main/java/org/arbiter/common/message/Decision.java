package org.arbiter.common.message;

import static org.arbiter.common.message.Message.checkAt;
import static org.arbiter.common.message.Message.checkFiniteOrNone;
import static org.arbiter.common.message.Message.checkNonNegative;
import static org.arbiter.common.message.Message.checkVersion;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.annotation.JsonSetter;
import com.fasterxml.jackson.annotation.Nulls;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * One control period's decision, for the console and the record. Topic {@code decisions}, key:
 * the deciding GRM's id.
 *
 * <p>Ranges (checked here): {@code sequence} >= 0; ({@code epoch}, {@code allocationVersion}) as
 * in {@link Allocation}; {@code solveSeconds}, {@code energyJoules} finite and >= 0;
 * {@code objective} finite, or NaN when nothing was solved; per flow, the measured inputs and
 * weights finite and >= 0, the predictions finite (response time >= 0) or NaN when nothing was
 * solved; per server a state, N_s, capacity and watts >= 0; per class prediction error, a mean
 * absolute relative error finite and >= 0 over at least one sample. Infinities are always refused.
 *
 * @param grm               the leader that decided
 * @param sequence          control period number of this leader
 * @param allocationVersion the version of the allocations published with it
 * @param combine           sum or min
 * @param objective         Ω of the chosen allocation
 * @param solveSeconds      time the optimiser took
 * @param liveGateways      gateways that took part
 * @param flows             inputs and predictions per flow
 * @param servers           per server: state, N_s, power
 * @param energyJoules      energy used by the cluster so far (0 when not modelled)
 * @param overrides         ids of the overrides in force
 * @param pins              what became of each override in force this period, in the order the GRM
 *                          considered them (the order they were set): applied, or left out and why
 * @param epoch             the deciding leader's epoch (0 = legacy record)
 * @param predictionErrors  per class, how well the flow model predicted lately (absent in records
 *                          written before it, and for a class with no checked prediction)
 * @param solvePath         which algorithm found the period's optimum: {@code marginal} (sum by
 *                          marginal gains), {@code level} (min by the common-level search),
 *                          {@code thresholds} (min by per-class thresholds), {@code dp} (the dynamic
 *                          programme); empty when nothing was solved and in records
 *                          written before it (docs/grm.md, "The fast exact paths")
 * @param pool              the pool decided ({@code pools[].name}); "" without pools, and then left out of the JSON
 */
public record Decision(int v, Instant at, String grm, long sequence, long allocationVersion, String combine,
                       double objective, double solveSeconds, List<String> liveGateways, List<Flow> flows,
                       Map<String, Server> servers, double energyJoules, List<String> overrides,
                       List<PinStatus> pins, @JsonSetter(nulls = Nulls.AS_EMPTY) long epoch,
                       Map<String, PredictionError> predictionErrors, String solvePath,
                       @JsonInclude(JsonInclude.Include.NON_EMPTY) String pool)
        implements Message {

    /** A decision for the whole cluster (no pools). */
    public Decision(int v, Instant at, String grm, long sequence, long allocationVersion, String combine,
                    double objective, double solveSeconds, List<String> liveGateways, List<Flow> flows,
                    Map<String, Server> servers, double energyJoules, List<String> overrides, List<PinStatus> pins,
                    long epoch, Map<String, PredictionError> predictionErrors, String solvePath) {
        this(v, at, grm, sequence, allocationVersion, combine, objective, solveSeconds, liveGateways, flows, servers,
                energyJoules, overrides, pins, epoch, predictionErrors, solvePath, "");
    }

    /** A decision without the solver's path (a record written before it was carried). */
    public Decision(int v, Instant at, String grm, long sequence, long allocationVersion, String combine,
                    double objective, double solveSeconds, List<String> liveGateways, List<Flow> flows,
                    Map<String, Server> servers, double energyJoules, List<String> overrides, List<PinStatus> pins,
                    long epoch, Map<String, PredictionError> predictionErrors) {
        this(v, at, grm, sequence, allocationVersion, combine, objective, solveSeconds, liveGateways, flows, servers,
                energyJoules, overrides, pins, epoch, predictionErrors, "");
    }

    /** A decision without prediction errors (none checked, or a record written before they were carried). */
    public Decision(int v, Instant at, String grm, long sequence, long allocationVersion, String combine,
                    double objective, double solveSeconds, List<String> liveGateways, List<Flow> flows,
                    Map<String, Server> servers, double energyJoules, List<String> overrides, List<PinStatus> pins,
                    long epoch) {
        this(v, at, grm, sequence, allocationVersion, combine, objective, solveSeconds, liveGateways, flows, servers,
                energyJoules, overrides, pins, epoch, Map.of());
    }

    /** A legacy decision without pin statuses or an epoch (pins empty, epoch 0). */
    public Decision(int v, Instant at, String grm, long sequence, long allocationVersion, String combine,
                    double objective, double solveSeconds, List<String> liveGateways, List<Flow> flows,
                    Map<String, Server> servers, double energyJoules, List<String> overrides) {
        this(v, at, grm, sequence, allocationVersion, combine, objective, solveSeconds, liveGateways, flows, servers,
                energyJoules, overrides, List.of(), 0);
    }

    /** A decision without an epoch (epoch 0). */
    public Decision(int v, Instant at, String grm, long sequence, long allocationVersion, String combine,
                    double objective, double solveSeconds, List<String> liveGateways, List<Flow> flows,
                    Map<String, Server> servers, double energyJoules, List<String> overrides, List<PinStatus> pins) {
        this(v, at, grm, sequence, allocationVersion, combine, objective, solveSeconds, liveGateways, flows, servers,
                energyJoules, overrides, pins, 0);
    }

    /** A decision without pin statuses (pins empty). */
    public Decision(int v, Instant at, String grm, long sequence, long allocationVersion, String combine,
                    double objective, double solveSeconds, List<String> liveGateways, List<Flow> flows,
                    Map<String, Server> servers, double energyJoules, List<String> overrides, long epoch) {
        this(v, at, grm, sequence, allocationVersion, combine, objective, solveSeconds, liveGateways, flows, servers,
                energyJoules, overrides, List.of(), epoch);
    }

    public Decision {
        checkVersion(v);
        checkAt(at);
        checkNonNegative("sequence", sequence);
        Epochs.checkStamp("allocationVersion", epoch, allocationVersion, at);
        checkFiniteOrNone("objective", objective);
        checkNonNegative("solveSeconds", solveSeconds);
        checkNonNegative("energyJoules", energyJoules);
        grm = grm == null ? "" : grm;
        combine = combine == null ? "" : combine;
        liveGateways = liveGateways == null ? List.of() : List.copyOf(liveGateways);
        flows = flows == null ? List.of() : List.copyOf(flows);
        servers = servers == null ? Map.of() : Map.copyOf(servers);
        overrides = overrides == null ? List.of() : List.copyOf(overrides);
        pins = pins == null ? List.of() : List.copyOf(pins);
        predictionErrors = predictionErrors == null ? Map.of() : Map.copyOf(predictionErrors);
        solvePath = solvePath == null ? "" : solvePath;
        pool = pool == null ? "" : pool;
    }

    /** This decision for pool {@code p}. */
    public Decision withPool(String p) {
        return new Decision(v, at, grm, sequence, allocationVersion, combine, objective, solveSeconds, liveGateways,
                flows, servers, energyJoules, overrides, pins, epoch, predictionErrors, solvePath, p);
    }

    /** This decision with {@code errors} as its per-class prediction errors. */
    public Decision withPredictionErrors(Map<String, PredictionError> errors) {
        return new Decision(v, at, grm, sequence, allocationVersion, combine, objective, solveSeconds, liveGateways,
                flows, servers, energyJoules, overrides, pins, epoch, errors, solvePath, pool);
    }

    /** The status of the override {@code id}, if this decision has one. */
    public Optional<PinStatus> pin(String id) {
        return pins.stream().filter(p -> p.id().equals(id)).findFirst();
    }

    @Override
    public String key() {
        return grm;
    }

    /**
     * One flow (g, c): what was measured, what was chosen, what is predicted.
     *
     * @param arrivalRate           λ̃, req/s
     * @param responseTime          t̃, s
     * @param queueLength           backlog at the gateway
     * @param previousWeight        w̃, the weight in force when measured
     * @param weight                the new w(g,c)
     * @param predictedResponseTime t(w), 003 eq. 9
     * @param predictedUtility      U_c(t(w)), 003 eq. 7
     * @param pinned                true when an override fixed the weight
     */
    public record Flow(String gateway, @JsonProperty("class") String cls, double arrivalRate, double responseTime, double queueLength,
                       double previousWeight, double weight, double predictedResponseTime, double predictedUtility,
                       boolean pinned) {
        public Flow {
            checkNonNegative("arrivalRate", arrivalRate);
            checkNonNegative("responseTime", responseTime);
            checkNonNegative("queueLength", queueLength);
            checkNonNegative("previousWeight", previousWeight);
            checkNonNegative("weight", weight);
            if (!Double.isNaN(predictedResponseTime)) {
                checkNonNegative("predictedResponseTime", predictedResponseTime);
            }
            checkFiniteOrNone("predictedUtility", predictedUtility);
        }
    }

    /**
     * How well the flow model (003 eq. 8-9) predicted one class lately: each decision's predicted
     * response time of a flow against what its gateway measured one statistics window later, while
     * the weight stayed as chosen (docs/grm.md, "Prediction error").
     *
     * @param meanAbs mean |t_pred − t_measured| / t_measured over the samples
     * @param samples how many checked predictions that is (>= 1)
     */
    public record PredictionError(double meanAbs, int samples) {
        public PredictionError {
            checkNonNegative("meanAbs", meanAbs);
            if (samples < 1) {
                throw new IllegalArgumentException("samples: " + samples + " (expected: >= 1)");
            }
        }
    }

    /**
     * What the GRM made of one override in force.
     *
     * @param id      the override's id
     * @param applied true when the override shaped this period's allocation
     * @param reason  why it was not applied ({@code value: 9 (expected: <= 7: ...)}, a gateway not
     *                live, ...), empty when applied
     */
    public record PinStatus(String id, boolean applied, String reason) {
        public PinStatus {
            Message.checkId("pins[].id", id);
            reason = reason == null ? "" : reason;
        }
    }

    /**
     * One server.
     *
     * @param state       power state
     * @param concurrency N_s in force
     * @param capacity    estimated sustainable req/s (0 = unknown)
     * @param watts       current power draw
     */
    public record Server(ServerState state, int concurrency, double capacity, double watts) {
        public Server {
            if (state == null) {
                throw new IllegalArgumentException("state: missing (expected: OFF, BOOTING, ON or DRAINING)");
            }
            checkNonNegative("concurrency", concurrency);
            checkNonNegative("capacity", capacity);
            checkNonNegative("watts", watts);
        }
    }
}
