package org.arbiter.dist.demo;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.net.URI;
import java.nio.file.Path;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.bus.BusAcls;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.GatewayConfig;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.dist.broker.BrokerSecurity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code demo --secure}'s own check against the secured embedded broker it starts: a principal per
 * role and per gateway, and every forbidden write it tries refused by the broker (before, a forged
 * record that its own constructor refused ended the demo with an exception before any attempt).
 */
final class DemoSecurityTest {

    @TempDir
    Path dir;

    @Test
    void everyForbiddenWrite_isRefusedByTheBroker_includingAGatewayWritingAnothersStatistics() throws Exception {
        KafkaSecurity security = DemoSecurity.create(dir.resolve("secrets"), DemoPlan.GATEWAYS);
        assertThat(security.gatewayPrincipals()).containsOnlyKeys("g1", "g2");
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, 0,
                BrokerSecurity.of(security, k -> null))) {
            ClusterConfig.Builder b = ClusterConfig.builder()
                    .addClass(ClassConfig.builder("basic", 1).isDefault(true).build())
                    .addServer(ServerConfig.builder("s1", URI.create("http://127.0.0.1:9")).build());
            DemoPlan.GATEWAYS.forEach(g -> b.addGateway(GatewayConfig.builder(g).port(0).build()));
            ClusterConfig cluster = b.kafka(KafkaConfig.builder().bootstrap(kafka.bootstrap()).topicPrefix("demo.").build()
                    .withSecurity(security)).build();
            BusAcls.apply(kafka.superUserProperties(), cluster.kafka());
            StringWriter out = new StringWriter();
            ObjectNode result = DemoSecurity.check(cluster, new PrintWriter(out));
            System.out.print(out);
            assertThat(result.path("attempts").asInt()).isEqualTo(6);
            assertThat(result.path("refused").asInt()).as(out.toString()).isEqualTo(6);
            assertThat(out.toString()).contains("gateway g1 (demo-gateway-g1) writes g2's statistics on demo.stats.g2: refused");
        }
    }
}
