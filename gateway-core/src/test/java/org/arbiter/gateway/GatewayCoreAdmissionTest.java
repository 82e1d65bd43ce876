package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;
import org.arbiter.common.message.GatewayStats;
import org.junit.jupiter.api.Test;

/**
 * The local admission path (dispatch.admission, {@link AdmissionBook}) in virtual time: one server of 8
 * slots, service Exp(40 ms) (capacity 200 requests/s), premium (φ 4, target 500 ms) and basic (φ 1,
 * target 2 s), open-loop Poisson arrivals, premium 20 % of them, queues timing out at the targets.
 */
final class GatewayCoreAdmissionTest {

    private static final double CAPACITY = 200;
    private static final double SERVICE = 0.040;
    private static final int PREMIUM = 0;
    private static final int BASIC = 1;

    private static ClusterConfig cluster(String mode, double premiumWeight, double basicWeight) {
        return Fixtures.parse("""
                classes:
                  - {name: premium, target: 500ms, utility: {phi: 4}, weight: %s, match: {header: {X-Class: premium}},
                     queue: {limit: 100000, timeout: 500ms}}
                  - {name: basic, target: 2s, utility: {phi: 1}, weight: %s, default: true,
                     queue: {limit: 100000, timeout: 2s}}
                servers:
                  - {id: s1, url: 'http://127.0.0.1:9', concurrency: 8}
                control: {reportPeriod: 1s, statsWindow: 60s}
                dispatch: {admission: {mode: %s}}
                """.formatted(premiumWeight, basicWeight, mode));
    }

    private static GatewayCore<Integer> core(ClusterConfig c) {
        return new GatewayCore<>(c, "g1", ConfiguredAllocation.of(c, "g1", true, Instant.EPOCH),
                Schedulers.of(c.dispatch()), Balancers.of(c.dispatch(), new java.util.Random(1)), 0);
    }

    /** One request's end: its class, when it arrived, and how it ended. */
    record End(int cls, double arrival, double response, DropReason dropped, boolean lowerWasShedding) {
    }

    /**
     * Runs {@code phases} (seconds, load as a multiple of the capacity, premium's share) and returns every request's
     * end. At each premium shed, notes whether basic, the lower-value class, was shedding too (queue empty, or its
     * own arrival would have been shed).
     */
    private static List<End> run(GatewayCore<Integer> core, long seed, double[][] phases) {
        SplittableRandom r = new SplittableRandom(seed);
        List<double[]> arrivals = new ArrayList<>(); // time, class
        double t0 = 0;
        for (double[] p : phases) {
            for (int c : new int[] {PREMIUM, BASIC}) {
                double rate = p[1] * CAPACITY * (c == PREMIUM ? p[2] : 1 - p[2]);
                for (double t = t0 - Math.log(1 - r.nextDouble()) / rate; t < t0 + p[0];
                     t -= Math.log(1 - r.nextDouble()) / rate) {
                    arrivals.add(new double[] {t, c});
                }
            }
            t0 += p[0];
        }
        arrivals.sort((a, b) -> Double.compare(a[0], b[0]));
        PriorityQueue<Object[]> completions = new PriorityQueue<>((a, b) -> Double.compare((double) a[0], (double) b[0]));
        List<End> ends = new ArrayList<>();
        double[] arrivedAt = new double[arrivals.size()];
        int next = 0;
        while (next < arrivals.size() || !completions.isEmpty()) {
            boolean arrival = next < arrivals.size()
                    && (completions.isEmpty() || arrivals.get(next)[0] <= (double) completions.peek()[0]);
            double now = arrival ? arrivals.get(next)[0] : (double) completions.peek()[0];
            long ns = Math.round(now * 1e9);
            for (Ticket<Integer> x : core.expireQueued(ns)) {
                ends.add(new End(x.classIndex(), arrivedAt[x.request()], now - arrivedAt[x.request()], x.dropReason(),
                        false));
            }
            if (arrival) {
                int c = (int) arrivals.get(next)[1];
                arrivedAt[next] = now;
                boolean basicShedding = core.queues.size(BASIC) == 0
                        || core.admission.expectedNanos(BASIC, core.queues, core.yields, ns) > 2e9;
                Ticket<Integer> t = core.offer(next, c, ns);
                if (t.state() == Ticket.State.REJECTED) {
                    ends.add(new End(c, now, 0, t.dropReason(), basicShedding));
                }
                next++;
            } else {
                @SuppressWarnings("unchecked")
                Ticket<Integer> t = (Ticket<Integer>) completions.poll()[1];
                core.complete(t, Outcome.OK, ns);
                ends.add(new End(t.classIndex(), arrivedAt[t.request()], now - arrivedAt[t.request()], null, false));
            }
            for (Ticket<Integer> t; (t = core.next(ns)) != null; ) {
                if (t.state() == Ticket.State.DISPATCHED) {
                    completions.add(new Object[] {now - Math.log(1 - r.nextDouble()) * SERVICE, t});
                } else {
                    ends.add(new End(t.classIndex(), arrivedAt[t.request()], now - arrivedAt[t.request()],
                            t.dropReason(), false));
                }
            }
        }
        return ends;
    }

