package org.arbiter.gateway;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.utility.YieldFunction;
import org.arbiter.gateway.stats.StatsRecorder;

/*
 * The gateway's data plane without I/O (docs/architecture.md, the data loop; 003 §III).
 *
 * Queue:    one bounded FIFO per class (queue.limit, queue.timeout). A request that finds its queue
 *           full is rejected (queueFull); one that waits longer than the timeout is expired
 *           (queueTimeout). Nothing is dropped silently: every ticket ends in exactly one state.
 * Schedule: while some server has inflight(g,s) < N(g,s) and some queue is non-empty, the
 *           Scheduler picks the class (wrr: smallest inflight_c / w(g,c)) and the Balancer the
 *           server. So no slot idles while a queue is non-empty (work conservation), and a
 *           dispatch never makes inflight(g,s) exceed N(g,s).
 * Allocation: applyAllocation swaps all weights and caps at once. Lowering a cap below the
 *           current in-flight count cuts nothing off: the excess drains as requests complete, and
 *           the server gets nothing new until it is under its new cap.
 * Health:   ServerHealth ejects a server after dispatch.ejection.threshold failures in a row, for
 *           a backoff that grows; then one trial request (or a passing probe) brings it back. A
 *           server counts as available only while ServerHealth admits it, so "no slot idles while
 *           a queue is non-empty" reads "…and a server is up".
 * Yield:    every class has a yield function (002 §2.2; YieldFunction.of(ClassConfig)): each arrival
 *           offers its full yield, each completion realises Y_c(response time), a drop realises 0
 *           (StatsRecorder, GatewayStats yield). The core also keeps what 002's schedulers read
 *           (Scheduler.ClassView): per class an EWMA of the measured service times (dispatch to
 *           completion, weight SERVICE_EWMA on the newest), the decayed consumption u_c(t) of 002
 *           eq. 2-3 (β = 0.95 per second, s(r) = the service seconds, updated at each completion) and
 *           the same sum with a short memory (β = 0.75 per second; step 2a reads both, YieldScheduler),
 *           and the gateway's drops over arrivals in dispatch.adaptive.window (RecentDrops).
 *           With a scheduler that dropsZeroYield (edf, yid, greedy, adaptive), a queue head whose
 *           wait + expected service reaches its deadline D_c is dropped (002 Fig. 5 step 1):
 *           next returns it EXPIRED with dropReason ZERO_YIELD (answer 503 and call next again),
 *           and expireQueued drops such heads too; nextExpiryNanos includes when they fall due.
 * Requeue:  a request whose server failed before any byte of it was sent (refused, connect
 *           timeout) goes back to the head of its class queue, keeping its arrival time: it
 *           is dispatched when a slot frees, or expires at its queue timeout (503). A request that
 *           had been sent is requeued once if idempotent (RFC 9110 §9.2.2), else answered 502.
 *           A requeued request goes to another server than the one it failed on whenever one has
 *           a free slot; failing again on that same server (none other was free) does not spend
 *           the retry, up to dispatch.ejection.threshold retries in all, nor does failing on a
 *           server ejected by then.
 *           Each class queue stays ordered by arrival (a requeued ticket goes before every ticket
 *           that arrived after it), so the head is always the next to expire.
 *
 * Time:     nothing here reads a clock; every operation takes nowNanos (monotonic, any origin), so
 *           the discrete-event simulator and the tests drive it in virtual time.
 * Threads:  none, and not thread-safe. The Netty adapter confines one core to one event loop; a
 *           simulator calls it from its single thread. Only the int/double getters may be read
 *           from other threads (for gauges), with no guarantee of freshness.
 */

/**
 * The gateway's pure core: classify elsewhere, then {@link #offer} → {@link #next} →
 * {@link #complete}; {@link #responded} when a response head arrives, {@link #failed} when a server
 * fails before it (which may requeue the request), {@link #probed} for active health checks;
 * {@link #expireQueued} for queue timeouts; {@link #applyAllocation} to follow the GRM;
 * {@link #snapshot} for {@link GatewayStats}; {@link #canServe} for readiness. See the design note
 * in the source.
 *
 * <p>Not thread-safe: confine an instance to one thread (one event loop, or the simulator).
 *
 * @param <R> the adapter's request type (a Netty request, a simulator record)
 */
public final class GatewayCore<R> {

