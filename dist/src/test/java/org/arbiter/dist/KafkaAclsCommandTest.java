package org.arbiter.dist;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.common.config.KafkaConfig;
import org.arbiter.broker.EmbeddedKafka;
import org.arbiter.dist.broker.BrokerSecurity;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code arbiter kafka acls}: printing, refusing an unsecured file, and applying on a secured broker. */
final class KafkaAclsCommandTest {

    @TempDir
    Path dir;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return Main.run(args, new PrintWriter(out, true), new PrintWriter(err, true));
    }

    private Path config(String bootstrap) throws Exception {
        StringBuilder principals = new StringBuilder();
        for (String role : new String[] {"grm", "gateway", "console", "admin"}) {
            Path pw = Files.writeString(dir.resolve(role + ".password"), "pw-" + role + "\n");
            principals.append("      ").append(role).append(": {username: ops-").append(role)
                    .append(", passwordFile: \"").append(pw).append("\"}\n");
        }
        Path f = dir.resolve("cluster.yaml");
        Files.writeString(f, """
                classes: [{name: basic, target: 3s, default: true}]
                servers: [{id: s1, url: "http://127.0.0.1:9001"}]
                kafka:
                  bootstrap: "%s"
                  security:
                    principals:
                %s""".formatted(bootstrap, principals));
        return f;
    }

    @Test
    void print_listsEveryGrant_inBothForms() throws Exception {
        assertThat(run("kafka", "acls", "--config", config("127.0.0.1:1").toString())).isZero();
        String text = out.toString();
        assertThat(text).contains("14 grants, 37 bindings")
                .containsPattern("grm +User:ops-grm +topic arbiter.allocation +Read, Write, Create, Describe")
                .containsPattern("gateway +User:ops-gateway +topic arbiter.stats +Write, Describe")
                .containsPattern("console +User:ops-console +topic arbiter.overrides +Read, Write, Describe")
                .contains("--allow-principal 'User:ops-gateway' --operation Read --operation Describe --topic arbiter.allocation");
        // nobody but the GRM writes allocation
        assertThat(text.lines().filter(l -> l.contains("topic arbiter.allocation") && l.contains("Write")))
                .allMatch(l -> l.contains("User:ops-grm"));
        assertThat(err.toString()).isEmpty();
    }

    @Test
    void anUnsecuredFile_isAUsageError() throws Exception {
        Path f = Files.writeString(dir.resolve("plain.yaml"), """
                classes: [{name: basic, target: 3s, default: true}]
                servers: [{id: s1, url: "http://127.0.0.1:9001"}]
                """);
        assertThat(run("kafka", "acls", "--config", f.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("kafka.security: absent (expected: a secured bus");
    }

    @Test
    void apply_asTheAdmin_createsTopicsAndAcls_once_andAGatewayCannotApply() throws Exception {
        Path f = config("127.0.0.1:1");
        KafkaConfig k = ConfigLoader.load(f).kafka();
        try (EmbeddedKafka kafka = EmbeddedKafka.start(dir.resolve("kafka"), 0, 0,
                BrokerSecurity.of(k.security(), name -> null))) {
            Path gatewayLogin = Files.writeString(dir.resolve("gateway.properties"), """
                    security.protocol=SASL_PLAINTEXT
                    sasl.mechanism=SCRAM-SHA-512
                    sasl.jaas.config=org.apache.kafka.common.security.scram.ScramLoginModule required username="ops-gateway" password="pw-gateway";
                    """);
            assertThat(run("kafka", "acls", "--config", f.toString(), "--format", "table", "--apply",
                    "--bootstrap", kafka.bootstrap(), "--command-config", gatewayLogin.toString())).isEqualTo(1);
            assertThat(err.toString()).contains("kafka acls: cannot ");

            assertThat(run("kafka", "acls", "--config", f.toString(), "--format", "table", "--apply",
                    "--bootstrap", kafka.bootstrap())).isZero();
            assertThat(out.toString()).contains("applied on " + kafka.bootstrap() + ": 37 ACL bindings; topics created: ");
            try (Admin admin = Admin.create(kafka.superUserProperties())) {
                assertThat(admin.describeAcls(AclBindingFilter.ANY).values().get(30, TimeUnit.SECONDS)).hasSize(37);
            }
            assertThat(run("kafka", "acls", "--config", f.toString(), "--format", "table", "--apply",
                    "--bootstrap", kafka.bootstrap())).isZero();
            assertThat(out.toString()).contains("37 ACL bindings; topics created: none (all existed)");
        }
    }
}
