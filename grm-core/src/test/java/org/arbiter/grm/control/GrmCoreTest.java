package org.arbiter.grm.control;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Epochs;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.grm.control.GrmCore.Command;
import org.arbiter.grm.sizing.Fleet;
import org.junit.jupiter.api.Test;

/** The GRM core on virtual time, no broker: takeover, the power-report policy, pins. */
final class GrmCoreTest {

    /** Two servers, one gateway at 3 req/s: static sizing keeps one server and drains s2. */
    static final ClusterConfig SIZING = ConfigLoader.parse("""
            classes:
              - {name: basic, target: 1s, default: true}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 4}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: 4}
            gateways:
              - {id: g1, port: 0}
            control: {period: 1s, reportPeriod: 1s, statsWindow: 2s}
            sizing: {policy: static, staticCapacity: 10, minServers: 1, startupDelay: 1s, shutdownDelay: 5s, warmUp: 0s}
            power: {actuator: exec, command: "unused"}
            """);

    /** Two gateways, two classes, N = 10 (GrmServicePinsIntegrationTest's cluster). */
    static final ClusterConfig PINS = ConfigLoader.parse("""
            classes:
              - {name: premium, target: 1s, weight: 1, minShare: 0.1}
              - {name: basic, target: 2s, weight: 1, default: true, minShare: 0.1}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
            gateways:
              - {id: g1, port: 0}
              - {id: g2, port: 0}
            control: {period: 1s, reportPeriod: 1s, statsWindow: 2s}
            """);

    static final Instant T0 = Instant.parse("2026-11-22T10:00:00Z");

    static GrmCore core(ClusterConfig config, String id) {
        return new GrmCore(config, new GrmStep(config, id, () -> 0L), "exec");
    }

    /** g1's report at {@code at}: 3 req/s, nothing in flight, the caps it was given. */
    static GatewayStats sizingStats(Instant at, Allocation a) {
        Map<String, Integer> caps = a == null ? Map.of("s1", 4, "s2", 4) : a.serverCaps();
        return new GatewayStats(1, at, "g1", 1, a == null ? 0 : a.version(),
                Map.of("basic", new GatewayStats.ClassStats(3, 3, 0.1, 0, 0.1, 0.1, 0, 0, 0, 4, Map.of(),
                        GatewayStats.PeriodCounters.EMPTY)),
                Map.of("s1", new GatewayStats.ServerStats(0, caps.getOrDefault("s1", 0), 3, 0.1, 0.3, 0, true),
                        "s2", new GatewayStats.ServerStats(0, caps.getOrDefault("s2", 0), 0, 0.1, 0, 0, true)));
    }

    /** A gateway's report for the pins cluster: premium at {@code premiumRate}, the weights it was given. */
    static GatewayStats pinStats(String g, Instant at, double premiumRate, Allocation a) {
        double wp = a == null ? 2.5 : Math.max(0.5, a.weights().getOrDefault("premium", 2.5));
        double wb = a == null ? 2.5 : Math.max(0.5, a.weights().getOrDefault("basic", 2.5));
        return new GatewayStats(1, at, g, 1, a == null ? 0 : a.version(), Map.of(
                "premium", new GatewayStats.ClassStats(premiumRate, premiumRate, 0.2 + premiumRate / wp, 0, 1, 0, 0, 0, 0,
                        wp, Map.of(), null),
                "basic", new GatewayStats.ClassStats(0.5, 0.5, 1.0, 0, 1, 0, 0, 0, 0, wb, Map.of(), null)), Map.of());
    }

    static OperatorOverride weightPin(String id, String gateway, String cls, double value, Instant at) {
        return new OperatorOverride(1, at, id, OperatorOverride.Kind.WEIGHT, gateway, cls, null, value, null, null, null,
                null, true, "test");
    }

    static <C extends Command> List<C> only(List<Command> commands, Class<C> type) {
        return commands.stream().filter(type::isInstance).map(type::cast).toList();
    }

    static List<Allocation> allocations(List<Command> commands) {
        return only(commands, Command.PublishAllocation.class).stream().map(Command.PublishAllocation::allocation).toList();
    }

    static List<PowerOrder> powerOrders(List<Command> commands) {
        return only(commands, Command.PublishPower.class).stream().map(Command.PublishPower::order).toList();
    }

    /** Feeds what {@code from} published to {@code to}, as the bus would. */
    static void deliver(List<Command> from, GrmCore to, Instant now) {
        for (Command c : from) {
            if (c instanceof Command.PublishAllocation a) {
                to.allocationSeen(a.allocation(), now);
            } else if (c instanceof Command.PublishPower p) {
                to.powerOrderSeen(p.order(), now);
            }
        }
    }

