package org.arbiter.loadgen.client;

import static java.util.Objects.requireNonNull;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.channel.ChannelHandlerContext;
import io.netty.channel.ChannelInboundHandlerAdapter;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.EventLoopGroup;
import io.netty.channel.MultiThreadIoEventLoopGroup;
import io.netty.channel.SimpleChannelInboundHandler;
import io.netty.channel.nio.NioIoHandler;
import io.netty.channel.socket.SocketChannel;
import io.netty.channel.socket.nio.NioSocketChannel;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpClientCodec;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpObjectAggregator;
import io.netty.handler.codec.http.HttpUtil;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.util.AttributeKey;
import io.netty.util.concurrent.ScheduledFuture;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.SplittableRandom;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.arbiter.loadgen.workload.ArrivalProcess;
import org.arbiter.loadgen.workload.ThinkTime;

/*
 * Design note — the live load generator.
 *
 * Closed loop (003 §V's clients): each client thinks Exp(think) (ThinkTime), sends one request
 * on its own keep-alive connection, waits for the answer (or the timeout), records it, and thinks
 * again. Clients are spread over the targets one connection each, round-robin, as an L4 switch
 * spreads connections. At a phase boundary clients are added or retired (a retired client finishes
 * its request first). Open loop: the pure ArrivalProcess sources — Poisson at the phase's rate,
 * 001's Pareto on/off, a compressed diurnal day — each send at exactly the arrival times the
 * process gives, on a pool of keep-alive connections per target that grows as needed, so an
 * open-loop source never waits for a connection.
 *
 * No coordinated omission: every request is recorded from its *intended* start time (the end of
 * the think time, the arrival time), so a slow system cannot hide queueing by delaying the
 * generator. Outcomes (ResultRecorder): ok (2xx/3xx/4xx), rejected (503, a gateway's admission
 * refusal), error (other 5xx, connection refused or reset), timedOut (no answer `timeout` after the
 * intended start; its connection is closed), lost (still unanswered when the run ends, after a
 * grace of min(timeout, 2 s)). After a connection error a closed-loop client waits at least 10 ms
 * before trying again, so a dead target with think 0 is not hammered in a tight loop.
 *
 * Failover (closed loop, several targets): a request whose connection is refused, or closed before
 * a single byte of the answer arrived, was never answered, so the client moves its connection to
 * the next target and sends the same request again (same intended start, same timeout), at most
 * once per other target; each move is counted (StatusTally.failovers). A connection that closes
 * after the first answer byte is an error, never resent. Every request ends in exactly one of: an
 * HTTP status (counted per code), a connection error, a time-out or lost — StatusTally.
 *
 * Threads: one Netty event loop owns everything — clients, sources, connections, timers, the
 * random generators (split per client and per source from the scenario's seed) — so there are no
 * locks; the recorder is synchronized for readers on other threads. run() blocks the caller.
 */

/** Runs a {@link Scenario} against live HTTP targets. See the design note. */
public final class LoadGenerator {

    private static final double ERROR_BACKOFF_SECONDS = 0.01;

    private final Scenario scenario;
    private final List<URI> targets;
    private final PrintWriter progressOut;
    private final ResultRecorder recorder;
    private final SplittableRandom seedRandom;
    private final ThinkTime think;
    private EventLoopGroup group;
    private volatile EventLoop loop;
    private Bootstrap bootstrap;
    private final List<Client> clients = new ArrayList<>();
    private final Map<URI, ArrayDeque<Conn>> idle = new HashMap<>();
    private final Set<Conn> conns = new LinkedHashSet<>();
    private final Set<Call> inFlight = new LinkedHashSet<>();
    private int nextTarget;
    private int phase = -1;
    private boolean ended;
    private long startNanos;
    private volatile CompletableFuture<Void> finished;
    private double endedAtSeconds = Double.NaN;
    private final StatusCounter counter = new StatusCounter();
    private volatile int inFlightCount;
    private final ProgressLine progressLine = new ProgressLine();

