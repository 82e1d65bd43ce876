package org.arbiter.grm.control;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Epochs;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.grm.sizing.Fleet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Design note — the GRM core: events in, commands out.
 *
 * Events: statistics, overrides, allocations and power orders read from the bus, the power
 * actuator's reports, a server seen up or down, control ticks, and leadership gained or lost. Each
 * comes with the time (virtual in the simulator) and returns the commands to carry out, in order:
 * publish an allocation, a decision or a power order, actuate a server, and notices for the
 * adapter's meters (a record refused, statistics ignored). No I/O, no threads, no clock: the
 * service (GrmService over a Bus) and the simulator drive this same class. What reaches the outside is
 * given to it: the control step (with its solve-time ticker) and the actuator's name; the actuator's
 * reports arrive as PowerReport values, so the core never sees an actuator or a driver.
 *
 * State: the stats book (live gateways, 3Γ; gone, 12Γ), the overrides in force, the epoch clock, the
 * allocation last published for each gateway (its own and any read from the bus), the power order
 * last published for each server, the number of actuations ordered per server, and the control step
 * (GrmStep, which owns the fleet).
 *
 * Leadership: a follower takes in every record (so it is warm) but runs no period and orders
 * nothing. Leadership gained takes effect at the next tick: the clock begins a new epoch, above
 * every plausible stamp read from the bus (EpochClock: max(now, highest seen + 1)), so the new
 * leader never publishes an older (epoch, version) than any it saw; its step starts from the
 * allocations it last saw; and it republishes the servers' last published power states (OFF or
 * BOOTING: off; ON: on), so a takeover does not forget which servers are off. The takeover waits
 * for the tick so that the compacted topics read since start are in.
 *
 * Power reports (the actuator's, one per attempt): a report of what the server was seen doing (up
 * or down) moves the fleet's model, unless the actuator could not tell, a newer actuation for that
 * server has been ordered since (the report's ticket is not the last one: PowerDriver numbers the
 * actuations of each server 1, 2, … in the order submitted, as this class counts them), or this GRM
 * no longer leads. The state follows what the server does.
 *
 * Gateways left out: a gateway that is not live keeps the caps last published to it in force (it
 * enforces them until told otherwise), so the step reserves them and shares only the rest among the
 * live gateways (CapReserve): Σ_g N(g,s) ≤ N_s over every gateway's caps in force. Only once it is
 * gone (StatsBook: silent for 12Γ, counted at the earliest from when this GRM began to lead) are its
 * slots handed out, after the step has published it caps of 0.
 *
 * Overrides: take effect at once (a period runs) when this GRM leads and has run its first tick;
 * the overrides already on the topic at start are applied by the first period, not one by one.
 *
 * Not thread-safe: one thread (the service's control thread, or the simulator) calls it.
 */

/** The GRM's control logic as a pure state machine; see the design note in the source. */
public final class GrmCore {

    private static final Logger LOG = LoggerFactory.getLogger(GrmCore.class);

    /** What the core asks its driver to do, in order. */
    public sealed interface Command {
        /** Publish on the allocation topic (key: gateway). */
        record PublishAllocation(Allocation allocation) implements Command {
        }

        /** Publish on the decisions topic. */
        record PublishDecision(Decision decision) implements Command {
        }

        /** Publish on the power topic (key: server). */
        record PublishPower(PowerOrder order) implements Command {
        }

        /** Power a server on or off; {@code ticket} counts this server's actuations from 1 (PowerDriver's numbering). */
        record Actuate(Fleet.Actuation actuation, long ticket) implements Command {
        }

        /** A control record read from the bus was refused: {@code topic} is "allocation" or "power". */
        record Refused(String topic, Epochs.Implausible reason, String detail) implements Command {
        }

        /** A statistics report was not taken. */
        record StatsIgnored(GatewayStats stats, StatsBook.Outcome outcome) implements Command {
        }

        /** An override that names what the configuration does not know was refused. */
        record OverrideRefused(String id, String reason) implements Command {
        }
    }

    /** What the power actuator saw of a server at the end of an attempt. */
    public enum Seen {
        /** Serving. */
        UP,
        /** Off (not booting, not shutting down). */
        DOWN,
        /** Not observed (the actuator cannot look, or saw it in transition). */
        UNKNOWN;

        /** UP for ON, DOWN for OFF, UNKNOWN for anything in between. */
        public static Seen of(ServerState s) {
            return s == ServerState.ON ? UP : s == ServerState.OFF ? DOWN : UNKNOWN;
        }
    }

    /**
     * One attempt's report from the power actuator, as the service's driver delivers it.
     *
     * @param actuation what was ordered
     * @param ticket    which of the server's actuations it was, counted from 1 ({@link Command.Actuate#ticket})
     * @param ok        whether the action succeeded
     * @param seen      what the actuator saw of the server
     * @param detail    why it failed, when it did
     */
    public record PowerReport(Fleet.Actuation actuation, long ticket, boolean ok, Seen seen, String detail) {
        public PowerReport {
            requireNonNull(actuation, "actuation");
            requireNonNull(seen, "seen");
            detail = detail == null ? "" : detail;
        }
    }

    private final ClusterConfig config;
    private final ControlStep step;
    private final String actuatorName;
    private final StatsBook stats;
    private final OverrideBook overrides;
    private final EpochClock epochs;
    private final Map<String, Allocation> lastAllocations = new TreeMap<>();
    private final Map<String, PowerOrder> lastPower = new LinkedHashMap<>();
    private final Map<String, Long> tickets = new HashMap<>();
    private boolean leading;
    private boolean tookOver;
    private Instant leadingSince = Instant.EPOCH;
    private boolean started;
    private long periods;
    private List<String> live = List.of();

    /**
     * @param config       the cluster
     * @param step         the control step ({@link GrmStep})
     * @param actuatorName named in the reasons of power orders that follow the actuator's reports
     */
    public GrmCore(ClusterConfig config, ControlStep step, String actuatorName) {
        this.config = requireNonNull(config, "config");
        this.step = requireNonNull(step, "step");
        this.actuatorName = requireNonNull(actuatorName, "actuatorName");
        this.stats = new StatsBook(config, config.control().periodSeconds(),
                config.control().maxClockSkewMillis());
        this.overrides = new OverrideBook(config);
        this.epochs = new EpochClock(config.control().maxClockSkewMillis());
    }

    // ---------------------------------------------------------------- events

    /** A gateway's statistics, received at {@code now}. */
    public List<Command> stats(GatewayStats s, Instant now) {
        StatsBook.Outcome o = stats.accept(requireNonNull(s, "s"), now);
        return o == StatsBook.Outcome.ACCEPTED ? List.of() : List.of(new Command.StatsIgnored(s, o));
    }

    /** A record of the overrides topic ({@code o} null: a tombstone). A pin takes effect now when this GRM leads. */
    public List<Command> override(String id, OperatorOverride o, Instant now) {
        List<Command> out = new ArrayList<>();
        overrides.apply(id, o).ifPresent(why -> out.add(new Command.OverrideRefused(id, why)));
        if (started && leading) {
            out.addAll(tick(now));
        }
        return out;
    }

    /** An allocation read from the allocation topic (this GRM's own, another leader's, or a forged one). */
    public List<Command> allocationSeen(Allocation a, Instant now) {
        if (a == null) {
            return List.of();
        }
        var why = epochs.offer(a.epoch(), a.version(), a.at(), now);
        if (why.isPresent()) {
            return List.of(new Command.Refused("allocation", why.get(), "allocation for " + a.gateway() + " epoch "
                    + a.epoch() + " version " + a.version() + " at " + a.at() + " skipped"));
        }
        lastAllocations.put(a.gateway(), a);
        return List.of();
    }

    /** A power order read from the power topic. */
    public List<Command> powerOrderSeen(PowerOrder o, Instant now) {
        if (o == null) {
            return List.of();
        }
        // its epoch only: sequences count per server (the constructor bounds them)
        var why = epochs.offer(o.epoch(), 0, o.at(), now);
        if (why.isPresent()) {
            return List.of(new Command.Refused("power", why.get(), "power order for " + o.server() + " epoch "
                    + o.epoch() + " sequence " + o.sequence() + " at " + o.at() + " skipped"));
        }
        lastPower.put(o.server(), o);
        return List.of();
    }

    /** Leadership gained; the takeover (new epoch, power states restored) happens at the next tick. */
    public List<Command> leadershipGained(Instant now) {
        leading = true;
        return List.of();
    }

    /** Leadership lost: no more periods, actuations or power orders until it is gained again. */
    public List<Command> leadershipLost(Instant now) {
        leading = false;
        tookOver = false;
        return List.of();
    }

    /**
     * One control period at {@code now}: on the leader, the step's allocations, decision, power
     * orders and actuations; nothing on a follower. A period that fails is logged and returns the
     * commands made before the failure: the last allocation stays in force.
     */
    public List<Command> tick(Instant now) {
        requireNonNull(now, "now");
        List<Command> out = new ArrayList<>();
        try {
            if (!leading) {
                return out;
            }
            if (!tookOver) {
                tookOver = true;
                leadingSince = now;
                epochs.lead();
                restorePower(now, out);
            }
            Map<String, GatewayStats> liveStats = stats.live(now);
            live = List.copyOf(liveStats.keySet());
            Set<String> gone = Set.copyOf(stats.gone(now, leadingSince));
            ControlStep.Result result = step.step(now, liveStats, gone, overrides, Map.copyOf(lastAllocations), epochs);
            periods++;
            for (Allocation a : result.allocations()) {
                lastAllocations.put(a.gateway(), a);
                out.add(new Command.PublishAllocation(a));
            }
            if (result.decision() != null) {
                out.add(new Command.PublishDecision(result.decision()));
            }
            publishPower(result.powerOrders(), "", out);
            for (Fleet.Actuation a : result.actuations()) {
                out.add(new Command.Actuate(a, tickets.merge(a.server(), 1L, Long::sum)));
            }
        } catch (RuntimeException e) {
            LOG.warn("control period failed: {}", e.toString(), e);
        } finally {
            started = true;
        }
        return out;
    }

    /**
     * One attempt's report from the power actuator: what the server was seen doing moves the fleet's
     * model, when the report is of the latest actuation of that server and this GRM leads.
     */
    public List<Command> powerReport(PowerReport r, Instant now) {
        Fleet.Actuation a = r.actuation();
        if (r.seen() == Seen.UNKNOWN || r.ticket() != tickets.getOrDefault(a.server(), 0L) || !leading) {
            return List.of();
        }
        boolean up = r.seen() == Seen.UP;
        String why = actuatorName + (r.ok() ? " saw it " : " failed, saw it ") + (up ? "up" : "down")
                + (r.ok() ? "" : ": " + r.detail());
        return serverSeen(a.server(), up, why, now);
    }

    /**
     * A server was seen up (serving) or down (off) — by the simulator's machine model, for one;
     * {@code why} is appended to the reason of the power orders this causes. Ignored on a follower.
     */
    public List<Command> serverSeen(String server, boolean up, String why, Instant now) {
        if (!leading) {
            return List.of();
        }
        List<Command> out = new ArrayList<>();
        publishPower(step.observed(server, up, now), why, out);
        return out;
    }

    // ---------------------------------------------------------------- internals

    /** Stamps the orders with this leader's (epoch, counter); {@code why} is appended to the reason. */
    private void publishPower(List<PowerOrder> orders, String why, List<Command> out) {
        for (PowerOrder o : orders) {
            EpochClock.Stamp stamp = epochs.begin(o.at());
            PowerOrder stamped = new PowerOrder(o.v(), o.at(), o.server(), o.target(), o.state(),
                    why.isEmpty() ? o.reason() : o.reason() + " (" + why + ")", stamp.counter(), stamp.epoch());
            lastPower.put(stamped.server(), stamped);
            out.add(new Command.PublishPower(stamped));
        }
    }

    /** On taking over: the servers' last published states, so a takeover does not forget which are off. */
    private void restorePower(Instant now, List<Command> out) {
        for (PowerOrder o : List.copyOf(lastPower.values())) {
            if (config.server(o.server()).isEmpty() || o.state() == ServerState.DRAINING) {
                continue;
            }
            publishPower(step.observed(o.server(), o.state() == ServerState.ON, now),
                    "taken over: last published " + o.state(), out);
        }
    }

    // ---------------------------------------------------------------- views (same thread)

    /** The configured allocation of {@code gateway} before any period (the simulator's gateways start with it). */
    public Allocation initialAllocation(String gateway) {
        if (!(step instanceof GrmStep g)) {
            throw new IllegalStateException("step: " + step.getClass().getName() + " (expected: GrmStep)");
        }
        return g.configured(gateway, Instant.EPOCH, EpochClock.Stamp.NONE, overrides);
    }

    /** True while this GRM leads. */
    public boolean leading() {
        return leading;
    }

    /** Periods run as leader. */
    public long periods() {
        return periods;
    }

    /** The live gateways of the last period. */
    public List<String> liveGateways() {
        return live;
    }

    /** The fleet the step models, once it exists. */
    public Optional<Fleet> fleet() {
        return step.fleet();
    }

    /** The allocation last published or seen for each gateway. */
    public Map<String, Allocation> lastAllocations() {
        return Map.copyOf(lastAllocations);
    }

    /** The last stamp this GRM issued. */
    public EpochClock.Stamp stamp() {
        return epochs.current();
    }

    /** The newest stamp read from the bus. */
    public EpochClock.Stamp seen() {
        return epochs.seen();
    }
}
