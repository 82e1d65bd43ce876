package org.arbiter.grm;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.arbiter.common.utility.UtilityFunction;

/**
 * One allocation problem (003 §IV-A): servers with their N_s, classes with their utility, the
 * measured flows, and the optimiser's parameters. Validated on construction: every problem is
 * reported as {@code path: value (expected: rule)}, all at once, in {@link ProblemException}.
 *
 * @param servers    the ON servers and their concurrency N_s
 * @param classes    the classes, by name
 * @param flows      one per (gateway, class) taking part
 * @param parameters combine, granularity, bounds, prediction
 * @param pins       weights fixed by an operator, by flow: the optimiser holds such a flow at
 *                   exactly its pin (rounded to the nearest multiple of 1/q; an operator's pin
 *                   may lie below minWeight and minShare) and optimises the others
 * @param deltaMu    liu prediction only: the PI term Δμ (req/s) of each flow, kept by the caller
 *                   across periods (absent = 0)
 */
public record Problem(List<Server> servers, List<ClassSpec> classes, List<Flow> flows, Parameters parameters,
                      Map<FlowId, Double> pins, Map<FlowId, Double> deltaMu) {

    /** Without PI terms. */
    public Problem(List<Server> servers, List<ClassSpec> classes, List<Flow> flows, Parameters parameters,
                   Map<FlowId, Double> pins) {
        this(servers, classes, flows, parameters, pins, Map.of());
    }

    /** A server and its concurrency N_s. */
    public record Server(String id, int concurrency) {
    }

    /**
     * A class.
     *
     * @param targetSeconds   τ_c
     * @param utility         U_c
     * @param minShare        a flow of the class gets at least minShare · N / |G|
     * @param responseTimeCap predictions are clamped to responseTimeCap · τ_c
     * @param thinkTimeSeconds Z of closed-loop clients (+∞: open loop; see FlowModel)
     */
    public record ClassSpec(String name, double targetSeconds, UtilityFunction utility, double minShare,
                            double responseTimeCap, double thinkTimeSeconds) {
        /** Open-loop traffic. */
        public ClassSpec(String name, double targetSeconds, UtilityFunction utility, double minShare,
                         double responseTimeCap) {
            this(name, targetSeconds, utility, minShare, responseTimeCap, Double.POSITIVE_INFINITY);
        }
    }

    /** Names a flow. */
    public record FlowId(String gateway, String cls) {
    }

    /**
     * A measured flow.
     *
     * @param arrivalRate  λ̃, req/s
     * @param responseTime t̃, s (0 = not measured)
     * @param weight       w̃, the weight in force when measured (> 0)
     * @param queueLength  ℓ, the backlog at the gateway (queue-length prediction)
     * @param slotsInUse   the slots the flow held on average, X̃·S̃ (0 = not measured: the model uses
     *                     the weight); 003 §IV-C's "threads concurrently executing" the flow
     * @param serviceTime  S̃, s: the mean time a request held a slot (0 = not measured: mm1 prediction
     *                     is then 003 eq. 8-9 as printed; see FlowModel, "Slots")
     */
    public record Flow(String gateway, String cls, double arrivalRate, double responseTime, double weight,
                       double queueLength, double slotsInUse, double serviceTime) {
        /** Without a measurement of the slots in use. */
        public Flow(String gateway, String cls, double arrivalRate, double responseTime, double weight,
                    double queueLength) {
            this(gateway, cls, arrivalRate, responseTime, weight, queueLength, 0);
        }

        /** Without a measurement of the service time. */
        public Flow(String gateway, String cls, double arrivalRate, double responseTime, double weight,
                    double queueLength, double slotsInUse) {
            this(gateway, cls, arrivalRate, responseTime, weight, queueLength, slotsInUse, 0);
        }

        /** w̃ for 003 eq. 8: the slots in use when measured, else the weight in force. */
        public double weightForModel() {
            return slotsInUse > 0 ? slotsInUse : weight;
        }

        public FlowId id() {
            return new FlowId(gateway, cls);
        }
    }

    /** sum (003 eq. 2a) or min (eq. 2b). */
    public enum Combine { SUM, MIN }

    /** mm1 (003 eq. 9), queue-length (Arbiter's backlog term) or liu (001 Step 1-3). */
    public enum Prediction { MM1, QUEUE_LENGTH, LIU }

    /**
     * @param combine             objective
     * @param granularity         q: weights move in units of 1/q
     * @param minWeight           every w ≥ this
     * @param prediction          the model
     * @param controlPeriodSeconds Γ, for queue-length prediction
     * @param gain                k, for queue-length prediction
     * @param liuK                k of liu prediction: 001's K = k/τ_c
     */
    public record Parameters(Combine combine, int granularity, double minWeight, Prediction prediction,
                             double controlPeriodSeconds, double gain, double liuK) {
        public static final Parameters PAPER = new Parameters(Combine.MIN, 1, 1, Prediction.MM1, 5, 1);

        /** With liu's k = 1 (001's K = 1/D_ref). */
        public Parameters(Combine combine, int granularity, double minWeight, Prediction prediction,
                          double controlPeriodSeconds, double gain) {
            this(combine, granularity, minWeight, prediction, controlPeriodSeconds, gain, 1);
        }

        public Parameters {
            requireNonNull(combine, "combine");
            requireNonNull(prediction, "prediction");
        }
    }

    public Problem {
        servers = List.copyOf(requireNonNull(servers, "servers"));
        classes = List.copyOf(requireNonNull(classes, "classes"));
        flows = List.copyOf(requireNonNull(flows, "flows"));
        requireNonNull(parameters, "parameters");
        pins = Map.copyOf(pins == null ? Map.of() : pins);
        deltaMu = Map.copyOf(deltaMu == null ? Map.of() : deltaMu);
        List<String> errors = validate(servers, classes, flows, parameters, pins);
        deltaMu.forEach((id, d) -> {
            if (d == null || !Double.isFinite(d)) {
                errors.add("deltaMu." + id.gateway() + "." + id.cls() + ": " + d + " (expected: a finite number)");
            }
        });
        if (!errors.isEmpty()) {
            throw new ProblemException(errors);
        }
    }

    /** N = Σ_s N_s (validated to fit, with N·q, in an int). */
    public int totalConcurrency() {
        return (int) servers.stream().mapToLong(Server::concurrency).sum();
    }

    /** M = N·q, the units the optimiser places (validated to fit in an int). */
    public int totalUnits() {
        return totalConcurrency() * parameters.granularity();
    }

    /** The gateways taking part, in the order their flows first appear. */
    public List<String> gateways() {
        Set<String> g = new LinkedHashSet<>();
        flows.forEach(f -> g.add(f.gateway()));
        return List.copyOf(g);
    }

    public ClassSpec classNamed(String name) {
        for (ClassSpec c : classes) {
            if (c.name().equals(name)) {
                return c;
            }
        }
        throw new IllegalArgumentException("class: " + name + " (expected: a class of the problem)");
    }

    private static List<String> validate(List<Server> servers, List<ClassSpec> classes, List<Flow> flows,
                                         Parameters p, Map<FlowId, Double> pins) {
        List<String> e = new ArrayList<>();
        if (servers.isEmpty()) {
            e.add("servers: an empty list (expected: at least one server)");
        }
        Set<String> ids = new HashSet<>();
        for (int i = 0; i < servers.size(); i++) {
            Server s = servers.get(i);
            if (s.id() == null || s.id().isBlank()) {
                e.add("servers[" + i + "].id: missing (expected: an id)");
            } else if (!ids.add(s.id())) {
                e.add("servers[" + i + "].id: " + s.id() + " (expected: an id no other server has)");
            }
            if (s.concurrency() < 1) {
                e.add("servers[" + i + "].concurrency: " + s.concurrency() + " (expected: >= 1)");
            }
        }
        Map<String, ClassSpec> byName = new HashMap<>();
        for (int i = 0; i < classes.size(); i++) {
            ClassSpec c = classes.get(i);
            if (c.name() == null || c.name().isBlank()) {
                e.add("classes[" + i + "].name: missing (expected: a name)");
                continue;
            }
            if (byName.put(c.name(), c) != null) {
                e.add("classes[" + i + "].name: " + c.name() + " (expected: a name no other class has)");
            }
            if (!(c.targetSeconds() > 0)) {
                e.add("classes[" + i + "].target: " + c.targetSeconds() + " (expected: > 0)");
            }
            if (c.utility() == null) {
                e.add("classes[" + i + "].utility: missing (expected: a utility function)");
            }
            if (!(c.minShare() >= 0 && c.minShare() <= 1)) {
                e.add("classes[" + i + "].minShare: " + c.minShare() + " (expected: between 0 and 1)");
            }
            if (!(c.thinkTimeSeconds() >= 0)) {
                e.add("classes[" + i + "].thinkTime: " + c.thinkTimeSeconds() + " (expected: >= 0)");
            }
            if (!(c.responseTimeCap() > 1)) {
                e.add("classes[" + i + "].responseTimeCap: " + c.responseTimeCap() + " (expected: > 1)");
            }
        }
        Set<FlowId> seen = new HashSet<>();
        for (int i = 0; i < flows.size(); i++) {
            Flow f = flows.get(i);
            String at = "flows[" + i + "]";
            if (f.gateway() == null || f.gateway().isBlank()) {
                e.add(at + ".gateway: missing (expected: a gateway id)");
            }
            if (f.cls() == null || !byName.containsKey(f.cls())) {
                e.add(at + ".class: " + f.cls() + " (expected: one of the classes: " + String.join(", ", byName.keySet()) + ")");
            }
            if (!(f.arrivalRate() >= 0) || Double.isInfinite(f.arrivalRate())) {
                e.add(at + ".arrivalRate: " + f.arrivalRate() + " (expected: >= 0)");
            }
            if (!(f.responseTime() >= 0) || Double.isInfinite(f.responseTime())) {
                e.add(at + ".responseTime: " + f.responseTime() + " (expected: >= 0)");
            }
            if (!(f.weight() > 0) || Double.isInfinite(f.weight())) {
                e.add(at + ".weight: " + f.weight() + " (expected: > 0)");
            }
            if (!(f.slotsInUse() >= 0) || Double.isInfinite(f.slotsInUse())) {
                e.add(at + ".slotsInUse: " + f.slotsInUse() + " (expected: >= 0)");
            }
            if (!(f.serviceTime() >= 0) || Double.isInfinite(f.serviceTime())) {
                e.add(at + ".serviceTime: " + f.serviceTime() + " (expected: >= 0)");
            }
            if (!(f.queueLength() >= 0)) {
                e.add(at + ".queueLength: " + f.queueLength() + " (expected: >= 0)");
            }
            if (f.gateway() != null && f.cls() != null && !seen.add(f.id())) {
                e.add(at + ": " + f.gateway() + "/" + f.cls() + " (expected: one flow per gateway and class)");
            }
        }
        if (flows.isEmpty()) {
            e.add("flows: an empty list (expected: at least one flow)");
        }
        if (p.granularity() < 1) {
            e.add("granularity: " + p.granularity() + " (expected: >= 1)");
        } else {
            long n = servers.stream().mapToLong(s -> Math.max(0, s.concurrency())).sum();
            if (n > Integer.MAX_VALUE / p.granularity()) {
                e.add("servers: N = " + n + " slots at granularity " + p.granularity()
                        + " (expected: N · granularity <= " + Integer.MAX_VALUE + ")");
            }
        }
        if (!(p.minWeight() >= 0)) {
            e.add("minWeight: " + p.minWeight() + " (expected: >= 0)");
        }
        if (!(p.controlPeriodSeconds() > 0)) {
            e.add("controlPeriod: " + p.controlPeriodSeconds() + " (expected: > 0)");
        }
        if (!(p.gain() >= 0)) {
            e.add("gain: " + p.gain() + " (expected: >= 0)");
        }
        if (!(p.liuK() >= 0) || Double.isInfinite(p.liuK())) {
            e.add("liu.k: " + p.liuK() + " (expected: >= 0)");
        }
        pins.forEach((id, w) -> {
            if (!seen.contains(id)) {
                e.add("pins." + id.gateway() + "." + id.cls() + ": (expected: a flow of the problem)");
            }
            if (w == null || !(w >= 0) || w.isInfinite()) {
                e.add("pins." + id.gateway() + "." + id.cls() + ": " + w + " (expected: >= 0)");
            }
        });
        return e;
    }
}