    /** One request on the wire. */
    private final class Call {
        final String cls;
        final int phaseIndex;
        final double intended;
        final Client client;
        ScheduledFuture<?> timeout;
        Conn conn;
        boolean done;
        int failovers;

        Call(String cls, int phaseIndex, double intended, Client client) {
            this.cls = cls;
            this.phaseIndex = phaseIndex;
            this.intended = intended;
            this.client = client;
        }

        void finish(ResultRecorder.Outcome outcome) {
            finish(outcome, 0);
        }

        /** @param status the HTTP status when there was an answer, else 0 */
        void finish(ResultRecorder.Outcome outcome, int status) {
            if (done) {
                return;
            }
            done = true;
            counter.ended(outcome, status);
            inFlight.remove(this);
            inFlightCount = inFlight.size();
            if (timeout != null) {
                timeout.cancel(false);
            }
            if (conn != null && conn.call == this) {
                conn.call = null;
            }
            recorder.record(cls, phaseIndex, intended, now(), outcome);
            if (outcome == ResultRecorder.Outcome.TIMED_OUT && conn != null) {
                // The answer may still come on this connection: never reuse it.
                conn.closeAfter = true;
                conn.channel.close();
            }
            if (client != null) {
                client.answered(outcome);
            } else if (conn != null && conn.usable() && outcome != ResultRecorder.Outcome.TIMED_OUT) {
                idle.computeIfAbsent(conn.target, t -> new ArrayDeque<>()).push(conn);
            }
        }
    }

    /** A keep-alive connection to one target. */
    private final class Conn {
        final URI target;
        final Channel channel;
        final ChannelFuture connected;
        Call call;
        boolean closeAfter;
        /** A byte of an answer arrived since the last send. */
        boolean answerStarted;

        Conn(URI target) {
            this.target = target;
            this.connected = bootstrap.connect(target.getHost(), port(target));
            this.channel = connected.channel();
            channel.attr(ClientHandler.CONN).set(this);
            conns.add(this);
            channel.closeFuture().addListener(f -> {
                conns.remove(this);
                Call c = call;
                call = null;
                if (c != null) {
                    failOver(c, this);
                }
            });
        }

        boolean usable() {
            return !closeAfter && (channel.isActive() || !connected.isDone());
        }

        void send(Call c, FullHttpRequest request) {
            call = c;
            c.conn = this;
            answerStarted = false;
            if (connected.isDone()) {
                write(request);
            } else {
                connected.addListener(f -> write(request));
            }
        }

        private void write(FullHttpRequest request) {
            if (!connected.isSuccess() || !channel.isActive()) {
                request.release();
                Call c = call;
                call = null;
                closeAfter = true;
                channel.close();
                if (c != null) {
                    failOver(c, this);
                }
                return;
            }
            channel.writeAndFlush(request).addListener(f -> {
                if (!f.isSuccess()) {
                    channel.close();
                }
            });
        }

        void onResponse(FullHttpResponse response) {
            Call c = call;
            call = null;
            if (!HttpUtil.isKeepAlive(response)) {
                closeAfter = true;
                channel.close();
            }
            if (c != null) {
                int code = response.status().code();
                c.finish(code == 503 ? ResultRecorder.Outcome.REJECTED
                        : code >= 500 ? ResultRecorder.Outcome.ERROR : ResultRecorder.Outcome.OK, code);
            }
        }
    }

    /** Marks that an answer started (any byte), before the codec sees it. */
    private static final class AnswerStarted extends ChannelInboundHandlerAdapter {
        @Override
        public void channelRead(ChannelHandlerContext ctx, Object msg) {
            Conn c = ctx.channel().attr(ClientHandler.CONN).get();
            if (c != null) {
                c.answerStarted = true;
            }
            ctx.fireChannelRead(msg);
        }
    }

    private static final class ClientHandler extends SimpleChannelInboundHandler<FullHttpResponse> {
        static final AttributeKey<Conn> CONN = AttributeKey.valueOf("arbiter.loadgen.conn");

