package org.arbiter.grm.service;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.lang.management.ManagementFactory;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.management.ObjectName;
import org.arbiter.common.bus.InMemoryBus;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.runtime.metrics.ProcessMetrics;
import org.arbiter.grm.control.GrmStep;
import org.junit.jupiter.api.Test;

/**
 * The flow model's prediction error as operators see it: the GRM service over the in-memory bus, one
 * fake gateway measuring basic at 0.1 s (3 req/s, 0.1 s service) under the weight the GRM gave. Once a
 * prediction is a statistics window old, the decisions carry basic's error, and the Prometheus gauge
 * {@code arbiter_grm_prediction_error{class="basic"}} and the MBean's {@code PredictionErrors} show what the
 * last decision carried; premium, which has no traffic, stays NaN and out of the MBean's list.
 */
final class GrmPredictionErrorMetricsTest {

    static final ClusterConfig CONFIG = ConfigLoader.parse("""
            classes:
              - {name: premium, target: 0.5s, match: {header: {X-Class: premium}}}
              - {name: basic, target: 1s, default: true}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 4}
            gateways:
              - {id: g1, port: 0}
            control: {period: 100ms, reportPeriod: 100ms, statsWindow: 500ms}
            """);
    static final Pattern GAUGE = Pattern.compile("^arbiter_grm_prediction_error\\{([^}]*)\\} (\\S+)$", Pattern.MULTILINE);

    @Test
    void predictionError_isAGaugePerClass_andAnMBeanAttribute_asTheDecisionsCarryIt() throws Exception {
        InMemoryBus bus = new InMemoryBus("pe.");
        ScheduledExecutorService gateway = Executors.newSingleThreadScheduledExecutor();
        try (ProcessMetrics m = ProcessMetrics.create("grm", "pe-grm");
             GrmService grm = GrmService.start("pe-grm", CONFIG, bus, Clock.systemUTC(),
                     new GrmStep(CONFIG, "pe-grm", System::nanoTime), m)) {
            gateway.scheduleAtFixedRate(() -> {
                List<org.arbiter.common.message.Allocation> got = bus.published(bus.topics().allocation(),
                        org.arbiter.common.message.Allocation.class);
                Map<String, Double> w = got.isEmpty() ? Map.of("premium", 1.0, "basic", 1.0)
                        : got.get(got.size() - 1).weights();
                bus.publisher(bus.topics().stats()).publish(new GatewayStats(1, Instant.now(), "g1", 0.5, 1, Map.of(
                        "premium", new GatewayStats.ClassStats(0, 0, 0, 0, 0, 0, 0, 0, 0, w.get("premium"), Map.of(),
                                GatewayStats.PeriodCounters.EMPTY),
                        "basic", new GatewayStats.ClassStats(3, 3, 0.1, 0, 0.1, 0.1, 0, 0, 0, w.get("basic"), Map.of(),
                                GatewayStats.PeriodCounters.EMPTY)), Map.of()));
            }, 0, 50, TimeUnit.MILLISECONDS);

            await("a decision that carries basic's prediction error").atMost(Duration.ofSeconds(30))
                    .until(() -> last(bus) != null && last(bus).predictionErrors().containsKey("basic"));
            ObjectName mbean = new ObjectName("arbiter:type=Grm,id=pe-grm");
            await("the gauge and the MBean show the last decision's error").atMost(Duration.ofSeconds(10))
                    .untilAsserted(() -> {
                        String scrape = m.scrape();
                        String attribute = (String) ManagementFactory.getPlatformMBeanServer()
                                .getAttribute(mbean, "PredictionErrors");
                        Decision d = last(bus);
                        Decision.PredictionError basic = d.predictionErrors().get("basic");
                        assertThat(basic.meanAbs()).as("|t_pred − 0.1 s| / 0.1 s").isFinite().isPositive();
                        assertThat(gauge(scrape, "basic")).isEqualTo(basic.meanAbs());
                        assertThat(gauge(scrape, "premium")).as("no traffic, nothing checked").isNaN();
                        assertThat(attribute).isEqualTo(String.format(Locale.ROOT, "basic=%.3f (%d)", basic.meanAbs(),
                                basic.samples()));
                    });
        } finally {
            gateway.shutdownNow();
        }
    }

    private static Decision last(InMemoryBus bus) {
        List<Decision> d = bus.published(bus.topics().decisions(), Decision.class);
        return d.isEmpty() ? null : d.get(d.size() - 1);
    }

    private static double gauge(String scrape, String cls) {
        Matcher m = GAUGE.matcher(scrape);
        while (m.find()) {
            if (m.group(1).contains("class=\"" + cls + "\"")) {
                return Double.parseDouble(m.group(2));
            }
        }
        throw new AssertionError("no arbiter_grm_prediction_error for class " + cls + " in\n" + scrape);
    }
}
