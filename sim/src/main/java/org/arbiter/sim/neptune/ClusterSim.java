package org.arbiter.sim.neptune;

import static java.util.Objects.requireNonNull;

import java.net.URI;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.SplittableRandom;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ControlConfig;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.utility.YieldFunction;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.Outcome;
import org.arbiter.gateway.PollBook;
import org.arbiter.gateway.Ticket;
import org.arbiter.gateway.allocation.ConfiguredAllocation;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;
import org.arbiter.sim.kernel.EventKernel;

/*
 * Design note — 002's two-level cluster in virtual time (002 §3-5, Fig. 3-4).
 *
 * Nodes:    each of the `nodes` servers keeps its own class queues and node-level scheduler: a
 *           GatewayCore (the product's, with the scheduler named in the settings: adaptive, yid,
 *           greedy, edf; minShare per class; zeroYield drops) in front of `threads` threads (1 unless
 *           set; the yield experiment's per-node layout uses 2, 002's dual-CPU nodes), every class with
 *           the settings' yield shape (hybrid unless set). Service times
 *           are Exp(mean of the class). Every event that can free the thread or fill a queue pumps
 *           the node's core, and each node's next queue drop (zero yield, 002 Fig. 5 step 1) is an event.
 * Neptune:  class-aware random polling. At an arrival the distributor polls `pollCount` distinct
 *           nodes it does not skip (PollBook, the gateway's rule: 3 misses in a row skip a node for
 *           1 s). Each poll takes Exp(pollRtt) to come back; a node that is down never answers.
 *           Answers later than `pollDeadline` are discarded (missed). The request is sent when the
 *           last answer is in or at the deadline, whichever is first, to the answering node with the
 *           fewest active + queued requests as the node reported them when polled. If no poll was
 *           answered the request polls again, up to three rounds; then it is lost (an error).
 * Partitioning: ServerPartitioning every `intervalSeconds` (10 s) from the past interval's arrivals
 *           × profiled mean service time; the up nodes are dealt out as dedicated servers per class
 *           in class order, the rest form the shared pool. A request of class c goes to its dedicated
 *           set with probability k_c / a_c, else to the pool (every class with a fraction shares the
 *           pool's nodes and their node-level scheduler), and within the set by the same random
 *           polling (002 §3: "randomly directed to one of the servers allocated … according to the
 *           load balancing policy"). A node that fails stays in its class's set until the next
 *           interval: polls to it are missed, and a request whose set has no answering node is lost.
 * Failures: a failed node loses every request it holds, queued or running: each is answered as an
 *           error to its client and counted (lostToFailure). It answers no polls until it recovers,
 *           empty.
 * Listener: optionally told of every request's end (class, arrival, end, completed or not), so
 *           a caller can measure response times as it likes (the yield experiment does).
 * Measurement: requests that arrive in [warmup, end) count for the yield (offered full yield,
 *           realised Y_c(response time), 0 for drops and errors, 002's LossPercent). Every
 *           `sampleSeconds` per class: demand = arrivals × mean service / (nodes × sample) and
 *           allocation = thread-seconds spent serving the class / (nodes × sample), both as shares of
 *           the whole cluster (002 Fig. 12).
 *
 * Deterministic under the seed; single-threaded, not thread-safe.
 */

/** 002's cluster of nodes behind Neptune's random polling or server partitioning. See the design note. */
public final class ClusterSim {

    /** How requests are distributed over the nodes. */
    public enum Distribution { NEPTUNE, PARTITIONING }

    /**
     * A service class.
     *
     * @param share          of the requests (for the mix helpers only)
     * @param fullYield      C (hybrid: C' = C/2, D' = D/2)
     * @param serviceSeconds mean service time (exponential)
     * @param minShare       guaranteed share (node-level minShare under Neptune, guarantee under partitioning)
     */
    public record ClassSpec(String name, double share, double fullYield, double serviceSeconds, double minShare) {
    }

    /** Node {@code node} fails at {@code atSeconds} and recovers at {@code recoverSeconds}. */
    public record Failure(int node, double atSeconds, double recoverSeconds) {
        public Failure {
            if (!(recoverSeconds > atSeconds)) {
                throw new IllegalArgumentException("recover: " + recoverSeconds + " (expected: > at, " + atSeconds + ")");
            }
        }
    }

    /** When the next request of class c arrives after {@code nowSeconds} (+∞ for none). */
    @FunctionalInterface
    public interface Arrivals {
        double next(int c, double nowSeconds, SplittableRandom random);
    }

