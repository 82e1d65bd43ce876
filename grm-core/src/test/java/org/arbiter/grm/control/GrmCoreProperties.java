package org.arbiter.grm.control;

import static org.arbiter.grm.control.GrmCoreTest.PINS;
import static org.arbiter.grm.control.GrmCoreTest.SIZING;
import static org.arbiter.grm.control.GrmCoreTest.T0;
import static org.arbiter.grm.control.GrmCoreTest.allocations;
import static org.arbiter.grm.control.GrmCoreTest.core;
import static org.arbiter.grm.control.GrmCoreTest.only;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.EdgeCasesMode;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.Epochs;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;
import org.arbiter.common.override.PinSelection;
import org.arbiter.grm.control.GrmCore.Command;

/**
 * The GRM core under random event sequences, on virtual time: two GRMs on one bus through
 * leadership changes (takeover), the actuator's reports, and operator pins.
 */
final class GrmCoreProperties {

    /** One step of a run with two GRMs, a and b, on one bus. */
    sealed interface Step {
        /** Time passes; g1 reports to both. */
        record Advance(int millis) implements Step {
        }

        /** A control tick on a (0) or b (1). */
        record Tick(int grm) implements Step {
        }

        /** Leadership moves to the other GRM, or (split) both think they lead for a while. */
        record Leadership(boolean split) implements Step {
        }

        /** The actuator reports on the last actuation ordered (ticket off by {@code ticketShift}). */
        record Report(int grm, int ticketShift, GrmCore.Seen seen, boolean ok) implements Step {
        }
    }