    /** Runs the sizing cluster on {@code leader} until it orders s2 off; returns every command on the way. */
    static List<Command> untilS2Off(GrmCore leader, GrmCore follower, Instant[] clock) {
        List<Command> all = new ArrayList<>();
        for (int i = 0; i < 30 && only(all, Command.Actuate.class).isEmpty(); i++) {
            clock[0] = clock[0].plusSeconds(1);
            Instant now = clock[0];
            GatewayStats s = sizingStats(now, leader.lastAllocations().get("g1"));
            leader.stats(s, now);
            follower.stats(s, now);
            List<Command> out = leader.tick(now);
            deliver(out, leader, now);
            deliver(out, follower, now);
            deliver(follower.tick(now), leader, now); // a follower's tick publishes nothing
            all.addAll(out);
        }
        return all;
    }

    @Test
    void aFollower_takesEverythingIn_butPublishesAndActuatesNothing() {
        GrmCore follower = core(SIZING, "b");
        follower.stats(sizingStats(T0, null), T0);
        assertThat(follower.tick(T0.plusSeconds(1))).isEmpty();
        assertThat(follower.periods()).isZero();
        assertThat(follower.serverSeen("s2", false, "", T0)).isEmpty();
    }

    @Test
    void aTakeover_continuesFromTheAllocationsSeen_withAHigherStamp_andRestoresThePowerStates() {
        GrmCore a = core(SIZING, "a");
        GrmCore b = core(SIZING, "b");
        a.leadershipGained(T0);
        Instant[] clock = {T0};
        List<Command> before = untilS2Off(a, b, clock);
        Command.Actuate off = only(before, Command.Actuate.class).get(0);
        assertThat(off.actuation()).isEqualTo(new Fleet.Actuation("s2", ServerState.OFF, off.actuation().reason()));
        // the actuator saw s2 go down; a publishes it, b reads it
        Instant now = clock[0].plusMillis(100);
        List<Command> seen = a.powerReport(new GrmCore.PowerReport(off.actuation(), off.ticket(), true, GrmCore.Seen.DOWN, "done"), now);
        assertThat(powerOrders(seen)).extracting(PowerOrder::server, PowerOrder::state)
                .containsExactly(org.assertj.core.groups.Tuple.tuple("s2", ServerState.OFF));
        deliver(seen, b, now);
        EpochClock.Stamp lastOfA = a.stamp();
        Map<String, Allocation> lastSeen = b.lastAllocations();
        assertThat(lastSeen).isEqualTo(a.lastAllocations());

        // a stops leading (its session ended); b takes over at its next tick, with no gateway live
        a.leadershipLost(now);
        b.leadershipGained(now);
        Instant later = now.plusSeconds(10); // g1's last report is older than 3Γ
        List<Command> first = b.tick(later);
        assertThat(a.tick(later)).as("the old leader").isEmpty();

        assertThat(allocations(first)).as("no configured allocation replaces what a published").isEmpty();
        assertThat(b.stamp().compareTo(lastOfA)).isPositive();
        assertThat(b.stamp().epoch()).isGreaterThan(lastOfA.epoch());
        List<PowerOrder> restored = powerOrders(first);
        assertThat(restored).filteredOn(o -> o.server().equals("s2")).singleElement().satisfies(o -> {
            assertThat(o.state()).isEqualTo(ServerState.OFF);
            assertThat(o.reason()).endsWith("(taken over: last published OFF)");
            assertThat(o.epoch()).isGreaterThan(lastOfA.epoch());
        });
        assertThat(b.fleet().orElseThrow().servers().get("s2").state()).isEqualTo(ServerState.OFF);
        assertThat(only(first, Command.Actuate.class)).as("nothing to actuate: s2 is already off").isEmpty();

        // g1 reports again: b's allocation starts from what it saw (s2 has no cap) and outranks a's
        Instant next = later.plusSeconds(1);
        b.stats(sizingStats(next, lastSeen.get("g1")), next);
        List<Allocation> out = allocations(b.tick(next));
        assertThat(out).singleElement().satisfies(al -> {
            assertThat(Epochs.compare(al.epoch(), al.version(), lastOfA.epoch(), lastOfA.counter())).isPositive();
            assertThat(al.serverCaps()).containsOnlyKeys("s1");
        });
    }

