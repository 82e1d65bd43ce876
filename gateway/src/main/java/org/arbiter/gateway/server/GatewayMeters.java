package org.arbiter.gateway.server;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReferenceArray;
import java.util.concurrent.atomic.LongAdder;
import org.arbiter.gateway.DropReason;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.netty.DataPlane;
import org.arbiter.gateway.netty.PlaneListener;
import org.arbiter.gateway.netty.ProxyRefusal;

/**
 * The gateway's Micrometer meters (JMX domain {@code arbiter} and Prometheus through
 * {@code ProcessMetrics}): per class arrivals, rejections by reason, response-time histogram,
 * queue length, in-flight and weight, clients gone before their response (queued or dispatched),
 * responses by status code; the yield offered and realised since start (002 §5.2: LossPercent
 * over a range is 1 − Δrealised / Δoffered); per server in-flight, cap, up/down and ejections;
 * connections refused at the PROXY protocol gate, by reason. The response-time histogram of each
 * class has a bucket exactly at its target and at twice it. Counters are updated on the data-plane
 * loops (the per-code counters are created at a code's first response; two loops creating the same
 * one get the same meter from the registry); gauges read the core's counters from the scraping
 * thread (int reads, possibly a moment stale). Thread-safe: listener calls from every data-plane
 * loop, scrapes from any thread.
 */
final class GatewayMeters implements PlaneListener {

    /*
     * The per-request counts are LongAdders read by FunctionCounters at scrape time: one add per event, where a
     * Counter on the composite registry costs an add in each registry, a Dropwizard Meter's three moving averages
     * among them (about 3 % of the gateway's CPU samples at 40 000 requests/s, docs/performance.md).
     */
    private final Map<String, LongAdder> arrivals = new HashMap<>();
    private final Map<String, LongAdder[]> drops = new HashMap<>();
    private final Map<String, Timer> responses = new HashMap<>();
    private final Map<String, LongAdder[]> cancelled = new HashMap<>();
    private final Counter[] proxyRefused = new Counter[ProxyRefusal.values().length];
    /**
     * Per class, one count per status code 0..599, made and registered at the first response with that code: the
     * loops race for the slot, and only the one that wins it registers (a second FunctionCounter of the same name
     * and tags would be the registry's first, reading the loser's adder).
     */
    private final Map<String, AtomicReferenceArray<LongAdder>> byStatus = new HashMap<>();
    private final MeterRegistry registry;

