package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** gateway.trustedProxies (CIDR blocks, IPv4 and IPv6) and gateway.accessLog: loading, errors, writing back. */
final class GatewayHttpConfigTest {

    private static ClusterConfig parse(String gatewaySection) {
        return ConfigLoader.parse(ConfigLoaderTest.MINIMAL + gatewaySection);
    }

    @Test
    void absent_meansNoTrustedProxy_andNoAccessLog() {
        ClusterConfig c = ConfigLoader.parse(ConfigLoaderTest.MINIMAL);
        assertThat(c.gatewayHttp()).isEqualTo(GatewayHttpConfig.DEFAULT);
        assertThat(c.gatewayHttp().accessLog().enabled()).isFalse();
    }

    @Test
    void fullSection_loads_andWritesBackEqual() throws Exception {
        ClusterConfig c = parse("""
                gateway:
                  trustedProxies: [10.0.0.0/8, 192.168.1.7, "fd00::/8", "::1"]
                  accessLog: {path: "/var/log/arbiter/access-{gateway}.log", format: json, maxFileSize: 5MiB, maxFiles: 3}
                """);
        GatewayHttpConfig h = c.gatewayHttp();
        assertThat(h.trustedProxies()).extracting(Cidr::toString)
                .containsExactly("10.0.0.0/8", "192.168.1.7/32", "fd00:0:0:0:0:0:0:0/8", "0:0:0:0:0:0:0:1/128");
        assertThat(h.accessLog()).isEqualTo(new GatewayHttpConfig.AccessLog("/var/log/arbiter/access-{gateway}.log",
                GatewayHttpConfig.AccessLog.Format.JSON, 5L << 20, 3));
        assertThat(h.accessLog().pathFor("g2")).isEqualTo("/var/log/arbiter/access-g2.log");
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
        assertThat(h.trusted(InetAddress.getByName("10.200.3.4"))).isTrue();
        assertThat(h.trusted(InetAddress.getByName("11.0.0.1"))).isFalse();
        assertThat(h.trusted(InetAddress.getByName("::ffff:10.1.2.3"))).isTrue();
        assertThat(h.trusted(InetAddress.getByName("fdab::1"))).isTrue();
        assertThat(h.trusted(InetAddress.getByName("fe80::1"))).isFalse();
        assertThat(h.trusted(InetAddress.getByName("::1"))).isTrue();
    }