    /** Told of every request's end: completed ({@code ok}) or not (dropped at zero yield, or lost). */
    @FunctionalInterface
    public interface Listener {
        Listener NONE = (c, arrivalSeconds, endSeconds, ok) -> { };

        void ended(int c, double arrivalSeconds, double endSeconds, boolean ok);
    }

    /**
     * @param pollRttSeconds mean of the exponential poll round trip
     * @param failures       server failures; under partitioning, node -1 means "the first node dedicated to class 0 at that time"
     * @param threads        threads per node (requests served at once)
     * @param shape          every class's yield shape (C' = C/2, D' = D/2)
     */
    public record Settings(int nodes, List<ClassSpec> classes, DispatchConfig.Scheduler scheduler,
                           Distribution distribution, double deadlineSeconds, int pollCount, double pollDeadlineSeconds,
                           double pollRttSeconds, double intervalSeconds, double sampleSeconds, double warmupSeconds,
                           double endSeconds, List<Failure> failures, long seed, int threads,
                           ClassConfig.YieldSpec.Shape shape) {
        public Settings {
            classes = List.copyOf(classes);
            failures = List.copyOf(failures);
            requireNonNull(shape, "shape");
            if (nodes < 1) {
                throw new IllegalArgumentException("nodes: " + nodes + " (expected: >= 1)");
            }
            if (pollCount < 1) {
                throw new IllegalArgumentException("pollCount: " + pollCount + " (expected: >= 1)");
            }
            if (threads < 1) {
                throw new IllegalArgumentException("threads: " + threads + " (expected: >= 1)");
            }
        }

        /** One thread per node, hybrid yield. */
        public Settings(int nodes, List<ClassSpec> classes, DispatchConfig.Scheduler scheduler,
                        Distribution distribution, double deadlineSeconds, int pollCount, double pollDeadlineSeconds,
                        double pollRttSeconds, double intervalSeconds, double sampleSeconds, double warmupSeconds,
                        double endSeconds, List<Failure> failures, long seed) {
            this(nodes, classes, scheduler, distribution, deadlineSeconds, pollCount, pollDeadlineSeconds, pollRttSeconds,
                    intervalSeconds, sampleSeconds, warmupSeconds, endSeconds, failures, seed, 1,
                    ClassConfig.YieldSpec.Shape.HYBRID);
        }
    }

    /** Per class over the measured window, and the series. */
    public record Result(double[] offered, double[] realised, long[] arrivals, long[] completed, long[] dropped,
                         long[] lost, long lostToFailure, List<double[]> demand, List<double[]> allocation,
                         List<Double> sampleTimes) {
        public double offeredTotal() {
            return java.util.Arrays.stream(offered).sum();
        }

        public double realisedTotal() {
            return java.util.Arrays.stream(realised).sum();
        }

        public double lossPercent() {
            double o = offeredTotal();
            return o > 0 ? (o - realisedTotal()) / o * 100 : 0;
        }
    }

    private static final long NS = 1_000_000_000L;
    private static final int POLL_ROUNDS = 3;

    private static final class Job {
        final int c;
        final double arrival;
        Ticket<Job> ticket;
        int node = -1;
        boolean done;
        double startedAt;

        Job(int c, double arrival) {
            this.c = c;
            this.arrival = arrival;
        }
    }

    private final class Node {
        final int index;
        final GatewayCore<Job> core;
        final LinkedHashSet<Job> held = new LinkedHashSet<>();
        boolean up = true;
        double expiryAt = Double.POSITIVE_INFINITY;

        Node(int index, ClusterConfig config) {
            this.index = index;
            this.core = new GatewayCore<>(config, "node", ConfiguredAllocation.of(config, "node", true, Instant.EPOCH),
                    Schedulers.of(config.dispatch()), Balancers.of(config.dispatch(), random.split()), 0);
        }

        int load() {
            return core.queued() + core.inFlightTotal();
        }
    }

    private final Settings s;
    private final Arrivals arrivals;
    private final Listener listener;
    private final SplittableRandom random;
    private final EventKernel kernel = new EventKernel();
    private final List<Node> nodes = new ArrayList<>();
    private final YieldFunction[] yields;
    private final PollBook book;
    private final int nc;
    // measurement
    private final double[] offered;
    private final double[] realised;
    private final long[] arrived;
    private final long[] completed;
    private final long[] dropped;
    private final long[] lost;
    private long lostToFailure;
    private final List<double[]> demandSeries = new ArrayList<>();
    private final List<double[]> allocationSeries = new ArrayList<>();
    private final List<Double> sampleTimes = new ArrayList<>();
    private final double[] bucketBusy;
    private final double[] bucketDemand;
    // partitioning
    private final double[] intervalArrivals;
    private int[][] sets; // per class: its dedicated nodes
    private int[] pool = new int[0];
    private double[] alloc;

