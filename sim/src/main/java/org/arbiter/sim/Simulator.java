package org.arbiter.sim;

import static java.util.Objects.requireNonNull;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.TreeMap;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.ServerState;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.Outcome;
import org.arbiter.gateway.Ticket;
import org.arbiter.gateway.dispatch.Balancers;
import org.arbiter.gateway.scheduler.Schedulers;
import org.arbiter.grm.control.GrmCore;
import org.arbiter.grm.control.GrmStep;
import org.arbiter.grm.control.PoolGroup;
import org.arbiter.grm.sizing.Fleet;
import org.arbiter.loadgen.client.ResultRecorder;
import org.arbiter.loadgen.client.Scenario;
import org.arbiter.loadgen.model.PowerModel;
import org.arbiter.loadgen.model.PsServer;
import org.arbiter.loadgen.workload.ArrivalProcess;
import org.arbiter.sim.kernel.EventKernel;

/*
 * Design note — the discrete-event simulator.
 *
 * Virtual time, one thread, the shared EventKernel ordered by (time, sequence): deterministic under a
 * seed. The moving parts are the product's own core classes — each gateway is a GatewayCore
 * (classifier-free: simulated clients carry their class; queues, schedulers, balancer, caps,
 * statistics as in production), the GRM is the service's GrmCore (stats book, epochs, last
 * allocations, GrmStep), leading from the start, fed the snapshots the gateways' recorders produce
 * every report period and ticked every control period, and each server is a processor-sharing
 * model (PsServer). Only the wiring is the simulator's: clients, events, recording.
 *
 * SimClients: closed-loop clients think Exp(think), send one request through their gateway (clients
 * are spread over gateways round-robin, as an L4 switch would), wait for the answer (a response or
 * a 503), and think again; at a phase boundary the number of clients per class changes (extra
 * clients retire after their current request). Open-loop sources are the load generator's pure
 * ArrivalProcesses (Poisson, 001's Pareto on/off, a compressed diurnal day), one per class and
 * phase, asked for their next arrival on virtual time; each arrival is a one-shot client.
 * Demands are Exp(mean) per class as the server's sim spec gives.
 *
 * Control: with Control.GRM the allocations come from GrmCore's ticks (configured allocation until the
 * first report); the decisions and power orders it publishes are dropped (nothing reads them);
 * without, every gateway keeps the configured one (the FCFS / priority baselines).
 *
 * Power: each server is a physical machine with the load generator's PowerModel (OFF → BOOTING →
 * ON → SHUTTING_DOWN → OFF, watts from servers[].power, exact energy: the busy fraction is
 * reported at every PsServer event). The GRM's actuations drive it: ON boots it for
 * sizing.startupDelay, OFF shuts it down for sizing.shutdownDelay (requests still in it are lost);
 * when a transition completes the GRM hears it (GrmCore.serverSeen). Completions due at a control
 * instant are applied before that control step. An actuation that does not apply yet (ON while
 * shutting down) is remembered and carried out when the transition ends. A request dispatched to
 * a server that is not ON is lost (the gateway marks the server down for its probe interval);
 * with working drains this never happens.
 *
 * Failures (SimScenario.failures, 002 §5.4): at `at` a server fails — every request it holds is
 * lost (answered to its client as an error, counted as lost and lostToFailure; the gateway hears a
 * connection reset, which counts toward the server's ejection) — and until `recover` it refuses
 * connections: a request the gateway dispatches to it fails before any byte was sent and goes back
 * to its class queue (GatewayCore.failed, as the product does with a refused connection), and the
 * gateway skips the server for its probe interval (markDown). At `recover` it serves again, empty.
 * The power model is not told (a failed machine draws idle power) and neither is the GRM, which
 * sees the failure only through the gateways' statistics. Failures of one server may overlap: it
 * is down while any of them lasts.
 */

/** Runs a cluster and a scenario in virtual time. See the design note. */
public final class Simulator {

    private static final long NS = 1_000_000_000L;

