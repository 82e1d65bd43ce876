package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.arbiter.common.config.KafkaSecurity.Role;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** {@code kafka.security}: what ConfigLoader accepts, what it refuses (every problem, path named), and the client properties. */
final class KafkaSecurityConfigTest {

    static final String BASE = """
            classes: [{name: basic, target: 3s, default: true}]
            servers: [{id: s1, url: "http://127.0.0.1:9001"}]
            """;

    static final String SCRAM = BASE + """
            kafka:
              bootstrap: "k1:9093"
              security:
                mechanism: SCRAM-SHA-256
                principals:
                  grm:     {username: arbiter-grm, passwordFile: /etc/arbiter/grm.password}
                  gateway: {username: arbiter-gateway, passwordFile: /etc/arbiter/gateway.password}
                  console: {username: arbiter-console, passwordFile: /etc/arbiter/console.password}
            """;

    @TempDir
    Path dir;

    @Test
    void absent_isPlaintext() {
        ClusterConfig c = ConfigLoader.parse(BASE);
        assertThat(c.kafka().security()).isEqualTo(KafkaSecurity.NONE);
        assertThat(c.kafka().security().enabled()).isFalse();
        assertThat(c.kafka().security().clientProperties(Role.GATEWAY, k -> null)).isEmpty();
    }

    @Test
    void scram_withoutTls_defaultsToSaslPlaintext_andReadsEveryRole() {
        KafkaSecurity s = ConfigLoader.parse(SCRAM).kafka().security();
        assertThat(s.protocol()).isEqualTo(KafkaSecurity.Protocol.SASL_PLAINTEXT);
        assertThat(s.mechanism()).isEqualTo(KafkaSecurity.Mechanism.SCRAM_SHA_256);
        assertThat(s.principal(Role.GRM).orElseThrow().username()).isEqualTo("arbiter-grm");
        assertThat(s.principal(Role.GRM).orElseThrow().passwordFile()).isEqualTo(Path.of("/etc/arbiter/grm.password"));
        assertThat(s.principal(Role.ADMIN)).isEmpty();
    }

    @Test
    void tls_defaultsToSaslSsl_andTheWriterRoundTrips() {
        String yaml = SCRAM.replace("    mechanism: SCRAM-SHA-256\n",
                "    tls: {truststore: /etc/arbiter/ca.pem, verifyHostname: false}\n");
        ClusterConfig c = ConfigLoader.parse(yaml);
        KafkaSecurity s = c.kafka().security();
        assertThat(s.protocol()).isEqualTo(KafkaSecurity.Protocol.SASL_SSL);
        assertThat(s.mechanism()).isEqualTo(KafkaSecurity.Mechanism.SCRAM_SHA_512);
        assertThat(s.tls().truststore()).isEqualTo(Path.of("/etc/arbiter/ca.pem"));
        assertThat(s.tls().verifyHostname()).isFalse();
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
    }

    @Test
    void everyMistake_isReportedAtOnce_withItsPath() {
        String yaml = BASE + """
                kafka:
                  properties: {sasl.jaas.config: "x"}
                  security:
                    protocol: SASL_PLAINTXT
                    mechanism: PLAIN
                    tls: {truststore: /etc/ca.txt}
                    principals:
                      grm:     {username: arbiter, passwordFile: /p}
                      gateway: {username: arbiter, password: secret}
                      consol:  {username: c, passwordFile: /p}
                """;
        assertThatThrownBy(() -> ConfigLoader.parse(yaml)).isInstanceOfSatisfying(ConfigException.class, e ->
                assertThat(e.errors()).containsExactlyInAnyOrder(
                        "kafka.security.protocol: SASL_PLAINTXT (expected: one of PLAINTEXT, SASL_PLAINTEXT, SASL_SSL, SSL; "
                                + "did you mean 'SASL_PLAINTEXT'?)",
                        "kafka.security.mechanism: PLAIN (expected: one of SCRAM-SHA-256, SCRAM-SHA-512)",
                        "kafka.security.tls.truststore: /etc/ca.txt (expected: a .pem, .crt, .jks, .p12 or .pfx file)",
                        "kafka.security.principals.gateway.password: unknown key (expected: one of username, passwordFile, "
                                + "keystore, keystorePasswordFile, keyPasswordFile)",
                        "kafka.security.principals.gateway.passwordFile: missing (expected: a file holding this user's "
                                + "password; ARBITER_KAFKA_GATEWAY_PASSWORD, when set, is used instead)",
                        "kafka.security.principals.gateway.username: arbiter (expected: a user no other role or gateway has; "
                                + "grm has it, and the ACLs tell them apart by user)",
                        "kafka.security.principals.console: missing (expected: the user the console connects as; every role "
                                + "has its own so the broker's ACLs can tell them apart)",
                        "kafka.security.principals.consol: unknown key (expected: one of grm, gateway, console, admin, "
                                + "gateways; did you mean 'console'?)",
                        "kafka.properties.sasl.jaas.config: x (expected: not set when kafka.security is given; "
                                + "kafka.security sets it per role)"));
    }

