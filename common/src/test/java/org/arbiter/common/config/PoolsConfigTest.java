package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

/** {@code pools[]}: reading, every rule across pools named at once, the pool's own cluster, writing back. */
final class PoolsConfigTest {

    static final String BASE = """
            classes:
              - {name: gold, target: 1s}
              - {name: silver, target: 2s}
              - {name: bronze, target: 3s, default: true}
            servers:
              - {id: s1, url: "http://127.0.0.1:9001", concurrency: 10}
              - {id: s2, url: "http://127.0.0.1:9002", concurrency: 8}
              - {id: s3, url: "http://127.0.0.1:9003", concurrency: 6}
            """;

    static final String POOLED = BASE + """
            pools:
              - {name: web, servers: [s1, s2], classes: [gold, bronze]}
              - {name: batch, servers: [s3], classes: [silver]}
            """;

    @Test
    void withoutPools_oneImplicitPoolOfEverything_andTheConfigurationIsItsOwnPool() {
        ClusterConfig c = ConfigLoader.parse(BASE);
        assertThat(c.pools()).isEmpty();
        assertThat(c.effectivePools()).containsExactly(new PoolConfig("", List.of("s1", "s2", "s3"),
                List.of("gold", "silver", "bronze")));
        assertThat(c.poolCluster(c.effectivePools().get(0))).isSameAs(c);
        assertThat(c.poolOfServer("s3")).contains("");
        assertThat(ConfigWriter.toTree(c)).doesNotContainKey("pools");
    }

    @Test
    void pools_areRead_andEachIsAClusterOfItsOwn() {
        ClusterConfig c = ConfigLoader.parse(POOLED);
        assertThat(c.pools()).extracting(PoolConfig::name).containsExactly("web", "batch");
        assertThat(c.poolOfServer("s3")).contains("batch");
        assertThat(c.poolOfClass("bronze")).contains("web");
        ClusterConfig batch = c.poolCluster(c.pools().get(1));
        assertThat(batch.classes()).extracting(ClassConfig::name).containsExactly("silver");
        assertThat(batch.defaultClass().name()).as("the pool's first class stands in as its default").isEqualTo("silver");
        assertThat(batch.servers()).extracting(ServerConfig::id).containsExactly("s3");
        assertThat(batch.gateways()).isEqualTo(c.gateways());
        assertThat(batch.pools()).isEmpty();
        assertThat(batch.problems()).isEmpty();
        ClusterConfig web = c.poolCluster(c.pools().get(0));
        assertThat(web.defaultClass().name()).isEqualTo("bronze");
        assertThat(web.totalConcurrency()).isEqualTo(18);
    }

    @Test
    void writtenAndReadAgain_thePoolsAreTheSame() {
        ClusterConfig c = ConfigLoader.parse(POOLED);
        ClusterConfig again = ConfigLoader.parse(ConfigWriter.toYaml(c));
        assertThat(again.pools()).isEqualTo(c.pools());
        assertThat(again.problems()).isEmpty();
    }

    @Test
    void everyRuleAcrossPools_isReportedAtOnce_namingThePath() {
        String bad = BASE + """
                pools:
                  - {name: web, servers: [s1, s9], classes: [gold, gold]}
                  - {name: web, servers: [s1], classes: [nope]}
                  - {name: "bad name", servers: [], classes: [silver]}
                """;
        assertThatThrownBy(() -> ConfigLoader.parse(bad)).isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).errors()).contains(
                        "pools[0].servers: s9 (expected: one of servers[].id [s1, s2, s3])",
                        "pools[0].classes: gold (expected: a class in one pool only; it is in pool web)",
                        "pools[1].name: web (expected: a name no other pool has)",
                        "pools[1].servers: s1 (expected: a server in one pool only; it is in pool web)",
                        "pools[1].classes: nope (expected: one of classes[].name [gold, silver, bronze])",
                        "pools[2].name: bad name (expected: letters, digits, '.', '_' or '-')",
                        "pools[2].servers: [] (expected: a non-empty list of ids)",
                        "pools: servers [s2, s3] are in no pool (expected: every server in exactly one pool)",
                        "pools: classes [silver, bronze] are in no pool (expected: every class in exactly one pool)"));
    }

    @Test
    void aConfigurationBuiltInCode_isCheckedByTheSameRules() {
        ClusterConfig c = ConfigLoader.parse(BASE);
        assertThatThrownBy(() -> c.toBuilder().pools(List.of(new PoolConfig("web", List.of("s1", "s2"),
                List.of("gold", "silver", "bronze")))).build())
                .isInstanceOf(ConfigException.class)
                .hasMessageContaining("pools: server s3 is in no pool (expected: every server in exactly one pool)");
        assertThat(c.toBuilder().pools(List.of(new PoolConfig("all", List.of("s1", "s2", "s3"),
                List.of("gold", "silver", "bronze")))).build().pools()).hasSize(1);
    }

    @Test
    void aLongListOfServersInNoPool_isNamedInOneBoundedLine() {
        StringBuilder y = new StringBuilder("classes:\n  - {name: a, target: 1s, default: true}\nservers:\n");
        for (int i = 0; i < 500; i++) {
            y.append("  - {id: s").append(i).append(", url: \"http://127.0.0.1:9001\"}\n");
        }
        y.append("pools:\n  - {name: p, servers: [s0], classes: [a]}\n");
        assertThatThrownBy(() -> ConfigLoader.parse(y.toString())).isInstanceOf(ConfigException.class)
                .satisfies(e -> assertThat(((ConfigException) e).errors()).containsExactly(
                        "pools: servers [s1, s2, s3, s4, s5, s6, s7, s8, … (499 in all)] are in no pool "
                                + "(expected: every server in exactly one pool)"));
    }

    @Test
    void notAList_orNotIds_isRefused() {
        assertThatThrownBy(() -> ConfigLoader.parse(BASE + "pools: {name: web}\n"))
                .hasMessageContaining("pools: ");
        assertThatThrownBy(() -> ConfigLoader.parse(BASE + "pools:\n  - {name: web, servers: s1, classes: [gold]}\n"))
                .hasMessageContaining("pools[0].servers: \"s1\" (expected: a non-empty list of ids)");
        assertThatThrownBy(() -> ConfigLoader.parse(BASE + "pools:\n  - {name: web, servers: [1], classes: [gold], x: 1}\n"))
                .hasMessageContaining("pools[0].servers[0]: 1 (expected: an id")
                .hasMessageContaining("pools[0].x");
    }
}
