package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

final class ConfigLoaderTest {

    static final String MINIMAL = """
            classes:
              - name: premium
                target: 2s
                match: {header: {X-Class: premium}}
              - name: basic
                target: 3s
                default: true
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
            """;

    static final String FULL = """
            classes:
              - name: premium
                target: 2s
                utility: {phi: 1, alpha: 1, beta: 1}
                weight: 1
                minShare: 0.0
                match: {header: {X-Class: premium}, path: /, method: GET, host: example.com}
                queue: {limit: 1000, timeout: 30s}
              - name: gold
                target: 1500ms
                yield: {shape: hybrid, value: 4, dropPenalty: 2, deadline: 2s, preDeadline: 1s}
                match: {header: {X-User: "regex:^gold-.*"}}
              - name: basic
                target: 3s
                default: true
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: auto, sim: {cores: 4, meanDemand: 500ms, demand: {premium: 1s}}}
            gateways:
              - {id: g1, port: 8080, adminPort: 8180}
            dispatch:   {scheduler: wrr, balancer: least-outstanding, backendTimeout: 60s, connectTimeout: 2s, maxBodyBytes: 10MiB, maxHeaderBytes: 16KiB, idleTimeout: 60s, classHeader: true}
            control:    {period: 5s, reportPeriod: 5s, statsWindow: 30s, combine: min, granularity: 1, minWeight: 1, responseTimeCap: 10, prediction: mm1}
            sizing:     {policy: off}
            power:      {actuator: log}
            kafka:      {bootstrap: "127.0.0.1:9092", topicPrefix: "arbiter.", properties: {security.protocol: PLAINTEXT}}
            console:    {port: 8090}
            """;

    @Test
    void minimalFile_getsDocumentedDefaults() {
        ClusterConfig c = ConfigLoader.parse(MINIMAL);
        assertThat(c.classes()).extracting(ClassConfig::name).containsExactly("premium", "basic");
        assertThat(c.defaultClass().name()).isEqualTo("basic");
        ClassConfig premium = c.classes().get(0);
        assertThat(premium.targetSeconds()).isEqualTo(2.0);
        assertThat(premium.utility()).isEqualTo(ClassConfig.UtilitySpec.DEFAULT);
        assertThat(premium.weight()).isEqualTo(1.0);
        assertThat(premium.queue()).isEqualTo(new ClassConfig.QueueConfig(1000, 30));
        assertThat(premium.match().headers()).containsEntry("X-Class", "premium");
        assertThat(c.gateways()).containsExactly(new GatewayConfig("g1", "127.0.0.1", 8080, 8180));
        assertThat(c.dispatch()).isEqualTo(new DispatchConfig(DispatchConfig.Scheduler.WRR, DispatchConfig.Balancer.LEAST_OUTSTANDING, 3, 60, 2, 10L << 20,
                16L << 10, 60, true));
        assertThat(c.control()).isEqualTo(new ControlConfig(5, 5, 30, ControlConfig.Combine.MIN, 1, 1, 10,
                ControlConfig.Prediction.MM1, 1));
        assertThat(c.sizing().policy()).isEqualTo(SizingConfig.Policy.OFF);
        assertThat(c.power()).isEqualTo(new PowerConfig(PowerConfig.Actuator.LOG, null, 60, 3, 1));
        assertThat(c.kafka().bootstrapServers()).isEmpty();
        assertThat(c.kafka().topicPrefix()).isEqualTo("arbiter.");
        assertThat(c.console().port()).isEqualTo(8090);
        assertThat(c.servers().get(0).power()).isEqualTo(ServerConfig.PowerDraw.DEFAULT);
        assertThat(c.totalConcurrency()).isEqualTo(10);
    }

    @Test
    void fullExample_fromTheSchema_loads() {
        ClusterConfig c = ConfigLoader.parse(FULL);
        assertThat(c.classes()).hasSize(3);
        assertThat(c.classes().get(1).yieldShape()).contains(new ClassConfig.YieldSpec(ClassConfig.YieldSpec.Shape.HYBRID, 4, 2, 2, 1));
        assertThat(ConfigLoader.parse(FULL.replace("value: 4,", "full: 4,")).classes().get(1).yieldShape())
                .as("full: the older name of yield.value").isEqualTo(c.classes().get(1).yieldShape());
        assertThat(c.classes().get(1).targetSeconds()).isEqualTo(1.5);
        assertThat(c.servers().get(1).autoConcurrency()).isTrue();
        assertThat(c.servers().get(1).sim().demandSeconds()).containsEntry("premium", 1.0);
        assertThat(c.servers().get(1).sim().meanDemandSeconds()).isEqualTo(0.5);
        assertThat(c.kafka().bootstrapServers()).contains("127.0.0.1:9092");
        assertThat(c.kafka().properties()).containsEntry("security.protocol", "PLAINTEXT");
        assertThat(c.classes().get(0).match().host()).isEqualTo("example.com");
    }