    private static long count(List<End> ends, int cls, DropReason reason) {
        return ends.stream().filter(e -> e.cls() == cls && e.dropped() == reason).count();
    }

    @Test
    void atSevenTenthsOfCapacity_nothingIsShed_overSeveralSeeds() {
        for (long seed = 1; seed <= 5; seed++) {
            GatewayCore<Integer> core = core(cluster("deadline", 1, 1));
            List<End> ends = run(core, seed, new double[][] {{60, 0.7, 0.2}});
            assertThat(ends).as("seed " + seed).hasSizeGreaterThan(7000);
            assertThat(ends.stream().filter(e -> e.dropped() == DropReason.SHED)).as("seed " + seed).isEmpty();
        }
    }

    @Test
    void atThreeTimesCapacity_basicIsShed_premiumNever_andTheFirstShedComesWithinASecond() {
        for (long seed = 1; seed <= 5; seed++) {
            // premium's weight 3 of 4 gives it 150 requests/s, above its 120 at 3 ×: a GRM's weights
            GatewayCore<Integer> core = core(cluster("deadline", 3, 1));
            List<End> ends = run(core, seed, new double[][] {{10, 0.7, 0.2}, {20, 3, 0.2}, {10, 0.7, 0.2}});
            assertThat(count(ends, BASIC, DropReason.SHED)).as("seed " + seed + ": basic shed").isGreaterThan(3000);
            assertThat(count(ends, PREMIUM, DropReason.SHED)).as("seed " + seed + ": premium shed").isZero();
            double firstShed = ends.stream().filter(e -> e.dropped() == DropReason.SHED).mapToDouble(End::arrival).min()
                    .orElseThrow();
            assertThat(firstShed).as("seed " + seed + ": first shed").isBetween(10.0, 11.0);
            // the queue timeouts that the path replaces: hardly any basic request waits out its 2 s
            assertThat(count(ends, BASIC, DropReason.QUEUE_TIMEOUT)).as("seed " + seed + ": basic timed out in queue")
                    .isLessThan(count(ends, BASIC, DropReason.SHED) / 20);
            // what is admitted is answered about in time: basic's admitted p99 under 2 × its target, premium's
            // within its target
            assertThat(p99(ends, BASIC)).as("seed " + seed + ": basic admitted p99").isLessThan(2 * 2.0);
            assertThat(p99(ends, PREMIUM)).as("seed " + seed + ": premium admitted p99").isLessThan(0.5);
            // the server stays busy: completions during the spike near the capacity
            long served = ends.stream().filter(e -> e.dropped() == null && e.arrival() + e.response() >= 12
                    && e.arrival() + e.response() < 30).count();
            assertThat(served / 18.0).as("seed " + seed + ": completions per second in the spike")
                    .isGreaterThan(0.95 * CAPACITY);
        }
    }

    @Test
    void withWeightsThatGivePremiumLessThanItsArrivals_overloadDispatchesByValue_andPremiumMakesItsTarget() {
        for (long seed = 1; seed <= 5; seed++) {
            // equal weights: premium's WRR share is 100 requests/s, below its 120 at 3 × (the GRM's weights for
            // the load before the spike); while shedding, the core dispatches by value
            GatewayCore<Integer> core = core(cluster("deadline", 1, 1));
            List<End> ends = run(core, seed, new double[][] {{10, 0.7, 0.2}, {20, 3, 0.2}, {10, 0.7, 0.2}});
            List<End> premium = ends.stream().filter(e -> e.cls() == PREMIUM && e.arrival() >= 10 && e.arrival() < 30)
                    .toList();
            long inTime = premium.stream().filter(e -> e.dropped() == null && e.response() <= 0.5).count();
            assertThat((double) inTime / premium.size()).as("seed " + seed + ": premium within target in the spike")
                    .isGreaterThanOrEqualTo(0.999);
            assertThat(count(ends, PREMIUM, DropReason.SHED)).as("seed " + seed).isZero();
            assertThat(count(ends, BASIC, DropReason.SHED)).as("seed " + seed).isGreaterThan(3000);
        }
        // the same with the queue alone: premium waits out its share
        GatewayCore<Integer> off = core(cluster("off", 1, 1));
        List<End> ends = run(off, 1, new double[][] {{10, 0.7, 0.2}, {20, 3, 0.2}, {10, 0.7, 0.2}});
        long premium = ends.stream().filter(e -> e.cls() == PREMIUM && e.arrival() >= 10 && e.arrival() < 30).count();
        long inTime = ends.stream().filter(e -> e.cls() == PREMIUM && e.arrival() >= 10 && e.arrival() < 30
                && e.dropped() == null && e.response() <= 0.5).count();
        assertThat((double) inTime / premium).as("queue alone: premium within target").isLessThan(0.9);
    }

