package org.arbiter.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.SplittableRandom;
import org.arbiter.grm.concurrency.ConcurrencyController;
import org.arbiter.loadgen.model.PsServer;
import org.arbiter.loadgen.workload.Distributions;
import org.arbiter.loadgen.workload.ThinkTime;
import org.arbiter.sim.kernel.EventKernel;

/*
 * Design note — 004's testbed in virtual time (004 §2.1, §5.1): N closed-loop clients, an
 * admission proxy with a limit MPL, one server.
 *
 * Clients: each thinks Exp(Z) between an answer and its next request; a request that arrives while
 * MPL requests are in the server is rejected at once — 004's abandon — and its client thinks and
 * tries again (no admission queue). When N falls, the clients beyond it leave at their next
 * request; when it rises, new ones start thinking.
 *
 * Server: loadgen's PsServer (processor sharing over `cores` CPUs, each request's progress divided
 * by 1 + ō·max(0, n − knee), ō the mean contention of the requests in service). The mix sets each
 * admitted request's demand — with probability lightShare Exp(lightSeconds), else Exp(heavySeconds)
 * — and its contention. Latency L is the time a request spends in the server (004: "the time
 * needed by the server to process a request").
 *
 * Proxy: every period it measures N_e (time-average of requests in the server), T_i (arrivals/s),
 * T_o (completions/s), L (mean latency of the period's completions) and α (rejected / arrived);
 * the limit is a schedule's (open loop) or a controller's answer to that sample (closed loop).
 *
 * Deterministic under the seed; not thread-safe (runs on the caller's thread).
 */

/** 004's testbed: closed-loop clients, an admission proxy, a processor-sharing server. See the design note. */
final class ClosedLoop {

    /** A workload mix: demand Exp(lightSeconds) with probability lightShare, else Exp(heavySeconds); contention per request. */
    record Mix(String name, double lightShare, double lightSeconds, double heavySeconds, double contention) {

        double meanSeconds() {
            return lightShare * lightSeconds + (1 - lightShare) * heavySeconds;
        }
    }

    /** The server: PsServer's cores and knee. */
    record Server(int cores, int knee) {
    }

    /** From the previous segment's end (or 0) for {@code seconds}: {@code clients}, {@code mix}, and in open loop {@code limit}. */
    record Segment(String name, double seconds, int clients, Mix mix, int limit) {
    }

    /** One control period ending at t (s). */
    record Period(double t, int segment, int limit, double inFlight, long arrivals, long rejected, long completions,
                  double latencySum, double seconds) {

        double incoming() {
            return arrivals / seconds;
        }

        double throughput() {
            return completions / seconds;
        }

        double latency() {
            return completions == 0 ? 0 : latencySum / completions;
        }

        double abandon() {
            return arrivals == 0 ? 0 : (double) rejected / arrivals;
        }
    }

    private record Request(int client, double startSeconds) {
    }

    private ClosedLoop() {
    }

    /**
     * Runs the segments; the limit is each segment's (controller absent) or the controller's, updated
     * every {@code periodSeconds} (its initial value from the start).
     */
    static List<Period> run(long seed, double thinkSeconds, Server server, List<Segment> segments, double periodSeconds,
                            ConcurrencyController controller) {
        Objects.requireNonNull(segments, "segments");
        Testbed bed = new Testbed(seed, thinkSeconds, server, segments, periodSeconds, controller);
        return bed.run();
    }

    /*
     * One run on the event kernel. At one instant the server's completions come first (every event
     * starts by advancing the server to its time), then the control step, then a segment change,
     * then client wake-ups in client order: the ranks below.
     */
    private static final class Testbed {
        private static final long RANK_SERVER = 0;
        private static final long RANK_CONTROL = 1;
        private static final long RANK_SEGMENT = 2;
        private static final long RANK_CLIENT = 3; // + the client's index

