package org.arbiter.common.override;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.OperatorOverride.Kind;
import org.arbiter.common.message.OverrideRange;
import org.arbiter.common.message.ServerState;

/*
 * Design note.
 *
 * Model. The GRM's optimiser (003 §IV, eq. 2-3) divides N = Σ_s N_s server slots, in units of 1/q,
 * among the flows (g, c) of the live gateways: Σ w = N; an unpinned flow gets at least
 * L = ⌈max(minWeight, minShare_c · N / |G|) · q⌉ units, a pinned flow exactly round(pin · q).
 * In units, M = N · q, a set of pins is feasible iff
 *     Σ lower ≤ M                               (the lower bounds fit), and
 *     some flow is unpinned, or Σ lower = M     (a flow without a pin takes what is left).
 * Weight pins and N_s pins both move these sums; nothing else an operator sets does (targets and
 * utilities change values, not bounds; a power pin changes which servers are ON, which is an input).
 *
 * Rule. Weight and concurrency pins are taken in the order they were set (their `at`, then their id)
 * and each is applied only when the set of pins applied before it, with it, is still feasible; a
 * pin that is not is left out, with the rule it breaks, and the next one is tried. A later pin on a
 * flow (or server) already pinned replaces the earlier one when the set stays feasible. The outcome
 * is a function of the set of pins and the cluster only: the same input, the same pins left out.
 * Pins on a gateway that is not live or a server that is not ON wait (not applied, said why).
 *
 * Cost. O(P · F) for P pins and F flows; explaining a left-out N_s pin adds a binary search over
 * N_s (O(F log 100 000)).
 *
 * Arithmetic is in long with saturation: no pin, N_s or configuration value can overflow it.
 *
 * Stateless; thread-safe.
 */

/**
 * Which operator pins can be met together, and the rule that leaves out the ones that cannot (see
 * the design note in the source). The GRM applies it every period to the cluster as it is (live
 * gateways, ON servers); the console applies it to the cluster as configured before it publishes a
 * pin, and refuses a pin that would be left out. One definition for both, so what the console
 * accepts is what the GRM applies on the configured cluster.
 *
 * <p>Stateless and thread-safe; the records it returns are immutable.
 */
public final class PinSelection {

    /** A flow (gateway, class). */
    public record Flow(String gateway, String cls) {
        public Flow {
            requireNonNull(gateway, "gateway");
            requireNonNull(cls, "cls");
        }
    }

