package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;

/**
 * The local admission path's guarantees (docs/gateway.md "Local admission") on random instances in virtual
 * time: random classes (targets, values, weights), servers and caps, and a random mix of arrivals, service
 * completions and idle time that swings between light load and overload.
 */
final class AdmissionProperties {

    record Instance(List<Double> targetsMs, List<Double> phis, List<Integer> caps, long seed) {
    }

    @Provide
    Arbitrary<Instance> instances() {
        Arbitrary<List<Double>> targets = Arbitraries.doubles().between(20, 2000).ofScale(0).list().ofMinSize(2).ofMaxSize(4);
        Arbitrary<List<Double>> phis = Arbitraries.doubles().between(0.5, 8).ofScale(1).list().ofSize(4);
        Arbitrary<List<Integer>> caps = Arbitraries.integers().between(1, 8).list().ofMinSize(1).ofMaxSize(3);
        return Combinators.combine(targets, phis, caps, Arbitraries.longs()).as(Instance::new);
    }

    private static GatewayCore<Integer> core(Instance in, String mode) {
        StringBuilder y = new StringBuilder("classes:\n");
        int classes = in.targetsMs().size();
        for (int c = 0; c < classes; c++) {
            y.append("  - {name: c").append(c).append(", target: ").append(in.targetsMs().get(c).longValue())
                    .append("ms, utility: {phi: ").append(in.phis().get(c)).append("}")
                    .append(", queue: {limit: 100000, timeout: 1h}").append(c == classes - 1 ? ", default: true" : "")
                    .append("}\n");
        }
        y.append("servers:\n");
        for (int s = 0; s < in.caps().size(); s++) {
            y.append("  - {id: s").append(s).append(", url: 'http://127.0.0.1:9', concurrency: 8}\n");
        }
        y.append("dispatch: {admission: {mode: ").append(mode).append("}}\n");
        ClusterConfig cluster = Fixtures.parse(y.toString());
        Map<String, Double> w = new HashMap<>();
        for (int c = 0; c < classes; c++) {
            w.put("c" + c, 1.0);
        }
        Map<String, Integer> n = new HashMap<>();
        for (int s = 0; s < in.caps().size(); s++) {
            n.put("s" + s, in.caps().get(s));
        }
        GatewayCore<Integer> core = new GatewayCore<>(cluster, "g1",
                ConfiguredAllocation.of(cluster, "g1", true, Instant.EPOCH), Schedulers.named("wrr"),
                Balancers.leastOutstanding(), 0);
        core.applyAllocation(new Allocation(1, Instant.EPOCH, "g1", 1, w, n, "grm"));
        return core;
    }

    /** Whether a request arriving now would go to a server at once: every queue empty, a slot free somewhere. */
    private static boolean couldGoAtOnce(GatewayCore<Integer> core) {
        for (int c = 0; c < core.classCount(); c++) {
            if (core.queueLength(c) > 0) {
                return false;
            }
        }
        for (int s = 0; s < core.serverCount(); s++) {
            if (core.health().isUpNow(s) && core.serverInFlight(s) < core.cap(s)) {
                return true;
            }
        }
        return false;
    }

    /** What one random run saw. */
    record Run(int arrivals, int shed, int ended, int stillHeld) {
    }