    public ClusterSim(Settings settings, Arrivals arrivals) {
        this(settings, arrivals, Listener.NONE);
    }

    /** With a listener told of every request's end. */
    public ClusterSim(Settings settings, Arrivals arrivals, Listener listener) {
        this.s = requireNonNull(settings, "settings");
        this.arrivals = requireNonNull(arrivals, "arrivals");
        this.listener = requireNonNull(listener, "listener");
        this.random = new SplittableRandom(settings.seed());
        nc = settings.classes().size();
        ClusterConfig config = nodeConfig(settings);
        yields = new YieldFunction[nc];
        for (int c = 0; c < nc; c++) {
            yields[c] = YieldFunction.of(config.classes().get(c));
        }
        for (int i = 0; i < settings.nodes(); i++) {
            nodes.add(new Node(i, config));
        }
        book = new PollBook(settings.nodes());
        offered = new double[nc];
        realised = new double[nc];
        arrived = new long[nc];
        completed = new long[nc];
        dropped = new long[nc];
        lost = new long[nc];
        bucketBusy = new double[nc];
        bucketDemand = new double[nc];
        intervalArrivals = new double[nc];
        alloc = new double[nc];
        java.util.Arrays.fill(alloc, (double) settings.nodes() / nc);
        deal(allNodes());
    }

    /** One node's configuration: the classes with the settings' yield shape, its threads, the node-level scheduler. */
    static ClusterConfig nodeConfig(Settings s) {
        ClassConfig.QueueConfig unbounded = new ClassConfig.QueueConfig(100_000, 3600);
        ClusterConfig.Builder b = ClusterConfig.builder();
        double d = s.deadlineSeconds();
        boolean guarantees = s.distribution() == Distribution.NEPTUNE;
        for (int i = 0; i < s.classes().size(); i++) {
            ClassSpec c = s.classes().get(i);
            b.addClass(ClassConfig.builder(c.name(), d).queue(unbounded).isDefault(i == s.classes().size() - 1)
                    .minShare(guarantees ? c.minShare() : 0)
                    .yield(new ClassConfig.YieldSpec(s.shape(), c.fullYield(), c.fullYield() / 2, d, d / 2))
                    .build());
        }
        b.addServer(ServerConfig.builder("thread", URI.create("http://127.0.0.1:9001")).concurrency(s.threads()).build());
        return b.addGateway(GatewayConfig.builder("node").port(8080).build())
                .dispatch(DispatchConfig.builder().scheduler(s.scheduler()).build())
                .control(ControlConfig.builder().periodSeconds(5).reportPeriodSeconds(5).statsWindowSeconds(30).build())
                .build();
    }

    private void at(double time, Runnable action) {
        kernel.schedule(time, action);
    }

    private static long nanos(double seconds) {
        return Math.round(seconds * NS);
    }

    /** Runs to the end and returns what was measured. */
    public Result run() {
        for (int c = 0; c < nc; c++) {
            int cc = c;
            double t = arrivals.next(c, 0, random);
            if (t < s.endSeconds()) {
                at(t, () -> arrive(cc));
            }
        }
        for (double t = s.sampleSeconds(); t <= s.endSeconds() + 1e-9; t += s.sampleSeconds()) {
            double tt = t;
            at(tt, () -> sample(tt));
        }
        if (s.distribution() == Distribution.PARTITIONING) {
            for (double t = s.intervalSeconds(); t < s.endSeconds(); t += s.intervalSeconds()) {
                at(t, this::repartition);
            }
        }
        for (Failure f : s.failures()) {
            at(f.atSeconds(), () -> fail(f));
        }
        kernel.runUntil(s.endSeconds());
        return new Result(offered, realised, arrived, completed, dropped, lost, lostToFailure, demandSeries,
                allocationSeries, sampleTimes);
    }

    // ---------------------------------------------------------------- arrivals and distribution

    private boolean measured(Job j) {
        return j.arrival >= s.warmupSeconds();
    }

    private void arrive(int c) {
        Job j = new Job(c, kernel.now());
        double next = arrivals.next(c, kernel.now(), random);
        if (next < s.endSeconds()) {
            at(next, () -> arrive(c));
        }
        bucketDemand[c] += s.classes().get(c).serviceSeconds();
        intervalArrivals[c]++;
        if (measured(j)) {
            arrived[c]++;
            offered[c] += yields[c].full();
        }
        poll(j, candidates(c), 1);
    }