    @Provide
    Arbitrary<List<Step>> runs() {
        Arbitrary<Step> advance = Arbitraries.integers().between(1, 2_500).map(Step.Advance::new);
        Arbitrary<Step> tick = Arbitraries.integers().between(0, 1).map(Step.Tick::new);
        Arbitrary<Step> leadership = Arbitraries.of(true, false).map(Step.Leadership::new);
        Arbitrary<Step> report = Combinators.combine(Arbitraries.integers().between(0, 1),
                Arbitraries.integers().between(-1, 1), Arbitraries.of(GrmCore.Seen.class), Arbitraries.of(true, false))
                .as(Step.Report::new);
        return Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(4, advance), net.jqwik.api.Tuple.of(5, tick),
                        net.jqwik.api.Tuple.of(1, leadership), net.jqwik.api.Tuple.of(2, report))
                .list().ofMinSize(10).ofMaxSize(80);
    }

    /**
     * Whoever leads, and even while two GRMs both think they lead: every allocation published
     * outranks every allocation published before it by either GRM, and no power order carries an
     * epoch below one already on the bus. A GRM that takes over continues from the allocations it
     * saw: it never republishes the configured allocation once one was published.
     */
    @Property(tries = 200, edgeCases = EdgeCasesMode.NONE)
    void stampsOnTheBus_neverGoBack_acrossTakeovers(@ForAll("runs") List<Step> run) {
        GrmCore[] grm = {core(SIZING, "a"), core(SIZING, "b")};
        Instant now = T0;
        grm[0].leadershipGained(now);
        int leader = 0;
        boolean split = false;
        EpochClock.Stamp lastAllocation = EpochClock.Stamp.NONE;
        long highestEpoch = 0;
        boolean anyAllocation = false;
        List<Command.Actuate> actuations = new ArrayList<>();
        for (Step step : run) {
            List<Command> out = new ArrayList<>();
            int from = -1;
            if (step instanceof Step.Advance a) {
                now = now.plusMillis(a.millis());
                for (GrmCore g : grm) {
                    g.stats(GrmCoreTest.sizingStats(now, grm[leader].lastAllocations().get("g1")), now);
                }
            } else if (step instanceof Step.Tick t) {
                from = t.grm();
                out = grm[from].tick(now);
            } else if (step instanceof Step.Leadership l) {
                if (split) { // the split ends: only the leader leads
                    grm[1 - leader].leadershipLost(now);
                    split = false;
                } else if (l.split()) {
                    grm[1 - leader].leadershipGained(now);
                    split = true;
                } else {
                    grm[leader].leadershipLost(now);
                    leader = 1 - leader;
                    grm[leader].leadershipGained(now);
                }
            } else if (step instanceof Step.Report r && !actuations.isEmpty()) {
                Command.Actuate last = actuations.get(actuations.size() - 1);
                from = r.grm();
                out = grm[from].powerReport(new GrmCore.PowerReport(last.actuation(), last.ticket() + r.ticketShift(), r.ok(), r.seen(), "x"), now);
            }
            for (Command c : out) {
                if (c instanceof Command.PublishAllocation p) {
                    Allocation a = p.allocation();
                    EpochClock.Stamp s = new EpochClock.Stamp(a.epoch(), a.version());
                    if (a.source().equals("configured")) {
                        assertThat(anyAllocation).as("configured allocation after one was published").isFalse();
                    }
                    // one tick's allocations share a stamp; lastAllocation is the highest before this tick
                    assertThat(s.compareTo(lastAllocation)).as("%s after %s", s, lastAllocation).isPositive();
                    highestEpoch = Math.max(highestEpoch, a.epoch());
                } else if (c instanceof Command.PublishPower p) {
                    assertThat(p.order().epoch()).isGreaterThanOrEqualTo(highestEpoch);
                    highestEpoch = p.order().epoch();
                } else if (c instanceof Command.Actuate a) {
                    actuations.add(a);
                }
            }
            for (Allocation a : allocations(out)) {
                lastAllocation = max(lastAllocation, new EpochClock.Stamp(a.epoch(), a.version()));
                anyAllocation = true;
            }
            // the bus: both GRMs read everything either published
            for (GrmCore g : grm) {
                GrmCoreTest.deliver(out, g, now);
            }
            if (from >= 0 && !grm[from].leading()) {
                assertThat(out).as("a follower publishes nothing").isEmpty();
            }
        }
    }

    private static EpochClock.Stamp max(EpochClock.Stamp x, EpochClock.Stamp y) {
        return x.compareTo(y) >= 0 ? x : y;
    }

    /**
     * The power-report policy: a report moves the fleet's model only when the actuator saw the
     * server, the report is of the latest actuation ordered for it, and this GRM leads; then what
     * was seen is what the model says.
     */
    @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
    void aPowerReport_movesTheModel_onlyWhenSeen_latest_andLeading(
            @ForAll("reports") List<Step.Report> reports, @ForAll boolean leading) {
        GrmCore a = core(SIZING, "a");
        GrmCore b = core(SIZING, "b");
        a.leadershipGained(T0);
        Instant[] clock = {T0};
        Command.Actuate off = only(GrmCoreTest.untilS2Off(a, b, clock), Command.Actuate.class).get(0);
        if (!leading) {
            a.leadershipLost(clock[0]);
        }
        for (Step.Report r : reports) {
            clock[0] = clock[0].plusMillis(100);
            ServerState before = a.fleet().orElseThrow().servers().get("s2").state();
            List<Command> out = a.powerReport(new GrmCore.PowerReport(off.actuation(), off.ticket() + r.ticketShift(), r.ok(), r.seen(), "x"), clock[0]);
            ServerState after = a.fleet().orElseThrow().servers().get("s2").state();
            boolean moves = leading && r.ticketShift() == 0 && r.seen() != GrmCore.Seen.UNKNOWN;
            if (!moves) {
                assertThat(out).isEmpty();
                assertThat(after).isEqualTo(before);
            } else {
                // seen up: serving (a drain under way goes on); seen down: off
                if (r.seen() == GrmCore.Seen.UP) {
                    assertThat(after).isIn(ServerState.ON, ServerState.DRAINING);
                } else {
                    assertThat(after).isEqualTo(ServerState.OFF);
                }
                List<PowerOrder> orders = GrmCoreTest.powerOrders(out);
                assertThat(orders.isEmpty()).as("an order exactly when the state changed").isEqualTo(after == before);
                orders.forEach(o -> assertThat(o.reason()).contains(r.ok() ? "exec saw it" : "exec failed, saw it"));
            }
        }
    }

    @Provide
    Arbitrary<List<Step.Report>> reports() {
        return Combinators.combine(Arbitraries.just(0), Arbitraries.integers().between(-1, 1),
                Arbitraries.of(GrmCore.Seen.class), Arbitraries.of(true, false)).as(Step.Report::new)
                .list().ofMinSize(1).ofMaxSize(6);
    }

    /** A weight pin on one flow: (gateway, class, weight). */
    record Pin(String gateway, String cls, double weight) {
    }

    @Provide
    Arbitrary<List<Pin>> pins() {
        Arbitrary<Pin> pin = Combinators.combine(Arbitraries.of("g1", "g2"), Arbitraries.of("premium", "basic"),
                Arbitraries.integers().between(1, 16).map(h -> h / 2.0)).as(Pin::new);
        return pin.list().ofMinSize(1).ofMaxSize(4).uniqueElements(p -> p.gateway() + "/" + p.cls());
    }

    /**
     * Operator pins: every pin in force is named in the decision, a pin applied is the weight
     * published for its flow (in units of 1/q), and the allocations still hand out exactly N with or without pins.
     * The pins take effect in the period the override arrives in.
     */
    @Property(tries = 100, edgeCases = EdgeCasesMode.NONE)
    void everyPin_isAppliedExactly_orNamedAsLeftOut(@ForAll("pins") List<Pin> pins) {
        GrmCore grm = core(PINS, "p");
        grm.leadershipGained(T0);
        Instant now = T0;
        for (int i = 0; i < 2; i++) {
            now = now.plusSeconds(1);
            for (String g : List.of("g1", "g2")) {
                grm.stats(GrmCoreTest.pinStats(g, now, g.equals("g2") ? 3 : 1, grm.lastAllocations().get(g)), now);
            }
            grm.tick(now);
        }
        List<Command> last = List.of();
        for (int i = 0; i < pins.size(); i++) {
            Pin p = pins.get(i);
            last = grm.override("pin" + i, GrmCoreTest.weightPin("pin" + i, p.gateway(), p.cls(), p.weight(), now), now);
        }
        Decision d = only(last, Command.PublishDecision.class).get(0).decision();
        Map<String, Allocation> published = new LinkedHashMap<>();
        allocations(last).forEach(a -> published.put(a.gateway(), a));
        assertThat(published).containsOnlyKeys("g1", "g2");
        assertThat(Epochs.compare(published.get("g1").epoch(), published.get("g1").version(), d.epoch(),
                d.allocationVersion())).isZero();
        for (int i = 0; i < pins.size(); i++) {
            Pin p = pins.get(i);
            Decision.PinStatus status = d.pin("pin" + i).orElseThrow();
            if (status.applied()) {
                // a pin holds round(w·q) units of 1/q (PinSelection.pinUnits)
                int q = PINS.control().granularity();
                assertThat(published.get(p.gateway()).weights().get(p.cls()))
                        .isEqualTo(PinSelection.pinUnits(p.weight(), q) / (double) q);
            } else {
                assertThat(status.reason()).isNotBlank();
            }
        }
        double total = published.values().stream().flatMap(a -> a.weights().values().stream()).mapToDouble(w -> w).sum();
        assertThat(total).isCloseTo(10.0, within(1e-9));
    }
    /** One step of a run over PINS' cluster (g1, g2; s1 with N_s = 10) with two GRMs on one bus. */
    sealed interface Period {
        /** Time passes by {@code millis}; the gateways marked report (to both GRMs); the leader ticks. */
        record Reports(int millis, boolean g1, boolean g2) implements Period {
        }

        /** {@code gateway} is silent for {@code seconds} one-second periods; the other reports in each. */
        record Outage(String gateway, int seconds) implements Period {
        }

        /** The operator pins N_s of s1 ({@code ns} 0: the pin is released). */
        record NsPin(int ns) implements Period {
        }

        /** Leadership moves to the other GRM. */
        record Takeover() implements Period {
        }
    }

    @Provide
    Arbitrary<List<Period>> presence() {
        Arbitrary<Boolean> mostly = Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(3, Arbitraries.just(true)),
                net.jqwik.api.Tuple.of(1, Arbitraries.just(false)));
        Arbitrary<Period> reports = Combinators.combine(Arbitraries.integers().between(100, 3_000), mostly, mostly)
                .as(Period.Reports::new);
        Arbitrary<Period> outage = Combinators.combine(Arbitraries.of("g1", "g2"), Arbitraries.integers().between(1, 16))
                .as(Period.Outage::new);
        // N_s 4..12 always fits (4 flows need one slot each), 0 releases the pin
        Arbitrary<Period> pin = Arbitraries.integers().between(3, 12).map(n -> new Period.NsPin(n == 3 ? 0 : n));
        return Arbitraries.frequencyOf(net.jqwik.api.Tuple.of(10, reports), net.jqwik.api.Tuple.of(2, outage),
                        net.jqwik.api.Tuple.of(1, pin), net.jqwik.api.Tuple.of(1, Arbitraries.just(new Period.Takeover())))
                .list().ofMinSize(5).ofMaxSize(40);
    }

    /**
     * For any pattern of reports present, late and missing (and N_s pins, and takeovers), after every
     * event Σ_g N(g,s1) ≤ N_s over the caps in force at every gateway: the last allocation published
     * to it, by whichever GRM. A gateway left out keeps its caps until it is gone (StatsBook).
     */
    @Property(tries = 200, edgeCases = EdgeCasesMode.NONE)
    void capsInForce_neverOvercommitAServer(@ForAll("presence") List<Period> run) {
        GrmCore[] grm = {core(PINS, "a"), core(PINS, "b")};
        int leader = 0;
        Instant now = T0;
        grm[0].leadershipGained(now);
        Map<String, Allocation> inForce = new LinkedHashMap<>();
        int ns = 10;
        for (Period p : run) {
            List<List<String>> periods = new ArrayList<>();
            List<Integer> steps = new ArrayList<>();
            if (p instanceof Period.Reports r) {
                List<String> in = new ArrayList<>();
                if (r.g1()) {
                    in.add("g1");
                }
                if (r.g2()) {
                    in.add("g2");
                }
                periods.add(in);
                steps.add(r.millis());
            } else if (p instanceof Period.Outage o) {
                for (int i = 0; i < o.seconds(); i++) {
                    periods.add(List.of(o.gateway().equals("g1") ? "g2" : "g1"));
                    steps.add(1_000);
                }
            } else if (p instanceof Period.NsPin pin) {
                ns = pin.ns() == 0 ? 10 : pin.ns();
                OperatorOverride o = new OperatorOverride(1, now, "ns", OperatorOverride.Kind.CONCURRENCY, null, null,
                        "s1", pin.ns() == 0 ? 10.0 : (double) pin.ns(), null, null, null, null, pin.ns() != 0, "test");
                for (GrmCore g : grm) {
                    List<Command> out = g.override("ns", o, now);
                    publish(out, grm, inForce, now);
                }
            } else {
                grm[leader].leadershipLost(now);
                leader = 1 - leader;
                grm[leader].leadershipGained(now);
            }
            for (int i = 0; i < periods.size(); i++) {
                now = now.plusMillis(steps.get(i));
                for (String g : periods.get(i)) {
                    for (GrmCore c : grm) {
                        c.stats(GrmCoreTest.pinStats(g, now, g.equals("g1") ? 4 : 3, inForce.get(g)), now);
                    }
                }
                for (GrmCore c : grm) {
                    publish(c.tick(now), grm, inForce, now);
                }
                assertNotOvercommitted(inForce, ns, now);
            }
            assertNotOvercommitted(inForce, ns, now);
        }
    }

    private static void assertNotOvercommitted(Map<String, Allocation> inForce, int ns, Instant now) {
        int sum = inForce.values().stream().mapToInt(a -> a.serverCaps().getOrDefault("s1", 0)).sum();
        assertThat(sum).as("Σ_g N(g,s1) in force at %s (N_s %d): %s", now, ns, inForce).isLessThanOrEqualTo(ns);
    }

    /** Puts what one GRM published in force at the gateways and on the bus (both GRMs read it). */
    private static void publish(List<Command> out, GrmCore[] grm, Map<String, Allocation> inForce, Instant now) {
        for (Allocation a : allocations(out)) {
            Allocation held = inForce.get(a.gateway());
            if (held == null || a.isNewerThan(held)) { // the gateway takes only a newer stamp
                inForce.put(a.gateway(), a);
            }
        }
        for (GrmCore g : grm) {
            GrmCoreTest.deliver(out, g, now);
        }
    }
}