    private final String gatewayId;
    private final String[] classNames;
    private final Map<String, Integer> classIndex = new HashMap<>();
    private final int defaultClass;
    private final int[] queueLimits;
    private final long[] queueTimeoutNanos;
    private final ArrayDeque<Ticket<R>>[] queues;
    private final int[] classInFlight;
    private final double[] weights;
    private String[] serverIds;
    private final Map<String, Integer> serverIndex = new HashMap<>();
    private int[] caps;
    private int[] serverInFlight;
    /** Servers a reload removed: cap 0 whatever the allocation says; their in-flight requests finish. */
    private boolean[] retired;
    /**
     * Caps of servers a reload added while a GRM allocation is in force, until an allocation names
     * them (a GRM that has not read the new file yet would otherwise give them 0).
     */
    private final Map<String, Integer> provisionalCaps = new HashMap<>();
    private final ServerHealth health;
    /** Retries after sending, on the server a request failed on last time, that do not spend its one retry. */
    private final int sameServerRetries;
    private final Scheduler scheduler;
    private final Balancer balancer;
    private final StatsRecorder stats;
    private final YieldFunction[] yields;
    private final long[] deadlineNanos;
    private final double[] minShares;
    /** EWMA of measured service seconds per class; NaN before the first completion. */
    private final double[] serviceEwma;
    /** u_c(t) of 002 eq. 2-3 as of usageAtNanos. */
    private final double[] usage;
    /** The same with RECENT_CONSUMPTION_DECAY_PER_SECOND, as of usageAtNanos. */
    private final double[] recentUsage;
    private long usageAtNanos;
    private final RecentDrops recentDrops;
    /** Load polls (002 §3): answers, misses, skips; only servers with a loadUrl are polled. */
    private final PollBook polls;
    private boolean[] pollable;
    private boolean[] pollWanted;
    private final ArrayDeque<Integer> pollOutbox = new ArrayDeque<>();
    private final double[] offeredYield;
    private final double[] realisedYield;
    /**
     * The backlog: from a dispatch attempt that found no free slot with requests queued, until the
     * queues are empty. Meanwhile every slot is busy and each dispatch fills one a completion freed.
     */
    private boolean backlogged;
    private Allocation allocation;
    private long sequence;
    private long now;
    private int queued;

    private final Scheduler.ClassView classView = new Scheduler.ClassView() {
        @Override
        public int classCount() {
            return classNames.length;
        }

        @Override
        public int backlog(int c) {
            return queues[c].size();
        }

        @Override
        public int inFlight(int c) {
            return classInFlight[c];
        }

        @Override
        public double weight(int c) {
            return weights[c];
        }

        @Override
        public long headSequence(int c) {
            Ticket<R> head = queues[c].peekFirst();
            return head == null ? Long.MAX_VALUE : head.sequence;
        }

        @Override
        public long nowNanos() {
            return now;
        }

        @Override
        public long headArrivalNanos(int c) {
            Ticket<R> head = queues[c].peekFirst();
            return head == null ? now : head.arrivalNanos();
        }

        @Override
        public YieldFunction yield(int c) {
            return yields[c];
        }

        @Override
        public double expectedServiceSeconds(int c) {
            return GatewayCore.this.expectedServiceSeconds(c);
        }

        @Override
        public double consumption(int c) {
            return usage[c];   // as of the latest completion, as every class's: the shares are those of now
        }

        @Override
        public double recentConsumption(int c) {
            return recentUsage[c];
        }

        @Override
        public double minShare(int c) {
            return minShares[c];
        }

        @Override
        public double dropRatio() {
            return recentDrops.ratio(now);
        }
    };

    private final Balancer.ServerView serverView = new Balancer.ServerView() {
        @Override
        public int serverCount() {
            return serverIds.length;
        }

        @Override
        public int inFlight(int s) {
            return serverInFlight[s];
        }

        @Override
        public int cap(int s) {
            return caps[s];
        }

        @Override
        public boolean available(int s) {
            return serverInFlight[s] < caps[s] && health.admits(s, now);
        }

        @Override
        public int polledLoad(int s) {
            return polls.load(s, now);
        }

        @Override
        public boolean skipped(int s) {
            return polls.skipped(s, now);
        }

        @Override
        public void wantPoll(int s) {
            if (pollable[s] && !pollWanted[s]) {
                pollWanted[s] = true;
                pollOutbox.addLast(s);
            }
        }
    };

    /**
     * @param cluster    classes (queues, limits, timeouts, initial weights), servers, control (window, report period)
     * @param gatewayId  this gateway's id (stamped on snapshots; allocations for others are ignored)
     * @param initial    the allocation to start from (see {@code ConfiguredAllocation})
     * @param scheduler  which class goes next
     * @param balancer   which server
     * @param nowNanos   the start of time for this core
     */
    @SuppressWarnings("unchecked")
    public GatewayCore(ClusterConfig cluster, String gatewayId, Allocation initial, Scheduler scheduler,
                       Balancer balancer, long nowNanos) {
        requireNonNull(cluster, "cluster");
        this.gatewayId = requireNonNull(gatewayId, "gatewayId");
        this.scheduler = requireNonNull(scheduler, "scheduler");
        this.balancer = requireNonNull(balancer, "balancer");
        List<ClassConfig> classes = cluster.classes();
        int nc = classes.size();
        classNames = new String[nc];
        queueLimits = new int[nc];
        queueTimeoutNanos = new long[nc];
        queues = new ArrayDeque[nc];
        classInFlight = new int[nc];
        weights = new double[nc];
        yields = new YieldFunction[nc];
        deadlineNanos = new long[nc];
        minShares = new double[nc];
        serviceEwma = new double[nc];
        usage = new double[nc];
        recentUsage = new double[nc];
        offeredYield = new double[nc];
        realisedYield = new double[nc];
        java.util.Arrays.fill(serviceEwma, Double.NaN);
        for (int c = 0; c < nc; c++) {
            ClassConfig cc = classes.get(c);
            yields[c] = YieldFunction.of(cc);
            deadlineNanos[c] = yields[c].deadlineNanos();
            minShares[c] = cc.minShare();
            classNames[c] = cc.name();
            classIndex.put(cc.name(), c);
            queueLimits[c] = cc.queue().limit();
            queueTimeoutNanos[c] = (long) (cc.queue().timeoutSeconds() * 1e9);
            queues[c] = new ArrayDeque<>();
            weights[c] = cc.weight();
        }
        int def = nc - 1;
        for (int c = 0; c < nc; c++) {
            if (classes.get(c).isDefault()) {
                def = c;
            }
        }
        this.defaultClass = def;
        List<ServerConfig> servers = cluster.servers();
        int ns = servers.size();
        serverIds = new String[ns];
        caps = new int[ns];
        serverInFlight = new int[ns];
        retired = new boolean[ns];
        boolean[] probed = new boolean[ns];
        polls = new PollBook(ns);
        pollable = new boolean[ns];
        pollWanted = new boolean[ns];
        for (int s = 0; s < ns; s++) {
            serverIds[s] = servers.get(s).id();
            serverIndex.put(serverIds[s], s);
            caps[s] = servers.get(s).concurrency();
            probed[s] = servers.get(s).health().enabled();
            pollable[s] = servers.get(s).loadUrl() != null;
        }
        this.health = new ServerHealth(serverIds, cluster.dispatch().ejection(), probed);
        this.sameServerRetries = cluster.dispatch().ejection().threshold();
        this.now = nowNanos;
        this.usageAtNanos = nowNanos;
        this.recentDrops = new RecentDrops(cluster.dispatch().adaptive().windowSeconds());
        this.stats = new StatsRecorder(List.of(classNames), List.of(serverIds), queueLimits,
                (long) (cluster.control().statsWindowSeconds() * 1e9),
                (long) (cluster.control().reportPeriodSeconds() * 1e9), nowNanos);
        this.allocation = requireNonNull(initial, "initial");
        install(initial);
    }

