package org.arbiter.loadgen.client;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/*
 * Design note — the live load generator.
 *
 * Closed loop (the papers' clients): each client thinks Exp(think), sends one request, waits for
 * its answer (or the timeout), records it, and thinks again; clients are spread over the targets
 * one per client, as an L4 switch would spread connections. At a phase boundary clients are added
 * or retired (a retired client finishes its request first). Open loop: Poisson arrivals at the
 * phase's rate, Pareto on/off sources (001: on and off periods Pareto-distributed with the given
 * means, one request per interval while on), and a compressed diurnal day (rate moving from
 * trough to peak and back over the phase, by thinning). Every request is recorded from its
 * intended start time, so a slow system cannot hide queueing by delaying the generator
 * (coordinated omission). Outcomes: ok (2xx-4xx), rejected (503), error (other 5xx, connection
 * failure), timedOut (no answer within the timeout), lost (still unanswered when the run ends).
 *
 * Threads: one scheduler thread for timing, the HTTP client's own threads for I/O; the recorder
 * is synchronized.
 */

/** Runs a {@link Scenario} against live targets. See the design note. */
public final class LoadGenerator {

    private final Scenario scenario;
    private final List<URI> targets;
    private final PrintWriter progressOut;
    private final HttpClient http;
    private final ScheduledExecutorService timer = Executors.newScheduledThreadPool(2, r -> {
        Thread t = new Thread(r, "loadgen-timer");
        t.setDaemon(true);
        return t;
    });
    private final SplittableRandom random;
    private final ResultRecorder recorder;
    private final Set<Pending> inFlight = ConcurrentHashMap.newKeySet();
    private final AtomicInteger nextTarget = new AtomicInteger();
    private final List<Client> clients = new ArrayList<>();
    private volatile int phase;
    private long startNanos;

    private record Pending(String cls, double intended) {
    }

    private final class Client {
        final String cls;
        final URI target;
        volatile boolean retired;

        Client(String cls, URI target) {
            this.cls = cls;
            this.target = target;
        }
    }

    public LoadGenerator(Scenario scenario, List<URI> targets, PrintWriter progressOut) {
        this.scenario = requireNonNull(scenario, "scenario");
        this.targets = List.copyOf(targets);
        if (this.targets.isEmpty()) {
            throw new IllegalArgumentException("--target: none (expected: at least one URL)");
        }
        this.progressOut = progressOut;
        this.http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
                .connectTimeout(Duration.ofSeconds(5)).build();
        this.random = new SplittableRandom(scenario.seed());
        this.recorder = new ResultRecorder(List.copyOf(scenario.classes().keySet()),
                scenario.phases().stream().map(Scenario.Phase::name).toList(),
                scenario.phases().stream().map(Scenario.Phase::durationSeconds).toList(),
                Math.max(0.05, Math.min(1.0, scenario.totalSeconds() / 200)));
        Map<String, Double> targetSeconds = new java.util.LinkedHashMap<>();
        scenario.classes().forEach((c, shape) -> targetSeconds.put(c, shape.targetSeconds()));
        recorder.targets(targetSeconds);
    }

    /** Runs the scenario to its end, writes the outputs into {@code outDir}, returns the summary. */
    public Map<String, Object> run(Path outDir) throws IOException, InterruptedException {
        startNanos = System.nanoTime();
        double t = 0;
        for (int i = 0; i < scenario.phases().size(); i++) {
            int p = i;
            timer.schedule(() -> startPhase(p), (long) (t * 1e9), TimeUnit.NANOSECONDS);
            t += scenario.phases().get(i).durationSeconds();
        }
        double total = t;
        long progressEvery = (long) Math.max(1000, Math.min(5000, total * 1000 / 20));
        var progress = timer.scheduleAtFixedRate(this::printProgress, progressEvery, progressEvery, TimeUnit.MILLISECONDS);
        Thread.sleep((long) (total * 1000));
        for (Client c : clients) {
            c.retired = true;
        }
        phase = Integer.MAX_VALUE;
        long graceUntil = System.nanoTime() + (long) (Math.min(scenario.timeoutSeconds(), 2.0) * 1e9);
        while (!inFlight.isEmpty() && System.nanoTime() < graceUntil) {
            Thread.sleep(10);
        }
        progress.cancel(false);
        double end = now();
        for (Pending p : List.copyOf(inFlight)) {
            if (inFlight.remove(p)) {
                recorder.record(p.cls(), p.intended(), end, ResultRecorder.Outcome.LOST);
            }
        }
        timer.shutdownNow();
        recorder.write(outDir, total);
        return recorder.summary(total);
    }

    public ResultRecorder recorder() {
        return recorder;
    }

    private double now() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private void startPhase(int p) {
        phase = p;
        Scenario.Phase ph = scenario.phases().get(p);
        for (String cls : scenario.classes().keySet()) {
            int want = ph.clients().getOrDefault(cls, 0);
            int have = 0;
            for (Client c : clients) {
                if (c.cls.equals(cls) && !c.retired) {
                    if (have >= want) {
                        c.retired = true;
                    } else {
                        have++;
                    }
                }
            }
            while (have < want) {
                Client c = new Client(cls, targets.get(Math.floorMod(nextTarget.getAndIncrement(), targets.size())));
                clients.add(c);
                have++;
                think(c);
            }
            Double rate = ph.rates().get(cls);
            if (rate != null && rate > 0) {
                poisson(cls, p, now(), rate);
            }
            Scenario.Pareto par = ph.pareto().get(cls);
            if (par != null) {
                paretoOff(cls, p, now(), par);
            }
            Scenario.Diurnal d = ph.diurnal().get(cls);
            if (d != null) {
                diurnal(cls, p, now(), now(), ph.durationSeconds(), d);
            }
        }
    }

