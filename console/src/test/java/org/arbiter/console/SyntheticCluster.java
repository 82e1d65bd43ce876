package org.arbiter.console;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.Message;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.common.message.ServerState;

/**
 * Stands in for two gateways and a GRM on the bus, for the browser test and the screenshot:
 * every {@code periodMillis} it publishes statistics that wander, and an allocation and a decision
 * that honour weight pins read from the overrides topic.
 */
public final class SyntheticCluster implements AutoCloseable {

    private final KafkaBus bus;
    private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
        Thread t = new Thread(r, "synthetic-cluster");
        t.setDaemon(true);
        return t;
    });
    private final Map<String, Double> pins = new ConcurrentHashMap<>();
    private final AtomicLong tick = new AtomicLong();
    private final Subscriber<OperatorOverride> overrides;

    public SyntheticCluster(KafkaBus bus, long periodMillis) {
        this.bus = bus;
        this.overrides = bus.subscribe(bus.topics().overrides(), OperatorOverride.class, Subscriber.Start.BEGINNING, (k, o) -> {
            if (o == null || !o.active()) {
                pins.remove(k);
            } else if (o.kind() == OperatorOverride.Kind.WEIGHT) {
                pins.put(o.gateway() + "/" + o.cls(), o.value());
            }
        });
        bus.publisher(bus.topics().power()).publish(new PowerOrder(Message.VERSION, Instant.now(), "s2", ServerState.ON,
                ServerState.ON, "initial", 1));
        timer.scheduleAtFixedRate(this::step, 0, periodMillis, TimeUnit.MILLISECONDS);
    }

    private void step() {
        long n = tick.incrementAndGet();
        Instant now = Instant.now();
        List<Decision.Flow> flows = new ArrayList<>();
        for (String g : List.of("g1", "g2")) {
            double phase = n / 6.0 + (g.equals("g2") ? 1.3 : 0);
            double premiumW = pins.getOrDefault(g + "/premium", 5.0 + Math.round(2 * Math.sin(n / 20.0)));
            double basicW = pins.getOrDefault(g + "/basic", 10 - premiumW > 0 ? 10 - premiumW : 1);
            Map<String, GatewayStats.ClassStats> classes = new TreeMap<>();
            double rtP = 1.4 + 0.5 * Math.sin(phase);
            double rtB = 2.6 + 0.8 * Math.cos(phase * 0.7);
            classes.put("premium", cls(4.5 + Math.sin(phase), rtP, (int) (3 + 3 * Math.sin(phase)), premiumW,
                    Map.of("queueTimeout", n % 4)));
            classes.put("basic", cls(4 + Math.cos(phase), rtB, (int) (5 + 4 * Math.cos(phase)), basicW,
                    Map.of("queueFull", 5 + 3 * (n % 3), "queueTimeout", n % 2)));
            bus.publisher(bus.topics().stats()).publish(new GatewayStats(Message.VERSION, now, g, 5, n, classes,
                    Map.of("s1", new GatewayStats.ServerStats(4, 5, 4, 1, 4, 0, true),
                            "s2", new GatewayStats.ServerStats(4, 5, 4, 1, 4, 0, true))));
            bus.publisher(bus.topics().allocation()).publish(new Allocation(Message.VERSION, now, g, n,
                    Map.of("premium", premiumW, "basic", basicW), Map.of("s1", 5, "s2", 5), "grm"));
            flows.add(new Decision.Flow(g, "premium", 4.5, rtP, 3, premiumW, premiumW, rtP, 2 - rtP, pins.containsKey(g + "/premium")));
            flows.add(new Decision.Flow(g, "basic", 4, rtB, 5, basicW, basicW, rtB, 3 - rtB, pins.containsKey(g + "/basic")));
        }
        bus.publisher(bus.topics().decisions()).publish(new Decision(Message.VERSION, now, "grm-1", n, n, "min",
                0.3 + 0.2 * Math.sin(n / 5.0), 0.0004 + 0.0001 * (n % 3), List.of("g1", "g2"), flows,
                Map.of("s1", new Decision.Server(ServerState.ON, 10, 11.5, 63), "s2", new Decision.Server(ServerState.ON, 10, 11.2, 62)),
                0, pins.keySet().stream().map(k -> "weight:" + k.replace('/', ':')).toList(), List.of(), 0,
                Map.of("premium", new Decision.PredictionError(0.12, 9), "basic", new Decision.PredictionError(0.2, 7))));
    }

    private static GatewayStats.ClassStats cls(double rate, double rt, int queue, double weight, Map<String, Long> drops) {
        // one unit of yield offered per request, a tenth of it lost per second of response time
        return new GatewayStats.ClassStats(rate, rate, rt, rt * 0.3, rt * 0.7, rt * 1.8, queue, Math.max(0, queue), 4, weight,
                drops, null, GatewayStats.YieldStats.of(rate, rate * Math.max(0, 1 - 0.1 * rt)));
    }

    @Override
    public void close() {
        timer.shutdownNow();
        overrides.close();
    }
}