    @Test
    void unknownPolicies_areAllReported_withPathValueAndEveryAllowedWord() {
        assertThatThrownBy(() -> ConfigLoader.parse("""
                classes: [{name: a, target: 1s, default: true, yield: {shape: step}}]
                servers: [{id: s1, url: "http://127.0.0.1:1", concurrencyControl: {method: pid}}]
                dispatch: {scheduler: wfq, balancer: random}
                control: {combine: max, prediction: mm2}
                sizing: {policy: queu, estimator: guess, forecast: tomorrow}
                power: {actuator: ssh}
                console: {users: [{name: u, passwordHash: "pbkdf2:1:00:00", role: root}], tokens: [{name: t, sha256: "%s", role: owner}]}
                gateway: {accessLog: {path: a.log, format: xml}}
                """.formatted("0".repeat(64))))
                .isInstanceOf(ConfigException.class)
                .extracting(e -> ((ConfigException) e).errors()).asList().containsExactlyInAnyOrder(
                        "classes[0].yield.shape: step (expected: one of hybrid, throughput, response-time)",
                        "servers[0].concurrencyControl.method: pid (expected: one of knee, amc, pmc)",
                        "dispatch.scheduler: wfq (expected: one of wrr, fcfs, priority, edf, yid, greedy, adaptive)",
                        "dispatch.balancer: random (expected: one of least-outstanding, random-poll)",
                        "control.combine: max (expected: one of min, sum)",
                        "control.prediction: mm2 (expected: one of mm1, queue-length, liu; did you mean 'mm1'?)",
                        "sizing.policy: queu (expected: one of off, static, queue, utility, schedule; did you mean 'queue'?)",
                        "sizing.estimator: guess (expected: one of queue, static, utilization)",
                        "sizing.forecast: tomorrow (expected: one of trend, current)",
                        "power.actuator: ssh (expected: one of log, exec, http)",
                        "console.users[0].role: root (expected: one of admin, viewer)",
                        "console.tokens[0].role: owner (expected: one of admin, viewer)",
                        "gateway.accessLog.format: xml (expected: one of combined, json)");
    }

    @Test
    void builders_haveTheLoadersDefaults() {
        ClusterConfig built = ClusterConfig.builder()
                .addClass(ClassConfig.builder("premium", 2).matchHeader("X-Class", "premium").build())
                .addClass(ClassConfig.builder("basic", 3).isDefault(true).build())
                .addServer(ServerConfig.builder("s1", java.net.URI.create("http://127.0.0.1:9001")).concurrency(10).build())
                .build();
        assertThat(built).isEqualTo(ConfigLoader.parse(MINIMAL));
        assertThat(ConfigLoader.parse("""
                classes: [{name: a, target: 1s, default: true}]
                servers: [{id: s1, url: "http://127.0.0.1:1"}]
                gateways: [{id: g1, port: 0}, {id: g2, port: 9000}]
                """).gateways()).containsExactly(GatewayConfig.builder("g1").port(0).build(),
                GatewayConfig.builder("g2").port(9000).build());
        assertThat(GatewayConfig.builder("g2").port(9000).build().adminPort()).isEqualTo(9100);
    }

