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
import net.jqwik.api.constraints.IntRange;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;

/** The scheduling guarantees of docs/gateway.md (step 3), on random instances in virtual time. */
final class GatewayCoreProperties {

    /** dispatch.ejection.threshold of the failing-servers cluster below. */
    private static final int EJECTION_THRESHOLD = 2;

    private static ClusterConfig cluster(int classes, int servers) {
        StringBuilder y = new StringBuilder("classes:\n");
        for (int c = 0; c < classes; c++) {
            y.append("  - {name: c").append(c).append(", target: 1s, queue: {limit: 100000, timeout: 1h}")
                    .append(c == classes - 1 ? ", default: true" : "").append("}\n");
        }
        y.append("servers:\n");
        for (int s = 0; s < servers; s++) {
            y.append("  - {id: s").append(s).append(", url: 'http://127.0.0.1:9', concurrency: 10}\n");
        }
        return Fixtures.parse(y.toString());
    }

    record Instance(List<Double> weights, List<Integer> caps, long seed) {
    }

    @Provide
    Arbitrary<Instance> instances() {
        Arbitrary<List<Double>> weights = Arbitraries.doubles().between(0.1, 10).ofScale(2).list().ofMinSize(2).ofMaxSize(4);
        Arbitrary<List<Integer>> caps = Arbitraries.integers().between(1, 12).list().ofMinSize(1).ofMaxSize(3);
        return Combinators.combine(weights, caps, Arbitraries.longs()).as(Instance::new);
    }

    private static GatewayCore<Integer> core(Instance in, String scheduler) {
        ClusterConfig cluster = cluster(in.weights().size(), in.caps().size());
        Map<String, Double> w = new HashMap<>();
        for (int c = 0; c < in.weights().size(); c++) {
            w.put("c" + c, in.weights().get(c));
        }
        Map<String, Integer> n = new HashMap<>();
        for (int s = 0; s < in.caps().size(); s++) {
            n.put("s" + s, in.caps().get(s));
        }
        GatewayCore<Integer> core = new GatewayCore<>(cluster, "g1",
                ConfiguredAllocation.of(cluster, "g1", true, Instant.EPOCH), Schedulers.named(scheduler),
                Balancers.randomPoll(2, new Random(in.seed())), 0);
        core.applyAllocation(new Allocation(1, Instant.EPOCH, "g1", 1, w, n, "grm"));
        return core;
    }

    static final List<String> SCHEDULERS = List.of("wrr", "fcfs", "priority", "edf", "yid", "greedy", "adaptive");

    /** Dispatches until next returns null; returns the tickets a yield scheduler dropped on the way (zeroYield). */
    private static List<Ticket<Integer>> drain(GatewayCore<Integer> core, List<Ticket<Integer>> running, long now) {
        List<Ticket<Integer>> dropped = new ArrayList<>();
        for (Ticket<Integer> t; (t = core.next(now)) != null; ) {
            if (t.state() == Ticket.State.EXPIRED) {
                assertThat(t.dropReason()).isEqualTo(DropReason.ZERO_YIELD);
                dropped.add(t);
            } else {
                running.add(t);
            }
        }
        return dropped;
    }

    @Property(tries = 1000)
    void saturatedShares_convergeToWeights_withinOneSlot(@ForAll("instances") Instance in) {
        GatewayCore<Integer> core = core(in, "wrr");
        int classes = in.weights().size();
        int total = in.caps().stream().mapToInt(Integer::intValue).sum();
        Random random = new Random(in.seed());
        List<Ticket<Integer>> running = new ArrayList<>();
        long now = 0;
        for (int c = 0; c < classes; c++) {
            for (int i = 0; i < total; i++) {
                core.offer(c, c, now);
            }
        }
        drain(core, running, now);
        double wg = in.weights().stream().mapToDouble(Double::doubleValue).sum();
        for (int step = 0; step < 20 * total + 50; step++) {
            now += 1000;
            Ticket<Integer> done = running.remove(random.nextInt(running.size()));
            core.complete(done, Outcome.OK, now);
            core.offer(done.classIndex(), done.classIndex(), now);
            drain(core, running, now);
            assertThat(core.inFlightTotal()).isEqualTo(total);
        }
        for (int c = 0; c < classes; c++) {
            double share = total * in.weights().get(c) / wg;
            assertThat((double) core.inFlight(c)).as("class %d of %s, N_g=%d", c, in, total)
                    .isBetween(share - 1, share + 1);
        }
    }

