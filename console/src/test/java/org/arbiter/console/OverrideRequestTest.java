package org.arbiter.console;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.message.MessageCodec;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.ServerState;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

final class OverrideRequestTest {

    private static final Instant T0 = Instant.parse("2026-01-01T00:00:00Z");
    private static final ClusterConfig CONFIG = Fixtures.config();

    @Test
    void weight_becomesAPinNamedByItsFlow() {
        OperatorOverride o = valid("{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 7}");
        assertThat(o.id()).isEqualTo("weight:g1:premium");
        assertThat(o.kind()).isEqualTo(OperatorOverride.Kind.WEIGHT);
        assertThat(o.value()).isEqualTo(7.0);
        assertThat(o.active()).isTrue();
        assertThat(o.author()).isEqualTo("alice");
        assertThat(o.at()).isEqualTo(T0);
    }

    @Test
    void everyKind_isAccepted() {
        assertThat(valid("{\"kind\": \"concurrency\", \"server\": \"s1\", \"value\": 8}").id()).isEqualTo("concurrency:s1");
        assertThat(valid("{\"kind\": \"target\", \"class\": \"premium\", \"value\": 1.5}").value()).isEqualTo(1.5);
        assertThat(valid("{\"kind\": \"power\", \"server\": \"s2\", \"state\": \"OFF\"}").state()).isEqualTo(ServerState.OFF);
        assertThat(valid("{\"kind\": \"utility\", \"class\": \"basic\", \"alpha\": 2}").alpha()).isEqualTo(2.0);
        assertThat(valid("{\"kind\": \"WEIGHT\", \"gateway\": \"g2\", \"class\": \"basic\", \"value\": 0}").value()).isZero();
    }

    @ParameterizedTest(name = "{0} -> {1}")
    @CsvSource(delimiter = '|', value = {
            "not json                                                                  | body",
            "[1, 2]                                                                    | body",
            "{}                                                                        | kind",
            "{\"kind\": \"speed\"}                                                     | kind",
            "{\"kind\": 3}                                                             | kind",
            "{\"kind\": \"weight\", \"class\": \"premium\", \"value\": 7}             | gateway",
            "{\"kind\": \"weight\", \"gateway\": \"g9\", \"class\": \"premium\", \"value\": 7} | gateway",
            "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"gold\", \"value\": 7}    | class",
            "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": -1} | value",
            "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": \"7\"} | value",
            "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\"}      | value",
            "{\"kind\": \"weight\", \"gateway\": \"g1\", \"clas\": \"premium\", \"value\": 7} | clas",
            "{\"kind\": \"concurrency\", \"server\": \"s1\", \"value\": 2.5}          | value",
            "{\"kind\": \"concurrency\", \"server\": \"s1\", \"value\": 0}            | value",
            "{\"kind\": \"concurrency\", \"server\": \"s1\", \"value\": 1e9}          | value",
            "{\"kind\": \"concurrency\", \"server\": \"s7\", \"value\": 2}            | server",
            "{\"kind\": \"target\", \"class\": \"premium\", \"value\": 0}             | value",
            "{\"kind\": \"utility\", \"class\": \"premium\"}                          | phi",
            "{\"kind\": \"utility\", \"class\": \"premium\", \"beta\": 0}             | beta",
            "{\"kind\": \"power\", \"server\": \"s2\", \"state\": \"BOOTING\"}        | state",
            "{\"kind\": \"power\", \"server\": \"s2\"}                                | state",
    })
    void malformed_namesTheField(String json, String field) {
        OverrideRequest.Result r = OverrideRequest.read(parse(json.strip()), CONFIG, "alice", T0);
        assertThat(r).isInstanceOf(OverrideRequest.Result.Invalid.class);
        OverrideRequest.Result.Invalid i = (OverrideRequest.Result.Invalid) r;
        assertThat(i.field()).isEqualTo(field);
        assertThat(i.message()).startsWith(field + ": ").contains("(expected: ");
    }

    private static OperatorOverride valid(String json) {
        OverrideRequest.Result r = OverrideRequest.read(parse(json), CONFIG, "alice", T0);
        assertThat(r).isInstanceOf(OverrideRequest.Result.Valid.class);
        return ((OverrideRequest.Result.Valid) r).override();
    }

    static JsonNode parse(String json) {
        try {
            return MessageCodec.mapper().readTree(json);
        } catch (Exception e) {
            return null;
        }
    }
}