    // ---------------------------------------------------------------- requests

    /** Offers a request of class {@code className} (an unknown name falls to the default class). */
    public Ticket<R> offer(R request, String className, long nowNanos) {
        Integer c = classIndex.get(className);
        return offer(request, c == null ? defaultClass : c, nowNanos);
    }

    /**
     * Queues a request, or rejects it when its class queue is at its limit and it cannot go to a
     * server at once. The returned ticket is QUEUED or REJECTED (dropReason QUEUE_FULL); a QUEUED
     * ticket is released by {@link #next}.
     */
    public Ticket<R> offer(R request, int c, long nowNanos) {
        tick(nowNanos);
        Ticket<R> t = new Ticket<>(request, c, classNames[c], nowNanos, sequence++);
        int len = queues[c].size();
        stats.arrival(c, len, nowNanos);
        stats.offered(c, yields[c].full(), nowNanos);
        offeredYield[c] += yields[c].full();
        recentDrops.arrival(now);
        if (len >= queueLimits[c] && !(queued == 0 && anyServerAvailable())) {
            t.state = Ticket.State.REJECTED;
            t.dropReason = DropReason.QUEUE_FULL;
            stats.dropped(c, DropReason.QUEUE_FULL, nowNanos);
            recentDrops.drop(now);
            return t;
        }
        t.state = Ticket.State.QUEUED;
        queues[c].addLast(t);
        queued++;
        stats.accepted(c, nowNanos);
        stats.queueLength(c, queues[c].size(), nowNanos);
        return t;
    }

    /**
     * The next dispatch decision: a queued ticket, now DISPATCHED to {@link Ticket#server()}, or
     * null when no server has a free slot or every queue is empty. Call it until it returns null
     * after every event that may free a slot or fill a queue.
     *
     * <p>With a scheduler that {@link Scheduler#dropsZeroYield() drops zero-yield requests}, the
     * ticket may instead be EXPIRED with {@link DropReason#ZERO_YIELD}: a queue head that can earn
     * no yield, dropped (002 Fig. 5 step 1). Answer it (503) and call again.
     */
    public Ticket<R> next(long nowNanos) {
        tick(nowNanos);
        if (queued == 0) {
            return null;
        }
        if (scheduler.dropsZeroYield()) {
            for (int c = 0; c < queues.length; c++) {
                Ticket<R> head = queues[c].peekFirst();
                if (head != null && worthless(head, nowNanos)) {
                    return drop(queues[c].pollFirst(), DropReason.ZERO_YIELD, nowNanos);
                }
            }
        }
        int s = balancer.pick(serverView, -1);
        if (s < 0) {
            if (!backlogged) {
                backlogged = true;
                stats.backlogged(true, nowNanos);
            }
            return null;
        }
        int c = scheduler.next(classView);
        if (c < 0) {
            return null;
        }
        Ticket<R> t = queues[c].pollFirst();
        if (t.failedOn == s) {
            // a retry goes to another server when one has a free slot (HAProxy's redispatch): the
            // one it failed on may be dying with its failures not yet counted to an ejection
            int other = balancer.pick(serverView, s);
            if (other >= 0) {
                s = other;
            }
        }
        queued--;
        stats.queueLength(c, queues[c].size(), nowNanos);
        classInFlight[c]++;
        t.state = Ticket.State.DISPATCHED;
        t.dispatchNanos = nowNanos;
        if (t.attempts == 0) {
            // a requeued request was counted when it first left the queue (n_acc counts requests)
            stats.dispatched(c, nowNanos - t.arrivalNanos(), backlogged, nowNanos);
        }
        endBacklogIfEmpty(nowNanos);
        assign(t, s, nowNanos);
        return t;
    }

