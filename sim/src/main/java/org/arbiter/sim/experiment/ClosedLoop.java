package org.arbiter.sim.experiment;

import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;
import java.util.SplittableRandom;
import org.arbiter.grm.concurrency.ConcurrencyController;
import org.arbiter.loadgen.model.PsServer;
import org.arbiter.loadgen.workload.Distributions;
import org.arbiter.loadgen.workload.ThinkTime;

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
        SplittableRandom random = new SplittableRandom(seed);
        ThinkTime think = new ThinkTime(thinkSeconds);
        PsServer<Request> ps = new PsServer<>(server.cores(), 0, server.knee(), 0);
        int maxClients = segments.stream().mapToInt(Segment::clients).max().orElse(0);
        PriorityQueue<double[]> wakeUps = new PriorityQueue<>((a, b) -> a[0] != b[0] ? Double.compare(a[0], b[0])
                : Double.compare(a[1], b[1]));
        boolean[] busy = new boolean[maxClients];
        int limit = controller != null ? controller.current() : segments.get(0).limit();
        List<Period> out = new ArrayList<>();
        double end = segments.stream().mapToDouble(Segment::seconds).sum();
        double nextControl = periodSeconds;
        int index = -1;
        double nextSegment = 0;
        long arrivals = 0;
        long rejected = 0;
        long completions = 0;
        double latencySum = 0;
        double inFlightArea = 0;
        double lastT = 0;
        double lastControl = 0;
        while (true) {
            double tWake = wakeUps.isEmpty() ? Double.POSITIVE_INFINITY : wakeUps.peek()[0];
            double t = Math.min(Math.min(tWake, ps.nextEventTime()), Math.min(nextControl, nextSegment));
            if (t > end + 1e-9) {
                break;
            }
            inFlightArea += ps.inFlight() * (t - lastT);
            lastT = t;
            for (PsServer.Done<Request> d : ps.advance(t)) {
                completions++;
                latencySum += d.timeSeconds() - d.request().startSeconds();
                wakeUps.add(new double[] {think.nextRequest(d.timeSeconds(), random), d.request().client()});
            }
            if (t == nextControl) {
                double seconds = t - lastControl;
                out.add(new Period(t, Math.max(index, 0), limit, inFlightArea / seconds, arrivals, rejected, completions,
                        latencySum, seconds));
                if (controller != null) {
                    Period p = out.get(out.size() - 1);
                    limit = controller.update(new ConcurrencyController.Sample(p.inFlight(), p.latency(), p.throughput(),
                            p.abandon(), p.incoming()));
                }
                arrivals = 0;
                rejected = 0;
                completions = 0;
                latencySum = 0;
                inFlightArea = 0;
                lastControl = t;
                nextControl = t + periodSeconds;
                continue;
            }
            if (t == nextSegment) {
                index++;
                if (index >= segments.size()) {
                    break;
                }
                Segment s = segments.get(index);
                if (controller == null) {
                    limit = s.limit();
                }
                for (int c = 0; c < s.clients(); c++) {
                    if (!busy[c]) {
                        busy[c] = true;
                        wakeUps.add(new double[] {think.nextRequest(t, random), c});
                    }
                }
                nextSegment = t + s.seconds();
                continue;
            }
            if (t == tWake) {
                double[] w = wakeUps.poll();
                int client = (int) w[1];
                Segment s = segments.get(index);
                if (client >= s.clients()) {
                    busy[client] = false; // this client leaves with the segment
                    continue;
                }
                arrivals++;
                if (ps.inFlight() < limit) {
                    Mix m = s.mix();
                    double demand = Distributions.exponential(random,
                            random.nextDouble() < m.lightShare() ? m.lightSeconds() : m.heavySeconds());
                    ps.admit(new Request(client, t), demand, m.contention(), t);
                } else {
                    rejected++;
                    wakeUps.add(new double[] {think.nextRequest(t, random), client});
                }
            }
        }
        return out;
    }
}