        private final EventKernel kernel = new EventKernel();
        private final SplittableRandom random;
        private final ThinkTime think;
        private final PsServer<Request> ps;
        private final List<Segment> segments;
        private final double periodSeconds;
        private final ConcurrencyController controller;
        private final boolean[] busy;
        private final List<Period> out = new ArrayList<>();
        private double serverWake = Double.POSITIVE_INFINITY;
        private int limit;
        private int index = -1;
        private long arrivals;
        private long rejected;
        private long completions;
        private double latencySum;
        private double inFlightArea;
        private double lastT;
        private double lastControl;

        Testbed(long seed, double thinkSeconds, Server server, List<Segment> segments, double periodSeconds,
                ConcurrencyController controller) {
            this.random = new SplittableRandom(seed);
            this.think = new ThinkTime(thinkSeconds);
            this.ps = new PsServer<>(server.cores(), 0, server.knee(), 0);
            this.segments = segments;
            this.periodSeconds = periodSeconds;
            this.controller = controller;
            this.busy = new boolean[segments.stream().mapToInt(Segment::clients).max().orElse(0)];
            this.limit = controller != null ? controller.current() : segments.get(0).limit();
        }

        List<Period> run() {
            double end = segments.stream().mapToDouble(Segment::seconds).sum();
            kernel.schedule(periodSeconds, RANK_CONTROL, this::control);
            kernel.schedule(0, RANK_SEGMENT, this::segment);
            kernel.runUntil(end + 1e-9);
            return out;
        }

        /** Every event first moves the server to now: its completions' clients start thinking. */
        private double advance() {
            double t = kernel.now();
            inFlightArea += ps.inFlight() * (t - lastT);
            lastT = t;
            for (PsServer.Done<Request> d : ps.advance(t)) {
                completions++;
                latencySum += d.timeSeconds() - d.request().startSeconds();
                wake(think.nextRequest(d.timeSeconds(), random), d.request().client());
            }
            return t;
        }

        private void wake(double at, int client) {
            kernel.schedule(at, RANK_CLIENT + client, () -> request(client));
        }

        /** Keeps one server event queued at the server's next completion. */
        private void scheduleServer() {
            double next = ps.nextEventTime();
            if (next == serverWake || next == Double.POSITIVE_INFINITY) {
                serverWake = next;
                return;
            }
            serverWake = next;
            kernel.schedule(next, RANK_SERVER, () -> {
                if (serverWake != next) {
                    return; // superseded
                }
                serverWake = Double.POSITIVE_INFINITY;
                advance();
                scheduleServer();
            });
        }

        private void control() {
            double t = advance();
            double seconds = t - lastControl;
            Period p = new Period(t, Math.max(index, 0), limit, inFlightArea / seconds, arrivals, rejected, completions,
                    latencySum, seconds);
            out.add(p);
            if (controller != null) {
                limit = controller.update(new ConcurrencyController.Sample(p.inFlight(), p.latency(), p.throughput(),
                        p.abandon(), p.incoming()));
            }
            arrivals = 0;
            rejected = 0;
            completions = 0;
            latencySum = 0;
            inFlightArea = 0;
            lastControl = t;
            kernel.schedule(t + periodSeconds, RANK_CONTROL, this::control);
            scheduleServer();
        }

        private void segment() {
            double t = advance();
            index++;
            if (index >= segments.size()) {
                kernel.stop();
                return;
            }
            Segment s = segments.get(index);
            if (controller == null) {
                limit = s.limit();
            }
            for (int c = 0; c < s.clients(); c++) {
                if (!busy[c]) {
                    busy[c] = true;
                    wake(think.nextRequest(t, random), c);
                }
            }
            kernel.schedule(t + s.seconds(), RANK_SEGMENT, this::segment);
            scheduleServer();
        }

        private void request(int client) {
            double t = advance();
            Segment s = segments.get(index);
            if (client >= s.clients()) {
                busy[client] = false; // this client leaves with the segment
                scheduleServer();
                return;
            }
            arrivals++;
            if (ps.inFlight() < limit) {
                Mix m = s.mix();
                double demand = Distributions.exponential(random,
                        random.nextDouble() < m.lightShare() ? m.lightSeconds() : m.heavySeconds());
                ps.admit(new Request(client, t), demand, m.contention(), t);
            } else {
                rejected++;
                wake(think.nextRequest(t, random), client);
            }
            scheduleServer();
        }
    }
}