    private void assign(Ticket<R> t, int s, long nowNanos) {
        if (serverInFlight[s] >= caps[s]) {
            throw new IllegalStateException("server " + serverIds[s] + ": inflight " + serverInFlight[s]
                    + " (expected: < cap " + caps[s] + ")");
        }
        t.server = s;
        t.serverId = serverIds[s];
        t.attempts++;
        t.trial = health.dispatched(s, nowNanos);
        polls.sent(s);
        serverInFlight[s]++;
        stats.serverInFlight(s, serverInFlight[s], nowNanos);
    }

    /** The ticket leaves its server (done, failed, requeued): frees the slot, and a pending trial. */
    private void leaveServer(Ticket<R> t, long nowNanos) {
        if (t.trial) {
            t.trial = false;
            health.trialEnded(t.server, nowNanos);
        }
        release(t.server, nowNanos);
    }

    /**
     * Ends a DISPATCHED ticket: frees its class slot and its server slot, and records it (a
     * completion for OK, a drop for BACKEND_TIMEOUT / BACKEND_ERROR, nothing for CANCELLED).
     * BACKEND_TIMEOUT also counts as a failure of the server toward its ejection; a broken
     * exchange is reported with {@link #serverFailed} first (the simulator's power-off cuts
     * requests off with BACKEND_ERROR without it being the server's fault). A ticket that is not
     * DISPATCHED is left alone (ending twice is a no-op).
     */
    public void complete(Ticket<R> t, Outcome outcome, long nowNanos) {
        tick(nowNanos);
        if (t.state != Ticket.State.DISPATCHED) {
            if (t.state == Ticket.State.QUEUED && outcome == Outcome.CANCELLED) {
                cancel(t, nowNanos);
            }
            return;
        }
        if (outcome == Outcome.BACKEND_TIMEOUT) {
            serverFailed(t, ServerHealth.Failure.TIMEOUT, nowNanos);
        }
        end(t, outcome, nowNanos);
    }

    /**
     * The server of a DISPATCHED request failed in a way that does not end the request here (a
     * response broken off mid-stream, before {@code complete(BACKEND_ERROR)}): counts toward its
     * ejection.
     */
    public void serverFailed(Ticket<R> t, ServerHealth.Failure f, long nowNanos) {
        requireNonNull(f, "f");
        tick(nowNanos);
        if (t.state != Ticket.State.DISPATCHED) {
            return;
        }
        health.failure(t.server, f, nowNanos);
        if (f.counts()) {
            t.trial = false; // the verdict is in
        }
    }

    private void end(Ticket<R> t, Outcome outcome, long nowNanos) {
        t.state = Ticket.State.DONE;
        int c = t.classIndex();
        classInFlight[c]--;
        leaveServer(t, nowNanos);
        switch (outcome) {
            case OK -> {
                long responseNanos = nowNanos - t.arrivalNanos();
                long serviceNanos = nowNanos - t.dispatchNanos;
                stats.completed(c, t.server, responseNanos, serviceNanos, nowNanos);
                double y = yields[c].yield(responseNanos / 1e9);
                stats.realised(c, y, nowNanos);
                realisedYield[c] += y;
                served(c, serviceNanos / 1e9);
            }
            case BACKEND_TIMEOUT -> {
                t.dropReason = DropReason.BACKEND_TIMEOUT;
                stats.dropped(c, DropReason.BACKEND_TIMEOUT, nowNanos);
                stats.serverError(t.server, nowNanos);
            }
            case BACKEND_ERROR -> {
                t.dropReason = DropReason.BACKEND_ERROR;
                stats.dropped(c, DropReason.BACKEND_ERROR, nowNanos);
                stats.serverError(t.server, nowNanos);
            }
            case CANCELLED -> { }
        }
    }

    private void release(int s, long nowNanos) {
        serverInFlight[s]--;
        stats.serverInFlight(s, serverInFlight[s], nowNanos);
    }

    /**
     * The response head of a DISPATCHED request arrived with {@code status}: a success of its
     * server (on a half-open server, only if this is its trial), or (5xx) a failure toward its
     * ejection. The response is delivered either way; end
     * the ticket with {@link #complete} when it has been.
     */
    public void responded(Ticket<R> t, int status, long nowNanos) {
        tick(nowNanos);
        if (t.state != Ticket.State.DISPATCHED) {
            return;
        }
        if (status >= 500) {
            serverFailed(t, ServerHealth.Failure.SERVER_ERROR, nowNanos);
        } else if (t.trial || health.state(t.server, nowNanos) == ServerHealth.State.UP) {
            // on a half-open server only the trial's answer counts: a request sent before the
            // ejection that answers now says nothing about the server since
            health.success(t.server, nowNanos);
            t.trial = false;
        }
    }

