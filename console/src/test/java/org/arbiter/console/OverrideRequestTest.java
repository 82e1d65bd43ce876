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
            "{\"kind\": \"target\", \"class\": \"premium\", \"value\": 1, \"\": 2} | '\"\"'",
            "{\"kind\": \"target\", \"class\": \"premium\", \"value\": 1, \"a b\": 2} | '\"a b\"'",
    })
    void malformed_namesTheField(String json, String field) {
        OverrideRequest.Result r = OverrideRequest.read(parse(json.strip()), CONFIG, "alice", T0);
        assertThat(r).isInstanceOf(OverrideRequest.Result.Invalid.class);
        OverrideRequest.Result.Invalid i = (OverrideRequest.Result.Invalid) r;
        assertThat(i.field()).isEqualTo(field);
        assertThat(i.message()).startsWith(field + ": ").contains("(expected: ");
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', value = {
            "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 1e10}    | value: 1.0E10 (expected: between 0 and 1000000)",
            "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 1e400}   | value: Infinity (expected: between 0 and 1000000)",
            "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 100000000000000000000000} | value: 100000000000000000000000 (expected: between 0 and 1000000)",
            "{\"kind\": \"concurrency\", \"server\": \"s1\", \"value\": 1e12}                      | value: 1.0E12 (expected: a whole number from 1 to 100000)",
            "{\"kind\": \"target\", \"class\": \"premium\", \"value\": 1e308}                      | value: 1.0E308 (expected: > 0 and <= 86400)",
            "{\"kind\": \"utility\", \"class\": \"premium\", \"alpha\": 1000}                      | alpha: 1000 (expected: > 0 and <= 10)",
            "{\"kind\": \"utility\", \"class\": \"premium\", \"phi\": -0.5}                        | phi: -0.5 (expected: between 0 and 1000000)",
    })
    void numbersOutOfRange_areRefusedWithTheSharedRange(String json, String message) {
        OverrideRequest.Result r = OverrideRequest.read(parse(json.strip()), CONFIG, "alice", T0);
        assertThat(r).isInstanceOfSatisfying(OverrideRequest.Result.Invalid.class,
                i -> assertThat(i.message()).isEqualTo(message));
    }

    @Test
    void aWeightPinThatCannotBeMet_isRefused_withTheFeasibleRange() {
        // N = 20 (s1, s2 at 10), four flows, minWeight 1: one flow may hold at most 17
        OverrideRequest.Result r = OverrideRequest.read(parse(
                "{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 18}"), CONFIG, "alice", T0);
        assertThat(r).isInstanceOfSatisfying(OverrideRequest.Result.Invalid.class, i -> {
            assertThat(i.field()).isEqualTo("value");
            assertThat(i.message()).isEqualTo("value: 18 (expected: between 0 and 17: N = 20 slots, of which the other 3 "
                    + "flows need 3 (minWeight 1, minShare and the pins set before this one))");
        });
        valid("{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 17}");
    }

    @Test
    void aPinThatDoesNotFitWithThePinsInForce_isRefused() {
        OperatorOverride inForce = valid("{\"kind\": \"weight\", \"gateway\": \"g1\", \"class\": \"premium\", \"value\": 10}");
        OverrideRequest.Result r = OverrideRequest.read(parse(
                "{\"kind\": \"weight\", \"gateway\": \"g2\", \"class\": \"premium\", \"value\": 9}"),
                CONFIG, java.util.List.of(inForce), "alice", T0.plusSeconds(1));
        assertThat(r).isInstanceOfSatisfying(OverrideRequest.Result.Invalid.class,
                i -> assertThat(i.rule()).startsWith("between 0 and 8: N = 20 slots, of which the other 3 flows need 12"));
        OverrideRequest.Result off = OverrideRequest.read(parse("{\"kind\": \"power\", \"server\": \"s2\", \"state\": \"OFF\"}"),
                CONFIG, java.util.List.of(inForce), "alice", T0.plusSeconds(1));
        assertThat(off).isInstanceOfSatisfying(OverrideRequest.Result.Invalid.class,
                i -> assertThat(i.message()).startsWith("state: OFF (expected: a value that keeps the pin weight:g1:premium"));
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