    /** The nodes class c may go to now. */
    private int[] candidates(int c) {
        if (s.distribution() == Distribution.NEPTUNE) {
            return allNodes();
        }
        int k = sets[c].length;
        double a = alloc[c];
        if (pool.length == 0 || k > 0 && random.nextDouble() < k / a) {
            return k > 0 ? sets[c] : allNodes();
        }
        return pool;
    }

    private int[] allNodes() {
        int[] all = new int[nodes.size()];
        for (int i = 0; i < all.length; i++) {
            all[i] = i;
        }
        return all;
    }

    /** Polls up to pollCount distinct non-skipped nodes of {@code set}; decides when the answers are in or at the deadline. */
    private void poll(Job j, int[] set, int round) {
        long nowN = nanos(kernel.now());
        int[] pick = set.clone();
        int m = 0;
        for (int i = 0; i < pick.length; i++) {
            if (!book.skipped(pick[i], nowN)) {
                pick[m++] = pick[i];
            }
        }
        if (m == 0) { // every node of the set is skipped: poll them anyway (nothing better is known)
            pick = set.clone();
            m = pick.length;
        }
        int polls = Math.min(s.pollCount(), m);
        int best = -1;
        int bestLoad = Integer.MAX_VALUE;
        double last = 0;
        boolean missed = false;
        for (int i = 0; i < polls; i++) {
            int r = i + random.nextInt(m - i);
            int t = pick[i];
            pick[i] = pick[r];
            pick[r] = t;
            Node n = nodes.get(pick[i]);
            double rtt = -s.pollRttSeconds() * Math.log(1 - random.nextDouble());
            if (!n.up || rtt > s.pollDeadlineSeconds()) {
                book.missed(n.index, nanos(kernel.now() + s.pollDeadlineSeconds()));
                missed = true;
                continue;
            }
            book.answered(n.index, n.load(), nanos(kernel.now() + rtt));
            last = Math.max(last, rtt);
            int load = n.load();
            if (load < bestLoad) {
                best = n.index;
                bestLoad = load;
            }
        }
        double decide = kernel.now() + (missed ? s.pollDeadlineSeconds() : last);
        int chosen = best;
        at(decide, () -> {
            if (chosen < 0) {
                if (round < POLL_ROUNDS) {
                    poll(j, set, round + 1); // the same set: a failed dedicated node is not left until the next interval
                } else {
                    answer(j, false, true);
                }
                return;
            }
            Node n = nodes.get(chosen);
            if (!n.up) { // failed between the poll and the send
                answer(j, false, true);
                return;
            }
            book.sent(chosen);
            j.node = chosen;
            n.held.add(j);
            j.ticket = n.core.offer(j, j.c, nanos(kernel.now()));
            if (j.ticket.state() == Ticket.State.REJECTED) { // queueFull or shed: answered at once (503)
                n.held.remove(j);
                answer(j, false, false);
                return;
            }
            pump(n);
        });
    }

    // ---------------------------------------------------------------- nodes

    private void pump(Node n) {
        Ticket<Job> t;
        while ((t = n.core.next(nanos(kernel.now()))) != null) {
            Job j = t.request();
            if (t.state() == Ticket.State.EXPIRED) {
                n.held.remove(j);
                answer(j, false, false);
                continue;
            }
            j.startedAt = kernel.now();
            double service = -s.classes().get(j.c).serviceSeconds() * Math.log(1 - random.nextDouble());
            at(kernel.now() + service, () -> complete(n, j));
        }
        scheduleExpiry(n);
    }

    private void complete(Node n, Job j) {
        if (j.done) {
            return; // lost to a failure meanwhile
        }
        n.core.complete(j.ticket, Outcome.OK, nanos(kernel.now()));
        n.held.remove(j);
        busy(j.c, j.startedAt, kernel.now());
        double r = kernel.now() - j.arrival;
        if (measured(j)) {
            completed[j.c]++;
            realised[j.c] += yields[j.c].yield(r);
        }
        j.done = true;
        listener.ended(j.c, j.arrival, kernel.now(), true);
        pump(n);
    }

    private void scheduleExpiry(Node n) {
        long next = n.core.nextExpiryNanos();
        if (next == Long.MAX_VALUE) {
            return;
        }
        double t = Math.max(kernel.now(), next / (double) NS);
        if (t >= n.expiryAt) {
            return;
        }
        n.expiryAt = t;
        at(t, () -> {
            if (n.expiryAt != t) {
                return;
            }
            n.expiryAt = Double.POSITIVE_INFINITY;
            for (Ticket<Job> x : n.core.expireQueued(nanos(t))) {
                n.held.remove(x.request());
                answer(x.request(), false, false);
            }
            pump(n);
        });
    }