    /**
     * A DISPATCHED request's server failed before any byte of the response ({@code f}). The
     * failure counts toward the server's ejection. Then, if no byte of the request had reached
     * the server ({@code !sent}: refused, connect timeout), or it had but the request is
     * {@code idempotent} and this is its first such failure (or the server is ejected by now: the
     * fault is the server's, and the retry is not spent), the request goes back to the head of
     * its class queue (QUEUED, keeping its arrival time and so its queue timeout) and this returns
     * true: call {@link #next} to dispatch it. Otherwise it ends with BACKEND_ERROR and this
     * returns false: answer 502.
     */
    public boolean failed(Ticket<R> t, ServerHealth.Failure f, boolean sent, boolean idempotent, long nowNanos) {
        requireNonNull(f, "f");
        tick(nowNanos);
        if (t.state != Ticket.State.DISPATCHED) {
            return false;
        }
        serverFailed(t, f, nowNanos);
        // A failure on a server that is now ejected (this failure, or earlier ones, took it out of
        // service) is the server's, not the request's: an idempotent request goes back without
        // spending its one retry. Without this, a retry dispatched in the milliseconds before the
        // ejection to a server being killed (its listener still accepting during the process's
        // teardown) failed a second time and got 502 (BackendHealthSocketTest, 3 of 2 172).
        boolean serverOut = health.ejected(t.server, nowNanos);
        // Failed on the same server as last time (the retry found no other with a free slot): the
        // server, not the request, is the suspect — each failure counts toward its ejection — so
        // the retry is not spent, up to the ejection threshold in all (a server that fails only
        // this request, and so is never ejected, still ends it with 502 then). Without this a
        // retry that went back to a server killed a moment before, its failures not yet counted
        // to an ejection, got 502 (BackendHealthSocketTest, 1 of 2 130 once more).
        boolean sameServerAgain = sent && t.failedOn == t.server && t.sentRetries < sameServerRetries;
        if (!sent || idempotent && (t.sentRetries == 0 || serverOut || sameServerAgain)) {
            if (sent && !serverOut) {
                t.sentRetries++;
            }
            stats.serverError(t.server, nowNanos);
            requeue(t, nowNanos);
            return true;
        }
        end(t, Outcome.BACKEND_ERROR, nowNanos); // counts the server error once
        return false;
    }

    /** Back to the queue, before every ticket of its class that arrived after it. */
    private void requeue(Ticket<R> t, long nowNanos) {
        int c = t.classIndex();
        classInFlight[c]--;
        leaveServer(t, nowNanos);
        t.state = Ticket.State.QUEUED;
        t.failedOn = t.server;
        t.server = -1;
        t.serverId = null;
        ArrayDeque<Ticket<R>> q = queues[c];
        if (q.isEmpty() || q.peekFirst().sequence > t.sequence) {
            q.addFirst(t);
        } else {
            ArrayDeque<Ticket<R>> older = new ArrayDeque<>();
            while (!q.isEmpty() && q.peekFirst().sequence < t.sequence) {
                older.addLast(q.pollFirst());
            }
            q.addFirst(t);
            while (!older.isEmpty()) {
                q.addFirst(older.pollLast());
            }
        }
        queued++;
        stats.queueLength(c, q.size(), nowNanos);
    }

    /** An active health check of server s passed ({@code ok}) or failed. */
    public void probed(int s, boolean ok, long nowNanos) {
        tick(nowNanos);
        if (ok) {
            health.success(s, nowNanos);
        } else {
            health.failure(s, ServerHealth.Failure.PROBE, nowNanos);
        }
    }

    /** The client went away: a QUEUED ticket leaves its queue, a DISPATCHED one frees its slots. */
    public void cancel(Ticket<R> t, long nowNanos) {
        tick(nowNanos);
        if (t.state == Ticket.State.QUEUED) {
            queues[t.classIndex()].remove(t);
            queued--;
            t.state = Ticket.State.DONE;
            endBacklogIfEmpty(nowNanos);
            stats.queueLength(t.classIndex(), queues[t.classIndex()].size(), nowNanos);
        } else if (t.state == Ticket.State.DISPATCHED) {
            complete(t, Outcome.CANCELLED, nowNanos);
        }
    }

    /**
     * Removes and returns every ticket queued longer than its class allows (EXPIRED, dropReason
     * QUEUE_TIMEOUT) and, with a scheduler that drops zero-yield requests, every queue head that can
     * earn no yield (EXPIRED, dropReason ZERO_YIELD). Answer each with a 503.
     */
    public List<Ticket<R>> expireQueued(long nowNanos) {
        tick(nowNanos);
        List<Ticket<R>> expired = List.of();
        boolean zeroYield = scheduler.dropsZeroYield();
        for (int c = 0; c < queues.length; c++) {
            ArrayDeque<Ticket<R>> q = queues[c];
            while (!q.isEmpty()) {
                Ticket<R> head = q.peekFirst();
                DropReason reason;
                if (nowNanos - head.arrivalNanos() >= queueTimeoutNanos[c]) {
                    reason = DropReason.QUEUE_TIMEOUT;
                } else if (zeroYield && worthless(head, nowNanos)) {
                    reason = DropReason.ZERO_YIELD;
                } else {
                    break;
                }
                if (expired.isEmpty()) {
                    expired = new ArrayList<>();
                }
                expired.add(drop(q.pollFirst(), reason, nowNanos));
            }
        }
        return expired;
    }

    /** A ticket just taken from its queue head is dropped: EXPIRED with {@code reason}, counted. */
    private Ticket<R> drop(Ticket<R> t, DropReason reason, long nowNanos) {
        int c = t.classIndex();
        queued--;
        t.state = Ticket.State.EXPIRED;
        t.dropReason = reason;
        endBacklogIfEmpty(nowNanos);
        stats.dropped(c, reason, nowNanos);
        stats.queueLength(c, queues[c].size(), nowNanos);
        recentDrops.drop(now);
        return t;
    }

    /** 002 Fig. 5 step 1: wait so far + expected service reaches the yield deadline, so no yield can be earned. */
    private boolean worthless(Ticket<R> t, long nowNanos) {
        int c = t.classIndex();
        return nowNanos - t.arrivalNanos() + expectedServiceNanos(c) >= deadlineNanos[c];
    }