    private final ClusterConfig config;
    private final SimScenario scenario;
    private final boolean grm;
    private final SplittableRandom random;
    private final EventKernel kernel = new EventKernel();
    private final List<GatewayCore<SimRequest>> gateways = new ArrayList<>();
    /** Per gateway, each class's index in it, by the cluster's class index (the simulator reconfigures nothing). */
    private final int[][] gatewayClass;
    private final List<PsServer<SimRequest>> servers = new ArrayList<>();
    private final double[] serverWake;
    /** Per server, the kernel's handle on its pending wake (moved, not scheduled anew, when its time changes). */
    private final long[] wakeHandle;
    /** Per server, its wake: advances the server to now, if now is still its wake time. */
    private final Runnable[] wakeAction;
    private final double[] gatewayExpiry;
    /**
     * Per gateway, the number of the expiry check in force: one scheduled earlier replaces it, and
     * the replaced event, still in the kernel's queue, does nothing when its time comes (it used to
     * run and schedule another, so replaced checks piled up in the queue: two thirds of the yield
     * experiment's time went to the queue's ordering).
     */
    private final long[] expiryCheck;
    private final List<SimClient> clients = new ArrayList<>();
    private final Map<String, Integer> activeSimClients = new HashMap<>();
    private final PoolGroup core;
    /** Wall seconds each pool's control periods took, pool order. */
    private final double[] poolWallSeconds;
    private final List<SimResult.AllocationPoint> allocationLog = new ArrayList<>();
    private int phase = -1;
    private double phaseStart;
    private final PhaseBook book;
    private long requests;
    private int nextGateway;
    private ResultRecorder recorder;
    private boolean logCaps = true;
    private java.util.function.Consumer<String> progress;
    private double progressEvery;
    private double controlWallSeconds;
    private final ServerPower power;
    private final List<SimResult.PowerPoint> powerLog = new ArrayList<>();
    private long arrivalsSinceReport;
    private long dropsSinceReport;
    private double lastReport;
    private final int[] failedDepth;
    /** Mean demand per server and class (the cluster file's class order), seconds. */
    private final double[][] demand;

    /** Where the gateways' allocations come from. */
    public enum Control {
        /** The GRM's control steps decide (the configured allocation until its first report). */
        GRM,
        /** Every gateway keeps the configured allocation throughout (the FCFS / priority baselines). */
        CONFIGURED
    }

    /** A run whose allocations come from the GRM. */
    public static Simulator withGrm(ClusterConfig config, SimScenario scenario) {
        return new Simulator(config, scenario, Control.GRM);
    }

    /** A run in which every gateway keeps the configured allocation (no GRM). */
    public static Simulator withConfiguredAllocation(ClusterConfig config, SimScenario scenario) {
        return new Simulator(config, scenario, Control.CONFIGURED);
    }

    /** A run whose allocations come from {@code control}. */
    public static Simulator of(ClusterConfig config, SimScenario scenario, Control control) {
        return new Simulator(config, scenario, control);
    }

