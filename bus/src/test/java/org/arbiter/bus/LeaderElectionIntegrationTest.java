package org.arbiter.bus;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
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
}