    private double exp(double mean) {
        synchronized (random) {
            return mean <= 0 ? 0 : -mean * Math.log(1 - random.nextDouble());
        }
    }

    private double uniform() {
        synchronized (random) {
            return random.nextDouble();
        }
    }

    private void think(Client c) {
        if (c.retired) {
            return;
        }
        timer.schedule(() -> send(c.cls, c.target, now(), () -> think(c)), (long) (exp(scenario.thinkSeconds()) * 1e9),
                TimeUnit.NANOSECONDS);
    }

    private void at(double intended, Runnable r) {
        long delay = (long) ((intended - now()) * 1e9);
        timer.schedule(r, Math.max(0, delay), TimeUnit.NANOSECONDS);
    }

    private URI openTarget() {
        return targets.get(Math.floorMod(nextTarget.getAndIncrement(), targets.size()));
    }

    private void poisson(String cls, int p, double from, double rate) {
        double next = from + exp(1 / rate);
        at(next, () -> {
            if (phase != p) {
                return;
            }
            send(cls, openTarget(), next, null);
            poisson(cls, p, next, rate);
        });
    }

    private double pareto(double shape, double mean) {
        double xm = mean * (shape - 1) / shape;
        return xm / Math.pow(1 - uniform(), 1 / shape);
    }

    private void paretoOff(String cls, int p, double from, Scenario.Pareto par) {
        double onAt = from + pareto(par.shape(), par.offSeconds());
        at(onAt, () -> {
            if (phase == p) {
                paretoOn(cls, p, onAt, onAt + pareto(par.shape(), par.onSeconds()), par);
            }
        });
    }

    private void paretoOn(String cls, int p, double t, double until, Scenario.Pareto par) {
        if (phase != p) {
            return;
        }
        if (t >= until) {
            paretoOff(cls, p, until, par);
            return;
        }
        at(t, () -> {
            if (phase != p) {
                return;
            }
            send(cls, openTarget(), t, null);
            paretoOn(cls, p, t + par.intervalSeconds(), until, par);
        });
    }

    private void diurnal(String cls, int p, double phaseStart, double from, double length, Scenario.Diurnal d) {
        double max = Math.max(d.peak(), d.trough());
        if (max <= 0) {
            return;
        }
        double next = from + exp(1 / max);
        at(next, () -> {
            if (phase != p) {
                return;
            }
            double x = (next - phaseStart) / length;
            double rate = d.trough() + (d.peak() - d.trough()) * (1 - Math.cos(2 * Math.PI * x)) / 2;
            if (uniform() < rate / max) {
                send(cls, openTarget(), next, null);
            }
            diurnal(cls, p, phaseStart, next, length, d);
        });
    }

    private void send(String cls, URI target, double intended, Runnable then) {
        Scenario.RequestShape shape = scenario.classes().get(cls);
        HttpRequest.Builder b = HttpRequest.newBuilder(target.resolve(shape.path()))
                .timeout(Duration.ofNanos((long) (scenario.timeoutSeconds() * 1e9)))
                .method(shape.method(), HttpRequest.BodyPublishers.noBody());
        shape.headers().forEach(b::header);
        Pending pending = new Pending(cls, intended);
        inFlight.add(pending);
        http.sendAsync(b.build(), HttpResponse.BodyHandlers.discarding()).whenComplete((resp, ex) -> {
            if (!inFlight.remove(pending)) {
                return; // counted as lost at the end
            }
            ResultRecorder.Outcome o;
            if (ex != null) {
                Throwable cause = ex instanceof java.util.concurrent.CompletionException && ex.getCause() != null ? ex.getCause() : ex;
                o = cause instanceof HttpTimeoutException ? ResultRecorder.Outcome.TIMED_OUT : ResultRecorder.Outcome.ERROR;
            } else if (resp.statusCode() == 503) {
                o = ResultRecorder.Outcome.REJECTED;
            } else if (resp.statusCode() >= 500) {
                o = ResultRecorder.Outcome.ERROR;
            } else {
                o = ResultRecorder.Outcome.OK;
            }
            recorder.record(cls, intended, now(), o);
            if (then != null) {
                then.run();
            }
        });
    }

    private void printProgress() {
        if (progressOut == null) {
            return;
        }
        StringBuilder b = new StringBuilder();
        int p = Math.min(phase, scenario.phases().size() - 1);
        b.append(String.format(Locale.ROOT, "loadgen %5.1fs phase %s clients %d",
                now(), scenario.phases().get(p).name(), clients.stream().filter(c -> !c.retired).count()));
        recorder.progress().forEach((c, v) -> b.append(String.format(Locale.ROOT, " | %s sent %d ok %d mean %d ms",
                c, v[0], v[1], v[2])));
        progressOut.println(b);
        progressOut.flush();
    }
}
