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
import org.arbiter.gateway.DropReason;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.netty.PlaneListener;

/**
 * The gateway's Micrometer meters (JMX domain {@code arbiter} and Prometheus through
 * {@code ProcessMetrics}): per class arrivals, rejections by reason, response-time histogram,
 * queue length, in-flight and weight, clients gone before their response (queued or dispatched),
 * the yield offered and realised since start (002 §5.2: LossPercent over a range is
 * 1 − Δrealised / Δoffered);
 * per server in-flight and cap. Counters are updated on the
 * data-plane loop; gauges read the core's counters from the scraping thread (int reads, possibly a
 * moment stale). Thread-safe.
 */
final class GatewayMeters implements PlaneListener {

    private final Map<String, Counter> arrivals = new HashMap<>();
    private final Map<String, Counter[]> drops = new HashMap<>();
    private final Map<String, Timer> responses = new HashMap<>();
    private final Map<String, Counter[]> cancelled = new HashMap<>();

    GatewayMeters(MeterRegistry registry, GatewayCore<?> core) {
        for (int c = 0; c < core.classCount(); c++) {
            String name = core.className(c);
            final int ci = c;
            arrivals.put(name, Counter.builder("arbiter.gateway.arrivals").tag("class", name)
                    .description("requests arrived").register(registry));
            Counter[] byReason = new Counter[DropReason.values().length];
            for (DropReason r : DropReason.values()) {
                byReason[r.ordinal()] = Counter.builder("arbiter.gateway.rejections").tag("class", name)
                        .tag("reason", r.wireName()).description("requests the gateway answered itself").register(registry);
            }
            drops.put(name, byReason);
            cancelled.put(name, new Counter[] {
                Counter.builder("arbiter.gateway.cancelled").tag("class", name).tag("stage", "queued")
                        .description("clients gone before their response; queued: no server saw the request")
                        .register(registry),
                Counter.builder("arbiter.gateway.cancelled").tag("class", name).tag("stage", "dispatched")
                        .description("clients gone before their response; queued: no server saw the request")
                        .register(registry)});
            responses.put(name, Timer.builder("arbiter.gateway.response.time").tag("class", name)
                    .description("arrival at the gateway to last byte sent")
                    .publishPercentileHistogram().minimumExpectedValue(Duration.ofMillis(1))
                    .maximumExpectedValue(Duration.ofSeconds(60)).register(registry));
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
            Gauge.builder("arbiter.gateway.server.ejections", core, k -> k.health().downTransitions(si))
                    .tag("server", core.serverId(s)).description("times the server was ejected").register(registry);
        }
    }

    @Override
    public void arrival(String className) {
        Counter c = arrivals.get(className);
        if (c != null) {
            c.increment();
        }
    }

    @Override
    public void dropped(String className, DropReason reason) {
        Counter[] c = drops.get(className);
        if (c != null) {
            c[reason.ordinal()].increment();
        }
    }

    @Override
    public void cancelled(String className, boolean dispatched) {
        Counter[] c = cancelled.get(className);
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
