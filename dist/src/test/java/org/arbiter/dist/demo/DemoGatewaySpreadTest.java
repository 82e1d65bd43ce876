package org.arbiter.dist.demo;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentLinkedQueue;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.message.Allocation;
import org.arbiter.gateway.server.Gateway;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 19 on the live demo: the whole demo as {@code arbiter demo} runs it (embedded Kafka, the
 * GRM service, two Netty gateways, a simserver, closed-loop load in 003 §V-B's four phases), 40 s
 * instead of 120 s at the demo's time scale 0.05 (each phase 200 paper seconds, 40 control periods).
 * Every allocation the GRM publishes is read back from the allocation topic, and the two gateways'
 * records of one stamp (epoch, counter) are compared:
 * <ul>
 *   <li>in every phase, from the end of the phase's second control period on, no class's weights at g1
 *       and g2 are more than one slot apart;</li>
 *   <li>once the load has stopped (and the statistics window emptied), both gateways hold the neutral
 *       allocation: the configured weights (1, 1), N_s = 10 split 5 and 5, source {@code grm: idle}.</li>
 *   <li>no server is ever overcommitted on the GRM's books: after every stamp, Σ_g N(g,s1) ≤ N_s = 10 over
 *       the caps in force at both gateways (each one's newest record), also in a period that left one
 *       gateway out because its statistics were 3Γ late (750 ms here): its caps stay reserved.</li>
 * </ul>
 * It also reports, without asserting, the periods whose allocation went to one gateway only and the
 * weights then in force at both.
 */
final class DemoGatewaySpreadTest {

    private static final double SCALE = 0.05;

    @TempDir
    Path dir;

    private record Seen(Instant at, long epoch, long version, String gateway, Map<String, Double> weights,
                        Map<String, Integer> caps) {
    }

    /** The demo's one server, s1, runs N_s = 10 (split 5 and 5 at idle, asserted below). */
    private static final int NS = 10;

    @Test
    void liveDemo_gatewaysWithinOneSlot_afterTwoPeriodsOfEveryPhase_andNeutralAtIdle() throws Exception {
        // on the relative utility scale (issue 35): B's pooled weights are 003's (6, 4), asserted below
        DemoPlan plan = new DemoPlan(40, SCALE, ClassConfig.UtilitySpec.Scale.RELATIVE);
        StringWriter log = new StringWriter();
        Demo demo = new Demo(plan, 1, 0, dir.resolve("out"), new PrintWriter(log, true));
        ConcurrentLinkedQueue<Seen> seen = new ConcurrentLinkedQueue<>();
        try {
            CompletableFuture<com.fasterxml.jackson.databind.node.ObjectNode> run = CompletableFuture.supplyAsync(() -> {
                try {
                    return demo.run();
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            assertThat(demo.awaitReady(Duration.ofSeconds(60))).as("the demo started its load").isTrue();
            Instant loadStarted = demo.loadStarted();
            try (KafkaBus watch = KafkaBus.connect(KafkaConfig.builder().bootstrap(demo.bootstrap()).topicPrefix("demo.")
                    .build(), org.arbiter.common.config.KafkaSecurity.Role.CONSOLE, "spread-test", null)) {
                watch.subscribe(watch.topics().allocation(), Allocation.class, Subscriber.Start.BEGINNING, (k, a) -> {
                    if (a != null) {
                        seen.add(new Seen(a.at(), a.epoch(), a.version(), a.gateway(), a.weights(), a.serverCaps()));
                    }
                });
                run.get((long) plan.durationSeconds() + 60, java.util.concurrent.TimeUnit.SECONDS);
                // the demo's chart in the paper's terms (issue 19): response time against time, written
                java.nio.file.Path timeline = dir.resolve("out").resolve("phases-timeline.png");
                assertThat(timeline).as("the demo's timeline chart").exists();
                assertThat(java.nio.file.Files.size(timeline)).isPositive();
                assertThat(log.toString()).as("the table says what (P,B) means").contains("(P,B): (premium, basic)");

                // Idle: no clients, the window empties, the neutral allocation goes out.
                Gateway g1 = demo.gateways().get(0);
                Gateway g2 = demo.gateways().get(1);
                await("both gateways hold the GRM's idle allocation").atMost(Duration.ofSeconds(30))
                        .until(() -> "grm: idle".equals(g1.allocation().source()) && "grm: idle".equals(g2.allocation().source()));
                for (Gateway g : List.of(g1, g2)) {
                    assertThat(g.allocation().weights()).as("configured weights at idle")
                            .isEqualTo(Map.of("premium", 1.0, "basic", 1.0));
                    assertThat(g.allocation().serverCaps()).as("N_s split evenly at idle").isEqualTo(Map.of("s1", 5));
                }
                await("the idle records on the topic").atMost(Duration.ofSeconds(10))
                        .until(() -> seen.stream().anyMatch(s -> s.at().isAfter(loadStarted.plusMillis((long) (plan
                                .durationSeconds() * 1000))) && s.weights().equals(Map.of("premium", 1.0, "basic", 1.0))));
            }

            // Pair the two gateways' records of each stamp, by phase.
            Map<String, Map<String, Seen>> byStamp = new TreeMap<>();
            for (Seen s : seen) {
                byStamp.computeIfAbsent(s.epoch() + "/" + String.format(Locale.ROOT, "%012d", s.version()),
                        x -> new TreeMap<>()).put(s.gateway(), s);
            }
            // Every stamp the GRM published (the topic read from its beginning): the caps in force at both
            // gateways never add up to more than N_s.
            Map<String, Map<String, Integer>> capsInForce = new TreeMap<>();
            List<String> overcommitted = new ArrayList<>();
            int stamps = 0;
            for (Map<String, Seen> group : byStamp.values()) {
                group.forEach((g, x) -> capsInForce.put(g, x.caps()));
                stamps++;
                int sum = capsInForce.values().stream().mapToInt(c -> c.getOrDefault("s1", 0)).sum();
                if (sum > NS) {
                    Seen any = group.values().iterator().next();
                    overcommitted.add(String.format(Locale.ROOT, "at %.2f s: %s", Duration.between(loadStarted,
                            any.at()).toMillis() / 1e3, capsInForce));
                }
            }
            double period = plan.scaled(5);
            StringBuilder report = new StringBuilder();
            report.append(String.format(Locale.ROOT, "%d stamps, %d with s1 overcommitted (Σ_g N(g,s1) > %d)%n",
                    stamps, overcommitted.size(), NS));
            List<String> failures = new ArrayList<>();
            double bPooled = Double.NaN;
            for (int i = 0; i < DemoPlan.PHASES.size(); i++) {
                DemoPlan.Phase phase = DemoPlan.PHASES.get(i);
                Instant from = loadStarted.plusNanos((long) ((i * plan.phaseSeconds() + 2 * period) * 1e9));
                Instant to = loadStarted.plusNanos((long) ((i + 1) * plan.phaseSeconds() * 1e9));
                int pairs = 0;
                int apartOne = 0;
                double max = 0;
                double pooledPremium = 0;
                for (Map<String, Seen> pair : byStamp.values()) {
                    Seen a = pair.get("g1");
                    Seen b = pair.get("g2");
                    if (a == null || b == null || a.at().isBefore(from) || !a.at().isBefore(to)) {
                        continue;
                    }
                    pairs++;
                    pooledPremium += a.weights().getOrDefault("premium", 0.0) + b.weights().getOrDefault("premium", 0.0);
                    double spread = 0;
                    for (String c : List.of("premium", "basic")) {
                        spread = Math.max(spread, Math.abs(a.weights().getOrDefault(c, 0.0) - b.weights().getOrDefault(c, 0.0)));
                    }
                    max = Math.max(max, spread);
                    if (spread > 0.5) {
                        apartOne++;
                    }
                    if (spread > 1 + 1e-9) {
                        failures.add(String.format(Locale.ROOT, "phase %s at %.2f s: g1 %s, g2 %s", phase.name(),
                                Duration.between(loadStarted, a.at()).toMillis() / 1e3, a.weights(), b.weights()));
                    }
                }
                // Reported, not asserted: a period whose allocation went to one gateway only (the GRM left the
                // other out, its statistics 3Γ late) leaves the other on its last allocation; the weights in
                // force then differ by what the one gateway was given.
                int alone = 0;
                int inForceOver = 0;
                double inForceMax = 0;
                Map<String, Seen> inForce = new TreeMap<>();
                for (Map<String, Seen> group : byStamp.values()) {
                    inForce.putAll(group);
                    Seen any = group.values().iterator().next();
                    if (any.at().isBefore(from) || !any.at().isBefore(to)) {
                        continue;
                    }
                    if (group.size() < 2) {
                        alone++;
                    }
                    Seen a = inForce.get("g1");
                    Seen b = inForce.get("g2");
                    if (a != null && b != null) {
                        double spread = 0;
                        for (String c : List.of("premium", "basic")) {
                            spread = Math.max(spread, Math.abs(a.weights().getOrDefault(c, 0.0)
                                    - b.weights().getOrDefault(c, 0.0)));
                        }
                        inForceMax = Math.max(inForceMax, spread);
                        if (spread > 1 + 1e-9) {
                            inForceOver++;
                        }
                    }
                }
                report.append(String.format(Locale.ROOT, "phase %s: %d periods checked, %d with a class one slot apart,"
                        + " largest spread %.1f; %d periods with one gateway left out, weights in force more than one"
                        + " slot apart in %d (largest %.1f)%n", phase.name(), pairs, apartOne, max, alone, inForceOver,
                        inForceMax));
                // 40 periods a phase less the first two; a loaded machine may stretch some
                assertThat(pairs).as("phase %s: allocation pairs checked", phase.name()).isGreaterThan(20);
                report.append(String.format(Locale.ROOT, "phase %s: pooled premium weight %.2f of %d%n", phase.name(),
                        pooledPremium / pairs, NS));
                if (phase.name().equals("B")) {
                    bPooled = pooledPremium / pairs;
                }
            }
            System.out.print(report);
            System.out.print(log);
            assertThat(failures).as("allocations with a class more than one slot apart (%s)", report).isEmpty();
            assertThat(stamps).as("stamps read back").isGreaterThan(80); // 4 × 40 periods; a loaded machine may stretch some
            assertThat(overcommitted).as("stamps after which the caps in force overcommit s1 (%s)", report).isEmpty();
            // 003 Fig. 8's (6, 4) in B, over both gateways, within half a slot (issue 35)
            assertThat(bPooled).as("B's pooled premium weight (%s)", report).isBetween(5.5, 6.5);
        } finally {
            demo.close();
        }
    }
}
