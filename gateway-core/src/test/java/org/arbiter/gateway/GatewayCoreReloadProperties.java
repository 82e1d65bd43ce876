package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;
import org.junit.jupiter.api.Test;

/**
 * {@link GatewayCore#reconfigure}: reloads that add and remove servers and change queue limits and
 * timeouts, interleaved at random with arrivals, completions, failures (requeues), expiries, GRM
 * allocations and cancellations, in virtual time.
 */
final class GatewayCoreReloadProperties {

    private static final List<String> POOL = List.of("s0", "s1", "s2", "s3", "s4");

    /** Two classes; the servers of {@code ids} (caps 1..6 from {@code random}); queue limits and timeouts from it too. */
    private static ClusterConfig cluster(Set<String> ids, Random random) {
        StringBuilder y = new StringBuilder("classes:\n");
        for (int c = 0; c < 2; c++) {
            y.append("  - {name: c").append(c).append(", target: 1s, queue: {limit: ").append(1 + random.nextInt(30))
                    .append(", timeout: ").append(200 + random.nextInt(3000)).append("ms}")
                    .append(c == 1 ? ", default: true" : "").append("}\n");
        }
        y.append("servers:\n");
        for (String id : POOL) {
            if (ids.contains(id)) {
                y.append("  - {id: ").append(id).append(", url: 'http://127.0.0.1:9', concurrency: ")
                        .append(1 + random.nextInt(6)).append("}\n");
            }
        }
        return Fixtures.parse(y.toString());
    }

    private static Set<String> someServers(Random random) {
        Set<String> ids = new HashSet<>();
        for (String id : POOL) {
            if (random.nextInt(2) == 0) {
                ids.add(id);
            }
        }
        if (ids.isEmpty()) {
            ids.add(POOL.get(random.nextInt(POOL.size())));
        }
        return ids;
    }

    /**
     * Across any sequence of reloads: every request gets exactly one answer (nothing queued or in
     * flight is lost or answered twice by a reload); a removed server gets no new request, while
     * what it had finishes; a server present in the file has inflight ≤ its cap (or what it had
     * when the cap fell); no slot of a present server idles while a request waits; an added
     * server takes requests.
     */
    @Property(tries = 300)
    void acrossReloads_nothingIsLost_removedServersDrain_andCapsHold(
            @ForAll long seed, @ForAll @IntRange(min = 0, max = 6) int schedulerIndex, @ForAll boolean grm) {
        Random random = new Random(seed);
        Set<String> present = someServers(random);
        ClusterConfig cluster = cluster(present, random);
        GatewayCore<Integer> core = new GatewayCore<>(cluster, "g1",
                ConfiguredAllocation.of(cluster, "g1", true, Instant.EPOCH),
                Schedulers.named(GatewayCoreProperties.SCHEDULERS.get(schedulerIndex)),
                Balancers.randomPoll(2, new Random(seed)), 0);
        long version = 0;
        List<Ticket<Integer>> running = new ArrayList<>();
        List<Ticket<Integer>> all = new ArrayList<>();
        Map<Ticket<Integer>, Integer> answers = new HashMap<>();
        Map<String, Integer> ceiling = new HashMap<>();
        Set<String> servedAfterAdd = new HashSet<>();
        Set<String> addedLately = new HashSet<>();
        long now = 0;
        for (int step = 0; step < 500; step++) {
            now += 1_000_000L * (1 + random.nextInt(30));
            int action = random.nextInt(40);
            if (action < 16) {
                Ticket<Integer> t = core.offer(step, random.nextInt(2), now);
                all.add(t);
                if (!t.accepted()) {
                    answers.merge(t, 1, Integer::sum);
                }
            } else if (action < 30 && !running.isEmpty()) {
                Ticket<Integer> t = running.remove(random.nextInt(running.size()));
                if (random.nextInt(8) == 0) {
                    if (!core.failed(t, ServerHealth.Failure.CONNECT_REFUSED, false, true, now)) {
                        answers.merge(t, 1, Integer::sum);
                    }
                } else {
                    core.complete(t, Outcome.OK, now);
                    answers.merge(t, 1, Integer::sum);
                }
            } else if (action < 32 && !running.isEmpty()) {
                Ticket<Integer> t = running.remove(random.nextInt(running.size()));
                core.cancel(t, now);
                answers.merge(t, 1, Integer::sum); // the client left: its one ending
            } else if (action < 34 && grm) {
                Map<String, Integer> n = new HashMap<>();
                for (String id : POOL) {
                    if (random.nextInt(3) > 0) {
                        n.put(id, random.nextInt(6));
                    }
                }
                core.applyAllocation(new Allocation(1, Instant.EPOCH, "g1", ++version, Map.of(), n, "grm"));
            } else if (action < 37) {
                Set<String> next = someServers(random);
                ClusterConfig reloaded = cluster(next, random);
                int queuedBefore = core.queued();
                int inFlightBefore = core.inFlightTotal();
                GatewayCore.Reconfiguration r = core.reconfigure(reloaded,
                        ConfiguredAllocation.of(reloaded, "g1", true, Instant.EPOCH), now);
                assertThat(r.notApplied()).isEmpty();
                assertThat(core.queued()).as("a reload drops nothing queued").isEqualTo(queuedBefore);
                assertThat(core.inFlightTotal()).as("a reload cuts nothing off").isEqualTo(inFlightBefore);
                Set<String> removed = new HashSet<>(present);
                removed.removeAll(next);
                assertThat(r.serversRemoved()).containsExactlyInAnyOrderElementsOf(removed);
                Set<String> added = new HashSet<>(next);
                added.removeAll(present);
                assertThat(r.serversAdded()).containsExactlyInAnyOrderElementsOf(added);
                addedLately.addAll(added);
                addedLately.removeAll(removed);
                present = next;
                for (int s = 0; s < core.serverCount(); s++) {
                    ceiling.put(core.serverId(s), Math.max(core.cap(s), core.serverInFlight(s)));
                }
            }
            for (Ticket<Integer> t : core.expireQueued(now)) {
                answers.merge(t, 1, Integer::sum);
            }
            for (Ticket<Integer> t; (t = core.next(now)) != null; ) {
                if (t.state() == Ticket.State.EXPIRED) {
                    answers.merge(t, 1, Integer::sum);
                    continue;
                }
                assertThat(present).as("dispatched to a server in the file").contains(t.serverId());
                if (addedLately.contains(t.serverId())) {
                    servedAfterAdd.add(t.serverId());
                }
                running.add(t);
            }
            boolean anyFree = false;
            for (int s = 0; s < core.serverCount(); s++) {
                String id = core.serverId(s);
                if (!present.contains(id)) {
                    assertThat(core.retired(s)).isTrue();
                    assertThat(core.cap(s)).isZero();
                    continue;
                }
                int bound = Math.max(core.cap(s), ceiling.getOrDefault(id, 0));
                assertThat(core.serverInFlight(s)).as("server %s", id).isLessThanOrEqualTo(bound);
                ceiling.put(id, Math.max(core.cap(s), core.serverInFlight(s)));
                anyFree |= core.serverInFlight(s) < core.cap(s) && core.health().admits(s, now);
            }
            if (core.queued() > 0) {
                assertThat(anyFree).as("a free slot of a present server while requests wait").isFalse();
            }
        }
        // finish everything: the requests held by removed servers too
        for (Ticket<Integer> t : running) {
            core.complete(t, Outcome.OK, now);
            answers.merge(t, 1, Integer::sum);
        }
        running.clear();
        while (core.queued() > 0) {
            now += 10_000_000L;
            for (Ticket<Integer> t : core.expireQueued(now)) {
                answers.merge(t, 1, Integer::sum);
            }
            for (Ticket<Integer> t; (t = core.next(now)) != null; ) {
                if (t.state() != Ticket.State.EXPIRED) {
                    core.complete(t, Outcome.OK, now);
                }
                answers.merge(t, 1, Integer::sum);
            }
        }
        assertThat(core.inFlightTotal()).isZero();
        for (int s = 0; s < core.serverCount(); s++) {
            assertThat(core.serverInFlight(s)).isZero();
        }
        for (Ticket<Integer> t : all) {
            assertThat(answers.get(t)).as("answers to request %s (%s)", t.request(), t.state()).isEqualTo(1);
        }
    }

