package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.gateway.scheduler.Schedulers;
import org.junit.jupiter.api.Test;

final class GatewayCoreTest {

    private static final long MS = 1_000_000L;

    private final GatewayCore<String> core = Fixtures.core(Fixtures.twoClasses(3, "1s"), Schedulers.ofWeightedRoundRobin());

    private List<Ticket<String>> drain(long now) {
        List<Ticket<String>> out = new ArrayList<>();
        for (Ticket<String> t; (t = core.next(now)) != null; ) {
            out.add(t);
        }
        return out;
    }

    @Test
    void fullQueue_rejectsWithQueueFull_andNothingIsLost() {
        for (int i = 0; i < 10; i++) {
            assertThat(core.offer("p" + i, "premium", 0).accepted()).isTrue();
            assertThat(drain(0)).hasSize(1);
        }
        List<Ticket<String>> more = new ArrayList<>();
        for (int i = 0; i < 5; i++) {
            more.add(core.offer("q" + i, "premium", 1));
        }
        assertThat(more).extracting(Ticket::state).containsExactly(Ticket.State.QUEUED, Ticket.State.QUEUED,
                Ticket.State.QUEUED, Ticket.State.REJECTED, Ticket.State.REJECTED);
        assertThat(more.get(4).dropReason()).isEqualTo(DropReason.QUEUE_FULL);
    }

    @Test
    void queuedTooLong_expiresWithQueueTimeout() {
        for (int i = 0; i < 12; i++) {
            core.offer("r" + i, "basic", i * MS);
            drain(i * MS);
        }
        assertThat(core.nextExpiryNanos()).isEqualTo(10 * MS + 1000 * MS);
        assertThat(core.expireQueued(1009 * MS)).isEmpty();
        List<Ticket<String>> expired = core.expireQueued(1011 * MS);
        assertThat(expired).extracting(Ticket::request).containsExactly("r10", "r11");
        assertThat(expired).allMatch(t -> t.dropReason() == DropReason.QUEUE_TIMEOUT);
        assertThat(core.queued()).isZero();
    }