    private long expectedServiceNanos(int c) {
        return Math.round(expectedServiceSeconds(c) * 1e9);
    }

    /**
     * When the next queued request will be dropped (queue timeout, or with a yield scheduler the
     * time its head falls to zero yield at today's service estimate), or Long.MAX_VALUE when nothing is queued.
     */
    public long nextExpiryNanos() {
        long next = Long.MAX_VALUE;
        boolean zeroYield = scheduler.dropsZeroYield();
        for (int c = 0; c < queues.length; c++) {
            Ticket<R> head = queues[c].peekFirst();
            if (head != null) {
                next = Math.min(next, head.arrivalNanos() + queueTimeoutNanos[c]);
                if (zeroYield) {
                    next = Math.min(next, head.arrivalNanos() + deadlineNanos[c] - expectedServiceNanos(c));
                }
            }
        }
        return next;
    }

    // ---------------------------------------------------------------- yield scheduling state

    /** Weight of the newest measurement in the per-class EWMA of service times. */
    static final double SERVICE_EWMA = 0.05;
    /** β of 002 eq. 2-3: a request completed one second ago weighs 0.95 of one completed now. */
    static final double CONSUMPTION_DECAY_PER_SECOND = 0.95;
    /** β of the short memory step 2a also reads (YieldScheduler): 3.5 s time constant. */
    static final double RECENT_CONSUMPTION_DECAY_PER_SECOND = 0.75;

    /** Class c's expected service time, s: the EWMA of its measured service times, 0 before the first. */
    public double expectedServiceSeconds(int c) {
        double e = serviceEwma[c];
        return Double.isNaN(e) ? 0 : e;
    }

    /** u_c of 002 eq. 2 as of the latest completion (decayed by eq. 3 at each completion). */
    public double consumption(int c) {
        return usage[c];
    }

    /** The full yield offered by class c's arrivals since the core started (may be read from other threads, a moment stale). */
    public double offeredYield(int c) {
        return offeredYield[c];
    }

    /** The yield class c's completions realised since the core started (may be read from other threads, a moment stale). */
    public double realisedYield(int c) {
        return realisedYield[c];
    }

    /** Gateway drops over arrivals in the adaptive window ending at the latest time the core was given. */
    public double recentDropRatio() {
        return recentDrops.ratio(now);
    }

    /** A request of class c completed after {@code serviceSeconds} at its server. */
    private void served(int c, double serviceSeconds) {
        double e = serviceEwma[c];
        serviceEwma[c] = Double.isNaN(e) ? serviceSeconds : e + SERVICE_EWMA * (serviceSeconds - e);
        long dt = now - usageAtNanos;
        if (dt > 0) {
            double decay = Math.pow(CONSUMPTION_DECAY_PER_SECOND, dt / 1e9);
            double recentDecay = Math.pow(RECENT_CONSUMPTION_DECAY_PER_SECOND, dt / 1e9);
            for (int k = 0; k < usage.length; k++) {
                usage[k] *= decay;
                recentUsage[k] *= recentDecay;
            }
            usageAtNanos = now;
        }
        usage[c] += serviceSeconds;
        recentUsage[c] += serviceSeconds;
    }

    // ---------------------------------------------------------------- load polls (002 §3)

    /**
     * The servers the balancer wants polled since the last call (each once, those with a loadUrl);
     * the adapter polls each and reports {@link #pollAnswered} or {@link #pollMissed}.
     */
    public List<Integer> drainPolls() {
        if (pollOutbox.isEmpty()) {
            return List.of();
        }
        List<Integer> out = new ArrayList<>(pollOutbox);
        pollOutbox.clear();
        return out;
    }

    /** Server s answered its poll within the deadline: {@code active + queued} requests. Ends its pending poll. */
    public void pollAnswered(int s, int active, int queued, long nowNanos) {
        tick(nowNanos);
        pollWanted[s] = false;
        polls.answered(s, Math.max(0, active) + Math.max(0, queued), nowNanos);
    }

    /** Server s's poll was not answered within {@code dispatch.poll.deadline}: discarded, counted toward a skip. */
    public void pollMissed(int s, long nowNanos) {
        tick(nowNanos);
        pollWanted[s] = false;
        polls.missed(s, nowNanos);
    }

    /** The poll book (misses, skips), for the adapter's log and tests. */
    public PollBook polls() {
        return polls;
    }

    // ---------------------------------------------------------------- servers

    /**
     * Skips server s for the base backoff, then gives it full traffic again without a trial nor a
     * transition: the simulator's model of a refused connection ({@link ServerHealth#hold}).
     */
    public void markDown(int s, long nowNanos) {
        tick(nowNanos);
        health.hold(s, nowNanos);
    }

    /** Server s is UP (not ejected, not on trial) as of the latest time the core was given. */
    public boolean isUp(int s) {
        return health.state(s, now) == ServerHealth.State.UP;
    }

    /** The servers' health (ejections, transitions), for the adapter's log and for tests. */
    public ServerHealth health() {
        return health;
    }

