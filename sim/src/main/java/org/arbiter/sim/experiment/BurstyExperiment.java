package org.arbiter.sim.experiment;

/*
 * Design note — the bursty experiment (001 Fig. 1, Fig. 3, Table 1), single-server mode.
 *
 * Model. One FIFO queue whose service rate μ (requests per second) the controller sets directly at
 * each control invocation, every Γ seconds, as in 001 §3-5: each request is one unit of work, served
 * at the rate in force (a rate change takes effect at once, also on the request in service), so a
 * request's delay is its wait plus its own service. μ is never above the server's capacity (infinite
 * in 001 §3-5's simulation; finite in the Table 1 sweep, as on 001 §6's Apache server).
 *
 * Source. Pareto on/off (001 §3, ns-2's POO): On and Off periods Pareto with shape 1.5 and means
 * Burst_Time and Idle_Time; during an On period a request every Interval, at least one per period.
 *
 * Controllers. Step 1 of 001 for all: at each invocation measure the queue length l (the requests
 * waiting, not the one in service: 001 §6's queue is Apache's, of requests waiting for a process, and
 * the GRM's ℓ is the gateway's waiting requests; counting the one in service too, a lone request
 * found μ = 2/D_ref and the mean delay sat 19 % below D_ref) and update λ̂, the rate over the last 500 arrivals (001 §3: "on the order of 500 requests").
 * The service rate is the one at which the GRM's flow model (FlowModel, the same code the GRM runs)
 * predicts D_ref for a single queue: μ = 1/D_ref + λ_model (FlowModel#serviceRateFor), with
 *   model         FlowModel.mm1:         λ̂                                 (001 §3, no queue term)
 *   model-pi      λ̂ + Δμ, LiuControl.Pi.freeAbove: 001 §3's Queueing Model Based Feedback Control
 *                                        with its feedback loop ([18] in 001), no queue term; Fig. 1's
 *                                        controller. Its integral is free above (no upper anti-windup
 *                                        bound): the long-term mean delay close to D_ref that 001 §3
 *                                        reports is what such an integrator gives (bounded at 1/D_ref:
 *                                        7.7 s); below it stops at ki·I = −1, μ ≥ λ̂ (free both ways, hours
 *                                        of light load wound μ down to ~0 before a burst: 15.6 s)
 *   liu           FlowModel.liu:         λ̂ + K(l − λ̂ D_ref), K = 1/D_ref   (001 §4 Step 1-3)
 *   liu-pi        FlowModel.liu + Δμ:    the above plus LiuControl.Pi on the delay of the requests
 *                                        completed in the interval (001 Fig. 2)
 *   queue-length  FlowModel.queueLength: λ̂ + max(0, l − λ̂ t̃)/Γ, t̃ the mean delay of the requests
 *                                        completed in the last interval (Arbiter's mode)
 *
 * Measures. As in 001 Fig. 1 and 3, each point is the mean delay of 1 000 consecutive requests (in
 * completion order, which FIFO makes arrival order). The mean reported is that of the per-request
 * delays; "variance" is 001's, that of the points ("Each point ... is an average of response times
 * experienced by 1000 requests. The corresponding mean and variance ... are 2.0041 and 1.2034",
 * 001 §3; a per-request variance of 0.0051 s² at a 2 s delay, 001 §5's figure for Fig. 3, would be
 * a standard deviation of 0.07 s per request), and the per-request variance is reported beside it.
 *
 * Fig. 1 is 001 §3's "Queueing Model Based Feedback Control": the predictor with its feedback loop
 * (model-pi). 001 §1-2 describe that architecture as the feed-forward predictor combined with a PI
 * controller; the predictor alone (model) is reported too, as Table 1's "without PI controller".
 *
 * The Table 1 sweep keeps the On rate within the server's capacity (load × burst ≤ 0.9): 001's
 * controller held 0.10-0.11 s at every World Cup scale of Table 1, so its server was never asked
 * for more than it had during a burst; where the On rate exceeds the capacity the queue grows at
 * the capacity whatever a controller asks and no law can regulate the delay.
 *
 * Thread-safety: stateless; each run owns its state.
 */