        @Override
        protected void channelRead0(ChannelHandlerContext ctx, FullHttpResponse response) {
            Conn c = ctx.channel().attr(CONN).get();
            if (c != null) {
                c.onResponse(response);
            }
        }

        @Override
        public void exceptionCaught(ChannelHandlerContext ctx, Throwable cause) {
            ctx.close();
        }
    }

    /** A closed-loop client: one connection, one request at a time. */
    private final class Client {
        final String cls;
        URI target;
        final SplittableRandom random;
        int phaseIndex;
        Conn conn;
        boolean retired;

        Client(String cls, URI target, SplittableRandom random) {
            this.cls = cls;
            this.target = target;
            this.random = random;
        }

        void thinkFrom(double t, double notBefore) {
            if (retired || ended) {
                return;
            }
            double intended = Math.max(think.nextRequest(t, random), notBefore);
            at(intended, () -> {
                if (retired || ended) {
                    return;
                }
                if (conn == null || !conn.usable()) {
                    conn = new Conn(target);
                }
                fire(cls, phaseIndex, intended, this, conn);
            });
        }

        void answered(ResultRecorder.Outcome outcome) {
            double t = now();
            thinkFrom(t, outcome == ResultRecorder.Outcome.ERROR ? t + ERROR_BACKOFF_SECONDS : t);
        }
    }

    /**
     * @param targets     base URLs (http://host:port); closed-loop clients are spread over them
     * @param progressOut where to print a progress line every few seconds (null: nowhere)
     */
    public LoadGenerator(Scenario scenario, List<URI> targets, PrintWriter progressOut) {
        this.scenario = requireNonNull(scenario, "scenario");
        this.targets = List.copyOf(requireNonNull(targets, "targets"));
        if (this.targets.isEmpty()) {
            throw new IllegalArgumentException("--target: none (expected: at least one URL)");
        }
        for (URI t : this.targets) {
            if (!"http".equals(t.getScheme()) || t.getHost() == null) {
                throw new IllegalArgumentException("--target: " + t + " (expected: http://host:port)");
            }
        }
        this.progressOut = progressOut;
        this.seedRandom = new SplittableRandom(scenario.seed());
        this.think = new ThinkTime(scenario.thinkSeconds());
        this.recorder = ResultRecorder.forScenario(scenario);
    }

    /** Runs {@code scenario} against {@code targets}, writes the outputs into {@code outDir}, returns the summary. */
    public static LoadSummary run(Scenario scenario, List<URI> targets, Path outDir)
            throws IOException, InterruptedException {
        return new LoadGenerator(scenario, targets, null).run(outDir);
    }