    @Test
    void aBuiltConfiguration_isWrittenAndLoadedBackEqual() {
        ClusterConfig built = ClusterConfig.builder()
                .addClass(ClassConfig.builder("web", 1).isDefault(true).queue(50, 2.5).build())
                .addServer(ServerConfig.builder("s1", java.net.URI.create("http://127.0.0.1:9001"))
                        .sim(ServerConfig.SimSpec.builder().cores(4).meanDemandSeconds(0.25).overhead(0.03).build()).build())
                .addGateway(GatewayConfig.builder("g1").port(0).build())
                .dispatch(DispatchConfig.builder().scheduler(DispatchConfig.Scheduler.FCFS)
                        .balancer(DispatchConfig.Balancer.RANDOM_POLL).pollSize(3).build())
                .control(ControlConfig.builder().periodSeconds(1).reportPeriodSeconds(1).statsWindowSeconds(10)
                        .combine(ControlConfig.Combine.SUM).prediction(ControlConfig.Prediction.LIU)
                        .liu(new ControlConfig.Liu(2, 0.5, 0.25)).build())
                .sizing(SizingConfig.builder().policy(new SizingConfig.Schedule(60, List.of(1, 2)))
                        .forecast(SizingConfig.Forecast.CURRENT).build())
                .power(PowerConfig.builder().actuator(PowerConfig.Actuator.EXEC).command("echo {server} {action}").build())
                .build();
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(built))).isEqualTo(built);
        assertThat(built.toBuilder().build()).isEqualTo(built);
        assertThat(built.sizing().toBuilder().build()).isEqualTo(built.sizing());
    }

    @Test
    void effectiveConfiguration_loadsBackToTheSameModel() {
        ClusterConfig c = ConfigLoader.parse(FULL);
        String yaml = ConfigWriter.toYaml(c);
        assertThat(ConfigLoader.parse(yaml)).isEqualTo(c);
        assertThat(yaml).contains("statsWindow: \"30s\"").contains("maxBodyBytes: \"10MiB\"");
    }

    @Test
    void sizingAndConcurrencyControl_loadAndRoundTrip() {
        ClusterConfig c = ConfigLoader.parse("""
                classes: [{name: a, target: 1s, default: true}]
                servers:
                  - {id: s1, url: "http://127.0.0.1:1", concurrency: auto,
                     concurrencyControl: {method: amc, min: 2, max: 40, latencyMax: 1500ms, gain: 0.3}}
                sizing: {policy: schedule, estimator: utilization, warmUp: 5s, schedule: {slot: 30m, servers: [1, 3, 2]}}
                """);
        assertThat(c.servers().get(0).control()).isEqualTo(
                new ServerConfig.ConcurrencyControl(ServerConfig.ConcurrencyControl.Method.AMC, 2, 40, 1.5, 0.1, 0.3, 2, 1));
        assertThat(c.sizing().policy()).isEqualTo(new SizingConfig.Schedule(1800, List.of(1, 3, 2)));
        assertThat(c.sizing().estimator()).isEqualTo(SizingConfig.Estimator.UTILIZATION);
        assertThat(c.sizing().warmUpSeconds()).isEqualTo(5);
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
    }

    @Test
    void policyStatic_isByCapacityWithTheStaticEstimator() {
        String head = "classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: \"http://127.0.0.1:1\"}]\n";
        ClusterConfig alias = ConfigLoader.parse(head + "sizing: {policy: static, staticCapacity: 40}\n");
        assertThat(alias.sizing().policy()).isEqualTo(SizingConfig.Policy.BY_CAPACITY);
        assertThat(alias.sizing().estimator()).isEqualTo(SizingConfig.Estimator.STATIC);
        assertThat(alias).isEqualTo(ConfigLoader.parse(head + "sizing: {policy: queue, estimator: static, staticCapacity: 40}\n"));
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(alias))).isEqualTo(alias);
        assertThat(ConfigLoader.parse(head + "sizing: {policy: utility, utilityFloor: 0.5}\n").sizing().policy())
                .isEqualTo(new SizingConfig.Utility(0.5));
        assertThatThrownBy(() -> ConfigLoader.parse(head + "sizing: {policy: static}\n"))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).containsExactly(
                        "sizing.staticCapacity: missing (expected: requests/s one server sustains, > 0, for the static estimator)"));
    }

    @Test
    void gatewayLifecycleKeys_loadAndRoundTrip() {
        ClusterConfig c = ConfigLoader.parse(MINIMAL + "gateways: [{id: g1, drainTimeout: 5s, startupGrace: 250ms, adminMaxConnections: 8}]\n");
        assertThat(c.gateways()).containsExactly(new GatewayConfig("g1", "127.0.0.1", 8080, 8180, 5, 0.25, 8, 0, false));
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
        GatewayConfig d = ConfigLoader.parse(MINIMAL).gateways().get(0);
        assertThat(d.drainTimeoutSeconds()).isEqualTo(30);
        assertThat(d.startupGraceSeconds()).isEqualTo(10);
        assertThat(d.adminMaxConnections()).isEqualTo(256);
    }

    @Test
    void proxyProtocolAndMatchSource_loadAndRoundTrip() {
        ClusterConfig c = ConfigLoader.parse("""
                classes:
                  - {name: partner, target: 1s, match: {source: 203.0.113.7/24, path: /api}}
                  - {name: v6, target: 1s, match: {source: "2001:db8::/32"}}
                  - {name: basic, target: 2s, default: true}
                servers: [{id: s1, url: "http://127.0.0.1:1"}]
                gateways: [{id: g1, proxyProtocol: true, drainDelay: 3s}, {id: g2, port: 8081}]
                gateway: {trustedProxies: [10.0.0.0/8]}
                """);
        assertThat(c.classes().get(0).match().source()).isEqualTo(Cidr.parse("203.0.113.0/24"));
        assertThat(c.classes().get(0).match().source().toString()).as("host bits cleared").isEqualTo("203.0.113.0/24");
        assertThat(c.classes().get(1).match().source()).isEqualTo(Cidr.parse("2001:db8::/32"));
        assertThat(c.classes().get(2).match().source()).isNull();
        assertThat(c.gateways()).extracting(GatewayConfig::proxyProtocol).containsExactly(true, false);
        assertThat(c.gateways()).extracting(GatewayConfig::drainDelaySeconds).containsExactly(3.0, 0.0);
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
        assertThat(GatewayConfig.defaultGateway().proxyProtocol()).isFalse();
        assertThat(GatewayConfig.builder("g").proxyProtocol(true).build().toBuilder().build().proxyProtocol()).isTrue();
    }

    @Test
    void healthAndEjection_haveDefaults_parse_andRoundTrip() {
        ClusterConfig plain = ConfigLoader.parse(MINIMAL);
        assertThat(plain.dispatch().ejection()).isEqualTo(new DispatchConfig.Ejection(3, 1, 30));
        assertThat(plain.servers().get(0).health()).isEqualTo(ServerConfig.HealthCheck.OFF);
        assertThat(plain.servers().get(0).health().enabled()).isFalse();
        ClusterConfig c = ConfigLoader.parse("""
                classes: [{name: a, target: 1s, default: true}]
                servers:
                  - {id: s1, url: "http://127.0.0.1:1", health: {path: /healthz, interval: 2s}}
                dispatch: {ejection: {threshold: 5, baseBackoff: 500ms, maxBackoff: 1m}}
                """);
        assertThat(c.dispatch().ejection()).isEqualTo(new DispatchConfig.Ejection(5, 0.5, 60));
        assertThat(c.servers().get(0).health()).isEqualTo(new ServerConfig.HealthCheck("/healthz", 2, 1));
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
        assertThat(ConfigLoader.parse("""
                classes: [{name: a, target: 1s, default: true}]
                servers: [{id: s1, url: "http://127.0.0.1:1"}]
                dispatch: {ejection: {baseBackoff: 2m}}
                """).dispatch().ejection().maxBackoffSeconds()).as("max follows a larger base").isEqualTo(120);
    }

    @Test
    void adaptive_hasDefaults_parses_andRoundTrips() {
        assertThat(ConfigLoader.parse(MINIMAL).dispatch().adaptive()).isEqualTo(new DispatchConfig.Adaptive(0.05, 30));
        ClusterConfig c = ConfigLoader.parse("""
                classes: [{name: a, target: 1s, default: true}]
                servers: [{id: s1, url: "http://127.0.0.1:1"}]
                dispatch: {scheduler: adaptive, adaptive: {dropRatio: 0.1, window: 1m}}
                """);
        assertThat(c.dispatch().scheduler()).isEqualTo(DispatchConfig.Scheduler.ADAPTIVE);
        assertThat(c.dispatch().adaptive()).isEqualTo(new DispatchConfig.Adaptive(0.1, 60));
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
    }

    @Test
    void threeMistakes_giveThreeErrors_eachWithItsPath() {
        String bad = """
                classes:
                  - name: premium
                    target: 2s
                  - name: basic
                    target: -2s
                    default: true
                servers:
                  - {id: s1, url: "http://127.0.0.1:9001", concurency: 10}
                control: {period: 0s}
                """;
        assertThatThrownBy(() -> ConfigLoader.parse(bad))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).containsExactly(
                        "classes[1].target: -2s (expected: > 0)",
                        "servers[0].concurency: unknown key (expected: one of id, url, concurrency, adaptiveLimit, power, adminUrl, loadUrl, sim, concurrencyControl, health; did you mean 'concurrency'?)",
                        "control.period: 0s (expected: > 0)"));
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            missing classes        | servers: [{id: s1, url: "http://127.0.0.1:1"}]                                                      | classes: missing (expected: a value)
            empty classes          | 'classes: []\nservers: [{id: s1, url: "http://127.0.0.1:1"}]'                                     | classes: an empty list (expected: at least one class)
            no default             | 'classes: [{name: a, target: 1s}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]'                | classes: 0 classes marked default (expected: exactly one class with default: true)
            two defaults           | 'classes: [{name: a, target: 1s, default: true}, {name: b, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes: 2 classes marked default (expected: exactly one class with default: true)
            duplicate class        | 'classes: [{name: a, target: 1s, default: true}, {name: a, target: 1s}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[1].name: a (expected: a name no other class has)
            missing target         | 'classes: [{name: a, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]'             | classes[0].target: missing (expected: a value)
            bad duration           | 'classes: [{name: a, target: soon, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].target: soon (expected: a duration such as 250ms, 5s or 2m)
            bad name               | 'classes: [{name: "a b", target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].name: a b (expected: letters, digits, '.', '_' or '-')
            negative weight        | 'classes: [{name: a, target: 1s, default: true, weight: -1}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].weight: -1 (expected: > 0)
            minShare over 1        | 'classes: [{name: a, target: 1s, default: true, minShare: 1.5}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].minShare: 1.5 (expected: between 0 and 1)
            alpha zero             | 'classes: [{name: a, target: 1s, default: true, utility: {alpha: 0}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].utility.alpha: 0 (expected: > 0)
            bad utility scale      | 'classes: [{name: a, target: 1s, default: true, utility: {scale: percent}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].utility.scale: percent (expected: one of absolute, relative)
            bad yield shape        | 'classes: [{name: a, target: 1s, default: true, yield: {shape: linear}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].yield.shape: linear (expected: one of hybrid, throughput, response-time)
            preDeadline late       | 'classes: [{name: a, target: 1s, default: true, yield: {deadline: 1s, preDeadline: 2s}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].yield.preDeadline: 2s (expected: <= deadline, 1s)
            bad regex              | 'classes: [{name: a, target: 1s, default: true, match: {header: {X: "regex:("}}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].match.header.X: regex:( (expected: a valid regular expression: Unclosed group)
            relative path          | 'classes: [{name: a, target: 1s, default: true, match: {path: api}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].match.path: api (expected: a path prefix starting with /)
            negative queue         | 'classes: [{name: a, target: 1s, default: true, queue: {limit: -1}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].queue.limit: -1 (expected: >= 0)
            missing servers        | 'classes: [{name: a, target: 1s, default: true}]'                                                 | servers: missing (expected: a value)
            bad url                | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "ftp://x"}]'             | servers[0].url: ftp://x (expected: http://host:port or https://host:port)
            zero concurrency       | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1", concurrency: 0}]' | servers[0].concurrency: 0 (expected: >= 1, auto, gradient2 or vegas)
            word concurrency       | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1", concurrency: many}]' | servers[0].concurrency: many (expected: a whole number >= 1, auto, gradient2 or vegas)
            duplicate server       | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}, {id: s1, url: "http://127.0.0.1:2"}]' | servers[1].id: s1 (expected: an id no other server has)
            demand unknown class   | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1", sim: {demand: {b: 1s}}}]' | servers[0].sim.demand.b: unknown key (expected: one of a)
            io fraction            | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1", sim: {ioFraction: 1}}]' | servers[0].sim.ioFraction: 1 (expected: 0 <= x < 1)
            duplicate gateway port | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngateways: [{id: g1, port: 8080}, {id: g2, port: 8080}]' | gateways[1].port: 8080 (expected: a port no other gateway uses)
            port range             | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngateways: [{id: g1, port: 70000}]' | gateways[0].port: 70000 (expected: 0..65535)
            drain timeout          | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngateways: [{id: g1, drainTimeout: -1s}]' | gateways[0].drainTimeout: -1s (expected: 0..1h)
            startup grace          | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngateways: [{id: g1, startupGrace: 2h}]' | gateways[0].startupGrace: 2h (expected: 0..1h)
            drain delay            | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngateways: [{id: g1, drainDelay: -3s}]' | gateways[0].drainDelay: -3s (expected: 0..1h)
            admin connections      | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngateways: [{id: g1, adminMaxConnections: 0}]' | gateways[0].adminMaxConnections: 0 (expected: 1..65536)
            match source           | 'classes: [{name: a, target: 1s, default: true, match: {source: 203.0.113.0/33}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].match.source: 203.0.113.0/33 (expected: a prefix length 0..32 after /)
            match source name      | 'classes: [{name: a, target: 1s, default: true, match: {source: example.com}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].match.source: example.com (expected: an IPv4 or IPv6 address, optionally /prefix, e.g. 10.0.0.0/8 or fd00::/8)
            proxy protocol word    | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngateways: [{id: g1, proxyProtocol: v2}]' | gateways[0].proxyProtocol: v2 (expected: true or false)
            proxy protocol untrusted | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngateways: [{id: g1}, {id: g2, port: 8081, proxyProtocol: true}]' | gateways[1].proxyProtocol: true (expected: gateway.trustedProxies to list the L4 switch's addresses; with none, every PROXY header would be refused)
            scheduler              | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ndispatch: {scheduler: wfq}' | dispatch.scheduler: wfq (expected: one of wrr, fcfs, priority, edf, yid, greedy, adaptive)
            balancer typo          | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ndispatch: {balancer: random-pol}' | dispatch.balancer: random-pol (expected: one of least-outstanding, random-poll; did you mean 'random-poll'?)
            body size              | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ndispatch: {maxBodyBytes: lots}' | dispatch.maxBodyBytes: lots (expected: a size such as 16KiB or 10MiB)
            adaptive drop ratio    | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ndispatch: {adaptive: {dropRatio: 1.5}}' | dispatch.adaptive.dropRatio: 1.5 (expected: 0 <= x < 1)
            adaptive window        | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ndispatch: {adaptive: {window: 0s}}' | dispatch.adaptive.window: 0s (expected: > 0)
            increasing hybrid      | 'classes: [{name: a, target: 1s, default: true, yield: {value: 1, dropPenalty: 2}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].yield.dropPenalty: 2.0 (expected: <= value, 1.0, for a hybrid yield)
            increasing, old name   | 'classes: [{name: a, target: 1s, default: true, yield: {full: 1, dropPenalty: 2}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].yield.dropPenalty: 2.0 (expected: <= value, 1.0, for a hybrid yield)
            yield value twice      | 'classes: [{name: a, target: 1s, default: true, yield: {value: 2, full: 2}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].yield.value: given together with full (expected: one of them; full is the older name of value)
            negative yield value   | 'classes: [{name: a, target: 1s, default: true, yield: {value: -1}}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].yield.value: -1 (expected: >= 0)
            ejection threshold     | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ndispatch: {ejection: {threshold: 0}}' | dispatch.ejection.threshold: 0 (expected: 1..1000)
            ejection backoffs      | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ndispatch: {ejection: {baseBackoff: 5s, maxBackoff: 1s}}' | dispatch.ejection.maxBackoff: 1s (expected: >= dispatch.ejection.baseBackoff, 5s)
            ejection typo          | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ndispatch: {ejection: {treshold: 2}}' | dispatch.ejection.treshold: unknown key (expected: one of threshold, baseBackoff, maxBackoff; did you mean 'threshold'?)
            health path            | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1", health: {path: ready}}]' | servers[0].health.path: ready (expected: a path starting with /)
            health no path         | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1", health: {interval: 1s}}]' | servers[0].health.path: missing (expected: a value)
            health timeout         | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1", health: {path: /h, interval: 1s, timeout: 2s}}]' | servers[0].health.timeout: 2s (expected: <= interval, 1s)
            health interval        | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1", health: {path: /h, interval: 0s}}]' | servers[0].health.interval: 0s (expected: > 0)
            header size            | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ndispatch: {maxHeaderBytes: 10}' | dispatch.maxHeaderBytes: 10 (expected: >= 256 bytes)
            combine                | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {combine: max}' | control.combine: max (expected: one of min, sum)
            granularity            | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {granularity: 0}' | control.granularity: 0 (expected: 1..1000)
            granularity fraction   | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {granularity: 1.5}' | control.granularity: 1.5 (expected: a whole number 1..1000)
            window below report    | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {statsWindow: 1s}' | control.statsWindow: 1s (expected: >= control.reportPeriod, 5s)
            clock skew too large   | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {maxClockSkew: 2h}' | control.maxClockSkew: 2h (expected: 0s..1h)
            clock skew negative    | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {maxClockSkew: -1s}' | control.maxClockSkew: -1s (expected: 0s..1h)
            cap                    | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {responseTimeCap: 1}' | control.responseTimeCap: 1 (expected: > 1)
            liu k                  | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {prediction: liu, liu: {k: -1}}' | control.liu.k: -1 (expected: 0..1000)
            liu pi kp              | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {liu: {pi: {kp: fast}}}' | control.liu.pi.kp: fast (expected: a number 0..1000)
            liu pi unknown         | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {liu: {pi: {derivative: 1}}}' | control.liu.pi.derivative: unknown key (expected: one of kp, ki)
            liu not a mapping      | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {liu: 1}' | control.liu: 1 (expected: a mapping)
            prediction             | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrol: {prediction: arima}' | control.prediction: arima (expected: one of mm1, queue-length, liu)
            sizing policy          | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\nsizing: {policy: magic}' | sizing.policy: magic (expected: one of off, static, queue, utility, schedule)
            schedule no servers    | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\nsizing: {policy: schedule}' | sizing.schedule.servers: missing (expected: a list of server counts, one per slot, when policy is schedule)
            schedule bad count     | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\nsizing: {policy: schedule, schedule: {servers: [1, -2]}}' | sizing.schedule.servers[1]: -2 (expected: a whole number >= 0)
            static no capacity     | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\nsizing: {policy: static}' | sizing.staticCapacity: missing (expected: requests/s one server sustains, > 0, for the static estimator)
            estimator typo         | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\nsizing: {estimator: cpu}' | sizing.estimator: cpu (expected: one of queue, static, utilization)
            forecast typo          | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\nsizing: {forecast: psychic}' | sizing.forecast: psychic (expected: one of trend, current)
            N_s method typo        | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1", concurrency: auto, concurrencyControl: {method: pid}}]' | servers[0].concurrencyControl.method: pid (expected: one of knee, amc, pmc)
            N_s min over max       | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1", concurrencyControl: {min: 20, max: 10}}]' | servers[0].concurrencyControl.min: 20 (expected: <= concurrencyControl.max, 10)
            min over max servers   | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\nsizing: {minServers: 3, maxServers: 2}' | sizing.minServers: 3 (expected: <= sizing.maxServers, 2)
            exec without command   | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\npower: {actuator: exec}' | power.command: missing (expected: a command template with {server} and {action} when actuator is exec)
            http without adminUrl  | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\npower: {actuator: http}' | power.actuator: http, but servers[0] (s1) has no adminUrl (expected: every server's admin API when actuator is http)
            power attempts         | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\npower: {attempts: 0}' | power.attempts: 0 (expected: >= 1)
            power timeout          | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\npower: {timeout: 0s}' | power.timeout: 0s (expected: > 0)
            token digest           | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\nconsole: {tokens: [{name: ci, sha256: abc}]}' | console.tokens[0].sha256: abc (expected: 64 hex digits, the SHA-256 of the token)
            role                   | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\nconsole: {tokens: [{name: ci, sha256: "0000000000000000000000000000000000000000000000000000000000000000", role: root}]}' | console.tokens[0].role: root (expected: one of admin, viewer)
            password hash          | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\nconsole: {users: [{name: ann, passwordHash: secret}]}' | console.users[0].passwordHash: not a PBKDF2 hash (expected: pbkdf2:<iterations>:<salt hex>:<hash hex>, as printed by 'arbiter console hash-password')
            grm admin port         | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngrm: {adminPort: 70000}' | grm.adminPort: 70000 (expected: 0..65535)
            grm host               | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngrm: {host: " "}' | grm.host: " " (expected: an address to bind)
            grm typo               | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ngrm: {adminport: 1}' | grm.adminport: unknown key (expected: one of host, adminPort, model; did you mean 'adminPort'?)
            top-level typo         | 'classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]\ncontrl: {}' | contrl: unknown key (expected: one of classes, servers, gateways, dispatch, control, sizing, power, kafka, console, gateway, grm, pools; did you mean 'control'?)
            boolean                | 'classes: [{name: a, target: 1s, default: maybe}]\nservers: [{id: s1, url: "http://127.0.0.1:1"}]' | classes[0].default: maybe (expected: true or false)
            list expected          | 'classes: {name: a}\nservers: [{id: s1, url: "http://127.0.0.1:1"}]'                              | classes: a mapping (expected: a list)
            """)
    void eachRule_hasItsMessage(String rule, String yaml, String expected) {
        assertThatThrownBy(() -> ConfigLoader.parse(yaml.replace("\\n", "\n")))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).contains(expected));
    }

    @Test
    void invalidYaml_namesLineAndColumn() {
        assertThatThrownBy(() -> ConfigLoader.parse("classes: [\n  - a: b: c"))
                .isInstanceOfSatisfying(ConfigException.class,
                        e -> assertThat(e.errors()).singleElement().asString().startsWith("(yaml): not valid YAML at line"));
    }

    @Test
    void missingFile_isAClearError(@TempDir Path dir) {
        assertThatThrownBy(() -> ConfigLoader.load(dir.resolve("nope.yaml")))
                .isInstanceOfSatisfying(ConfigException.class,
                        e -> assertThat(e.errors()).containsExactly(dir.resolve("nope.yaml") + ": no such file"));
    }

    @Test
    void load_readsAFile(@TempDir Path dir) throws Exception {
        Path f = dir.resolve("cluster.yaml");
        Files.writeString(f, MINIMAL);
        assertThat(ConfigLoader.load(f).servers()).hasSize(1);
    }

    @Test
    void errors_comeInFileOrder_andAllAtOnce() {
        String bad = """
                classes:
                  - {name: a, target: 0s}
                  - {name: b, target: 1s, weight: 0}
                servers:
                  - {id: s1, url: "nope"}
                """;
        assertThatThrownBy(() -> ConfigLoader.parse(bad))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).isEqualTo(List.of(
                        "classes[0].target: 0s (expected: > 0)",
                        "classes[1].weight: 0 (expected: > 0)",
                        "classes: 0 classes marked default (expected: exactly one class with default: true)",
                        "servers[0].url: nope (expected: http://host:port or https://host:port)")));
    }

    @Test
    void grmSection_defaultsToLoopback9190_andIsReadAndWrittenBack() {
        String base = "classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: \"http://127.0.0.1:1\"}]\n";
        assertThat(ConfigLoader.parse(base).grm()).isEqualTo(new GrmConfig("127.0.0.1", 9190));
        ClusterConfig c = ConfigLoader.parse(base + "grm: {host: 0.0.0.0, adminPort: 0}");
        assertThat(c.grm()).isEqualTo(new GrmConfig("0.0.0.0", 0));
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c)).grm()).isEqualTo(c.grm());
    }

    @Test
    void grmModel_flowByDefault_paperOnlyWithIntegerWeightsAndMm1_andAnUnknownOneNamed() {
        String base = "classes: [{name: a, target: 1s, default: true}]\nservers: [{id: s1, url: \"http://127.0.0.1:1\"}]\n";
        assertThat(ConfigLoader.parse(base).grm().model()).isEqualTo(GrmConfig.Model.FLOW);
        ClusterConfig paper = ConfigLoader.parse(base + "grm: {model: paper}");
        assertThat(paper.grm().model()).isEqualTo(GrmConfig.Model.PAPER);
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(paper)).grm()).isEqualTo(paper.grm());
        assertThatThrownBy(() -> ConfigLoader.parse(base + "grm: {model: papers}"))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).singleElement().asString()
                        .startsWith("grm.model: papers (expected: ").contains("flow").contains("paper"));
        assertThatThrownBy(() -> ConfigLoader.parse(base + "grm: {model: paper}\ncontrol: {granularity: 2}"))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).containsExactly(
                        "grm.model: paper with control.granularity 2 and control.prediction mm1 (expected: granularity 1 "
                                + "and prediction mm1: 003 eq. 8-9 as printed, integer weights)"));
        assertThatThrownBy(() -> ConfigLoader.parse(base + "grm: {model: paper}\ncontrol: {prediction: liu}"))
                .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).singleElement().asString()
                        .contains("control.prediction liu"));
    }
}