import static java.util.Objects.requireNonNull;

import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.function.Consumer;
import org.arbiter.grm.model.FlowModel;
import org.arbiter.grm.model.LiuControl;

/** 001's bursty-load experiment in the simulator (single-server mode). See the design note. */
public final class BurstyExperiment {

    /** Requests per point (001 Fig. 1, 3). */
    public static final int REQUESTS_PER_POINT = 1000;
    /** Pareto shape (001 §3). */
    public static final double SHAPE = 1.5;
    /** λ̂ is the rate over this many arrivals (001 §3). */
    public static final int RATE_WINDOW = 500;
    /** 001 §4: K = 1/D_ref. */
    public static final double LIU_K = 1;
    /** The PI gains of liu-pi (dimensionless, see LiuControl). */
    public static final double PI_KP = 0.5;
    public static final double PI_KI = 0.5;
    /** The Table 1 sweep's D_ref (001 §6). */
    public static final double SWEEP_TARGET = 0.1;
    /** The Table 1 sweep's server capacity, requests per second. */
    public static final double SWEEP_CAPACITY = 100;
    /** The sweep's loads (mean arrival rate / capacity); the first is the light one. */
    public static final List<Double> SWEEP_LOADS = List.of(0.1, 0.2, 0.3, 0.4, 0.5);
    /**
     * The sweep's burstiness: On-rate over mean rate (Idle_Time = (b − 1) Burst_Time). The largest
     * On rate, 0.5 × 1.8 = 0.9 of the capacity, leaves the controller 1/D_ref of headroom to serve a
     * burst at D_ref (see the design note).
     */
    public static final List<Double> SWEEP_BURSTS = List.of(1.5, 1.8);
    /** The sweep's mean On period, s. */
    public static final double SWEEP_BURST_SECONDS = 0.5;

    private BurstyExperiment() {
    }

    /** The controllers compared. */
    public enum Controller {
        MODEL("model"), MODEL_PI("model-pi"), LIU("liu"), LIU_PI("liu-pi"), QUEUE_LENGTH("queue-length");

        private final String wireName;

        Controller(String wireName) {
            this.wireName = wireName;
        }

        public String wireName() {
            return wireName;
        }
    }

    /**
     * A Pareto on/off source (001 §3).
     *
     * @param burstSeconds    Burst_Time, the mean On period
     * @param idleSeconds     Idle_Time, the mean Off period
     * @param intervalSeconds Interval, the time between requests during On
     */
    public record Source(double burstSeconds, double idleSeconds, double intervalSeconds) {
        public Source {
            if (!(burstSeconds > 0) || !(idleSeconds >= 0) || !(intervalSeconds > 0)) {
                throw new IllegalArgumentException("source: " + burstSeconds + "/" + idleSeconds + "/" + intervalSeconds
                        + " (expected: Burst_Time > 0, Idle_Time >= 0, Interval > 0)");
            }
        }

        /** The long-run mean arrival rate, requests per second. */
        public double meanRatePerSecond() {
            return burstSeconds / intervalSeconds / (burstSeconds + idleSeconds);
        }
    }

    /**
     * One single-server run's set-up.
     *
     * @param capacityPerSecond the largest μ (infinity: none)
     * @param controlSeconds    Γ, between control invocations
     */
    public record Setup(Source source, double targetSeconds, double capacityPerSecond, double controlSeconds,
                        int points) {
        public Setup {
            requireNonNull(source, "source");
            if (!(targetSeconds > 0) || !(capacityPerSecond > 0) || !(controlSeconds > 0) || points < 1) {
                throw new IllegalArgumentException("setup: " + targetSeconds + ", " + capacityPerSecond + ", "
                        + controlSeconds + ", " + points + " (expected: all > 0)");
            }
        }
    }

    /** The Fig. 1 / Fig. 3 set-up: Burst_Time 1, Idle_Time 10, Interval 0.1, D_ref 2, no capacity limit. */
    public static Setup figureSetup(int points) {
        return new Setup(new Source(1, 10, 0.1), 2, Double.POSITIVE_INFINITY, 0.1, points);
    }

