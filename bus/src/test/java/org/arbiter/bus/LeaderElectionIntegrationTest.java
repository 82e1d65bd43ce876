package org.arbiter.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.broker.EmbeddedKafka;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

final class LeaderElectionIntegrationTest {

    @TempDir
    Path dir;

    @Test
    void exactlyOneCandidateLeads_andAnotherTakesOverWhenItLeaves() {
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir);
             KafkaBus busA = KafkaBus.connect(new KafkaConfig(kafka.bootstrap(), "le.", Map.of()), "a", new SimpleMeterRegistry());
             KafkaBus busB = KafkaBus.connect(new KafkaConfig(kafka.bootstrap(), "le.", Map.of()), "b", new SimpleMeterRegistry())) {
            LeaderElection a = LeaderElection.join(busA, "le.grm", "a", null);
            LeaderElection b = LeaderElection.join(busB, "le.grm", "b", null);
            await().atMost(Duration.ofSeconds(30)).until(() -> a.isLeader() ^ b.isLeader());
            LeaderElection leader = a.isLeader() ? a : b;
            LeaderElection follower = leader == a ? b : a;
            // Still exactly one after things settle.
            await().during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(10)).until(() -> a.isLeader() ^ b.isLeader());
            leader.close();
            await().atMost(Duration.ofSeconds(20)).until(follower::isLeader);
            assertThat(leader.isLeader()).isFalse();
            follower.close();
        }
    }

    @Test
    void aLeaderCutOffFromTheBroker_stepsDownAfterTheSessionTimeout_andLeadsAgainWhenItReturns() throws Exception {
        Path data = dir.resolve("broker");
        EmbeddedKafka kafka = EmbeddedKafka.start(data);
        int port = kafka.port();
        int controller = kafka.controllerPort();
        try (KafkaBus bus = KafkaBus.connect(new KafkaConfig(kafka.bootstrap(), "cut.", Map.of()), "a", new SimpleMeterRegistry())) {
            LeaderElection a = LeaderElection.join(bus, "cut.grm", "a", null);
            await().atMost(Duration.ofSeconds(30)).until(a::isLeader);
            long t0 = System.nanoTime();
            kafka.close();
            // the coordinator would give partition 0 away after the 6 s session timeout: so must we
            await().atMost(Duration.ofSeconds(20)).until(() -> !a.isLeader());
            System.out.printf("leader stepped down %.1f s after the broker went away%n", (System.nanoTime() - t0) / 1e9);
            assertThat((System.nanoTime() - t0) / 1e9).isGreaterThan(5);
            kafka = EmbeddedKafka.start(data, port, controller);
            await().atMost(Duration.ofSeconds(60)).until(a::isLeader);
            a.close();
        } finally {
            kafka.close();
        }
    }

    /**
     * The pool group (issue 32 item 3): ownership is the statistics topic's partitions. Each member gets the
     * records of the partitions it owns and no others; when a member leaves, the survivor owns its partitions
     * and reads their last {@code rewind} of records again (a new owner's books are warm), while the
     * partitions it already had are not read twice; a report for a partition the topic lacks fails at once.
     */
    @Test
    void aPoolGroupOwnsTheStatisticsPartitions_andANewOwnerReadsTheLastRewindAgain() throws Exception {
        int pools = 4;
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir);
             KafkaBus busA = KafkaBus.connect(new KafkaConfig(kafka.bootstrap(), "pg.", Map.of()), "a", new SimpleMeterRegistry());
             KafkaBus busB = KafkaBus.connect(new KafkaConfig(kafka.bootstrap(), "pg.", Map.of()), "b", new SimpleMeterRegistry());
             KafkaBus gateway = KafkaBus.connect(new KafkaConfig(kafka.bootstrap(), "pg.", Map.of()), "g", new SimpleMeterRegistry())) {
            Map<String, List<Integer>> seen = new ConcurrentHashMap<>();
            Duration rewind = Duration.ofSeconds(60);
            LeaderElection a = busA.joinPools("pg.grm", "a", pools, rewind, null,
                    (p, k, s) -> seen.computeIfAbsent("a", x -> new CopyOnWriteArrayList<>()).add(p));
            LeaderElection b = busB.joinPools("pg.grm", "b", pools, rewind, null,
                    (p, k, s) -> seen.computeIfAbsent("b", x -> new CopyOnWriteArrayList<>()).add(p));
            await().atMost(Duration.ofSeconds(30)).until(() -> !a.owned().isEmpty() && !b.owned().isEmpty()
                    && a.owned().size() + b.owned().size() == pools);
            assertThat(a.owned()).doesNotContainAnyElementsOf(b.owned());
            Set<Integer> ofA = Set.copyOf(a.owned());
            Set<Integer> ofB = Set.copyOf(b.owned());
            var publisher = gateway.publisher(gateway.topics().stats());
            for (int p = 0; p < pools; p++) {
                publisher.publish(new GatewayStats(1, Instant.now(), "g1", 5, 0, Map.of(), Map.of()), "g1@p" + p, p)
                        .get(10, TimeUnit.SECONDS);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> seen.getOrDefault("a", List.of()).size()
                    + seen.getOrDefault("b", List.of()).size() == pools);
            assertThat(seen.get("a")).containsExactlyInAnyOrderElementsOf(ofA);
            assertThat(seen.get("b")).containsExactlyInAnyOrderElementsOf(ofB);

            a.close();
            await().atMost(Duration.ofSeconds(30)).until(() -> b.owned().size() == pools);
            // the survivor reads A's partitions' records again, not its own
            await().atMost(Duration.ofSeconds(20)).until(() -> seen.get("b").size() == pools);
            Thread.sleep(1000);
            assertThat(seen.get("b")).containsExactlyInAnyOrder(0, 1, 2, 3);

            // a reader outside the group (the console) that attached before the topic grew reads the new partitions
            List<Integer> console = new CopyOnWriteArrayList<>();
            try (KafkaBus late = KafkaBus.connect(new KafkaConfig(kafka.bootstrap(), "pg2.", Map.of()), "c",
                    new SimpleMeterRegistry())) {
                late.subscribe(late.topics().stats(), GatewayStats.class, Subscriber.Start.BEGINNING,
                        (k, s) -> console.add(Integer.parseInt(k.substring(k.length() - 1))));
                Thread.sleep(1500); // attached to the topic's one partition
                late.ensureStatsPartitions(3);
                var p2 = late.publisher(late.topics().stats());
                await().atMost(Duration.ofSeconds(20)).until(() -> {
                    try {
                        p2.publish(new GatewayStats(1, Instant.now(), "g1", 5, 0, Map.of(), Map.of()), "g1@p2", 2)
                                .get(5, TimeUnit.SECONDS);
                        return true;
                    } catch (Exception e) {
                        return false; // the producer has not seen the third partition yet
                    }
                });
                await().atMost(Duration.ofSeconds(20)).until(() -> console.contains(2));
            }

            long t0 = System.nanoTime();
            var missing = publisher.publish(new GatewayStats(1, Instant.now(), "g1", 5, 0, Map.of(), Map.of()), "g1@p9", 9);
            assertThatThrownBy(() -> missing.get(1, TimeUnit.SECONDS)).hasMessageContaining("partition 9 is missing");
            assertThat((System.nanoTime() - t0) / 1e9).isLessThan(1.5);
            b.close();
        }
    }
}