    /**
     * The cluster pins are checked against.
     *
     * @param servers     the ON servers and their N_s before pins, in order
     * @param gateways    the gateways taking part (live)
     * @param minShares   every class and its minShare, in order
     * @param minWeight   every unpinned w ≥ this
     * @param granularity q: weights move in units of 1/q
     */
    public record Cluster(Map<String, Integer> servers, List<String> gateways, Map<String, Double> minShares,
                          double minWeight, int granularity) {
        public Cluster {
            servers = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(servers, "servers")));
            gateways = List.copyOf(requireNonNull(gateways, "gateways"));
            minShares = Collections.unmodifiableMap(new LinkedHashMap<>(requireNonNull(minShares, "minShares")));
            if (granularity < 1) {
                throw new IllegalArgumentException("granularity: " + granularity + " (expected: >= 1)");
            }
        }

        /** The cluster as configured: every gateway live, every server ON at its configured N_s, no pins. */
        public static Cluster configured(ClusterConfig config) {
            return configured(config, List.of());
        }

        /**
         * The cluster as configured, with the power pins of {@code inForce} applied: every gateway live,
         * every server ON at its configured N_s unless the newest power pin on it holds it OFF.
         */
        public static Cluster configured(ClusterConfig config, Collection<OperatorOverride> inForce) {
            Map<String, OperatorOverride> power = new TreeMap<>();
            for (OperatorOverride o : inForce) {
                if (o.active() && o.kind() == Kind.POWER) {
                    power.merge(o.server(), o, (a, b) -> ORDER.compare(a, b) >= 0 ? a : b);
                }
            }
            Map<String, Integer> servers = new LinkedHashMap<>();
            for (ServerConfig s : config.servers()) {
                OperatorOverride p = power.get(s.id());
                if (p == null || p.state() != ServerState.OFF) {
                    servers.put(s.id(), s.concurrency());
                }
            }
            Map<String, Double> shares = new LinkedHashMap<>();
            for (ClassConfig c : config.classes()) {
                shares.put(c.name(), c.minShare());
            }
            return new Cluster(servers, config.gateways().stream().map(GatewayConfig::id).toList(), shares,
                    config.control().minWeight(), config.control().granularity());
        }
    }

    /**
     * Why a pin is not applied, in the error form.
     *
     * @param field   the override's field at fault ({@code value}, {@code state}, {@code gateway}, ...)
     * @param rule    what it would have to be
     * @param message {@code field: value (expected: rule)}
     */
    public record Refusal(String field, String rule, String message) {
    }

    /**
     * What the rule made of the pins.
     *
     * @param concurrency N_s per ON server with the applied N_s pins
     * @param weightPins  the applied weight pins
     * @param statuses    one per override in force, in the order considered (weight and N_s pins by
     *                    the time they were set, then the others)
     * @param refusals    why each pin that is not applied is not
     */
    public record Outcome(Map<String, Integer> concurrency, Map<Flow, Double> weightPins,
                          List<Decision.PinStatus> statuses, Map<String, Refusal> refusals) {
        public Outcome {
            concurrency = Collections.unmodifiableMap(new LinkedHashMap<>(concurrency));
            weightPins = Collections.unmodifiableMap(new LinkedHashMap<>(weightPins));
            statuses = List.copyOf(statuses);
            refusals = Map.copyOf(refusals);
        }

        /** True when the override {@code id} is applied. */
        public boolean applied(String id) {
            return statuses.stream().anyMatch(s -> s.id().equals(id) && s.applied());
        }

        /** Ids of the pins left out (or waiting). */
        public List<String> leftOut() {
            return statuses.stream().filter(s -> !s.applied()).map(Decision.PinStatus::id).toList();
        }
    }

    /** The order pins were set in: {@code at}, then id. */
    public static final Comparator<OperatorOverride> ORDER =
            Comparator.comparing(OperatorOverride::at).thenComparing(OperatorOverride::id);

    private PinSelection() {
    }

    // ---- the optimiser's bounds, shared with the GRM's solver ---------------------------------

    /** Units of 1/q an unpinned flow needs at least: ⌈max(minWeight, minShare · N / |G|) · q⌉ (saturating). */
    public static long lowerUnits(double minWeight, double minShare, long n, int gateways, int q) {
        double byShare = gateways <= 0 ? 0 : minShare * n / gateways;
        double units = Math.ceil(Math.max(minWeight, byShare) * q - 1e-9);
        return units <= 0 ? 0 : (long) units;   // a double beyond Long.MAX_VALUE converts to it
    }

    /** Units of 1/q a pin of {@code weight} holds: round(weight · q) (saturating; NaN is 0). */
    public static long pinUnits(double weight, int q) {
        return Math.max(0, Math.round(weight * q));
    }

    /** a + b, held at Long.MAX_VALUE instead of overflowing (both ≥ 0). */
    public static long add(long a, long b) {
        long r = a + b;
        return r < 0 ? Long.MAX_VALUE : r;
    }

    // ---- the rule ----------------------------------------------------------------------------

    /** Applies the rule to the overrides in force (inactive ones are ignored). */
    public static Outcome select(Cluster cluster, Collection<OperatorOverride> inForce) {
        requireNonNull(cluster, "cluster");
        List<OperatorOverride> pins = new ArrayList<>();
        List<OperatorOverride> others = new ArrayList<>();
        for (OperatorOverride o : requireNonNull(inForce, "inForce")) {
            if (o == null || !o.active()) {
                continue;
            }
            (o.kind() == Kind.WEIGHT || o.kind() == Kind.CONCURRENCY ? pins : others).add(o);
        }
        pins.sort(ORDER);
        others.sort(ORDER);

        State s = new State(cluster);
        Map<String, Decision.PinStatus> statuses = new LinkedHashMap<>();
        Map<String, Refusal> refusals = new LinkedHashMap<>();
        Map<Flow, String> weightBy = new LinkedHashMap<>();
        Map<String, String> concurrencyBy = new LinkedHashMap<>();
        for (OperatorOverride o : pins) {
            Refusal r = o.kind() == Kind.WEIGHT ? tryWeight(s, o, weightBy) : tryConcurrency(s, o, concurrencyBy);
            if (r == null) {
                statuses.put(o.id(), new Decision.PinStatus(o.id(), true, ""));
            } else {
                statuses.put(o.id(), new Decision.PinStatus(o.id(), false, r.message()));
                refusals.put(o.id(), r);
            }
        }
        // pins replaced by later ones on the same flow or server
        Map<String, String> replacedBy = new LinkedHashMap<>();
        for (OperatorOverride o : pins) {
            String holder = o.kind() == Kind.WEIGHT ? weightBy.get(new Flow(o.gateway(), o.cls())) : concurrencyBy.get(o.server());
            if (statuses.get(o.id()).applied() && holder != null && !holder.equals(o.id())) {
                replacedBy.put(o.id(), holder);
            }
        }
        replacedBy.forEach((id, by) -> {
            Refusal r = new Refusal("id", "the newest pin on it", "id: " + id + " (expected: the newest pin on it; replaced by "
                    + by + ", set later)");
            statuses.put(id, new Decision.PinStatus(id, false, r.message()));
            refusals.put(id, r);
        });
        for (OperatorOverride o : others) {
            statuses.put(o.id(), new Decision.PinStatus(o.id(), true, ""));
        }
        Map<Flow, Double> weights = new LinkedHashMap<>();
        s.pins.forEach((f, u) -> weights.put(f, s.pinValues.get(f)));
        return new Outcome(s.ns, weights, List.copyOf(statuses.values()), refusals);
    }

    /**
     * Would {@code candidate}, published now, be applied on the cluster as configured, and leave
     * every pin in force that is applied now applied? The console's check before it publishes.
     *
     * @param inForce the overrides in force (one with the candidate's id is replaced by it)
     * @return empty when it may be published, else why not
     */
    public static Optional<Refusal> admit(ClusterConfig config, Collection<OperatorOverride> inForce,
                                          OperatorOverride candidate) {
        requireNonNull(config, "config");
        requireNonNull(candidate, "candidate");
        List<OperatorOverride> before = new ArrayList<>();
        for (OperatorOverride o : inForce) {
            if (o != null && o.active() && !o.id().equals(candidate.id())) {
                before.add(o);
            }
        }
        List<OperatorOverride> after = new ArrayList<>(before);
        // the candidate is the newest pin: it is considered after every pin in force
        OperatorOverride newest = before.stream().max(ORDER).orElse(null);
        after.add(newest == null || ORDER.compare(candidate, newest) > 0 ? candidate : later(candidate, newest));
        Outcome was = select(Cluster.configured(config, before), before);
        Outcome will = select(Cluster.configured(config, after), after);
        Refusal own = will.refusals().get(candidate.id());
        if (own != null) {
            return Optional.of(own);
        }
        for (Decision.PinStatus p : was.statuses()) {
            Refusal lost = will.refusals().get(p.id());
            // a pin the candidate replaces (same flow or server, another id) is not lost
            if (p.applied() && lost != null && !"id".equals(lost.field())) {
                String field = candidate.kind() == Kind.POWER ? "state" : "value";
                String shown = candidate.kind() == Kind.POWER ? String.valueOf(candidate.state())
                        : String.valueOf(candidate.value());
                String rule = "a value that keeps the pin " + p.id() + " in force applicable; it would be left out: "
                        + lost.message();
                return Optional.of(new Refusal(field, rule, field + ": " + shown + " (expected: " + rule + ")"));
            }
        }
        return Optional.empty();
    }

    private static OperatorOverride later(OperatorOverride c, OperatorOverride newest) {
        // a clock behind the newest pin's: consider the candidate as set just after it
        return new OperatorOverride(c.v(), newest.at().plusNanos(1), c.id(), c.kind(), c.gateway(), c.cls(), c.server(),
                c.value(), c.phi(), c.alpha(), c.beta(), c.state(), c.active(), c.author());
    }

    // ---- internals ---------------------------------------------------------------------------

    /** The pins applied so far and the bounds they imply. */
    private static final class State {
        final Cluster cluster;
        final Map<String, Integer> ns;
        final Map<Flow, Long> pins = new LinkedHashMap<>();
        final Map<Flow, Double> pinValues = new LinkedHashMap<>();

        State(Cluster cluster) {
            this.cluster = cluster;
            this.ns = new LinkedHashMap<>(cluster.servers());
        }

        long n(Map<String, Integer> servers) {
            long n = 0;
            for (int v : servers.values()) {
                n = add(n, Math.max(0, v));
            }
            return n;
        }

        /** Σ lower over every flow, and whether some flow is unpinned, for the given N_s and pins. */
        Sums sums(Map<String, Integer> servers, Map<Flow, Long> pinned, Flow without) {
            long n = n(servers);
            int q = cluster.granularity();
            long lower = 0;
            int free = 0;
            int flows = 0;
            for (String g : cluster.gateways()) {
                for (Map.Entry<String, Double> c : cluster.minShares().entrySet()) {
                    Flow f = new Flow(g, c.getKey());
                    if (f.equals(without)) {
                        continue;
                    }
                    flows++;
                    Long p = pinned.get(f);
                    if (p != null) {
                        lower = add(lower, p);
                    } else {
                        lower = add(lower, lowerUnits(cluster.minWeight(), c.getValue(), n, cluster.gateways().size(), q));
                        free++;
                    }
                }
            }
            long m = n > Long.MAX_VALUE / q ? Long.MAX_VALUE : n * q;
            return new Sums(n, m, lower, free, flows);
        }
    }

    private record Sums(long n, long m, long lower, int free, int flows) {
        boolean feasible() {
            return lower <= m && (free > 0 || lower == m);
        }
    }

    private static Refusal tryWeight(State s, OperatorOverride o, Map<Flow, String> by) {
        Cluster c = s.cluster;
        if (!c.gateways().contains(o.gateway())) {
            return new Refusal("gateway", "a live gateway", "gateway: " + o.gateway()
                    + " (expected: a live gateway; the pin waits until it reports)");
        }
        if (!c.minShares().containsKey(o.cls())) {
            return new Refusal("class", "a configured class", "class: " + o.cls() + " (expected: a configured class)");
        }
        Flow f = new Flow(o.gateway(), o.cls());
        int q = c.granularity();
        long units = pinUnits(o.value(), q);
        Map<Flow, Long> trial = new LinkedHashMap<>(s.pins);
        trial.put(f, units);
        Sums with = s.sums(s.ns, trial, null);
        if (with.feasible()) {
            s.pins.put(f, units);
            s.pinValues.put(f, o.value());
            by.put(f, o.id());
            return null;
        }
        Sums others = s.sums(s.ns, trial, f);
        long room = others.lower >= others.m ? 0 : others.m - others.lower;
        String why = "N = " + others.n + " slots, of which the other " + others.flows
                + (others.flows == 1 ? " flow needs " : " flows need ") + fmt(others.lower, q) + " (minWeight " + fmt(c.minWeight()) + ", minShare and the pins set before this one)";
        String rule = others.free > 0 ? "between 0 and " + fmt(room, q) + ": " + why
                : fmt(room, q) + " exactly: every flow would be pinned, so the pins must add up to N; " + why;
        return new Refusal("value", rule, "value: " + fmt(o.value()) + " (expected: " + rule + ")");
    }

    private static Refusal tryConcurrency(State s, OperatorOverride o, Map<String, String> by) {
        if (!s.ns.containsKey(o.server())) {
            return new Refusal("server", "an ON server", "server: " + o.server()
                    + " (expected: an ON server; the pin waits until it is ON)");
        }
        int value = OverrideRange.CONCURRENCY.toInt(o.value());
        Map<String, Integer> trial = new LinkedHashMap<>(s.ns);
        trial.put(o.server(), value);
        Sums with = s.sums(trial, s.pins, null);
        if (with.feasible()) {
            s.ns.put(o.server(), value);
            by.put(o.server(), o.id());
            return null;
        }
        int q = s.cluster.granularity();
        String why = "N_s " + value + " makes N = " + with.n + " slots, but the flows need " + fmt(with.lower, q)
                + " (minWeight " + fmt(s.cluster.minWeight()) + ", minShare and the weight pins set before this one)";
        int max = (int) OverrideRange.CONCURRENCY.max();
        String rule;
        if (with.free == 0) {
            rule = "one that makes N equal the sum of the pins, as every flow is pinned; " + why;
        } else {
            // the least N_s that fits: feasibility only grows with N_s while a flow is unpinned
            // (N·q grows by q per slot, the lower bounds by minShare·q/|G| per flow)
            int lo = value;
            int hi = max + 1;
            while (lo + 1 < hi) {
                int mid = (lo + hi) >>> 1;
                trial.put(o.server(), mid);
                if (s.sums(trial, s.pins, null).feasible()) {
                    hi = mid;
                } else {
                    lo = mid;
                }
            }
            rule = hi > max ? "none up to " + max + " fits; " + why : "a whole number from " + hi + " to " + max + ": " + why;
        }
        return new Refusal("value", rule, "value: " + value + " (expected: " + rule + ")");
    }

    private static String fmt(long units, int q) {
        return fmt(units / (double) q);
    }

    private static String fmt(double d) {
        if (d == Math.rint(d) && Math.abs(d) < 1e15) {
            return Long.toString((long) d);
        }
        return Double.toString(d);
    }
}
