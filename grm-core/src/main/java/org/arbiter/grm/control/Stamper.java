package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Message;
import org.arbiter.grm.Problem;
import org.arbiter.grm.Solution;
import org.arbiter.grm.sizing.Fleet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Design note — stage 5 of the GRM step: stamping.
 *
 * What it computes: the records the period publishes, all with one (epoch, counter) stamp from the
 * EpochClock, so that gateways and GRMs order them by (epoch, version) and a deposed leader's
 * records lose (docs/reliability.md, "Control records: epochs and bounds"):
 *
 * - one Allocation per planned gateway (stage 4's Plan), at the period's instant;
 * - the Decision: per measured flow its inputs (λ̃, t̃, ℓ, the weight in force), the weight chosen and
 *   the model's prediction t(w) and U_c(t(w)) (003 eq. 7-9; NaN when nothing was solved), the
 *   objective Ω, the solve time, the live gateways, the servers (state, N_s with pins, capacity,
 *   watts), the energy, the overrides in force and each pin's status. A decision that would break
 *   one of the record's ranges (a model figure gone NaN) is left out: it is for the console, and
 *   must never keep the allocations from going out.
 *
 * Stateless over the configuration; thread-safe.
 */

/** Stage 5 of {@link GrmStep}: the period's allocations and decision, with one stamp; see the design note. */
final class Stamper {

    private static final Logger LOG = LoggerFactory.getLogger(Stamper.class);

    /**
     * What a decision records besides its stamp.
     *
     * @param now          the period's instant
     * @param sequence     the decision's number at this GRM
     * @param built        the period's problem and pins
     * @param solution     the published solution; null when nothing was solved
     * @param solveSeconds the solve time (0 when nothing was solved)
     * @param live         the live gateways, in order
     * @param fleet        the servers (state, N_s, capacity, watts) and the energy so far, read when the
     *                     decision is made (a figure out of range leaves the decision out)
     * @param overrideIds  the ids of the overrides in force, sorted
     */
    record DecisionInput(Instant now, long sequence, ProblemBuilder.Built built, Solution solution, double solveSeconds,
                         List<String> live, Fleet fleet, List<String> overrideIds) {
        DecisionInput {
            requireNonNull(now, "now");
            requireNonNull(built, "built");
            requireNonNull(live, "live");
            requireNonNull(fleet, "fleet");
            requireNonNull(overrideIds, "overrideIds");
        }
    }

    private final ClusterConfig config;
    private final String grmId;

    Stamper(ClusterConfig config, String grmId) {
        this.config = requireNonNull(config, "config");
        this.grmId = requireNonNull(grmId, "grmId");
    }

    /** The plan's allocations, each at {@code now} with {@code stamp}, in the plan's order. */
    static List<Allocation> allocations(CapPlanner.Plan plan, Instant now, EpochClock.Stamp stamp, CapListing listing) {
        List<Allocation> out = new ArrayList<>();
        for (CapPlanner.Planned p : plan.allocations()) {
            out.add(allocation(p, now, stamp, listing));
        }
        return out;
    }

    /** One planned allocation at {@code now} with {@code stamp}, naming the servers {@code listing} keeps. */
    static Allocation allocation(CapPlanner.Planned p, Instant now, EpochClock.Stamp stamp, CapListing listing) {
        return new Allocation(Message.VERSION, now, p.gateway(), stamp.counter(), p.weights(),
                listing.of(p.gateway(), p.caps()), p.source(), stamp.epoch());
    }

    /** The period's decision with {@code stamp}, or null when it would break a {@link Decision} range. */
    Decision decision(DecisionInput in, EpochClock.Stamp stamp) {
        try {
            return decisionOf(in, stamp);
        } catch (IllegalArgumentException e) {
            LOG.warn("no decision record this period: {}", e.getMessage());
            return null;
        }
    }

    private Decision decisionOf(DecisionInput in, EpochClock.Stamp stamp) {
        Problem problem = in.built().problem();
        Solution solution = in.solution();
        List<Decision.Flow> flows = new ArrayList<>();
        for (Problem.Flow f : in.built().measured()) {
            double w = solution == null ? f.weight() : solution.weights().get(f.gateway()).get(f.cls());
            Solution.Prediction pr = solution == null ? null : solution.predicted().get(f.id());
            flows.add(new Decision.Flow(f.gateway(), f.cls(), f.arrivalRate(), f.responseTime(), f.queueLength(),
                    f.weight(), w, pr == null ? Double.NaN : pr.responseTime(), pr == null ? Double.NaN : pr.utility(),
                    problem.pins().containsKey(f.id())));
        }
        Map<String, Decision.Server> servers = new LinkedHashMap<>(in.fleet().servers());
        // the period's N_s (pins applied), not the part the left-out gateways left free
        in.built().pins().concurrency().forEach((sid, n) -> servers.computeIfPresent(sid,
                (id, d) -> new Decision.Server(d.state(), n, d.capacity(), d.watts())));
        return new Decision(Message.VERSION, in.now(), grmId, in.sequence(), stamp.counter(),
                config.control().combine().wireName(), solution == null ? Double.NaN : solution.objective(),
                in.solveSeconds(), in.live(), flows, servers, in.fleet().energyJoules(), in.overrideIds(),
                in.built().pins().statuses(), stamp.epoch(), Map.of(), solution == null ? "" : solution.path());
    }
}