    private Simulator(ClusterConfig config, SimScenario scenario, Control control) {
        this.config = requireNonNull(config, "config");
        this.scenario = requireNonNull(scenario, "scenario");
        this.grm = requireNonNull(control, "control") == Control.GRM;
        this.random = new SplittableRandom(scenario.seed());
        this.book = new PhaseBook(config.classes());
        this.core = new PoolGroup(config, pool -> new GrmStep(pool, "sim-grm", () -> 0L), "sim");
        core.ownAll(true, Instant.EPOCH);
        this.poolWallSeconds = new double[core.pools().size()];
        for (GatewayConfig g : config.gateways()) {
            Allocation initial = core.initialAllocation(g.id());
            gateways.add(new GatewayCore<>(config, g.id(), initial, Schedulers.of(config.dispatch()),
                    Balancers.of(config.dispatch(), random.split()), 0));
        }
        for (ServerConfig s : config.servers()) {
            servers.add(new PsServer<>(s.sim().cores(), s.sim().overhead(), s.sim().knee(), s.sim().ioFraction()));
        }
        gatewayClass = new int[gateways.size()][config.classes().size()];
        for (int g = 0; g < gateways.size(); g++) {
            for (int k = 0; k < config.classes().size(); k++) {
                gatewayClass[g][k] = gateways.get(g).classIndex(config.classes().get(k).name());
            }
        }
        power = new ServerPower(config);
        serverWake = new double[servers.size()];
        java.util.Arrays.fill(serverWake, Double.POSITIVE_INFINITY);
        wakeHandle = new long[servers.size()];
        java.util.Arrays.fill(wakeHandle, -1L);
        wakeAction = new Runnable[servers.size()];
        for (int s = 0; s < wakeAction.length; s++) {
            int server = s;
            wakeAction[s] = () -> wake(server);
        }
        gatewayExpiry = new double[gateways.size()];
        java.util.Arrays.fill(gatewayExpiry, Double.POSITIVE_INFINITY);
        expiryCheck = new long[gateways.size()];
        failedDepth = new int[servers.size()];
        demand = new double[servers.size()][config.classes().size()];
        for (int s = 0; s < demand.length; s++) {
            ServerConfig.SimSpec sim = config.servers().get(s).sim();
            for (int k = 0; k < demand[s].length; k++) {
                demand[s][k] = sim.demandSeconds().getOrDefault(config.classes().get(k).name(), sim.meanDemandSeconds());
            }
        }
        for (SimScenario.Failure f : scenario.failures()) {
            serverIndexOf(f.server()); // fails now on an unknown id
        }
    }

    private int serverIndexOf(String id) {
        for (int i = 0; i < config.servers().size(); i++) {
            if (config.servers().get(i).id().equals(id)) {
                return i;
            }
        }
        throw new IllegalArgumentException("failures.server: " + id + " (expected: one of "
                + String.join(", ", config.servers().stream().map(ServerConfig::id).toList()) + ")");
    }

    /** Also records every request into {@code recorder} (the load generator's outputs). */
    public Simulator recordingInto(ResultRecorder recorder) {
        this.recorder = requireNonNull(recorder, "recorder");
        return this;
    }

    /** Large runs: keep only weights in the allocation log (the caps of 100 gateways × 1 000 servers do not fit). */
    public Simulator withoutCapLog() {
        logCaps = false;
        return this;
    }

    /** Reports progress every {@code everySimulatedSeconds} of virtual time. */
    public Simulator withProgress(java.util.function.Consumer<String> sink, double everySimulatedSeconds) {
        progress = requireNonNull(sink, "sink");
        progressEvery = everySimulatedSeconds;
        return this;
    }

    /** Sees every request's answer: class, phase, when it was sent and answered (s), and how it ended. */
    @FunctionalInterface
    public interface RequestSink {
        void answered(String cls, int phase, double sentSeconds, double answeredSeconds, ResultRecorder.Outcome outcome);
    }

    private RequestSink requestSink;

    /** Hands every answered request to {@code sink} (experiments that need each response time). */
    public Simulator withRequests(RequestSink sink) {
        requestSink = requireNonNull(sink, "sink");
        return this;
    }

    private java.util.function.Consumer<org.arbiter.common.message.Decision> decisionSink;

    /** Hands every decision the GRM publishes to {@code sink} (experiments that report the model's predictions). */
    public Simulator withDecisions(java.util.function.Consumer<org.arbiter.common.message.Decision> sink) {
        decisionSink = requireNonNull(sink, "sink");
        return this;
    }

    /** Wall seconds spent in the GRM's control steps so far. */
    public double controlWallSeconds() {
        return controlWallSeconds;
    }

    /** Wall seconds each pool's control periods took so far, in pool order (one entry without pools). */
    public double[] poolWallSeconds() {
        return poolWallSeconds.clone();
    }

    /** The pools' names in order ("" without pools). */
    public List<String> poolNames() {
        return core.names();
    }

    private void at(double time, Runnable action) {
        kernel.schedule(time, action);
    }

    private static long nanos(double seconds) {
        return Math.round(seconds * NS);
    }

