package org.arbiter.gateway;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.GatewayStats;

/*
 * The gateway's data plane without I/O (docs/architecture.md, the data loop; 003 §III).
 *
 * Queue:    one bounded FIFO per class (queue.limit, queue.timeout). A request that finds its queue
 *           full is rejected (queueFull); one that waits longer than the timeout is expired
 *           (queueTimeout). With dispatch.admission: deadline, one that cannot go to a server at
 *           once and is expected to be answered past factor × its target is rejected (shed),
 *           lowest-value classes first (AdmissionBook). Nothing is dropped silently: every ticket
 *           ends in exactly one state.
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
 * Yield:    every class has a yield function (002 §2.2): each arrival offers its full yield, each
 *           completion realises Y_c(response time), a drop realises 0 (StatsRecorder, GatewayStats
 *           yield). What 002's schedulers read (Scheduler.ClassView: service EWMA, the decayed
 *           consumption u_c(t) of 002 eq. 2-3 and its short memory, recent drops) is YieldBook's.
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
 * Books:    the state lives in package-private books, each with its design note: ClassQueues
 *           (per class: queue, limit, timeout, in flight, weight), ServerSlots (per server: cap,
 *           in flight, retired, provisional caps), YieldBook, LoadPolls, ServerHealth, and the
 *           StatsRecorder the measurements go to. CoreBooks builds them, answers every read, and
 *           swaps settings (applyAllocation, reconfigure); GatewayCore extends it with the events:
 *           it alone moves a ticket from one state to the next and tells the books and the recorder.
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
public final class GatewayCore<R> extends CoreBooks<R> {

    /** Retries after sending, on the server a request failed on last time, that do not spend its one retry. */
    private final int sameServerRetries;
    private final Scheduler scheduler;
    private final Balancer balancer;
    private final Scheduler.ClassView classView;
    private final Balancer.ServerView serverView;
    /**
     * The backlog: from a dispatch attempt that found no free slot with requests queued, until the
     * queues are empty. Meanwhile every slot is busy and each dispatch fills one a completion freed.
     */
    private boolean backlogged;
    private long sequence;
    /** The pool tried first by the next dispatch (pools take turns). */
    private int poolCursor;

    /**
     * @param cluster    classes (queues, limits, timeouts, initial weights), servers, control (window, report period)
     * @param gatewayId  this gateway's id (stamped on snapshots; allocations for others are ignored)
     * @param initial    the allocation to start from (see {@code ConfiguredAllocation})
     * @param scheduler  which class goes next ({@code scheduler.Schedulers.of(cluster.dispatch())})
     * @param balancer   which server ({@code dispatch.Balancers.of(cluster.dispatch(), random)})
     * @param nowNanos   the start of time for this core
     */
    public GatewayCore(ClusterConfig cluster, String gatewayId, Allocation initial, Scheduler scheduler,
                       Balancer balancer, long nowNanos) {
        super(cluster, gatewayId, initial, nowNanos);
        this.scheduler = requireNonNull(scheduler, "scheduler");
        this.balancer = requireNonNull(balancer, "balancer");
        this.sameServerRetries = cluster.dispatch().ejection().threshold();
        this.classView = new QueuesView<>(queues, yields, () -> now);
        this.serverView = new SlotsView(slots, health, polls, () -> now);
    }

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

    // ---------------------------------------------------------------- requests

    /** Offers a request of class {@code className} (an unknown name falls to the default class). */
    public Ticket<R> offer(R request, String className, long nowNanos) {
        return offer(request, classIndex(className), nowNanos);
    }

    /**
     * The index {@link #offer(Object, int, long)} takes for class {@code className}: its queue's, or
     * the default class's for a name this gateway does not know. Stable until a reconfiguration.
     */
    public int classIndex(String className) {
        int c = queues.indexOf(className);
        return c < 0 ? queues.defaultClass() : c;
    }

    /**
     * Queues a request, or rejects it when it cannot go to a server at once and its class queue is at
     * its limit (dropReason QUEUE_FULL) or, with {@code dispatch.admission: deadline}, it is expected to
     * be answered later than its class's bound (dropReason SHED; {@link AdmissionBook}). The returned
     * ticket is QUEUED or REJECTED; a QUEUED ticket is released by {@link #next}.
     */
    public Ticket<R> offer(R request, int c, long nowNanos) {
        tick(nowNanos);
        Ticket<R> t = new Ticket<>(request, c, queues.name(c), nowNanos, sequence++);
        int len = queues.size(c);
        stats.arrival(c, len, nowNanos);
        stats.offered(c, yields.yield(c).full(), nowNanos);
        yields.offer(c, now);
        DropReason refused = null;
        if (len >= queues.limit(c) && !(queues.queued() == 0 && anyServerAvailable())) {
            refused = DropReason.QUEUE_FULL;
        } else if (admission.enabled() && !(queues.queued() == 0 && anyServerAvailable())
                && admission.shed(c, queues, yields, nowNanos)) {
            refused = DropReason.SHED;
        }
        if (refused != null) {
            t.state = Ticket.State.REJECTED;
            t.dropReason = refused;
            stats.dropped(c, refused, nowNanos);
            yields.dropped(now);
            return t;
        }
        t.state = Ticket.State.QUEUED;
        queues.add(t);
        stats.accepted(c, nowNanos);
        stats.queueLength(c, queues.size(c), nowNanos);
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
        if (queues.queued() == 0) {
            return null;
        }
        if (scheduler.dropsZeroYield()) {
            for (int c = 0; c < queues.count(); c++) {
                Ticket<R> head = queues.head(c);
                if (head != null && yields.worthless(head, nowNanos)) {
                    return drop(queues.take(c), DropReason.ZERO_YIELD, nowNanos);
                }
            }
        }
        Balancer.ServerView view = serverView;
        int s;
        int c;
        if (poolIndex == null) {
            s = balancer.pick(serverView, -1);
            if (s < 0) {
                return backlog(nowNanos);
            }
            // overloaded (an arrival over its class's bound within the last second): by value (AdmissionBook)
            c = admission.overloaded(nowNanos) ? admission.firstQueuedByValue(queues) : scheduler.next(classView);
            if (c < 0) {
                return null;
            }
        } else {
            // each pool in turn: one of its servers with a free slot, then one of its classes
            s = -1;
            c = -1;
            int n = poolIndex.count();
            for (int i = 0; i < n && c < 0; i++) {
                int p = (poolCursor + i) % n;
                if (poolIndex.queued(p, queues) == 0) {
                    continue;
                }
                Balancer.ServerView v = poolIndex.servers(p, serverView);
                int ps = balancer.pick(v, -1);
                if (ps < 0) {
                    continue;
                }
                int pc = scheduler.next(poolIndex.classes(p, classView));
                if (pc >= 0) {
                    s = ps;
                    c = pc;
                    view = v;
                    poolCursor = (p + 1) % n;
                }
            }
            if (c < 0) {
                return backlog(nowNanos);
            }
        }
        Ticket<R> t = queues.take(c);
        if (t.failedOn == s) {
            // a retry goes to another server when one has a free slot (HAProxy's redispatch): the
            // one it failed on may be dying with its failures not yet counted to an ejection
            int other = balancer.pick(view, s);
            if (other >= 0) {
                s = other;
            }
        }
        stats.queueLength(c, queues.size(c), nowNanos);
        queues.dispatched(c);
        t.state = Ticket.State.DISPATCHED;
        t.dispatchNanos = nowNanos;
        if (t.attempts == 0) {
            // a requeued request was counted when it first left the queue (n_acc counts requests)
            stats.dispatched(c, nowNanos - t.arrivalNanos(), backlogged, nowNanos);
            admission.dispatched(c, nowNanos);
        }
        endBacklogIfEmpty(nowNanos);
        assign(t, s, nowNanos);
        return t;
    }

    /** No free slot with requests queued: the backlog begins (if it had not), nothing to release. */
    private Ticket<R> backlog(long nowNanos) {
        if (!backlogged) {
            backlogged = true;
            stats.backlogged(true, nowNanos);
        }
        return null;
    }

    private void assign(Ticket<R> t, int s, long nowNanos) {
        int inFlight = slots.take(s);
        t.server = s;
        t.serverId = slots.id(s);
        t.attempts++;
        t.trial = health.dispatched(s, nowNanos);
        polls.sent(s);
        stats.serverInFlight(s, inFlight, nowNanos);
    }

    /** The ticket leaves its server (done, failed, requeued): frees the slot, and a pending trial. */
    private void leaveServer(Ticket<R> t, long nowNanos) {
        queues.leftServer(t.classIndex());
        if (t.trial) {
            t.trial = false;
            health.trialEnded(t.server, nowNanos);
        }
        stats.serverInFlight(t.server, slots.release(t.server), nowNanos);
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
        if (outcome != Outcome.CANCELLED && limits.adaptive(t.server)) {
            // one sample of the server's adaptive limit, then its cap follows it (AdaptiveLimits)
            limits.sample(t.server, t.dispatchNanos, nowNanos, slots.inFlight(t.server), outcome != Outcome.OK);
            slots.adapt(t.server, limits.limit(t.server));
        }
        leaveServer(t, nowNanos);
        switch (outcome) {
            case OK -> {
                long responseNanos = nowNanos - t.arrivalNanos();
                long serviceNanos = nowNanos - t.dispatchNanos;
                stats.completed(c, t.server, responseNanos, serviceNanos, nowNanos);
                double y = yields.yield(c).yield(responseNanos / 1e9);
                stats.realised(c, y, nowNanos);
                yields.realise(c, y);
                yields.served(c, serviceNanos / 1e9, now);
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
        leaveServer(t, nowNanos);
        t.state = Ticket.State.QUEUED;
        t.failedOn = t.server;
        t.server = -1;
        t.serverId = null;
        queues.requeue(t);
        stats.queueLength(t.classIndex(), queues.size(t.classIndex()), nowNanos);
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
            queues.remove(t);
            t.state = Ticket.State.DONE;
            endBacklogIfEmpty(nowNanos);
            stats.queueLength(t.classIndex(), queues.size(t.classIndex()), nowNanos);
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
        for (int c = 0; c < queues.count(); c++) {
            for (Ticket<R> head; (head = queues.head(c)) != null; ) {
                DropReason reason;
                if (nowNanos - head.arrivalNanos() >= queues.timeoutNanos(c)) {
                    reason = DropReason.QUEUE_TIMEOUT;
                } else if (zeroYield && yields.worthless(head, nowNanos)) {
                    reason = DropReason.ZERO_YIELD;
                } else {
                    break;
                }
                if (expired.isEmpty()) {
                    expired = new ArrayList<>();
                }
                expired.add(drop(queues.take(c), reason, nowNanos));
            }
        }
        return expired;
    }

    /** A ticket just taken from its queue head ({@link ClassQueues#take}) is dropped: EXPIRED with {@code reason}, counted. */
    private Ticket<R> drop(Ticket<R> t, DropReason reason, long nowNanos) {
        int c = t.classIndex();
        t.state = Ticket.State.EXPIRED;
        t.dropReason = reason;
        endBacklogIfEmpty(nowNanos);
        stats.dropped(c, reason, nowNanos);
        stats.queueLength(c, queues.size(c), nowNanos);
        yields.dropped(now);
        return t;
    }

    /**
     * When the next queued request will be dropped (queue timeout, or with a yield scheduler the
     * time its head falls to zero yield at today's service estimate), or Long.MAX_VALUE when nothing is queued.
     */
    public long nextExpiryNanos() {
        if (queues.queued() == 0) {
            return Long.MAX_VALUE; // nothing waits
        }
        long next = Long.MAX_VALUE;
        boolean zeroYield = scheduler.dropsZeroYield();
        for (int c = 0; c < queues.count(); c++) {
            Ticket<R> head = queues.head(c);
            if (head != null) {
                next = Math.min(next, head.arrivalNanos() + queues.timeoutNanos(c));
                if (zeroYield) {
                    next = Math.min(next, yields.worthlessAtNanos(c, head.arrivalNanos()));
                }
            }
        }
        return next;
    }

    // ---------------------------------------------------------------- load polls (002 §3)

    /**
     * The servers the balancer wants polled since the last call (each once, those with a loadUrl);
     * the adapter polls each and reports {@link #pollAnswered} or {@link #pollMissed}.
     */
    public List<Integer> drainPolls() {
        return polls.drain();
    }

    /** Server s answered its poll within the deadline: {@code active + queued} requests. Ends its pending poll. */
    public void pollAnswered(int s, int active, int queued, long nowNanos) {
        tick(nowNanos);
        polls.answered(s, Math.max(0, active) + Math.max(0, queued), nowNanos);
    }

    /** Server s's poll was not answered within {@code dispatch.poll.deadline}: discarded, counted toward a skip. */
    public void pollMissed(int s, long nowNanos) {
        tick(nowNanos);
        polls.missed(s, nowNanos);
    }

    // ---------------------------------------------------------------- servers and polls

    /**
     * Skips server s for the base backoff, then gives it full traffic again without a trial nor a
     * transition: the simulator's model of a refused connection ({@link ServerHealth#hold}).
     */
    public void markDown(int s, long nowNanos) {
        tick(nowNanos);
        health.hold(s, nowNanos);
    }

    /** A ticket left its queue: the backlog ends when the queues are empty. */
    private void endBacklogIfEmpty(long nowNanos) {
        if (backlogged && queues.queued() == 0) {
            backlogged = false;
            stats.backlogged(false, nowNanos);
        }
    }

    private boolean anyServerAvailable() {
        for (int s = 0; s < slots.count(); s++) {
            if (serverView.available(s)) {
                return true;
            }
        }
        return false;
    }
}