    /**
     * @param targetSeconds each class's response-time target τ_c: the histogram has buckets exactly
     *                      at τ_c and 2τ_c (besides Micrometer's generated ones), so the share of
     *                      responses within the target is a bucket ratio, not an interpolation
     */
    GatewayMeters(MeterRegistry registry, GatewayCore<?> core, Map<String, Double> targetSeconds) {
        this.registry = registry;
        for (ProxyRefusal r : ProxyRefusal.values()) {
            proxyRefused[r.ordinal()] = Counter.builder("arbiter.gateway.proxy.refused").tag("reason", r.wireName())
                    .description("connections closed at the PROXY protocol gate (gateways[].proxyProtocol)")
                    .register(registry);
        }
        for (int c = 0; c < core.classCount(); c++) {
            String name = core.className(c);
            final int ci = c;
            byStatus.put(name, new AtomicReferenceArray<>(600));
            arrivals.put(name, tally("arbiter.gateway.arrivals", "requests arrived", "class", name));
            LongAdder[] byReason = new LongAdder[DropReason.values().length];
            for (DropReason r : DropReason.values()) {
                byReason[r.ordinal()] = tally("arbiter.gateway.rejections", "requests the gateway answered itself",
                        "class", name, "reason", r.wireName());
            }
            drops.put(name, byReason);
            String gone = "clients gone before their response; queued: no server saw the request";
            cancelled.put(name, new LongAdder[] {tally("arbiter.gateway.cancelled", gone, "class", name, "stage", "queued"),
                tally("arbiter.gateway.cancelled", gone, "class", name, "stage", "dispatched")});
            Timer.Builder timer = Timer.builder("arbiter.gateway.response.time").tag("class", name)
                    .description("arrival at the gateway to last byte sent")
                    .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(60));
            Double target = targetSeconds.get(name);
            if (target != null && target > 0 && Double.isFinite(target)) {
                timer.serviceLevelObjectives(seconds(target), seconds(2 * target));
            }
            if (target != null) {
                Gauge.builder("arbiter.gateway.target", () -> target).tag("class", name).baseUnit("seconds")
                        .description("the class's response-time target τ_c (a bucket bound of the response-time histogram)")
                        .register(registry);
            }
            responses.put(name, timer.register(registry));
            Gauge.builder("arbiter.gateway.queue.length", core, k -> k.queueLength(ci)).tag("class", name)
                    .description("requests waiting in the class queue").register(registry);
            Gauge.builder("arbiter.gateway.inflight", core, k -> k.inFlight(ci)).tag("class", name)
                    .description("requests of the class at servers").register(registry);
            Gauge.builder("arbiter.gateway.weight", core, k -> k.weight(ci)).tag("class", name)
                    .description("w(g,c) in force").register(registry);
            FunctionCounter.builder("arbiter.gateway.yield.offered", core, k -> k.offeredYield(ci)).tag("class", name)
                    .description("full yield of every arrival (002 OfferedYield)").register(registry);
            FunctionCounter.builder("arbiter.gateway.yield.realised", core, k -> k.realisedYield(ci)).tag("class", name)
                    .description("yield of every completion at its response time (002 RealizedYield)").register(registry);
        }
        for (int s = 0; s < core.serverCount(); s++) {
            final int si = s;
            Gauge.builder("arbiter.gateway.server.inflight", core, k -> k.serverInFlight(si))
                    .tag("server", core.serverId(s)).description("requests of this gateway at the server").register(registry);
            Gauge.builder("arbiter.gateway.server.cap", core, k -> k.cap(si))
                    .tag("server", core.serverId(s)).description("N(g,s) in force").register(registry);
            Gauge.builder("arbiter.gateway.server.up", core, k -> k.health().isUpNow(si) ? 1 : 0)
                    .tag("server", core.serverId(s)).description("1 while not ejected, 0 while ejected")
                    .register(registry);
            FunctionCounter.builder("arbiter.gateway.server.ejections", core, k -> k.health().downTransitions(si))
                    .tag("server", core.serverId(s)).description("times the server was ejected").register(registry);
        }
    }

    /**
     * The data plane's core lock (docs/gateway.md, "Event loops and transport"): acquisitions, those
     * that found it held by another loop, and the time spent waiting for it.
     */
    void lockMeters(DataPlane plane) {
        FunctionCounter.builder("arbiter.gateway.core.lock.acquired", plane, p -> p.lockStats().acquired())
                .description("times an event loop took the core's lock").register(registry);
        FunctionCounter.builder("arbiter.gateway.core.lock.contended", plane, p -> p.lockStats().contended())
                .description("times an event loop found the core's lock held by another and waited").register(registry);
        FunctionCounter.builder("arbiter.gateway.core.lock.wait", plane, p -> p.lockStats().waitNanos() / 1e9)
                .baseUnit("seconds").description("time event loops spent waiting for the core's lock").register(registry);
        FunctionCounter.builder("arbiter.gateway.core.released", plane, p -> p.lockStats().released())
                .description("requests the core released to a server (or dropped at the queue head)").register(registry);
        FunctionCounter.builder("arbiter.gateway.core.handovers", plane, p -> p.lockStats().handedOver())
                .description("released requests sent by another event loop than the one that released them")
                .register(registry);
        Gauge.builder("arbiter.gateway.event.loops", plane, p -> p.loops())
                .description("the data plane's event loops (gateway.threads)").register(registry);
        connectionMeters(plane);
    }

    /**
     * The data port's limits (docs/reliability.md): connections open and refused over
     * gateway.maxConnections ({@code arbiter_gateway_connections_refused_total}), body bytes held
     * within gateway.bodyBudget and requests refused for it, upgrades held within dispatch.tunnelShare and
     * refused for it.
     */
    private void connectionMeters(DataPlane plane) {
        Gauge.builder("arbiter.gateway.connections.open", plane, DataPlane::connectionsOpen)
                .description("client connections open on the data port").register(registry);
        FunctionCounter.builder("arbiter.gateway.connections.refused", plane, DataPlane::connectionsRefused)
                .description("client connections closed at accept, over gateway.maxConnections").register(registry);
        Gauge.builder("arbiter.gateway.body.budget.held", plane, DataPlane::bodyBytesHeld).baseUnit("bytes")
                .description("bytes of buffered request bodies held within gateway.bodyBudget").register(registry);
        FunctionCounter.builder("arbiter.gateway.body.budget.refused", plane, DataPlane::bodyBudgetRefused)
                .description("requests answered 503 bodyBudget").register(registry);
        Gauge.builder("arbiter.gateway.upgrades.held", plane, DataPlane::upgradesHeld)
                .description("upgrades (WebSocket) queued, at a server or tunnelling, within dispatch.tunnelShare")
                .register(registry);
        FunctionCounter.builder("arbiter.gateway.upgrades.refused", plane, DataPlane::upgradesRefused)
                .description("upgrades answered 503 tunnelsFull").register(registry);
    }

    @Override
    public void proxyRefused(ProxyRefusal reason) {
        proxyRefused[reason.ordinal()].increment();
    }

    /** A count read by a FunctionCounter {@code name} with {@code tags} at scrape time. */
    private LongAdder tally(String name, String description, String... tags) {
        return registered(new LongAdder(), name, description, tags);
    }

    /** {@code a}, registered as the FunctionCounter {@code name} with {@code tags}. */
    private LongAdder registered(LongAdder a, String name, String description, String... tags) {
        FunctionCounter.builder(name, a, LongAdder::doubleValue).tags(tags).description(description).register(registry);
        return a;
    }

    @Override
    public void arrival(String className) {
        LongAdder c = arrivals.get(className);
        if (c != null) {
            c.increment();
        }
    }

    @Override
    public void dropped(String className, DropReason reason) {
        LongAdder[] c = drops.get(className);
        if (c != null) {
            c[reason.ordinal()].increment();
        }
    }

    @Override
    public void sent(String className, int status) {
        AtomicReferenceArray<LongAdder> c = byStatus.get(className);
        if (c == null || status < 0 || status >= c.length()) {
            return;
        }
        LongAdder k = c.get(status);
        if (k == null) {
            LongAdder made = new LongAdder();
            if (c.compareAndSet(status, null, made)) {
                registered(made, "arbiter.gateway.responses",
                        "responses sent to clients, by status code (the server's, or the gateway's own answer)",
                        "class", className, "code", Integer.toString(status));
            }
            k = c.get(status);
        }
        k.increment();
    }

    /** A duration of {@code s} seconds, exact to the nanosecond (so 0.2 s is the bucket bound 0.2). */
    static Duration seconds(double s) {
        return Duration.ofNanos(Math.round(s * 1e9));
    }

    @Override
    public void cancelled(String className, boolean dispatched) {
        LongAdder[] c = cancelled.get(className);
        if (c != null) {
            c[dispatched ? 1 : 0].increment();
        }
    }

    @Override
    public void responded(String className, long nanos) {
        Timer t = responses.get(className);
        if (t != null) {
            t.record(nanos, TimeUnit.NANOSECONDS);
        }
    }
}
