package org.arbiter.gateway.l4;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.cli.SwitchCommand;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

final class HaproxyConfigTest {

    static final String CLUSTER = """
            classes:
              - {name: premium, target: 1s, match: {header: {X-Class: premium}}, queue: {timeout: 20s}}
              - {name: basic, target: 2s, default: true}
            servers: [{id: s1, url: 'http://10.0.1.1:9000'}]
            gateways:
              - {id: g1, host: 10.0.0.11, adminHost: 10.0.0.11, port: 8080, adminPort: 8180, proxyProtocol: true, drainDelay: 3s}
              - {id: g2, host: 'fd00::12', adminHost: '::', port: 8081, adminPort: 8181, proxyProtocol: true, drainDelay: 3s}
            dispatch: {backendTimeout: 60s, idleTimeout: 60s}
            gateway: {trustedProxies: [10.0.0.2/32]}
            """;

    @Test
    void twoGateways_giveOneServerEach_withSendProxyV2_readyChecksOnTheAdminPort_andLeastconn() {
        // basic's queue timeout is the default 30 s: 30 s + backendTimeout 60 s + 5 s = 95 s
        String text = HaproxyConfig.generate(ConfigLoader.parse(CLUSTER), "0.0.0.0:80", "cluster.yaml");
        assertThat(text).isEqualTo("""
                # The L4 switch in front of Arbiter's gateways, written by 'arbiter switch haproxy' from cluster.yaml.
                # Regenerate it when gateways change. The gateways must list this switch's address in
                # gateway.trustedProxies; they refuse PROXY headers from anyone else.
                # No global maxconn: HAProxy derives it from the file-descriptor limit (ulimit -n).

                defaults
                    mode tcp
                    timeout connect 5s
                    # the longest class queue timeout + dispatch.backendTimeout (or dispatch.idleTimeout) + 5s
                    timeout client 95s
                    timeout server 95s
                    timeout check 2s
                    # a connection a gateway refuses (it is draining) is tried again on another one
                    retries 3
                    option redispatch 1

                frontend arbiter
                    bind 0.0.0.0:80
                    default_backend arbiter-gateways

                backend arbiter-gateways
                    balance leastconn
                    # a gateway is in while its admin /ready answers 200; draining or starting, it is 503
                    option httpchk GET /ready
                    http-check expect status 200
                    default-server inter 1s fall 2 rise 2
                    server g1 10.0.0.11:8080 send-proxy-v2 check port 8180
                    server g2 [fd00::12]:8081 send-proxy-v2 check port 8181
                """);
    }

    @Test
    void gatewaysThatCannotSitBehindTheSwitch_areAllNamed() {
        ClusterConfig c = ConfigLoader.parse("""
                classes: [{name: a, target: 1s, default: true}]
                servers: [{id: s1, url: 'http://127.0.0.1:1'}]
                gateways:
                  - {id: g1, host: 0.0.0.0, port: 8080, proxyProtocol: false}
                  - {id: g2, port: 0, adminPort: 0}
                  - {id: g3, host: 10.0.0.13, port: 8082}
                """);
        assertThatThrownBy(() -> HaproxyConfig.generate(c, "nowhere", "f"))
                .isInstanceOfSatisfying(HaproxyConfig.Invalid.class, e -> assertThat(e.errors()).containsExactly(
                        "--bind: nowhere (expected: host:port or :port, e.g. 0.0.0.0:80)",
                        "gateways[0].proxyProtocol: false (expected: true: the switch sends a PROXY v2 header on every connection)",
                        "gateways[0].drainDelay: 0s (expected: >= 3s, so that the switch sees /ready fail (fall 2 x inter 1s) before the gateway refuses connections)",
                        "gateways[0].host: 0.0.0.0 (expected: an address the switch can reach, not a wildcard)",
                        "gateways[1].proxyProtocol: false (expected: true: the switch sends a PROXY v2 header on every connection)",
                        "gateways[1].drainDelay: 0s (expected: >= 3s, so that the switch sees /ready fail (fall 2 x inter 1s) before the gateway refuses connections)",
                        "gateways[1]: port 0, adminPort 0 (expected: fixed ports, not 0, so the switch knows where to connect)",
                        "gateways[2].proxyProtocol: false (expected: true: the switch sends a PROXY v2 header on every connection)",
                        "gateways[2].drainDelay: 0s (expected: >= 3s, so that the switch sees /ready fail (fall 2 x inter 1s) before the gateway refuses connections)",
                        "gateways[2].adminHost: 127.0.0.1 (expected: 10.0.0.13 (the host) or a wildcard: the switch checks /ready at host:adminPort)",
                        "gateway.trustedProxies: an empty list (expected: the switch's addresses, so that the gateways believe its PROXY headers)"));
    }

    @Test
    void theCommand_writesTheFile_orNamesEachProblem_withExit2(@TempDir Path dir) throws Exception {
        Path yaml = Files.writeString(dir.resolve("cluster.yaml"), CLUSTER);
        Path out = dir.resolve("haproxy.cfg");
        assertThat(run("haproxy", "--config", yaml.toString(), "--out", out.toString(), "--bind", "127.0.0.1:8000"))
                .isEqualTo("0:");
        assertThat(Files.readString(out)).contains("    bind 127.0.0.1:8000\n", "server g1 10.0.0.11:8080 send-proxy-v2");
        Path bad = Files.writeString(dir.resolve("bad.yaml"), CLUSTER.replace("proxyProtocol: true,", "proxyProtocol: false,"));
        assertThat(run("haproxy", "--config", bad.toString())).isEqualTo("2:"
                + "switch haproxy: gateways[0].proxyProtocol: false (expected: true: the switch sends a PROXY v2 header on every connection)\n"
                + "switch haproxy: gateways[1].proxyProtocol: false (expected: true: the switch sends a PROXY v2 header on every connection)\n");
    }

    /** The configuration passes HAProxy's own check ({@code haproxy -c}), when HAProxy is installed. */
    @Test
    void haproxyAcceptsIt(@TempDir Path dir) throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(HaproxyProcess.binary().isPresent(),
                "haproxy is not installed (Debian package haproxy, listed in .ci/packages): not checked here");
        Path cfg = Files.writeString(dir.resolve("haproxy.cfg"),
                HaproxyConfig.generate(ConfigLoader.parse(CLUSTER), "127.0.0.1:18000", "test"));
        HaproxyProcess.Check check = HaproxyProcess.check(cfg);
        assertThat(check.exitCode()).as(check.output()).isZero();
        assertThat(check.output()).as("no warnings either").doesNotContainIgnoringCase("warning");
    }

    private static String run(String... args) {
        StringWriter err = new StringWriter();
        CommandLine cl = new CommandLine(new SwitchCommand());
        cl.setErr(new PrintWriter(err));
        cl.setOut(new PrintWriter(new java.io.OutputStreamWriter(new ByteArrayOutputStream())));
        int code = cl.execute(args);
        return code + ":" + err;
    }
}
