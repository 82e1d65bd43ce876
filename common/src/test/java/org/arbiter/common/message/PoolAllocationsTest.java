package org.arbiter.common.message;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.arbiter.common.config.PoolConfig;
import org.junit.jupiter.api.Test;

/** Each pool followed on its own; the merge; the encoding of the pool field. */
final class PoolAllocationsTest {

    static final Instant AT = Instant.parse("2026-11-27T10:00:00Z");
    static final List<PoolConfig> POOLS = List.of(new PoolConfig("web", List.of("s1", "s2"), List.of("gold")),
            new PoolConfig("batch", List.of("s3"), List.of("silver")));
    static final Allocation CONFIGURED = new Allocation(1, AT, "g1", 0, Map.of("gold", 1.0, "silver", 1.0),
            Map.of("s1", 5, "s2", 5, "s3", 5), "configured", 0);

    static Allocation of(String pool, long epoch, long version, Map<String, Double> w, Map<String, Integer> caps) {
        return new Allocation(1, AT.plusSeconds(version), "g1", version, w, caps, "grm", epoch, pool);
    }

    @Test
    void eachPool_ordersItsOwnAllocations_andTheMergeTakesEachPoolsOwnClassesAndServers() {
        PoolAllocations p = PoolAllocations.of(POOLS, CONFIGURED);
        assertThat(p.pooled()).isTrue();
        long e1 = AT.toEpochMilli();
        Allocation web = of("web", e1, 3, Map.of("gold", 7.0), Map.of("s1", 4, "s2", 3));
        assertThat(p.stale(web)).isNull();
        p = p.with(web);
        // batch still on the configured allocation; a web record of an older epoch is stale, batch's own epochs do not care
        Allocation older = of("web", e1 - 1000, 900, Map.of("gold", 1.0), Map.of("s1", 1));
        assertThat(p.stale(older)).contains("is not newer than").contains("pool web");
        Allocation batch = of("batch", e1 - 5000, 1, Map.of("silver", 2.0, "gold", 99.0), Map.of("s3", 9, "s1", 99));
        assertThat(p.stale(batch)).isNull();
        p = p.with(batch);
        Allocation m = p.merged();
        assertThat(m.weights()).isEqualTo(Map.of("gold", 7.0, "silver", 2.0));
        assertThat(m.serverCaps()).as("a pool's record cannot set another pool's servers").isEqualTo(Map.of("s1", 4, "s2", 3, "s3", 9));
        assertThat(m.pool()).isEmpty();
        assertThat(p.lastApplied()).isSameAs(batch);
        assertThat(p.stale(of("nope", e1, 1, Map.of(), Map.of()))).contains("pool 'nope'");
    }

    @Test
    void withoutPools_theAllocationInForceIsTheMerge_andARecordWithAPoolIsRefused() {
        PoolAllocations p = PoolAllocations.single(CONFIGURED);
        assertThat(p.pooled()).isFalse();
        Allocation a = of("", AT.toEpochMilli(), 2, Map.of("gold", 3.0), Map.of("s1", 2));
        p = p.with(a);
        assertThat(p.merged()).isSameAs(a);
        assertThat(p.stale(of("", AT.toEpochMilli(), 2, Map.of(), Map.of()))).as("same stamp").isNotNull();
        assertThat(p.stale(of("web", AT.toEpochMilli(), 3, Map.of(), Map.of()))).isNotNull();
    }

    @Test
    void thePool_isLeftOutOfTheJsonWithoutPools_andKeysTheRecordWithIt() {
        Allocation plain = of("", AT.toEpochMilli(), 2, Map.of("gold", 3.0), Map.of("s1", 2));
        assertThat(new String(MessageCodec.encode(plain))).doesNotContain("pool");
        assertThat(plain.key()).isEqualTo("g1");
        Allocation pooled = plain.withPool("web");
        assertThat(new String(MessageCodec.encode(pooled))).contains("\"pool\":\"web\"");
        assertThat(pooled.key()).isEqualTo("g1@web");
        assertThat(MessageCodec.decode(MessageCodec.encode(pooled), Allocation.class)).isEqualTo(new Decoded.Ok<>(pooled));
        assertThat(MessageCodec.decode(MessageCodec.encode(plain), Allocation.class)).isEqualTo(new Decoded.Ok<>(plain));
    }
}