    /** A Table 1 sweep point: mean rate load · capacity, On-rate burst × the mean, D_ref 0.1 s. */
    public static Setup sweepSetup(double load, double burst, int points) {
        double mean = load * SWEEP_CAPACITY;
        double interval = 1 / (mean * burst);
        Source s = new Source(SWEEP_BURST_SECONDS, (burst - 1) * SWEEP_BURST_SECONDS, interval);
        return new Setup(s, SWEEP_TARGET, SWEEP_CAPACITY, SWEEP_TARGET / 10, points);
    }

    /**
     * The whole experiment: Fig. 1 (model-pi), Fig. 3 (liu), the five controllers on that set-up, and
     * the load × burstiness sweep.
     *
     * @param points points (of 1 000 requests) per run, 2..10 000
     */
    public static BurstyResult run(long seed, int points, Consumer<String> log) {
        if (points < 2 || points > 10_000) {
            throw new IllegalArgumentException("--points: " + points + " (expected: 2 to 10000)");
        }
        requireNonNull(log, "log");
        Setup fig = figureSetup(points);
        Map<String, BurstyResult.Run> runs = new LinkedHashMap<>();
        Map<String, BurstyResult.Summary> controllers = new LinkedHashMap<>();
        for (Controller c : Controller.values()) {
            BurstyResult.Run r = simulate(fig, c, seed);
            runs.put(c.wireName(), r);
            controllers.put(c.wireName(), r.summary());
            log.accept(String.format("bursty %-12s mean %.4f s, variance %.6f (per request %.6f)", c.wireName(),
                    r.mean(), r.variance(), r.requestVariance()));
        }
        int sweepPoints = Math.max(2, Math.min(points, 50));
        List<BurstyResult.SweepPoint> sweep = new ArrayList<>();
        for (double burst : SWEEP_BURSTS) {
            for (double load : SWEEP_LOADS) {
                Setup s = sweepSetup(load, burst, sweepPoints);
                BurstyResult.Run m = simulate(s, Controller.MODEL, seed);
                BurstyResult.Run l = simulate(s, Controller.LIU, seed);
                sweep.add(new BurstyResult.SweepPoint(load, burst, m.summary(), l.summary()));
                log.accept(String.format("sweep load %.2f burst %.1f: model %.4f s var %.3g, liu %.4f s var %.3g",
                        load, burst, m.mean(), m.variance(), l.mean(), l.variance()));
            }
        }
        return new BurstyResult(runs.get("model-pi"), runs.get("liu"), controllers,
                sweep, new BurstyResult.Setup(seed, points, REQUESTS_PER_POINT, SHAPE, fig.source().burstSeconds(),
                fig.source().idleSeconds(), fig.source().intervalSeconds(), fig.targetSeconds(), fig.controlSeconds(),
                RATE_WINDOW, LIU_K, PI_KP, PI_KI, SWEEP_TARGET, SWEEP_CAPACITY, SWEEP_BURST_SECONDS,
                SWEEP_TARGET / 10, sweepPoints));
    }

    /** One run of one controller: {@code setup.points()} points of 1 000 requests. */
    public static BurstyResult.Run simulate(Setup setup, Controller controller, long seed) {
        return new Queue(setup, controller, seed).run();
    }

    /** The single queue, its source and its controller, on virtual time. */
    private static final class Queue {
        private final Setup setup;
        private final Controller controller;
        private final SplittableRandom random;
        private final double target;
        private final int total;
        // source
        private double onEnd;
        private double nextArrival;
        // queue: arrival times, FIFO; the head's remaining work (1 = untouched)
        private final ArrayDeque<Double> waiting = new ArrayDeque<>();
        private double headWork = 1;
        private double now;
        private double mu;
        // λ̂: the last RATE_WINDOW arrival times
        private final double[] window = new double[RATE_WINDOW];
        private long arrivals;
        // completions in the current interval, for t̃ and the PI term
        private double intervalSum;
        private int intervalCount;
        private double lastIntervalMean;
        private final LiuControl.Pi pi = new LiuControl.Pi(PI_KP, PI_KI);
        private final LiuControl.Pi freePi = LiuControl.Pi.freeAbove(PI_KP, PI_KI);
        // results
        private final double[] delays;
        private final double[] completedAt;
        private int done;