    static final String OWN = SCRAM.replace("servers: [{id: s1, url: \"http://127.0.0.1:9001\"}]\n",
            "servers: [{id: s1, url: \"http://127.0.0.1:9001\"}]\ngateways: [{id: g1, port: 0}, {id: g2, port: 0}]\n")
            + """
                  gateways:
                    g1: {username: arbiter-g1, passwordFile: /etc/arbiter/g1.password}
            """;

    @Test
    void aGatewayOfItsOwn_hasItsPrincipalAndStatsTopic_theOthersShareTheRole_andTheWriterRoundTrips() {
        ClusterConfig c = ConfigLoader.parse(OWN);
        KafkaSecurity s = c.kafka().security();
        assertThat(s.gatewayPrincipals()).containsOnlyKeys("g1");
        assertThat(s.ownStats("g1")).isTrue();
        assertThat(s.ownStats("g2")).isFalse();
        assertThat(s.gatewayPrincipal("g1").orElseThrow().username()).isEqualTo("arbiter-g1");
        assertThat(s.gatewayPrincipal("g2").orElseThrow().username()).isEqualTo("arbiter-gateway");
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
    }

    @Test
    void aGatewayOfItsOwn_logsInAsItself_withItsOwnPasswordFile(@TempDir Path tmp) throws Exception {
        Path pw = Files.writeString(tmp.resolve("g1.password"), "g1-secret\n");
        KafkaSecurity s = ConfigLoader.parse(OWN.replace("/etc/arbiter/g1.password", pw.toString())).kafka().security();
        assertThat(s.clientProperties(Role.GATEWAY, "g1", k -> null).get("sasl.jaas.config"))
                .contains("username=\"arbiter-g1\"").contains("password=\"g1-secret\"");
        assertThat(s.gatewayPassword("g1")).isEqualTo("g1-secret");
        assertThatThrownBy(() -> s.clientProperties(Role.GATEWAY, "g2", k -> null))
                .hasMessageContaining("kafka.security.principals.gateway.passwordFile");
    }

    @Test
    void aGatewayOfItsOwn_mustBeConfigured_andHaveAUserNoOneElseHas() {
        String yaml = OWN + """
                        g3: {username: arbiter-gateway, passwordFile: /p}
                        "g 4": {username: x, passwordFile: /p}
                """;
        assertThatThrownBy(() -> ConfigLoader.parse(yaml)).isInstanceOfSatisfying(ConfigException.class, e ->
                assertThat(e.errors()).containsExactlyInAnyOrder(
                        "kafka.security.principals.gateways.g3.username: arbiter-gateway (expected: a user no other role "
                                + "or gateway has; gateway has it, and the ACLs tell them apart by user)",
                        "kafka.security.principals.gateways.g 4: (expected: a gateway id of letters, digits, '.', '_' or '-', "
                                + "as in gateways[].id)",
                        "kafka.security.principals.gateways.g3: not a configured gateway (expected: one of g1, g2; "
                                + "did you mean 'g1'?)"));
    }