    @Test
    void anAddedServer_takesTheNextRequest_andARemovedOne_finishesWhatItHas() {
        Random random = new Random(1);
        ClusterConfig one = Fixtures.parse("""
                classes: [{name: c0, target: 1s, default: true, queue: {limit: 10, timeout: 10s}}]
                servers: [{id: s0, url: 'http://127.0.0.1:9', concurrency: 1}]
                """);
        GatewayCore<Integer> core = Fixtures.core(one, Schedulers.named("wrr"));
        Ticket<Integer> first = core.offer(1, 0, 0);
        assertThat(core.next(0)).isSameAs(first);
        Ticket<Integer> waiting = core.offer(2, 0, 0);
        assertThat(core.next(0)).isNull();
        ClusterConfig two = Fixtures.parse("""
                classes: [{name: c0, target: 1s, default: true, queue: {limit: 10, timeout: 10s}}]
                servers: [{id: s1, url: 'http://127.0.0.1:10', concurrency: 2}]
                """);
        GatewayCore.Reconfiguration r = core.reconfigure(two, ConfiguredAllocation.of(two, "g1", true, Instant.EPOCH), 1);
        assertThat(r.serversAdded()).containsExactly("s1");
        assertThat(r.serversRemoved()).containsExactly("s0");
        assertThat(first.state()).isEqualTo(Ticket.State.DISPATCHED);
        Ticket<Integer> t = core.next(1);
        assertThat(t).isSameAs(waiting);
        assertThat(t.serverId()).isEqualTo("s1");
        core.complete(first, Outcome.OK, 2);
        assertThat(core.serverInFlight(core.serverIndex("s0"))).isZero();
        assertThat(core.cap(core.serverIndex("s0"))).isZero();
        assertThat(random).isNotNull();
    }

    @Test
    void addingAClass_isReportedAndNotApplied_whileTheRestIs() {
        ClusterConfig one = Fixtures.parse("""
                classes: [{name: c0, target: 1s, default: true, queue: {limit: 10, timeout: 10s}}]
                servers: [{id: s0, url: 'http://127.0.0.1:9', concurrency: 1}]
                """);
        GatewayCore<Integer> core = Fixtures.core(one, Schedulers.named("wrr"));
        ClusterConfig two = Fixtures.parse("""
                classes:
                  - {name: c0, target: 1s, default: true, queue: {limit: 3, timeout: 10s}}
                  - {name: c1, target: 1s}
                servers: [{id: s0, url: 'http://127.0.0.1:9', concurrency: 1}]
                """);
        GatewayCore.Reconfiguration r = core.reconfigure(two, ConfiguredAllocation.of(two, "g1", true, Instant.EPOCH), 1);
        assertThat(r.notApplied()).singleElement().asString().contains("needs a restart");
        assertThat(r.classesChanged()).containsExactly("c0");
        assertThat(core.queueLimit(0)).isEqualTo(3);
        assertThat(core.classCount()).isEqualTo(1);
    }
}