    @Property(tries = 200)
    void noSlotIdles_whileAQueueIsNonEmpty_andCapsHoldAcrossSwaps(
            @ForAll("instances") Instance in, @ForAll("instances") Instance swapTo,
            @ForAll @IntRange(min = 0, max = 6) int schedulerIndex) {
        GatewayCore<Integer> core = core(in, SCHEDULERS.get(schedulerIndex));
        int classes = in.weights().size();
        int servers = in.caps().size();
        Random random = new Random(in.seed() ^ 42);
        List<Ticket<Integer>> running = new ArrayList<>();
        int[] ceiling = new int[servers];
        for (int s = 0; s < servers; s++) {
            ceiling[s] = core.cap(s);
        }
        long now = 0;
        long version = 1;
        for (int step = 0; step < 400; step++) {
            now += 1000;
            int action = random.nextInt(10);
            if (action < 5) {
                core.offer(step, random.nextInt(classes), now);
            } else if (action < 9 && !running.isEmpty()) {
                core.complete(running.remove(random.nextInt(running.size())), Outcome.OK, now);
            } else {
                Map<String, Integer> n = new HashMap<>();
                for (int s = 0; s < servers; s++) {
                    int cap = swapTo.caps().get(s % swapTo.caps().size()) * random.nextInt(2);
                    n.put("s" + s, cap);
                }
                core.applyAllocation(new Allocation(1, Instant.EPOCH, "g1", ++version, Map.of(), n, "grm"));
                for (int s = 0; s < servers; s++) {
                    // After a swap the bound is the larger of the new cap and what is already running.
                    ceiling[s] = Math.max(core.cap(s), core.serverInFlight(s));
                }
            }
            drain(core, running, now);
            boolean anyFree = false;
            for (int s = 0; s < servers; s++) {
                assertThat(core.serverInFlight(s)).isLessThanOrEqualTo(ceiling[s]);
                // The excess drains: the ceiling only comes down towards the cap.
                ceiling[s] = Math.max(core.cap(s), core.serverInFlight(s));
                anyFree |= core.serverInFlight(s) < core.cap(s);
            }
            if (core.queued() > 0) {
                assertThat(anyFree).as("a free slot while requests wait").isFalse();
            }
            assertThat(running).allMatch(t -> t.state() == Ticket.State.DISPATCHED);
        }
    }

    private static GatewayCore<Integer> failingCore(Instance in, String scheduler) {
        StringBuilder y = new StringBuilder("""
                classes:
                  - {name: c0, target: 1s, weight: 2, queue: {limit: 40, timeout: 2s}}
                  - {name: c1, target: 1s, default: true, queue: {limit: 40, timeout: 2s}}
                dispatch: {ejection: {threshold: 2, baseBackoff: 100ms, maxBackoff: 1s}}
                servers:
                """);
        for (int s = 0; s < in.caps().size(); s++) {
            y.append("  - {id: s").append(s).append(", url: 'http://127.0.0.1:9', concurrency: ")
                    .append(in.caps().get(s)).append("}\n");
        }
        ClusterConfig cluster = Fixtures.parse(y.toString());
        return new GatewayCore<>(cluster, "g1", ConfiguredAllocation.of(cluster, "g1", true, Instant.EPOCH),
                Schedulers.named(scheduler), Balancers.randomPoll(2, new Random(in.seed())), 0);
    }