    @Test
    void tlsOnAPlaintextProtocol_andStorePasswords_areChecked() {
        String yaml = SCRAM.replace("    mechanism: SCRAM-SHA-256\n",
                "    protocol: SASL_PLAINTEXT\n    tls: {truststore: /etc/ca.jks}\n");
        assertThatThrownBy(() -> ConfigLoader.parse(yaml)).isInstanceOfSatisfying(ConfigException.class, e ->
                assertThat(e.errors()).containsExactlyInAnyOrder(
                        "kafka.security.tls: given, but protocol is SASL_PLAINTEXT (expected: protocol SSL or SASL_SSL "
                                + "when TLS files are given)",
                        "kafka.security.tls.truststorePasswordFile: missing (expected: the password of the JKS truststore)"));
    }

    @Test
    void ssl_needsAKeystorePerRole_andNoPassword() {
        String yaml = BASE + """
                kafka:
                  security:
                    protocol: SSL
                    tls: {truststore: /etc/ca.pem}
                    principals:
                      grm:     {username: "CN=arbiter-grm", keystore: /etc/grm.p12, keystorePasswordFile: /etc/grm.pw}
                      gateway: {username: "CN=arbiter-gateway", passwordFile: /etc/gw.pw}
                      console: {username: "CN=arbiter-console", keystore: /etc/console.pem}
                """;
        assertThatThrownBy(() -> ConfigLoader.parse(yaml)).isInstanceOfSatisfying(ConfigException.class, e ->
                assertThat(e.errors()).containsExactlyInAnyOrder(
                        "kafka.security.principals.gateway.passwordFile: /etc/gw.pw (expected: none when protocol is SSL; "
                                + "a password is for SASL_PLAINTEXT or SASL_SSL)",
                        "kafka.security.principals.gateway.keystore: missing (expected: this role's client certificate and "
                                + "key when protocol is SSL)"));
    }

    @Test
    void clientProperties_saslSsl_withPemTrust_andAPerRoleKeystore(@TempDir Path tmp) throws Exception {
        Path pw = Files.writeString(tmp.resolve("grm.password"), "s3cr\"et\nignored second line\n");
        Path ksPw = Files.writeString(tmp.resolve("ks.password"), "storepw\n");
        KafkaSecurity s = new KafkaSecurity(KafkaSecurity.Protocol.SASL_SSL, KafkaSecurity.Mechanism.SCRAM_SHA_512,
                new KafkaSecurity.Tls(Path.of("/etc/ca.pem"), null, false),
                Map.of(Role.GRM, new KafkaSecurity.Principal("arbiter-grm", pw, tmp.resolve("grm.p12"), ksPw, null)));
        Map<String, String> p = s.clientProperties(Role.GRM, k -> null);
        assertThat(p).containsEntry("security.protocol", "SASL_SSL")
                .containsEntry("sasl.mechanism", "SCRAM-SHA-512")
                .containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"arbiter-grm\" password=\"s3cr\\\"et\";")
                .containsEntry("ssl.truststore.location", "/etc/ca.pem")
                .containsEntry("ssl.truststore.type", "PEM")
                .containsEntry("ssl.endpoint.identification.algorithm", "")
                .containsEntry("ssl.keystore.type", "PKCS12")
                .containsEntry("ssl.keystore.password", "storepw")
                .doesNotContainKey("ssl.truststore.password");
        // The environment wins over the file.
        assertThat(s.clientProperties(Role.GRM, k -> k.equals("ARBITER_KAFKA_GRM_PASSWORD") ? "from-env" : null))
                .containsEntry("sasl.jaas.config", "org.apache.kafka.common.security.scram.ScramLoginModule required "
                        + "username=\"arbiter-grm\" password=\"from-env\";");
    }

    @Test
    void clientProperties_nameThePath_whenAPasswordCannotBeRead_orARoleIsMissing() {
        KafkaSecurity s = ConfigLoader.parse(SCRAM.replace("/etc/arbiter/gateway.password",
                dir.resolve("absent").toString())).kafka().security();
        assertThatThrownBy(() -> s.clientProperties(Role.GATEWAY, k -> null))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("kafka.security.principals.gateway.passwordFile: " + dir.resolve("absent")
                        + ": no such file (expected: a readable file holding the password, or set ARBITER_KAFKA_GATEWAY_PASSWORD)");
        assertThatThrownBy(() -> s.clientProperties(Role.ADMIN, k -> null))
                .hasMessage("kafka.security.principals.admin: missing (expected: the user this admin connects as, since "
                        + "kafka.security.protocol is SASL_PLAINTEXT)");
    }
}