    @Test
    void saturatedClasses_splitTheSlotsByWeight() {
        List<Ticket<String>> running = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
            core.offer("p", "premium", 0);
            core.offer("b", "basic", 0);
            running.addAll(drain(0));
        }
        long now = 0;
        for (int round = 0; round < 200; round++) {
            now += MS;
            Ticket<String> done = running.remove(0);
            core.complete(done, Outcome.OK, now);
            core.offer("p", "premium", now);
            core.offer("b", "basic", now);
            running.addAll(drain(now));
        }
        assertThat(core.inFlight(0)).isEqualTo(8);
        assertThat(core.inFlight(1)).isEqualTo(2);
    }

    @Test
    void loweredCap_drainsTheExcess_withoutCuttingAnythingOff() {
        List<Ticket<String>> running = new ArrayList<>();
        for (int i = 0; i < 13; i++) {
            core.offer("p" + i, "premium", 0);
            running.addAll(drain(0));
        }
        assertThat(core.serverInFlight(0)).isEqualTo(10);
        assertThat(core.applyAllocation(Fixtures.allocation(1, Map.of("premium", 1.0), Map.of("s1", 4)))).isTrue();
        assertThat(running).allMatch(t -> t.state() == Ticket.State.DISPATCHED);
        for (int i = 0; i < 6; i++) {
            core.complete(running.remove(0), Outcome.OK, MS);
            assertThat(drain(MS)).isEmpty();
        }
        core.complete(running.remove(0), Outcome.OK, MS);
        assertThat(drain(MS)).hasSize(1);
        assertThat(core.serverInFlight(0)).isEqualTo(4);
    }

    @Test
    void staleAllocation_isIgnored_andForeignOnesToo() {
        assertThat(core.applyAllocation(Fixtures.allocation(5, Map.of("premium", 1.0), Map.of("s1", 4)))).isTrue();
        assertThat(core.applyAllocation(Fixtures.allocation(4, Map.of("premium", 9.0), Map.of("s1", 9)))).isFalse();
        assertThat(core.applyAllocation(new org.arbiter.common.message.Allocation(1, Instant.EPOCH, "g2", 9,
                Map.of(), Map.of(), "grm"))).isFalse();
        assertThat(core.weight(0)).isEqualTo(1.0);
        assertThat(core.weight(1)).isEqualTo(2.0);
        assertThat(core.cap(0)).isEqualTo(4);
    }

    @Test
    void refusedRequest_goesBackToTheHeadOfItsQueue_andTakesTheNextFreeSlot() {
        GatewayCore<String> two = Fixtures.core(Fixtures.twoClasses(3, "1s", "http://127.0.0.1:1", "http://127.0.0.1:2"),
                Schedulers.ofWeightedRoundRobin());
        two.offer("x", "premium", 0);
        Ticket<String> t = two.next(0);
        int first = t.server();
        assertThat(two.failed(t, ServerHealth.Failure.CONNECT_REFUSED, false, false, MS)).isTrue();
        assertThat(t.state()).isEqualTo(Ticket.State.QUEUED);
        assertThat(two.serverInFlight(first)).isZero();
        assertThat(two.inFlight(0)).isZero();
        assertThat(two.queued()).isEqualTo(1);
        assertThat(two.health().failuresInARow(first)).isEqualTo(1);
        Ticket<String> again = two.next(MS);
        assertThat(again).isSameAs(t);
        assertThat(t.attempts()).isEqualTo(2);
        two.complete(t, Outcome.OK, 2 * MS);
        two.complete(t, Outcome.OK, 3 * MS);
        assertThat(two.inFlight(0)).isZero();
        assertThat(two.serverInFlight(t.server())).isZero();
    }

    @Test
    void requeuedRequest_waitsForASlot_andIsAnswered503OnlyAtItsQueueTimeout() {
        // one server of N=10, full; an 11th request failed to connect on a second, now ejected, server
        GatewayCore<String> two = Fixtures.core(Fixtures.withDispatch(
                "{backendTimeout: 5s, idleTimeout: 5s, ejection: {threshold: 1, baseBackoff: 10s}}", 20, "1s",
                "http://127.0.0.1:1", "http://127.0.0.1:2"), Schedulers.ofWeightedRoundRobin());
        List<Ticket<String>> running = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            two.offer("r" + i, "basic", 0);
        }
        for (Ticket<String> t; (t = two.next(0)) != null; ) {
            running.add(t);
        }
        assertThat(running).hasSize(20);
        Ticket<String> victim = running.stream().filter(t -> t.server() == 1).findFirst().orElseThrow();
        // the newest request also waits, queued behind the victim that arrived before it
        Ticket<String> later = two.offer("late", "basic", 100 * MS);
        assertThat(two.failed(victim, ServerHealth.Failure.CONNECT_REFUSED, false, true, 100 * MS)).isTrue();
        assertThat(two.health().state(1, 100 * MS)).isEqualTo(ServerHealth.State.DOWN);
        assertThat(two.next(100 * MS)).isNull(); // server 0 is full, server 1 ejected
        // a slot frees on server 0: the requeued request goes first, not the later one
        Ticket<String> done = running.stream().filter(t -> t.server() == 0).findFirst().orElseThrow();
        two.complete(done, Outcome.OK, 200 * MS);
        assertThat(two.next(200 * MS)).isSameAs(victim);
        assertThat(victim.server()).isZero();
        assertThat(two.next(200 * MS)).isNull();
        // nothing frees again: the later request expires at its own timeout, 1 s after it arrived
        assertThat(two.expireQueued(1099 * MS)).isEmpty();
        assertThat(two.expireQueued(1100 * MS)).containsExactly(later);
        assertThat(later.dropReason()).isEqualTo(DropReason.QUEUE_TIMEOUT);
    }

    @Test
    void requeuedRequest_expiresByItsOriginalArrival() {
        GatewayCore<String> one = Fixtures.core(Fixtures.twoClasses(3, "1s", "http://127.0.0.1:1"),
                Schedulers.ofWeightedRoundRobin());
        Ticket<String> t = one.offer("x", "basic", 0);
        one.next(0);
        assertThat(one.failed(t, ServerHealth.Failure.CONNECT_REFUSED, false, false, 900 * MS)).isTrue();
        one.failed(one.next(900 * MS), ServerHealth.Failure.CONNECT_REFUSED, false, false, 950 * MS);
        one.failed(one.next(950 * MS), ServerHealth.Failure.CONNECT_REFUSED, false, false, 960 * MS);
        assertThat(one.health().state(0, 960 * MS)).isEqualTo(ServerHealth.State.DOWN);
        assertThat(one.canServe(960 * MS)).isFalse();
        assertThat(one.next(960 * MS)).isNull();
        assertThat(one.expireQueued(1000 * MS)).containsExactly(t);
        assertThat(t.state()).isEqualTo(Ticket.State.EXPIRED);
    }

    @Test
    void requeuedRequest_goesToAnotherServerThanTheOneItFailedOn_evenWhenThatOneIsTheLeastLoaded() {
        // threshold 5: the failure does not eject server `first`, whose in-flight count is now the
        // smallest; least-outstanding alone would send the retry straight back to it
        GatewayCore<String> two = Fixtures.core(Fixtures.withDispatch(
                "{backendTimeout: 5s, idleTimeout: 5s, ejection: {threshold: 5, baseBackoff: 10s}}", 3, "1s",
                "http://127.0.0.1:1", "http://127.0.0.1:2"), Schedulers.ofWeightedRoundRobin());
        Ticket<String> get = two.offer("GET", "basic", 0);
        two.next(0);
        int first = get.server();
        Ticket<String> filler = two.offer("filler", "basic", 0);
        two.next(0);
        assertThat(filler.server()).isNotEqualTo(first);
        assertThat(two.failed(get, ServerHealth.Failure.RESET, true, true, MS)).isTrue();
        assertThat(two.health().ejected(first, MS)).isFalse();
        assertThat(two.next(MS)).isSameAs(get);
        assertThat(get.server()).as("the retry avoids the server it failed on").isEqualTo(filler.server());
        two.complete(get, Outcome.OK, 2 * MS);
        assertThat(get.dropReason()).isNull();
        // an unsent request refused by `first` also goes elsewhere
        Ticket<String> refused = two.offer("GET", "basic", 3 * MS);
        two.next(3 * MS);
        assertThat(refused.server()).isEqualTo(first);
        assertThat(two.failed(refused, ServerHealth.Failure.CONNECT_REFUSED, false, true, 4 * MS)).isTrue();
        assertThat(two.next(4 * MS)).isSameAs(refused);
        assertThat(refused.server()).isEqualTo(filler.server());
        // a fresh request is not affected: it goes to the least loaded, `first`
        Ticket<String> fresh = two.offer("GET", "basic", 5 * MS);
        two.next(5 * MS);
        assertThat(fresh.server()).isEqualTo(first);
    }

    @Test
    void sentRequest_failingAgainOnAServerNowEjected_isRequeuedAgain_notAnswered502() {
        // one server, threshold 2: the retry can only go back to it, and its failure ejects it;
        // the fault is the server's, so the GET is requeued again instead of 502
        GatewayCore<String> one = Fixtures.core(Fixtures.withDispatch(
                "{backendTimeout: 5s, idleTimeout: 5s, ejection: {threshold: 2, baseBackoff: 10s}}", 3, "1s",
                "http://127.0.0.1:1"), Schedulers.ofWeightedRoundRobin());
        Ticket<String> get = one.offer("GET", "basic", 0);
        one.next(0);
        assertThat(one.failed(get, ServerHealth.Failure.RESET, true, true, MS)).isTrue();
        assertThat(one.health().ejected(0, MS)).isFalse();
        assertThat(one.next(MS)).as("the only server: the retry goes back to it").isSameAs(get);
        assertThat(one.failed(get, ServerHealth.Failure.RESET, true, true, 2 * MS)).as("requeued, not 502").isTrue();
        assertThat(one.health().ejected(0, 2 * MS)).isTrue();
        assertThat(get.state()).isEqualTo(Ticket.State.QUEUED);
        assertThat(one.next(2 * MS)).as("nothing takes it while the server is out").isNull();
        // a POST that was sent still gets 502, ejected server or not
        GatewayCore<String> two = Fixtures.core(Fixtures.twoClasses(3, "1s", "http://127.0.0.1:1", "http://127.0.0.1:2"),
                Schedulers.ofWeightedRoundRobin());
        Ticket<String> post = two.offer("POST", "basic", 4 * MS);
        two.next(4 * MS);
        assertThat(two.failed(post, ServerHealth.Failure.RESET, true, false, 5 * MS)).isFalse();
        assertThat(post.dropReason()).isEqualTo(DropReason.BACKEND_ERROR);
    }

    @Test
    void sentRequest_isRequeuedOnceIfIdempotent_elseGets502() {
        GatewayCore<String> two = Fixtures.core(Fixtures.twoClasses(3, "1s", "http://127.0.0.1:1", "http://127.0.0.1:2"),
                Schedulers.ofWeightedRoundRobin());
        Ticket<String> get = two.offer("GET", "basic", 0);
        two.next(0);
        assertThat(two.failed(get, ServerHealth.Failure.RESET, true, true, MS)).isTrue();
        two.next(MS);
        assertThat(two.failed(get, ServerHealth.Failure.RESET, true, true, 2 * MS)).isFalse();
        assertThat(get.state()).isEqualTo(Ticket.State.DONE);
        assertThat(get.dropReason()).isEqualTo(DropReason.BACKEND_ERROR);
        Ticket<String> post = two.offer("POST", "basic", 3 * MS);
        two.next(3 * MS);
        assertThat(two.failed(post, ServerHealth.Failure.RESET, true, false, 4 * MS)).isFalse();
        assertThat(post.dropReason()).isEqualTo(DropReason.BACKEND_ERROR);
        // an unsent POST (refused) is requeued whatever its method
        Ticket<String> refused = two.offer("POST", "basic", 5 * MS);
        two.next(5 * MS);
        assertThat(two.failed(refused, ServerHealth.Failure.CONNECT_REFUSED, false, false, 6 * MS)).isTrue();
        assertThat(two.inFlightTotal()).isZero();
    }

    @Test
    void sentRequest_failingAgainOnTheSameServer_beforeItIsEjected_isRequeued_upToTheThreshold() {
        // threshold 3, one slot per server (N = 1 each, so "full" is one request): s2 is busy, so
        // the GET's retry can only go back to s1, whose failures are not yet an ejection
        GatewayCore<String> two = Fixtures.core(Fixtures.parse("""
                classes:
                  - {name: basic, target: 2s, default: true, queue: {limit: 10, timeout: 5s}}
                servers:
                  - {id: s1, url: 'http://127.0.0.1:1', concurrency: 1}
                  - {id: s2, url: 'http://127.0.0.1:2', concurrency: 1}
                gateways:
                  - {id: g1, port: 0, adminPort: 0}
                dispatch: {backendTimeout: 5s, idleTimeout: 5s, ejection: {threshold: 3, baseBackoff: 10s}}
                """), Schedulers.ofWeightedRoundRobin());
        Ticket<String> get = two.offer("GET", "basic", 0);
        two.next(0);
        int s1 = get.server();
        Ticket<String> busy = two.offer("other", "basic", 0);
        assertThat(two.next(0)).isSameAs(busy);
        assertThat(busy.server()).isNotEqualTo(s1);
        assertThat(two.failed(get, ServerHealth.Failure.RESET, true, true, MS)).as("first failure: requeued").isTrue();
        assertThat(two.next(MS)).isSameAs(get);
        assertThat(get.server()).as("the other server is full").isEqualTo(s1);
        assertThat(two.failed(get, ServerHealth.Failure.RESET, true, true, 2 * MS))
                .as("the same server failed it again, not yet ejected: requeued, not 502").isTrue();
        assertThat(two.health().ejected(s1, 2 * MS)).isFalse();
        assertThat(two.next(2 * MS)).isSameAs(get);
        assertThat(two.failed(get, ServerHealth.Failure.RESET, true, true, 3 * MS)).as("third failure ejects s1").isTrue();
        assertThat(two.health().ejected(s1, 3 * MS)).isTrue();
        assertThat(two.next(3 * MS)).as("waits for s2").isNull();
        two.responded(busy, 200, 4 * MS);
        two.complete(busy, Outcome.OK, 4 * MS);
        assertThat(two.next(4 * MS)).isSameAs(get);
        assertThat(get.server()).isNotEqualTo(s1);
        assertThat(two.failed(get, ServerHealth.Failure.RESET, true, true, 5 * MS))
                .as("a failure on a server it had not failed on, still in service: its retry is spent, 502").isFalse();
        assertThat(get.dropReason()).isEqualTo(DropReason.BACKEND_ERROR);
    }

    @Test
    void oneFailedExchange_isOneServerError_whetherItIsRequeuedOrAnswered502() {
        // threshold 5: nothing is ejected; s1 and s2 each fail exactly one exchange
        GatewayCore<String> two = Fixtures.core(Fixtures.withDispatch(
                "{backendTimeout: 5s, idleTimeout: 5s, ejection: {threshold: 5, baseBackoff: 10s}}", 3, "5s",
                "http://127.0.0.1:1", "http://127.0.0.1:2"), Schedulers.ofWeightedRoundRobin());
        Ticket<String> get = two.offer("GET", "basic", 0);
        two.next(0);
        int first = get.server();
        assertThat(two.failed(get, ServerHealth.Failure.RESET, true, true, MS)).as("requeued").isTrue();
        assertThat(two.next(MS)).isSameAs(get);
        int second = get.server();
        assertThat(second).isNotEqualTo(first);
        assertThat(two.failed(get, ServerHealth.Failure.RESET, true, true, 2 * MS)).as("its retry spent: 502").isFalse();
        GatewayStats s = two.snapshot(Instant.EPOCH, 3 * MS);
        assertThat(s.servers().get("s" + (first + 1)).errors()).as("the server that failed first").isEqualTo(1);
        assertThat(s.servers().get("s" + (second + 1)).errors()).as("the server whose failure ended it in 502").isEqualTo(1);
    }

    @Test
    void ejectedServer_reportsCapZeroAndDown_andCanServeFollowsIt() {
        GatewayCore<String> one = Fixtures.core(Fixtures.withDispatch(
                "{ejection: {threshold: 2, baseBackoff: 1s}}", 3, "5s", "http://127.0.0.1:1"),
                Schedulers.ofWeightedRoundRobin());
        assertThat(one.canServe(0)).isTrue();
        for (int i = 0; i < 2; i++) {
            Ticket<String> t = one.offer("x" + i, "basic", 0);
            one.next(0);
            one.responded(t, 503, MS);
            one.complete(t, Outcome.OK, MS);
        }
        assertThat(one.canServe(MS)).isFalse();
        GatewayStats.ServerStats s1 = one.snapshot(Instant.EPOCH, 2 * MS).servers().get("s1");
        assertThat(s1.up()).isFalse();
        assertThat(s1.cap()).isZero();
        // after the backoff one trial goes; its success brings the server back
        Ticket<String> a = one.offer("a", "basic", 1001 * MS);
        Ticket<String> b = one.offer("b", "basic", 1001 * MS);
        assertThat(one.next(1001 * MS)).isSameAs(a);
        assertThat(one.next(1001 * MS)).isNull();
        one.responded(a, 200, 1002 * MS);
        assertThat(one.next(1002 * MS)).isSameAs(b);
        assertThat(one.canServe(1002 * MS)).isTrue();
        assertThat(one.snapshot(Instant.EPOCH, 1003 * MS).servers().get("s1").cap()).isEqualTo(10);
        assertThat(one.health().downTransitions(0)).isEqualTo(1);
        assertThat(one.health().upTransitions(0)).isEqualTo(1);
    }

    @Test
    void onAHalfOpenServer_onlyTheTrialsAnswerBringsItBack() {
        GatewayCore<String> one = Fixtures.core(Fixtures.withDispatch(
                "{ejection: {threshold: 1, baseBackoff: 1s}}", 3, "5s", "http://127.0.0.1:1"),
                Schedulers.ofWeightedRoundRobin());
        Ticket<String> early = one.offer("early", "basic", 0);
        Ticket<String> failing = one.offer("failing", "basic", 0);
        one.next(0);
        one.next(0);
        one.failed(failing, ServerHealth.Failure.RESET, true, false, MS);
        // the request sent before the ejection answers after the backoff: not the trial
        one.responded(early, 200, 1001 * MS);
        assertThat(one.health().state(0, 1001 * MS)).isEqualTo(ServerHealth.State.HALF_OPEN);
        Ticket<String> trial = one.offer("trial", "basic", 1001 * MS);
        assertThat(one.next(1001 * MS)).isSameAs(trial);
        one.responded(trial, 200, 1002 * MS);
        assertThat(one.health().state(0, 1002 * MS)).isEqualTo(ServerHealth.State.UP);
    }

    @Test
    void allServersCappedAtZero_cannotServe() {
        GatewayCore<String> one = Fixtures.core(Fixtures.twoClasses(3, "5s", "http://127.0.0.1:1"),
                Schedulers.ofWeightedRoundRobin());
        one.applyAllocation(Fixtures.allocation(1, Map.of(), Map.of("s1", 0)));
        assertThat(one.canServe(0)).isFalse();
    }

    @Test
    void cancelledRequests_leaveTheirQueueOrFreeTheirSlot() {
        Ticket<String> a = core.offer("a", "basic", 0);
        core.next(0);
        core.cancel(a, MS);
        assertThat(core.inFlightTotal()).isZero();
        for (int i = 0; i < 10; i++) {
            core.offer("f", "basic", 0);
            drain(0);
        }
        Ticket<String> q = core.offer("q", "basic", 0);
        core.cancel(q, MS);
        assertThat(core.queued()).isZero();
        assertThat(q.state()).isEqualTo(Ticket.State.DONE);
    }

    @Test
    void snapshot_reportsRatesTimesAndTsaiCounters() {
        // 1 s: 20 premium requests, one every 50 ms, each served 100 ms: two in flight throughout.
        List<Ticket<String>> running = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            long at = i * 50 * MS;
            if (running.size() == 2) {
                core.complete(running.remove(0), Outcome.OK, at);
            }
            core.offer("p", "premium", at);
            running.add(core.next(at));
        }
        for (int i = 0; i < 15; i++) {
            core.offer("b", "basic", 999 * MS);
        }
        GatewayStats s = core.snapshot(Instant.parse("2026-01-01T00:00:00Z"), 1000 * MS);
        GatewayStats.ClassStats p = s.classes().get("premium");
        assertThat(p.arrivalRate()).isCloseTo(20, within(0.5));
        assertThat(p.throughput()).isCloseTo(18, within(0.5));
        assertThat(p.inFlight()).isEqualTo(2);
        assertThat(p.meanResponseTime()).isCloseTo(0.1, within(0.005));
        assertThat(p.meanServiceTime()).isCloseTo(0.1, within(0.005));
        assertThat(p.p95ResponseTime()).isCloseTo(0.1, within(0.005));
        assertThat(p.weight()).isEqualTo(8.0);
        GatewayStats.ClassStats b = s.classes().get("basic");
        assertThat(b.period().arrivals()).isEqualTo(15);
        assertThat(b.period().accepted()).isZero(); // queued, none taken into service yet
        assertThat(b.period().dropped()).isEqualTo(12);
        // 000 §5: Δℓ = n_arr − (n_acc + n_d)
        assertThat(b.period().arrivals() - b.period().accepted() - b.period().dropped()).isEqualTo(b.queueLength());
        GatewayStats.ClassStats pr = s.classes().get("premium");
        assertThat(pr.period().accepted()).isEqualTo(pr.period().arrivals() - pr.queueLength());
        assertThat(b.drops()).containsEntry("queueFull", 12L);
        assertThat(b.period().queueLimit()).isEqualTo(3);
        assertThat(b.period().peakArrivalRate()).isCloseTo(150, within(1.0));
        assertThat(s.servers().get("s1").cap()).isEqualTo(10);
        assertThat(s.servers().get("s1").meanInFlight()).isCloseTo(2, within(0.2));
    }

    @Test
    void backlog_isTheTimeARequestWaitedForABusySlot_andTheDispatchesMeanwhile() {
        GatewayCore<String> c = Fixtures.core(Fixtures.twoClasses(100, "10s"), Schedulers.ofWeightedRoundRobin());
        List<Ticket<String>> running = new ArrayList<>();
        // ten slots filled; the first taken a little after its arrival (an adapter's pump): not a backlog
        c.offer("p0", "premium", 0);
        running.add(c.next(MS / 100));
        for (int i = 1; i < 10; i++) {
            c.offer("p" + i, "premium", MS);
            running.add(c.next(MS));
        }
        c.offer("w1", "premium", 100 * MS); // no free slot: the backlog starts
        c.offer("w2", "basic", 100 * MS);
        assertThat(c.next(100 * MS)).isNull();
        c.complete(running.remove(0), Outcome.OK, 300 * MS);
        assertThat(c.next(300 * MS)).isNotNull();
        c.complete(running.remove(0), Outcome.OK, 500 * MS);
        assertThat(c.next(500 * MS)).isNotNull(); // the last waiting one: the backlog ends
        Ticket<String> w3 = c.offer("w3", "premium", 600 * MS);
        assertThat(c.next(600 * MS)).isNull(); // the adapter's pump after an offer: no slot, a backlog
        c.cancel(w3, 700 * MS); // a waiting request that leaves ends it too, with nothing dispatched
        c.complete(running.remove(0), Outcome.OK, 800 * MS);
        c.offer("p", "premium", 900 * MS);
        assertThat(c.next(900 * MS)).isNotNull(); // a free slot: no backlog
        GatewayStats s = c.snapshot(Instant.parse("2026-01-01T00:00:00Z"), 1000 * MS);
        GatewayStats.Backlog b = s.backlog();
        assertThat(b.periodSeconds()).isEqualTo(s.classes().get("premium").period().periodSeconds()); // 000 §5.3's sampling period
        assertThat(b.seconds()).isCloseTo(0.5, within(1e-9));
        assertThat(b.dispatched()).isEqualTo(2);
    }
}