    /**
     * Servers break and recover at random while requests arrive, fail (refused, reset, 5xx), are
     * requeued, expire and are cancelled: inflight(s) never exceeds N(s); no slot a healthy server
     * admits idles while a queue is non-empty; no request waits past its timeout; an idempotent
     * request that was sent is requeued at most once by a server still in service that it had not
     * just failed on, and at most EJECTION_THRESHOLD times in all (a server ejected by then, or the
     * same server failing it again, does not spend the retry); and every request gets exactly one answer — under every
     * scheduler (the yield schedulers also drop heads that can earn no yield: one answer too).
     */
    @Property(tries = 300)
    void withFailingServers_capsHold_noAdmittedSlotIdles_andEveryRequestIsAnsweredOnce(
            @ForAll("instances") Instance in, @ForAll @IntRange(min = 0, max = 6) int schedulerIndex) {
        GatewayCore<Integer> core = failingCore(in, SCHEDULERS.get(schedulerIndex));
        int servers = in.caps().size();
        long timeout = 2_000_000_000L;
        Random random = new Random(in.seed() ^ 7);
        boolean[] broken = new boolean[servers];
        List<Ticket<Integer>> running = new ArrayList<>();
        List<Ticket<Integer>> all = new ArrayList<>();
        Map<Ticket<Integer>, Integer> answers = new HashMap<>();
        Map<Ticket<Integer>, Integer> sentRequeues = new HashMap<>();
        Map<Ticket<Integer>, Integer> freshRequeues = new HashMap<>();
        Map<Ticket<Integer>, Integer> lastFailed = new HashMap<>();
        long now = 0;
        for (int step = 0; step < 600; step++) {
            now += 1_000_000L * (1 + random.nextInt(40));
            int action = random.nextInt(20);
            if (action < 8) {
                Ticket<Integer> t = core.offer(step, random.nextInt(2), now);
                all.add(t);
                if (!t.accepted()) {
                    answers.merge(t, 1, Integer::sum);
                }
            } else if (action < 17 && !running.isEmpty()) {
                Ticket<Integer> t = running.remove(random.nextInt(running.size()));
                int server = t.server();
                if (broken[server]) {
                    boolean sent = random.nextBoolean();
                    boolean idempotent = random.nextBoolean();
                    ServerHealth.Failure f = sent ? ServerHealth.Failure.RESET : ServerHealth.Failure.CONNECT_REFUSED;
                    Integer failedBefore = lastFailed.put(t, server);
                    if (core.failed(t, f, sent, idempotent, now)) {
                        assertThat(t.state()).isEqualTo(Ticket.State.QUEUED);
                        if (sent) {
                            assertThat(idempotent).isTrue();
                            if (!core.health().ejected(server, now)) {
                                int inService = sentRequeues.merge(t, 1, Integer::sum);
                                assertThat(inService).as("requeues after sending, on servers still in service")
                                        .isLessThanOrEqualTo(EJECTION_THRESHOLD);
                                if (!Integer.valueOf(server).equals(failedBefore)) {
                                    assertThat(freshRequeues.merge(t, 1, Integer::sum))
                                            .as("requeues after sending on a server the request had not just failed on, "
                                                    + "still in service").isEqualTo(1);
                                }
                            }
                        }
                    } else {
                        assertThat(sent).isTrue();
                        answers.merge(t, 1, Integer::sum);
                    }
                } else {
                    core.responded(t, random.nextInt(10) == 0 ? 500 : 200, now);
                    core.complete(t, Outcome.OK, now);
                    answers.merge(t, 1, Integer::sum);
                }
            } else if (action < 19) {
                int s = random.nextInt(servers);
                broken[s] = !broken[s];
            } else if (!all.isEmpty()) {
                // a client leaves: a queued request leaves its queue, a running one frees its slot
                Ticket<Integer> t = all.get(random.nextInt(all.size()));
                if (t.state() == Ticket.State.QUEUED || t.state() == Ticket.State.DISPATCHED) {
                    running.remove(t);
                    core.cancel(t, now);
                    answers.merge(t, 1, Integer::sum);
                }
            }
            for (Ticket<Integer> t : core.expireQueued(now)) {
                answers.merge(t, 1, Integer::sum);
            }
            for (Ticket<Integer> t : drain(core, running, now)) {
                answers.merge(t, 1, Integer::sum);
            }
            check(core, running, all, now, timeout);
        }
        // the servers recover; everything is answered in the end
        java.util.Arrays.fill(broken, false);
        for (int round = 0; round < 10_000 && (core.queued() > 0 || !running.isEmpty()); round++) {
            now += 50_000_000L;
            for (Ticket<Integer> t : running) {
                core.responded(t, 200, now);
                core.complete(t, Outcome.OK, now);
                answers.merge(t, 1, Integer::sum);
            }
            running.clear();
            for (Ticket<Integer> t : core.expireQueued(now)) {
                answers.merge(t, 1, Integer::sum);
            }
            for (Ticket<Integer> t : drain(core, running, now)) {
                answers.merge(t, 1, Integer::sum);
            }
            check(core, running, all, now, timeout);
        }
        assertThat(core.queued()).isZero();
        assertThat(core.inFlightTotal()).isZero();
        for (Ticket<Integer> t : all) {
            assertThat(answers.get(t)).as("answers to %s", t).isEqualTo(1);
            assertThat(t.state()).isIn(Ticket.State.REJECTED, Ticket.State.EXPIRED, Ticket.State.DONE);
        }
    }

    private static void check(GatewayCore<Integer> core, List<Ticket<Integer>> running, List<Ticket<Integer>> all,
                              long now, long timeout) {
        int[] perServer = new int[core.serverCount()];
        for (Ticket<Integer> t : running) {
            assertThat(t.state()).isEqualTo(Ticket.State.DISPATCHED);
            perServer[t.server()]++;
        }
        boolean admittedFree = false;
        for (int s = 0; s < core.serverCount(); s++) {
            assertThat(core.serverInFlight(s)).isEqualTo(perServer[s]).isLessThanOrEqualTo(core.cap(s));
            admittedFree |= core.serverInFlight(s) < core.cap(s) && core.health().admits(s, now);
        }
        if (core.queued() > 0) {
            assertThat(admittedFree).as("a free slot on an admitted server while requests wait").isFalse();
        }
        long queued = 0;
        for (Ticket<Integer> t : all) {
            if (t.state() == Ticket.State.QUEUED) {
                queued++;
                assertThat(now - t.arrivalNanos()).as("waited past its timeout").isLessThan(timeout);
            }
        }
        assertThat(queued).isEqualTo(core.queued());
    }
}