    /** Runs the whole scenario. */
    public SimResult run() {
        long wallStart = System.nanoTime();
        double t = 0;
        for (int i = 0; i < scenario.phases().size(); i++) {
            final int p = i;
            at(t, () -> startPhase(p));
            t += scenario.phases().get(i).durationSeconds();
        }
        double end = t;
        for (SimScenario.Failure f : scenario.failures()) {
            int s = serverIndexOf(f.server());
            at(f.atSeconds(), () -> fail(s));
            if (f.recoverSeconds() < Double.POSITIVE_INFINITY) {
                at(f.recoverSeconds(), () -> recover(s));
            }
        }
        double report = config.control().reportPeriodSeconds();
        for (double r = report; r < end; r += report) {
            double rt = r;
            at(rt, () -> report(rt));
        }
        if (grm) {
            double period = config.control().periodSeconds();
            for (double c = period; c < end; c += period) {
                double ct = c;
                at(ct, () -> control(ct));
            }
        }
        if (progress != null && progressEvery > 0) {
            for (double p = progressEvery; p < end; p += progressEvery) {
                double pt = p;
                at(pt, () -> progress.accept(String.format(java.util.Locale.ROOT,
                        "sim: %.0f of %.0f simulated s, %d requests, %.0f wall s (%.0f in the GRM)", pt, end, requests,
                        (System.nanoTime() - wallStart) / 1e9, controlWallSeconds)));
            }
        }
        kernel.runUntil(end);
        Map<String, Double> joules = power.joules(end);
        List<SimResult.PhaseResult> phases = book.results(scenario.phases());
        return new SimResult(phases, allocationLog, requests, (System.nanoTime() - wallStart) / 1e9, joules, powerLog);
    }

    private void startPhase(int p) {
        phase = p;
        phaseStart = kernel.now();
        book.startPhase();
        SimScenario.Phase ph = scenario.phases().get(p);
        for (int k = 0; k < config.classes().size(); k++) {
            ClassConfig c = config.classes().get(k);
            int want = ph.clients().getOrDefault(c.name(), 0);
            int have = activeSimClients.getOrDefault(c.name(), 0);
            for (SimClient cl : clients) {
                if (have <= want) {
                    break;
                }
                if (cl.cls.equals(c.name()) && !cl.retired) {
                    cl.retired = true;
                    have--;
                }
            }
            while (have < want) {
                SimClient cl = new SimClient(c.name(), k, nextGateway++ % gateways.size());
                clients.add(cl);
                have++;
                at(kernel.now() + exp(scenario.thinkSeconds()), () -> send(cl));
            }
            activeSimClients.put(c.name(), want);
            double rate = ph.rates().getOrDefault(c.name(), 0.0);
            if (rate > 0) {
                source(c.name(), k, p, ArrivalProcess.poisson(rate));
            }
            Scenario.Pareto par = ph.pareto().get(c.name());
            if (par != null) {
                source(c.name(), k, p, ArrivalProcess.paretoOnOff(par.shape(), par.onSeconds(), par.offSeconds(),
                        par.intervalSeconds(), kernel.now()));
            }
            Scenario.Diurnal d = ph.diurnal().get(c.name());
            if (d != null) {
                source(c.name(), k, p, ArrivalProcess.diurnal(d.peak(), d.trough(), kernel.now(), ph.durationSeconds(),
                        d.noise(), d.noiseSeconds(), d.noiseSeed()));
            }
        }
    }

    /** An open-loop source of class {@code cls} in phase {@code p}: one-shot clients at the process's arrivals. */
    private void source(String cls, int classIndex, int p, ArrivalProcess process) {
        SplittableRandom own = random.split();
        double end = phaseStart + scenario.phases().get(p).durationSeconds();
        Runnable[] next = new Runnable[1];
        double[] last = {kernel.now()};
        next[0] = () -> {
            double t = process.nextArrival(last[0], own);
            if (t >= end) {
                return;
            }
            last[0] = t;
            at(t, () -> {
                if (phase != p) {
                    return;
                }
                SimClient once = new SimClient(cls, classIndex, nextGateway++ % gateways.size());
                once.retired = true;
                send(once);
                next[0].run();
            });
        };
        next[0].run();
    }