    /** A request ends without completing: dropped by a node (zero yield), or lost (an error). */
    private void answer(Job j, boolean ok, boolean error) {
        j.done = true;
        listener.ended(j.c, j.arrival, kernel.now(), ok);
        if (measured(j)) {
            if (error) {
                lost[j.c]++;
            } else {
                dropped[j.c]++;
            }
        }
    }

    private void fail(Failure f) {
        int idx = f.node();
        if (idx < 0) {
            idx = sets != null && sets[0].length > 0 ? sets[0][0] : 0;
        }
        Node n = nodes.get(idx);
        if (!n.up) {
            return;
        }
        n.up = false;
        for (Job j : new ArrayList<>(n.held)) {
            if (j.ticket.state() == Ticket.State.DISPATCHED) {
                busy(j.c, j.startedAt, kernel.now());
                n.core.complete(j.ticket, Outcome.BACKEND_ERROR, nanos(kernel.now()));
            } else {
                n.core.cancel(j.ticket, nanos(kernel.now()));
            }
            if (!j.done) {
                lostToFailure++;
                answer(j, false, true);
            }
        }
        n.held.clear();
        Node failed = n;
        at(f.recoverSeconds(), () -> failed.up = true);
    }

    /** Thread time [from, to) spent on class c, split over the sample buckets. */
    private void busy(int c, double from, double to) {
        // the part before the current bucket went to earlier buckets: credit it there (they are closed, so carry it)
        double bucketStart = sampleTimes.isEmpty() ? 0 : sampleTimes.get(sampleTimes.size() - 1);
        double mine = to - Math.max(from, bucketStart);
        bucketBusy[c] += Math.max(0, mine);
        double earlier = Math.min(to, bucketStart) - from;
        if (earlier > 0) {
            // walk back over the closed buckets
            for (int b = allocationSeries.size() - 1; b >= 0 && earlier > 1e-12; b--) {
                double start = sampleTimes.get(b) - s.sampleSeconds();
                double end = sampleTimes.get(b);
                double part = Math.min(end, to) - Math.max(start, from);
                if (part > 0) {
                    allocationSeries.get(b)[c] += part / (s.nodes() * s.sampleSeconds());
                    earlier -= part;
                }
            }
        }
    }

    private void sample(double t) {
        // requests still running are credited when they end (busy() walks back over closed buckets)
        double[] d = new double[nc];
        double[] a = new double[nc];
        double cap = s.nodes() * s.sampleSeconds();
        for (int c = 0; c < nc; c++) {
            d[c] = bucketDemand[c] / cap;
            a[c] = bucketBusy[c] / cap;
            bucketDemand[c] = 0;
            bucketBusy[c] = 0;
        }
        demandSeries.add(d);
        allocationSeries.add(a);
        sampleTimes.add(t);
    }

    // ---------------------------------------------------------------- partitioning

    private void repartition() {
        List<Integer> up = new ArrayList<>();
        for (Node n : nodes) {
            if (n.up) {
                up.add(n.index);
            }
        }
        double[] demand = new double[nc];
        double[] guarantee = new double[nc];
        double[] priority = new double[nc];
        for (int c = 0; c < nc; c++) {
            ClassSpec cs = s.classes().get(c);
            demand[c] = intervalArrivals[c] * cs.serviceSeconds() / s.intervalSeconds();
            guarantee[c] = cs.minShare();
            priority[c] = cs.fullYield() / cs.serviceSeconds();
            intervalArrivals[c] = 0;
        }
        alloc = ServerPartitioning.allocate(demand, guarantee, priority, up.size());
        deal(up.stream().mapToInt(Integer::intValue).toArray());
    }

    /** Deals {@code up} out: dedicated nodes per class in class order, the rest the pool. */
    private void deal(int[] up) {
        int[] k = ServerPartitioning.dedicated(alloc);
        sets = new int[nc][];
        int next = 0;
        for (int c = 0; c < nc; c++) {
            int take = Math.min(k[c], up.length - next);
            sets[c] = java.util.Arrays.copyOfRange(up, next, next + take);
            next += take;
        }
        pool = java.util.Arrays.copyOfRange(up, next, up.length);
    }

    /** The allocation in force (servers per class), for tests. */
    double[] allocation() {
        return alloc.clone();
    }
}