    @Test
    void withTheQueueAlone_theSameSpikeTimesRequestsOutInsteadOfSheddingThem() {
        GatewayCore<Integer> core = core(cluster("off", 3, 1));
        List<End> ends = run(core, 1, new double[][] {{10, 0.7, 0.2}, {20, 3, 0.2}, {10, 0.7, 0.2}});
        assertThat(ends.stream().filter(e -> e.dropped() == DropReason.SHED)).isEmpty();
        assertThat(count(ends, BASIC, DropReason.QUEUE_TIMEOUT)).isGreaterThan(3000);
    }

    @Test
    void whenBothClassesAreOverTheirShare_premiumIsShedOnlyWhileBasicIsSheddingToo() {
        for (long seed = 1; seed <= 5; seed++) {
            // equal weights: premium's share is 100 requests/s; at 3 × with premium half the load it gets 300
            GatewayCore<Integer> core = core(cluster("deadline", 1, 1));
            List<End> ends = run(core, seed, new double[][] {{5, 0.7, 0.5}, {20, 3, 0.5}});
            List<End> premiumShed = ends.stream().filter(e -> e.cls() == PREMIUM && e.dropped() == DropReason.SHED)
                    .toList();
            assertThat(premiumShed).as("seed " + seed + ": premium shed at all").isNotEmpty();
            // the order: at every premium shed, basic (lower value) had nothing queued or was itself shedding
            assertThat(premiumShed).as("seed " + seed + ": every premium shed found basic shedding")
                    .allMatch(End::lowerWasShedding);
            assertThat(count(ends, BASIC, DropReason.SHED)).as("seed " + seed + ": basic shed").isPositive();
        }
    }

    @Test
    void offByDefault_andAShedCountsAsADropNamedShed() {
        assertThat(Fixtures.parse("""
                classes: [{name: a, target: 1s, default: true}]
                servers: [{id: s1, url: 'http://127.0.0.1:9'}]
                """).dispatch().admission().enabled()).isFalse();
        GatewayCore<Integer> core = core(cluster("deadline", 3, 1));
        List<End> ends = run(core, 2, new double[][] {{5, 0.7, 0.2}, {5, 5, 0.2}});
        long shed = count(ends, BASIC, DropReason.SHED);
        assertThat(shed).isPositive();
        GatewayStats s = core.snapshot(Instant.EPOCH, Math.round(10.5e9));
        assertThat(s.classes().get("basic").drops()).containsEntry("shed", shed);
    }

    @Test
    void theValueOrderIsPhiOrPhiOverTargetOrTheYieldAndThenFileOrder() {
        ClusterConfig c = Fixtures.parse("""
                classes:
                  - {name: a, target: 1s, utility: {phi: 1}}
                  - {name: b, target: 4s, utility: {phi: 2}, default: true}
                  - {name: c, target: 1s, utility: {phi: 2}}
                  - {name: d, target: 1s, yield: {shape: throughput, value: 5, deadline: 1s}}
                servers: [{id: s1, url: 'http://127.0.0.1:9'}]
                """);
        AdmissionBook book = new AdmissionBook(c.classes(), c.dispatch().admission(), 0);
        assertThat(book.valueOrder()).containsExactly(3, 1, 2, 0); // d 5, b 2 (file order before c), c 2, a 1
        ClusterConfig rel = Fixtures.parse("""
                classes:
                  - {name: a, target: 1s, utility: {phi: 1, scale: relative}}
                  - {name: b, target: 4s, utility: {phi: 2, scale: relative}, default: true}
                servers: [{id: s1, url: 'http://127.0.0.1:9'}]
                """);
        assertThat(new AdmissionBook(rel.classes(), rel.dispatch().admission(), 0).valueOrder())
                .containsExactly(0, 1); // 1/1 s above 2/4 s
    }

    private static double p99(List<End> ends, int cls) {
        double[] a = ends.stream().filter(e -> e.cls() == cls && e.dropped() == null).mapToDouble(End::response).toArray();
        Arrays.sort(a);
        return a[(int) Math.ceil(0.99 * a.length) - 1];
    }
}