    /**
     * Whether some server can take a request now: one with N(g,s) > 0 that is UP, or whose backoff
     * is over and whose trial a client request may be (without an active check a half-open server
     * needs traffic to come back, so readiness must not keep traffic away from it). False when
     * every server is ejected or capped at 0 ("no server can take a request", for readiness).
     */
    public boolean canServe(long nowNanos) {
        tick(nowNanos);
        for (int s = 0; s < serverIds.length; s++) {
            if (caps[s] > 0) {
                ServerHealth.State st = health.state(s, nowNanos);
                if (st == ServerHealth.State.UP || st == ServerHealth.State.HALF_OPEN && !health.probeTrial(s)) {
                    return true;
                }
            }
        }
        return false;
    }

    /** A ticket left its queue: the backlog ends when the queues are empty. */
    private void endBacklogIfEmpty(long nowNanos) {
        if (backlogged && queued == 0) {
            backlogged = false;
            stats.backlogged(false, nowNanos);
        }
    }

    private boolean anyServerAvailable() {
        for (int s = 0; s < serverIds.length; s++) {
            if (serverView.available(s)) {
                return true;
            }
        }
        return false;
    }

    // ---------------------------------------------------------------- allocation

    /**
     * Swaps w(g,c) and N(g,s) at once. Ignored (returns false) when it is for another gateway or
     * not newer in (epoch, version) than the allocation in force (epoch 0 version 0 is the
     * configured allocation, replaced by any GRM allocation; a newer epoch beats any version of an
     * older one). Classes the allocation does not name keep their weight; servers it does not name
     * get cap 0; names this gateway does not know are ignored. Plausibility against the clock is the
     * caller's ({@code AllocationFollower}).
     */
    public boolean applyAllocation(Allocation a) {
        requireNonNull(a, "a");
        boolean configured = allocation.epoch() == 0 && allocation.version() == 0;
        if (!a.gateway().equals(gatewayId) || !configured && !a.isNewerThan(allocation)) {
            return false;
        }
        allocation = a;
        install(a);
        return true;
    }

    private void install(Allocation a) {
        a.weights().forEach((name, w) -> {
            Integer c = classIndex.get(name);
            if (c != null) {
                weights[c] = w;
            }
        });
        provisionalCaps.keySet().removeAll(a.serverCaps().keySet()); // the GRM knows them now
        for (int s = 0; s < serverIds.length; s++) {
            caps[s] = retired[s] ? 0 : a.serverCaps().getOrDefault(serverIds[s], provisionalCaps.getOrDefault(serverIds[s], 0));
        }
    }

    // ---------------------------------------------------------------- reload

    /**
     * What {@link #reconfigure} did.
     *
     * @param serversAdded   ids that joined (new, or removed earlier and back)
     * @param serversRemoved ids that take no new request from now on (their in-flight requests finish)
     * @param classesChanged classes whose queue limit, queue timeout, target/yield or minShare changed
     * @param notApplied     what the running gateway could not take over, one line each (a restart does)
     */
    public record Reconfiguration(List<String> serversAdded, List<String> serversRemoved, List<String> classesChanged,
                                  List<String> notApplied) {
        public Reconfiguration {
            serversAdded = List.copyOf(serversAdded);
            serversRemoved = List.copyOf(serversRemoved);
            classesChanged = List.copyOf(classesChanged);
            notApplied = List.copyOf(notApplied);
        }
    }