    private double exp(double mean) {
        return mean <= 0 ? 0 : -mean * Math.log(1 - random.nextDouble());
    }

    private void send(SimClient cl) {
        double now = kernel.now();
        SimRequest r = new SimRequest(cl, cl.cls, cl.gateway, now, phase);
        GatewayCore<SimRequest> g = gateways.get(cl.gateway);
        book.tally(phase, cl.classIndex).sent++;
        requests++;
        arrivalsSinceReport++;
        r.ticket = g.offer(r, gatewayClass[cl.gateway][cl.classIndex], nanos(now));
        if (r.ticket.state() == Ticket.State.REJECTED) {
            answered(r, now, ResultRecorder.Outcome.REJECTED);
            return;
        }
        pump(cl.gateway, now);
        scheduleExpiry(cl.gateway);
    }

    private void pump(int gi, double now) {
        GatewayCore<SimRequest> g = gateways.get(gi);
        Ticket<SimRequest> t;
        while ((t = g.next(nanos(now))) != null) {
            SimRequest r = t.request();
            if (t.state() == Ticket.State.EXPIRED) { // a yield scheduler dropped it (zeroYield): 503
                answered(r, now, ResultRecorder.Outcome.REJECTED);
                continue;
            }
            int s = t.server();
            if (failedDepth[s] > 0) {
                // refused before any byte was sent: back to its queue (the product's rule), server skipped for a while
                g.markDown(s, nanos(now));
                if (!g.failed(t, org.arbiter.gateway.ServerHealth.Failure.CONNECT_REFUSED, false, true, nanos(now))) {
                    answered(r, now, ResultRecorder.Outcome.LOST);
                }
                continue;
            }
            if (power.model(s).advanceTo(now) != PowerModel.State.ON) {
                // the connection is refused: the request is lost, the gateway skips the server for a while
                g.markDown(s, nanos(now));
                g.complete(t, Outcome.BACKEND_ERROR, nanos(now));
                answered(r, now, ResultRecorder.Outcome.LOST);
                continue;
            }
            double mean = demand[s][r.client.classIndex];
            List<PsServer.Done<SimRequest>> done = servers.get(s).admit(r, exp(mean), now);
            power.model(s).busyFraction(servers.get(s).busyFraction(), now);
            finish(done);
            scheduleWake(s);
        }
    }

    /** Server {@code s} fails now: what it holds is lost; it refuses connections until it recovers. */
    private void fail(int s) {
        double t = kernel.now();
        failedDepth[s]++;
        finish(servers.get(s).advance(t));
        java.util.Set<Integer> touched = new java.util.TreeSet<>();
        for (SimRequest r : servers.get(s).drain(t)) {
            GatewayCore<SimRequest> g = gateways.get(r.gateway);
            g.failed(r.ticket, org.arbiter.gateway.ServerHealth.Failure.RESET, true, false, nanos(t));
            book.tally(r.phase, r.client.classIndex).lostToFailure++;
            answered(r, t, ResultRecorder.Outcome.LOST);
            touched.add(r.gateway);
        }
        power.model(s).busyFraction(0, t);
        serverWake[s] = Double.POSITIVE_INFINITY;
        for (int gi : touched) {
            pump(gi, t);
            scheduleExpiry(gi);
        }
    }

    /** Server {@code s} serves again (empty) once no failure of it lasts. */
    private void recover(int s) {
        failedDepth[s]--;
        if (failedDepth[s] == 0) {
            for (int gi = 0; gi < gateways.size(); gi++) {
                pump(gi, kernel.now());
                scheduleExpiry(gi);
            }
        }
    }

    private void scheduleWake(int s) {
        double next = servers.get(s).nextEventTime();
        if (next == serverWake[s] || next == Double.POSITIVE_INFINITY) {
            serverWake[s] = next;
            return;
        }
        serverWake[s] = next;
        // the pending wake, if any, moves to the new time (as scheduling anew and letting the old one do
        // nothing would order it, without the old one in the queue); else a new one
        if (!kernel.reschedule(wakeHandle[s], next)) {
            wakeHandle[s] = kernel.scheduleHandle(next, 0, wakeAction[s]);
        }
    }