    /**
     * Runs the scenario to its end (blocking), writes summary.json, timeseries.jsonl and the charts
     * into {@code outDir}, and returns the summary (what summary.json holds). Call once.
     */
    public LoadSummary run(Path outDir) throws IOException, InterruptedException {
        group = new MultiThreadIoEventLoopGroup(1, NioIoHandler.newFactory());
        loop = group.next();
        bootstrap = new Bootstrap().group(loop).channel(NioSocketChannel.class)
                .option(ChannelOption.TCP_NODELAY, true)
                .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, 5000)
                .handler(new ChannelInitializer<SocketChannel>() {
                    @Override
                    protected void initChannel(SocketChannel ch) {
                        ch.pipeline().addLast(new AnswerStarted(), new HttpClientCodec(), new HttpObjectAggregator(1 << 20), new ClientHandler());
                    }
                });
        double planned = scenario.totalSeconds();
        finished = new CompletableFuture<>();
        try {
            loop.execute(() -> {
                startNanos = System.nanoTime();
                double t = 0;
                for (int i = 0; i < scenario.phases().size(); i++) {
                    int p = i;
                    at(t, () -> startPhase(p, at0(p)));
                    t += scenario.phases().get(i).durationSeconds();
                }
                at(planned, () -> endRun(finished));
                long every = (long) Math.max(1000, Math.min(5000, planned * 1000 / 20));
                loop.scheduleAtFixedRate(this::printProgress, every, every, TimeUnit.MILLISECONDS);
            });
            try {
                finished.get();
            } catch (ExecutionException e) {
                throw new IllegalStateException("loadgen: " + e.getCause(), e.getCause());
            }
        } finally {
            group.shutdownGracefully(0, 1, TimeUnit.SECONDS).awaitUninterruptibly();
        }
        double total = Double.isNaN(endedAtSeconds) ? planned : Math.min(planned, Math.max(1e-9, endedAtSeconds));
        recorder.write(outDir, total);
        return recorder.summary(total);
    }

    /**
     * Ends the run now (from any thread): no new requests, those in flight get the usual grace, then
     * {@link #run} returns with the summary over the time actually run. Does nothing before
     * {@link #run} started or after the run ended.
     */
    public void finishNow() {
        EventLoop l = loop;
        CompletableFuture<Void> f = finished;
        if (l != null && f != null) {
            l.execute(() -> endRun(f));
        }
    }

    /** Requests sent and not yet ended, now (thread-safe). */
    public int inFlight() {
        return inFlightCount;
    }

    /** Every request so far by how it ended, and the failovers (thread-safe; final once {@link #run} returned). */
    public StatusTally tally() {
        return counter.snapshot();
    }

    /**
     * A request whose connection {@code from} failed: sent again to the client's next target if it
     * was never answered (no answer byte), is a closed-loop request, and has other targets left;
     * else it ends as a connection error.
     */
    private void failOver(Call c, Conn from) {
        if (c.done) {
            return;
        }
        Client cl = c.client;
        if (cl == null || ended || cl.retired || from.answerStarted || c.failovers >= targets.size() - 1) {
            c.finish(ResultRecorder.Outcome.ERROR);
            return;
        }
        c.failovers++;
        counter.failedOver(from.connected.isSuccess());
        cl.target = targets.get((targets.indexOf(cl.target) + 1) % targets.size());
        cl.conn = new Conn(cl.target);
        c.conn = null;
        cl.conn.send(c, request(c.cls, cl.target));
    }

    /** The recorder the run feeds (live counts while it runs). */
    public ResultRecorder recorder() {
        return recorder;
    }

    private double at0(int p) {
        double t = 0;
        for (int i = 0; i < p; i++) {
            t += scenario.phases().get(i).durationSeconds();
        }
        return t;
    }

    private double now() {
        return (System.nanoTime() - startNanos) / 1e9;
    }

    private void at(double seconds, Runnable r) {
        long delay = (long) Math.ceil((seconds - now()) * 1e9);
        loop.schedule(() -> {
            try {
                r.run();
            } catch (RuntimeException e) {
                if (progressOut != null) {
                    progressOut.println("loadgen: " + e);
                }
            }
        }, Math.max(0, delay), TimeUnit.NANOSECONDS);
    }

    private static int port(URI u) {
        return u.getPort() > 0 ? u.getPort() : 80;
    }

    private URI nextTarget() {
        URI t = targets.get(nextTarget);
        nextTarget = (nextTarget + 1) % targets.size();
        return t;
    }

    private void startPhase(int p, double start) {
        phase = p;
        Scenario.Phase ph = scenario.phases().get(p);
        double end = start + ph.durationSeconds();
        for (String cls : scenario.classes().keySet()) {
            int want = ph.clients().getOrDefault(cls, 0);
            int have = 0;
            for (Client c : clients) {
                if (c.cls.equals(cls) && !c.retired) {
                    if (have >= want) {
                        c.retired = true;
                    } else {
                        c.phaseIndex = p;
                        have++;
                    }
                }
            }
            while (have < want) {
                Client c = new Client(cls, nextTarget(), seedRandom.split());
                c.phaseIndex = p;
                clients.add(c);
                have++;
                c.thinkFrom(start, start);
            }
            clients.removeIf(c -> c.retired);
            Double rate = ph.rates().get(cls);
            if (rate != null && rate > 0) {
                source(cls, p, end, ArrivalProcess.poisson(rate), start);
            }
            Scenario.Pareto par = ph.pareto().get(cls);
            if (par != null) {
                source(cls, p, end, ArrivalProcess.paretoOnOff(par.shape(), par.onSeconds(), par.offSeconds(),
                        par.intervalSeconds(), start), start);
            }
            Scenario.Diurnal d = ph.diurnal().get(cls);
            if (d != null) {
                source(cls, p, end, ArrivalProcess.diurnal(d.peak(), d.trough(), start, ph.durationSeconds(), d.noise(),
                        d.noiseSeconds(), d.noiseSeed()), start);
            }
        }
    }

    /** An open-loop source: sends at each arrival of {@code process} until the phase ends. */
    private void source(String cls, int p, double end, ArrivalProcess process, double start) {
        SplittableRandom random = seedRandom.split();
        Runnable[] next = new Runnable[1];
        double[] last = {start};
        next[0] = () -> {
            double t = process.nextArrival(last[0], random);
            if (t >= end) {
                return;
            }
            last[0] = t;
            at(t, () -> {
                if (ended) {
                    return;
                }
                fire(cls, p, t, null, openConnection());
                next[0].run();
            });
        };
        next[0].run();
    }

    private Conn openConnection() {
        URI target = nextTarget();
        ArrayDeque<Conn> pool = idle.get(target);
        while (pool != null && !pool.isEmpty()) {
            Conn c = pool.pop();
            if (c.usable() && c.call == null) {
                return c;
            }
        }
        return new Conn(target);
    }

    private void fire(String cls, int p, double intended, Client client, Conn conn) {
        FullHttpRequest req = request(cls, conn.target);
        Call call = new Call(cls, p, intended, client);
        inFlight.add(call);
        inFlightCount = inFlight.size();
        double timeoutAt = intended + scenario.timeoutSeconds();
        call.timeout = loop.schedule(() -> call.finish(ResultRecorder.Outcome.TIMED_OUT),
                Math.max(0, (long) Math.ceil((timeoutAt - now()) * 1e9)), TimeUnit.NANOSECONDS);
        conn.send(call, req);
    }

    private FullHttpRequest request(String cls, URI u) {
        Scenario.RequestShape shape = scenario.classes().get(cls);
        String path = shape.path().startsWith("/") ? shape.path() : "/" + shape.path();
        FullHttpRequest req = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.valueOf(shape.method()), path);
        req.headers().set(HttpHeaderNames.HOST, u.getHost() + ":" + port(u));
        req.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.KEEP_ALIVE);
        req.headers().setInt(HttpHeaderNames.CONTENT_LENGTH, 0);
        shape.headers().forEach(req.headers()::set);
        return req;
    }

    private void endRun(CompletableFuture<Void> finished) {
        if (ended) {
            return;
        }
        ended = true;
        endedAtSeconds = now();
        double graceUntil = now() + Math.min(scenario.timeoutSeconds(), 2.0);
        Runnable[] check = new Runnable[1];
        check[0] = () -> {
            if (!inFlight.isEmpty() && now() < graceUntil) {
                loop.schedule(check[0], 10, TimeUnit.MILLISECONDS);
                return;
            }
            for (Call c : List.copyOf(inFlight)) {
                c.finish(ResultRecorder.Outcome.LOST);
            }
            for (Conn c : List.copyOf(conns)) {
                c.channel.close();
            }
            finished.complete(null);
        };
        check[0].run();
    }

    private void printProgress() {
        if (progressOut == null || phase < 0) {
            return;
        }
        progressOut.println(progressLine.next(now(), scenario.phases().get(Math.min(phase, scenario.phases().size() - 1)).name(),
                clients.stream().filter(c -> !c.retired).count(), recorder.progress()));
        progressOut.flush();
    }
}