    /**
     * Random events for {@code steps}: an arrival of a random class (often in bursts far above what the slots
     * serve), a completion of a random running request after its service time, or idle time. Every shed is
     * checked against {@link #couldGoAtOnce} taken just before its arrival.
     */
    private static Run run(GatewayCore<Integer> core, Instance in, int steps) {
        Random r = new Random(in.seed());
        List<Ticket<Integer>> running = new ArrayList<>();
        long now = 0;
        int arrivals = 0;
        int shed = 0;
        int ended = 0;
        double meanServiceMs = in.targetsMs().stream().mapToDouble(Double::doubleValue).min().orElseThrow() / 4;
        for (int step = 0; step < steps; step++) {
            double burst = (step / 200) % 2 == 0 ? 0.3 : 0.9; // light and heavy stretches in turn
            double u = r.nextDouble();
            if (u < burst) {
                now += (long) (r.nextDouble() * 2e6);
                int c = r.nextInt(core.classCount());
                boolean atOnce = couldGoAtOnce(core);
                Ticket<Integer> t = core.offer(arrivals++, c, now);
                if (t.state() == Ticket.State.REJECTED) {
                    assertThat(atOnce).as("a request that could go to a server at once was refused (%s)", t.dropReason())
                            .isFalse();
                    if (t.dropReason() == DropReason.SHED) {
                        shed++;
                    }
                    ended++;
                }
            } else if (!running.isEmpty()) {
                now += (long) (-Math.log(1 - r.nextDouble()) * meanServiceMs * 1e6 / Math.max(1, running.size()));
                core.complete(running.remove(r.nextInt(running.size())), Outcome.OK, now);
                ended++;
            } else {
                now += (long) (r.nextDouble() * 50e6);
            }
            ended += core.expireQueued(now).size();
            for (Ticket<Integer> t; (t = core.next(now)) != null; ) {
                assertThat(t.dropReason()).as("next never releases a shed request").isNotEqualTo(DropReason.SHED);
                if (t.state() == Ticket.State.DISPATCHED) {
                    running.add(t);
                } else {
                    ended++;
                }
            }
        }
        int queued = 0;
        for (int c = 0; c < core.classCount(); c++) {
            queued += core.queueLength(c);
        }
        return new Run(arrivals, shed, ended, queued + running.size());
    }

    @Property(tries = 300)
    void aRequestThatCouldGoAtOnce_isNeverShed_andEveryArrivalIsAccountedFor(@ForAll("instances") Instance in) {
        GatewayCore<Integer> core = core(in, "deadline");
        Run run = run(core, in, 2000);
        assertThat(run.ended() + run.stillHeld()).as("every arrival ended once or is still queued or running")
                .isEqualTo(run.arrivals());
    }

    @Property(tries = 100)
    void withTheModeOff_nothingIsEverShed(@ForAll("instances") Instance in) {
        Run run = run(core(in, "off"), in, 2000);
        assertThat(run.shed()).isZero();
    }

    @Property(tries = 100)
    void theHeavyStretches_doShedSomething_whenTheyFarOutrunTheSlots(@ForAll("instances") Instance in) {
        // not a guarantee of every instance: over all of them, the path is exercised (a property that sheds
        // nothing anywhere would check nothing above)
        Run run = run(core(in, "deadline"), in, 4000);
        assertThat(run.arrivals()).isPositive();
        SHEDS.add(run.shed());
    }

    private static final List<Integer> SHEDS = java.util.Collections.synchronizedList(new ArrayList<>());

    @net.jqwik.api.lifecycle.AfterContainer
    static void somethingWasShed() {
        System.out.println("admission properties: " + SHEDS.stream().filter(n -> n > 0).count() + " of " + SHEDS.size()
                + " instances shed in their heavy stretches");
        if (!SHEDS.isEmpty()) {
            assertThat(SHEDS.stream().filter(n -> n > 0).count()).as("instances that shed: %s", SHEDS)
                    .isGreaterThan(SHEDS.size() / 4);
        }
    }

    /** The decay factor's series below 10⁻³ agrees with Math.exp to 10⁻¹³ relative, and is Math.exp above. */
    @Property(tries = 2000)
    void expMinus_agreesWithMathExp(@ForAll("decayArguments") double x) {
        double want = Math.exp(-x);
        assertThat(Math.abs(AdmissionBook.expMinus(x) - want)).as("x = %s", x).isLessThanOrEqualTo(1e-13 * want);
    }

    @Provide
    Arbitrary<Double> decayArguments() {
        return Arbitraries.oneOf(Arbitraries.doubles().between(0, 2e-3).ofScale(12), Arbitraries.doubles().between(0, 50).ofScale(6),
                Arbitraries.of(0.0, 1e-3, Math.nextDown(1e-3), 1e-9));
    }
}