    private void wake(int s) {
        double now = kernel.now();
        if (serverWake[s] != now) {
            return; // superseded: the server went idle (or failed) since
        }
        serverWake[s] = Double.POSITIVE_INFINITY;
        List<PsServer.Done<SimRequest>> done = servers.get(s).advance(now);
        power.model(s).busyFraction(servers.get(s).busyFraction(), now);
        finish(done);
        scheduleWake(s);
    }

    private void finish(List<PsServer.Done<SimRequest>> done) {
        for (PsServer.Done<SimRequest> d : done) {
            SimRequest r = d.request();
            GatewayCore<SimRequest> g = gateways.get(r.gateway);
            g.complete(r.ticket, Outcome.OK, nanos(d.timeSeconds()));
            answered(r, d.timeSeconds(), ResultRecorder.Outcome.OK);
            pump(r.gateway, d.timeSeconds());
        }
    }

    private void scheduleExpiry(int gi) {
        long next = gateways.get(gi).nextExpiryNanos();
        if (next == Long.MAX_VALUE) {
            return;
        }
        double t = Math.max(kernel.now(), next / (double) NS);
        if (t >= gatewayExpiry[gi]) {
            return;
        }
        gatewayExpiry[gi] = t;
        long check = ++expiryCheck[gi];
        at(t, () -> {
            if (expiryCheck[gi] != check) {
                return; // replaced by an earlier check, which ran and scheduled the next
            }
            gatewayExpiry[gi] = Double.POSITIVE_INFINITY;
            for (Ticket<SimRequest> x : gateways.get(gi).expireQueued(nanos(t))) {
                answered(x.request(), t, ResultRecorder.Outcome.REJECTED);
            }
            scheduleExpiry(gi);
        });
    }

    private void answered(SimRequest r, double now, ResultRecorder.Outcome outcome) {
        if (recorder != null) {
            recorder.record(r.cls, r.phase, r.sent, now, outcome);
        }
        if (requestSink != null) {
            requestSink.answered(r.cls, r.phase, r.sent, now, outcome);
        }
        book.tally(r.phase, r.client.classIndex).answered(outcome, now - r.sent);
        if (outcome != ResultRecorder.Outcome.OK) {
            dropsSinceReport++;
        }
        SimClient cl = r.client;
        if (!cl.retired) {
            double next = now + exp(scenario.thinkSeconds());
            at(next, () -> {
                if (!cl.retired) {
                    send(cl);
                }
            });
        }
    }

    private void report(double t) {
        for (GatewayCore<SimRequest> g : gateways) {
            Instant at = Instant.EPOCH.plusNanos(nanos(t));
            core.stats(g.snapshot(at, nanos(t)), at);
        }
        if (phase >= 0) {
            book.sampleWeights(phase, t - phaseStart, scenario.phases().get(phase).durationSeconds(), gateways);
        }
        settlePower(t);
        ServerPower.Census n = power.census(t);
        Fleet fleet = core.pooled() ? null : core.single().fleet().orElse(null);
        powerLog.add(new SimResult.PowerPoint(t, n.on(), n.booting(), n.shuttingDown(), n.watts(),
                t > lastReport ? arrivalsSinceReport / (t - lastReport) : 0,
                fleet == null ? 0 : fleet.capacityPerServer(), fleet == null ? 0 : fleet.forecastRate(),
                dropsSinceReport, power.boots()));
        arrivalsSinceReport = 0;
        dropsSinceReport = 0;
        lastReport = t;
    }