    /**
     * Takes over a reloaded configuration without losing a request (docs/gateway.md, Reload).
     *
     * <p>Servers: one absent from {@code next} is retired — cap 0 from now on, whatever an
     * allocation says, while its in-flight requests finish normally; one new in {@code next} joins at
     * the next index (indices are never reused, so tickets in flight keep theirs), UP, with the cap
     * {@code configured} gives it (until a GRM allocation names it, when a GRM allocation is in
     * force). A retired server that comes back joins again under its old index.
     *
     * <p>Classes: the class list (names and order) and the default class must stay the same;
     * otherwise that change is reported in {@link Reconfiguration#notApplied} and only the
     * settings of classes whose name matches are taken. Per class, the queue limit (a lowered
     * limit rejects new arrivals only; what is queued stays), the queue timeout (counted from each
     * request's arrival), the yield function and target, and minShare change at once.
     *
     * <p>Allocation: while the configured allocation is in force (no GRM allocation yet),
     * {@code configured} replaces it — new weights and caps at once; a lowered cap drains as in
     * {@link #applyAllocation}. A GRM allocation in force stays.
     *
     * <p>Nothing queued or in flight is dropped here: every ticket keeps its state, class and server.
     *
     * @param next       the reloaded configuration
     * @param configured the configured allocation of {@code next} for this gateway ({@code ConfiguredAllocation})
     */
    public Reconfiguration reconfigure(ClusterConfig next, Allocation configured, long nowNanos) {
        requireNonNull(next, "next");
        requireNonNull(configured, "configured");
        tick(nowNanos);
        List<String> notApplied = new ArrayList<>();
        List<String> classesChanged = new ArrayList<>();
        List<String> names = next.classes().stream().map(ClassConfig::name).toList();
        if (!names.equals(List.of(classNames))) {
            notApplied.add("classes: " + List.of(classNames) + " -> " + names
                    + " (adding, removing or reordering classes needs a restart; the settings of the classes"
                    + " that kept their name were applied)");
        } else if (!next.classes().get(defaultClass).isDefault()) {
            notApplied.add("classes: the default class " + classNames[defaultClass]
                    + " changed (needs a restart)");
        }
        for (ClassConfig cc : next.classes()) {
            Integer ci = classIndex.get(cc.name());
            if (ci == null) {
                continue;
            }
            int c = ci;
            long timeout = (long) (cc.queue().timeoutSeconds() * 1e9);
            YieldFunction y = YieldFunction.of(cc);
            if (queueLimits[c] != cc.queue().limit() || queueTimeoutNanos[c] != timeout || !y.equals(yields[c])
                    || minShares[c] != cc.minShare()) {
                classesChanged.add(cc.name());
            }
            queueLimits[c] = cc.queue().limit();
            stats.queueLimit(c, queueLimits[c]);
            queueTimeoutNanos[c] = timeout;
            yields[c] = y;
            deadlineNanos[c] = y.deadlineNanos();
            minShares[c] = cc.minShare();
        }
        List<String> added = new ArrayList<>();
        List<String> removed = new ArrayList<>();
        Map<String, ServerConfig> nextServers = new java.util.LinkedHashMap<>();
        next.servers().forEach(sc -> nextServers.put(sc.id(), sc));
        for (int s = 0; s < serverIds.length; s++) {
            if (!retired[s] && !nextServers.containsKey(serverIds[s])) {
                retired[s] = true;
                caps[s] = 0;
                provisionalCaps.remove(serverIds[s]);
                removed.add(serverIds[s]);
            }
        }
        boolean configuredInForce = allocation.epoch() == 0 && allocation.version() == 0;
        for (ServerConfig sc : nextServers.values()) {
            Integer known = serverIndex.get(sc.id());
            int s;
            if (known == null) {
                s = serverIds.length;
                int n = s + 1;
                serverIds = java.util.Arrays.copyOf(serverIds, n);
                serverIds[s] = sc.id();
                caps = java.util.Arrays.copyOf(caps, n);
                serverInFlight = java.util.Arrays.copyOf(serverInFlight, n);
                retired = java.util.Arrays.copyOf(retired, n);
                serverIndex.put(sc.id(), s);
                health.addServer(sc.id(), sc.health().enabled());
                stats.addServer(sc.id(), nowNanos);
                polls.addServer();
                pollable = java.util.Arrays.copyOf(pollable, n);
                pollWanted = java.util.Arrays.copyOf(pollWanted, n);
                pollable[s] = sc.loadUrl() != null;
                added.add(sc.id());
            } else {
                s = known;
                health.probeTrial(s, sc.health().enabled());
                pollable[s] = sc.loadUrl() != null;
                if (!retired[s]) {
                    continue;
                }
                retired[s] = false;
                added.add(sc.id());
            }
            if (!configuredInForce && !allocation.serverCaps().containsKey(sc.id())) {
                provisionalCaps.put(sc.id(), configured.serverCaps().getOrDefault(sc.id(), 0));
            }
        }
        if (configuredInForce) {
            allocation = configured;
        }
        install(allocation);
        return new Reconfiguration(added, removed, classesChanged, notApplied);
    }

    /** Whether a reload removed server s (it takes no new request). */
    public boolean retired(int s) {
        return retired[s];
    }

    /** The allocation in force. */
    public Allocation allocation() {
        return allocation;
    }

    // ---------------------------------------------------------------- measurement

    /** The sliding-window statistics as of {@code nowNanos}, stamped {@code at}. */
    public GatewayStats snapshot(Instant at, long nowNanos) {
        tick(nowNanos);
        boolean[] upNow = new boolean[serverIds.length];
        int[] capsNow = caps.clone();
        for (int s = 0; s < upNow.length; s++) {
            upNow[s] = isUp(s);
            if (health.ejected(s, nowNanos)) {
                capsNow[s] = 0; // an ejected server's slots are capacity lost
            }
        }
        int[] qlen = new int[classNames.length];
        for (int c = 0; c < qlen.length; c++) {
            qlen[c] = queues[c].size();
        }
        return stats.snapshot(gatewayId, at, nowNanos, allocation.version(),
                new StatsRecorder.Live(weights.clone(), qlen, classInFlight.clone(), serverInFlight.clone(),
                        capsNow, upNow));
    }

    private void tick(long nowNanos) {
        if (nowNanos > now) {
            now = nowNanos;
        }
    }

    // ---------------------------------------------------------------- views

    public String gatewayId() {
        return gatewayId;
    }

    public int classCount() {
        return classNames.length;
    }

    public String className(int c) {
        return classNames[c];
    }

    /** The index of class {@code name}, or -1. */
    public int classIndex(String name) {
        Integer c = classIndex.get(name);
        return c == null ? -1 : c;
    }

    public int queueLength(int c) {
        return queues[c].size();
    }

    public int queueLimit(int c) {
        return queueLimits[c];
    }

    /** Requests of class c at servers. */
    public int inFlight(int c) {
        return classInFlight[c];
    }

    public double weight(int c) {
        return weights[c];
    }

    public int serverCount() {
        return serverIds.length;
    }

    public String serverId(int s) {
        return serverIds[s];
    }

    /** The index of server {@code id}, or -1. */
    public int serverIndex(String id) {
        Integer s = serverIndex.get(id);
        return s == null ? -1 : s;
    }

    public int serverInFlight(int s) {
        return serverInFlight[s];
    }

    /** N(g,s) in force. */
    public int cap(int s) {
        return caps[s];
    }

    /** Requests waiting in all queues. */
    public int queued() {
        return queued;
    }

    /** Requests at servers, all classes. */
    public int inFlightTotal() {
        int n = 0;
        for (int v : classInFlight) {
            n += v;
        }
        return n;
    }
}