    @Test
    void threadsAndTransport_defaultToOnePerCoreAndAuto_andLoad_andWriteBack() {
        GatewayHttpConfig d = ConfigLoader.parse(ConfigLoaderTest.MINIMAL).gatewayHttp();
        assertThat(d.threads()).isZero();
        assertThat(d.eventLoops()).isEqualTo(Runtime.getRuntime().availableProcessors());
        assertThat(d.transport()).isEqualTo(GatewayHttpConfig.Transport.AUTO);
        ClusterConfig c = parse("gateway: {threads: 4, transport: io_uring}");
        assertThat(c.gatewayHttp().eventLoops()).isEqualTo(4);
        assertThat(c.gatewayHttp().transport()).isEqualTo(GatewayHttpConfig.Transport.IO_URING);
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "negative threads|gateway: {threads: -1}|gateway.threads: -1 (expected: 0..256, 0 for one per core)",
        "too many threads|gateway: {threads: 257}|gateway.threads: 257 (expected: 0..256, 0 for one per core)",
        "threads not a number|gateway: {threads: two}|gateway.threads",
        "unknown transport|gateway: {transport: kqueue}|gateway.transport: kqueue",
    })
    void badThreadsOrTransport_isRefusedNamingTheKey(String name, String yaml, String message) {
        assertThatThrownBy(() -> parse(yaml)).isInstanceOf(ConfigException.class).hasMessageContaining(message);
    }

    @Test
    void accessLogDefaults_combined100MiB10Files() {
        GatewayHttpConfig.AccessLog a = parse("gateway: {accessLog: {path: access.log}}").gatewayHttp().accessLog();
        assertThat(a).isEqualTo(new GatewayHttpConfig.AccessLog("access.log", GatewayHttpConfig.AccessLog.Format.COMBINED, 100L << 20, 10));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
        "prefix too long|gateway: {trustedProxies: [10.0.0.0/33]}|gateway.trustedProxies[0]: 10.0.0.0/33 (expected: a prefix length 0..32 after /)",
        "octet over 255|gateway: {trustedProxies: [10.0.0.256]}|gateway.trustedProxies[0]: 10.0.0.256 (expected: an IPv4 or IPv6 address, optionally /prefix, e.g. 10.0.0.0/8 or fd00::/8)",
        "a host name|gateway: {trustedProxies: [proxy.example.com]}|gateway.trustedProxies[0]: proxy.example.com (expected: an IPv4 or IPv6 address, optionally /prefix, e.g. 10.0.0.0/8 or fd00::/8)",
        "ipv6 prefix|gateway: {trustedProxies: ['fd00::/129']}|gateway.trustedProxies[0]: fd00::/129 (expected: a prefix length 0..128 after /)",
        "not a list|gateway: {trustedProxies: 10.0.0.0/8}|gateway.trustedProxies: \"10.0.0.0/8\" (expected: a list of IPv4 or IPv6 CIDR blocks, e.g. [10.0.0.0/8, fd00::/8])",
        "second entry|gateway: {trustedProxies: [10.0.0.0/8, 1.2.3]}|gateway.trustedProxies[1]: 1.2.3 (expected: an IPv4 or IPv6 address, optionally /prefix, e.g. 10.0.0.0/8 or fd00::/8)",
        "no path|gateway: {accessLog: {format: json}}|gateway.accessLog.path: missing (expected: a value)",
        "bad format|gateway: {accessLog: {path: a.log, format: xml}}|gateway.accessLog.format: xml (expected: one of combined, json)",
        "few files|gateway: {accessLog: {path: a.log, maxFiles: 0}}|gateway.accessLog.maxFiles: 0 (expected: 1..1000)",
        "unknown key|gateway: {trustedProxy: [10.0.0.0/8]}|gateway.trustedProxy: unknown key (expected: one of trustedProxies, accessLog, threads, transport, maxConnections, bodyBudget, adminTokenFile; did you mean 'trustedProxies'?)",
        "empty token file|gateway: {adminTokenFile: ''}|gateway.adminTokenFile: an empty string (expected: a file path, or absent)",
        "negative connections|gateway: {maxConnections: -1}|gateway.maxConnections: -1 (expected: >= 0, 0 for 80 % of the file-descriptor limit)",
        "bad budget|gateway: {bodyBudget: lots}|gateway.bodyBudget: lots (expected: a size such as 16KiB or 10MiB)",
    })
    void eachRule_hasItsMessage(String rule, String yaml, String expected) {
        assertThatThrownBy(() -> parse(yaml))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).contains(expected));
    }

    @ParameterizedTest
    @CsvSource({
        "10.0.0.0/8, 10.255.255.255, true",
        "10.0.0.0/8, 11.0.0.0, false",
        "172.16.0.0/12, 172.31.1.1, true",
        "172.16.0.0/12, 172.32.0.1, false",
        "0.0.0.0/0, 8.8.8.8, true",
        "127.0.0.1, 127.0.0.1, true",
        "127.0.0.1, 127.0.0.2, false",
        "2001:db8::/32, 2001:db8:ffff::1, true",
        "2001:db8::/33, 2001:db8:8000::1, false",
        "10.0.0.0/8, 2001:db8::1, false",
    })
    void cidrContains(String block, String address, boolean expected) throws Exception {
        assertThat(Cidr.parse(block).contains(InetAddress.getByName(address))).isEqualTo(expected);
    }

    @Test
    void cidr_clearsHostBits() {
        assertThat(Cidr.parse("10.1.2.3/8").toString()).isEqualTo("10.0.0.0/8");
        assertThat(Cidr.parse("[::1]").prefixLength()).isEqualTo(128);
    }
}