    private void control(double t) {
        settlePower(t);
        List<GrmCore.Command> commands = new ArrayList<>();
        List<PoolGroup.Pool> pools = core.pools();
        for (int p = 0; p < pools.size(); p++) { // each pool's period timed on its own: its owner's step
            long started = System.nanoTime();
            commands.addAll(core.tick(pools.get(p), Instant.EPOCH.plusNanos(nanos(t))));
            double took = (System.nanoTime() - started) / 1e9;
            poolWallSeconds[p] += took;
            controlWallSeconds += took;
        }
        List<Allocation> allocations = new ArrayList<>();
        for (GrmCore.Command c : commands) { // actuations first, then the allocations, as the period's outcome
            if (c instanceof GrmCore.Command.Actuate a) {
                // every core lists the servers in config order
                actuate(gateways.get(0).serverIndex(a.actuation().server()), a.actuation().action(), t);
            } else if (c instanceof GrmCore.Command.PublishAllocation a) {
                allocations.add(a.allocation());
            } else if (c instanceof GrmCore.Command.PublishDecision d && decisionSink != null) {
                decisionSink.accept(d.decision());
            }
        }
        Map<String, Map<String, Double>> w = new TreeMap<>();
        Map<String, Map<String, Integer>> caps = new TreeMap<>();
        for (Allocation a : allocations) {
            for (int i = 0; i < gateways.size(); i++) {
                if (gateways.get(i).gatewayId().equals(a.gateway())) {
                    gateways.get(i).applyAllocation(a);
                    pump(i, t);
                }
            }
            if (core.pooled()) { // one allocation per pool and gateway: the gateway's are merged
                w.computeIfAbsent(a.gateway(), k -> new TreeMap<>()).putAll(a.weights());
                if (logCaps) {
                    caps.computeIfAbsent(a.gateway(), k -> new TreeMap<>()).putAll(a.serverCaps());
                }
            } else {
                w.put(a.gateway(), a.weights());
                if (logCaps) {
                    caps.put(a.gateway(), a.serverCaps());
                }
            }
        }
        if (!allocations.isEmpty()) {
            allocationLog.add(new SimResult.AllocationPoint(t, allocations.get(0).version(), w, caps));
        }
    }

    // ---------------------------------------------------------------- power

    /** The GRM's actuation: power server {@code s} on or off at {@code t}. */
    private void actuate(int s, ServerState action, double t) {
        power.want(s, action == ServerState.ON);
        PowerModel m = power.model(s);
        PowerModel.State state = m.advanceTo(t);
        if (power.wantOn(s) && state == PowerModel.State.OFF) {
            m.powerOn(t);
            power.booted();
            scheduleTransition(s);
        } else if (!power.wantOn(s) && state == PowerModel.State.ON) {
            List<PsServer.Done<SimRequest>> done = servers.get(s).advance(t);
            finish(done);
            for (SimRequest r : servers.get(s).drain(t)) { // cut off in the middle: lost
                GatewayCore<SimRequest> g = gateways.get(r.gateway);
                g.complete(r.ticket, Outcome.BACKEND_ERROR, nanos(t));
                answered(r, t, ResultRecorder.Outcome.LOST);
                pump(r.gateway, t);
            }
            m.busyFraction(0, t);
            m.powerOff(t);
            scheduleTransition(s);
        }
        // otherwise already there or on the way; a pending wish is carried out when the transition ends
    }

    private void scheduleTransition(int s) {
        double due = power.model(s).nextTransitionTime();
        if (due < Double.POSITIVE_INFINITY) {
            at(due, () -> settlePower(due));
        }
    }

    /** Completes every boot and shutdown due by {@code t}, tells the GRM, and carries out pending wishes. */
    private void settlePower(double t) {
        for (int s = 0; s < power.size(); s++) {
            double due = power.model(s).nextTransitionTime();
            if (due > t) {
                continue;
            }
            PowerModel.State state = power.model(s).advanceTo(due);
            if (grm) {
                core.serverSeen(config.servers().get(s).id(), state == PowerModel.State.ON, "",
                        Instant.EPOCH.plusNanos(nanos(due)));
            }
            if (state == PowerModel.State.ON && !power.wantOn(s) || state == PowerModel.State.OFF && power.wantOn(s)) {
                actuate(s, power.wantOn(s) ? ServerState.ON : ServerState.OFF, due);
            }
        }
    }
}