    @Test
    void powerReports_moveTheModel_onlyWhenSeen_latest_andLeading() {
        GrmCore a = core(SIZING, "a");
        GrmCore b = core(SIZING, "b");
        a.leadershipGained(T0);
        Instant[] clock = {T0};
        Command.Actuate off = only(untilS2Off(a, b, clock), Command.Actuate.class).get(0);
        Instant now = clock[0].plusMillis(10);
        Fleet.Actuation act = off.actuation();
        assertThat(off.ticket()).isEqualTo(1);

        assertThat(a.powerReport(new GrmCore.PowerReport(act, 1, true, GrmCore.Seen.UNKNOWN, "done"), now))
                .as("the actuator could not tell").isEmpty();
        assertThat(a.powerReport(new GrmCore.PowerReport(act, 0, true, GrmCore.Seen.DOWN, "done"), now))
                .as("an older actuation's report").isEmpty();
        assertThat(a.powerReport(new GrmCore.PowerReport(act, 2, true, GrmCore.Seen.DOWN, "done"), now))
                .as("a ticket this core never handed out").isEmpty();
        assertThat(a.fleet().orElseThrow().servers().get("s2").state()).isEqualTo(ServerState.DRAINING);

        List<Command> failedButSeen = a.powerReport(new GrmCore.PowerReport(act, 1, false, GrmCore.Seen.DOWN, "bmc busy"), now);
        assertThat(powerOrders(failedButSeen)).singleElement().satisfies(o -> {
            assertThat(o.state()).isEqualTo(ServerState.OFF);
            assertThat(o.reason()).isEqualTo("DRAINING -> OFF (exec failed, saw it down: bmc busy)");
            assertThat(Epochs.compare(o.epoch(), o.sequence(), 0, 0)).isPositive();
        });

        a.leadershipLost(now);
        assertThat(a.powerReport(new GrmCore.PowerReport(act, 1, true, GrmCore.Seen.UP, "done"), now))
                .as("no longer leading").isEmpty();
        assertThat(a.fleet().orElseThrow().servers().get("s2").state()).isEqualTo(ServerState.OFF);
    }

    @Test
    void aWeightPin_takesEffectAtOnce_andOneThatDoesNotFit_isNamedInTheDecision() {
        GrmCore grm = core(PINS, "p");
        grm.leadershipGained(T0);
        Instant now = T0;
        for (int i = 0; i < 3; i++) {
            now = now.plusSeconds(1);
            for (String g : List.of("g1", "g2")) {
                grm.stats(pinStats(g, now, g.equals("g2") ? 3 : 1, grm.lastAllocations().get(g)), now);
            }
            grm.tick(now);
        }
        // the first pin fits; it is applied by a period that runs as it arrives, not at the next tick
        List<Command> pinned = grm.override("first", weightPin("first", "g1", "premium", 6, now), now);
        assertThat(allocations(pinned)).filteredOn(a -> a.gateway().equals("g1")).singleElement()
                .satisfies(a -> assertThat(a.weights()).containsEntry("premium", 6.0));
        // the second does not fit with the first (6 + 3 + the other flows' minimum > N = 10)
        List<Command> second = grm.override("second", weightPin("second", "g2", "premium", 3, now), now);
        Decision d = only(second, Command.PublishDecision.class).get(0).decision();
        assertThat(d.pin("first").orElseThrow().applied()).isTrue();
        assertThat(d.pin("second").orElseThrow().applied()).isFalse();
        assertThat(d.pin("second").orElseThrow().reason()).startsWith("value: 3 (expected: between 0 and 2");
        assertThat(allocations(second)).hasSize(2);

        assertThat(grm.override("typo", weightPin("typo", "g9", "premium", 1, now), now))
                .filteredOn(c -> c instanceof Command.OverrideRefused).singleElement()
                .isEqualTo(new Command.OverrideRefused("typo", "gateway: g9 (expected: a gateway of the configuration)"));
    }

    @Test
    void overridesOnTheTopicAtStart_waitForTheFirstPeriod() {
        GrmCore grm = core(PINS, "p");
        grm.leadershipGained(T0);
        assertThat(grm.override("first", weightPin("first", "g1", "premium", 6, T0), T0)).isEmpty();
        List<Allocation> first = allocations(grm.tick(T0.plusSeconds(1)));
        assertThat(first).extracting(Allocation::gateway).containsExactly("g1", "g2");
        assertThat(first.get(0).weights()).containsEntry("premium", 6.0);
    }

    @Test
    void implausibleRecordsFromTheBus_areRefusedWithTheirReason() {
        GrmCore grm = core(SIZING, "a");
        Instant far = T0.plusSeconds(3600);
        Allocation forged = new Allocation(1, far, "g1", 1, Map.of("basic", 1.0), Map.of("s1", 1), "forged",
                far.toEpochMilli());
        assertThat(grm.allocationSeen(forged, T0)).singleElement().isInstanceOfSatisfying(Command.Refused.class, r -> {
            assertThat(r.topic()).isEqualTo("allocation");
            assertThat(r.reason()).isEqualTo(Epochs.Implausible.FUTURE_AT);
        });
        assertThat(grm.lastAllocations()).isEmpty();
        assertThat(grm.stats(sizingStats(T0, null), T0.plusSeconds(10))).singleElement()
                .isEqualTo(new Command.StatsIgnored(sizingStats(T0, null), StatsBook.Outcome.TOO_OLD));
    }
}