        Queue(Setup setup, Controller controller, long seed) {
            this.setup = setup;
            this.controller = controller;
            this.random = new SplittableRandom(seed);
            this.target = setup.targetSeconds();
            this.total = setup.points() * REQUESTS_PER_POINT;
            this.delays = new double[total];
            this.completedAt = new double[total];
            this.mu = Math.min(setup.capacityPerSecond(), 1 / target);
            startOn(0);
        }

        private double pareto(double mean) {
            double xm = mean * (SHAPE - 1) / SHAPE;
            return xm / Math.pow(1 - random.nextDouble(), 1 / SHAPE);
        }

        private void startOn(double at) {
            onEnd = at + pareto(setup.source().burstSeconds());
            nextArrival = at;
        }

        private void advanceSource() {
            double next = nextArrival + setup.source().intervalSeconds();
            if (next < onEnd) {
                nextArrival = next;
            } else {
                double idle = setup.source().idleSeconds() > 0 ? pareto(setup.source().idleSeconds()) : 0;
                startOn(onEnd + idle);
            }
        }

        BurstyResult.Run run() {
            double nextControl = setup.controlSeconds();
            while (done < total) {
                double t = Math.min(nextArrival, nextControl);
                serveUntil(t);
                if (done >= total) {
                    break;
                }
                if (nextArrival <= nextControl) {
                    waiting.addLast(nextArrival);
                    window[(int) (arrivals % RATE_WINDOW)] = nextArrival;
                    arrivals++;
                    advanceSource();
                } else {
                    control();
                    nextControl += setup.controlSeconds();
                }
            }
            return BurstyResult.Run.of(delays, completedAt, REQUESTS_PER_POINT);
        }

        /** Serves at rate μ from now to {@code t}, recording completions. */
        private void serveUntil(double t) {
            while (!waiting.isEmpty() && mu > 0 && done < total) {
                double finish = now + headWork / mu;
                if (finish > t) {
                    headWork -= (t - now) * mu;
                    break;
                }
                now = finish;
                double arrived = waiting.removeFirst();
                headWork = 1;
                double d = now - arrived;
                delays[done] = d;
                completedAt[done] = now;
                done++;
                intervalSum += d;
                intervalCount++;
            }
            now = t;
        }

        /** λ̂ over the last RATE_WINDOW arrivals (all of them before that many). */
        private double rateEstimate() {
            if (arrivals == 0) {
                return 0;
            }
            if (arrivals < RATE_WINDOW) {
                return now > 0 ? arrivals / now : 0;
            }
            double oldest = window[(int) (arrivals % RATE_WINDOW)];
            return now > oldest ? RATE_WINDOW / (now - oldest) : 0;
        }

        /** One control invocation (001 Step 1-3). */
        private void control() {
            double lambda = rateEstimate();
            double l = Math.max(0, waiting.size() - 1); // waiting: the head is in service
            double measured = intervalCount > 0 ? intervalSum / intervalCount : Double.NaN;
            if (intervalCount > 0) {
                lastIntervalMean = measured;
            }
            double cap = 1e9;
            FlowModel model = switch (controller) {
                case MODEL -> FlowModel.mm1(lambda, lastIntervalMean, 1, cap);
                case MODEL_PI -> new FlowModel(lambda, lastIntervalMean, 1, cap,
                        lambda + freePi.update(measured, target, setup.controlSeconds()));
                case LIU -> FlowModel.liu(lambda, lastIntervalMean, 1, cap, l, target, LIU_K, 0);
                case LIU_PI -> FlowModel.liu(lambda, lastIntervalMean, 1, cap, l, target, LIU_K,
                        pi.update(measured, target, setup.controlSeconds()));
                case QUEUE_LENGTH -> FlowModel.queueLength(lambda, lastIntervalMean, 1, cap, l, setup.controlSeconds(), 1);
            };
            mu = Math.min(setup.capacityPerSecond(), Math.max(0, model.serviceRateFor(target)));
            intervalSum = 0;
            intervalCount = 0;
        }
    }
}
