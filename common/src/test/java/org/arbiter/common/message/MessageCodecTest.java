package org.arbiter.common.message;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.MethodSource;

/** Golden files: the JSON on the wire is a contract; these pin it for version 1. */
final class MessageCodecTest {

    static final Instant AT = Instant.parse("2026-11-22T10:00:00Z");

    static Stream<Arguments> goldens() {
        GatewayStats.ClassStats premium = new GatewayStats.ClassStats(9.5, 9.4, 2.4, 0.9, 1.5, 4.1, 3.2, 3, 6, 5.0,
                Map.of("queueFull", 2L), new GatewayStats.PeriodCounters(5, 48, 46, 2, 3.1, 12.0, 1000));
        GatewayStats stats = new GatewayStats(1, AT, "g1", 30, 7, Map.of("premium", premium),
                Map.of("s1", new GatewayStats.ServerStats(10, 10, 9.4, 1.06, 9.8, 0, true)),
                new GatewayStats.Backlog(5, 3.5, 33));
        Allocation allocation = new Allocation(1, AT, "g1", 8, Map.of("premium", 6.0, "basic", 4.0),
                Map.of("s1", 10), "grm");
        PowerOrder power = new PowerOrder(1, AT, "s2", ServerState.OFF, ServerState.DRAINING, "load fits on 1 server", 3);
        OperatorOverride override = new OperatorOverride(1, AT, "pin-g1-premium", OperatorOverride.Kind.WEIGHT, "g1",
                "premium", null, 7.0, null, null, null, null, true, "admin");
        Decision decision = new Decision(1, AT, "grm-a", 12, 8, "min", -0.35, 0.0004, List.of("g1"),
                List.of(new Decision.Flow("g1", "premium", 9.5, 2.4, 3, 5, 6, 1.93, 0.07, false)),
                Map.of("s1", new Decision.Server(ServerState.ON, 10, 11.2, 64.1)), 1234.5, List.of("pin-g1-premium", "pin-g1-basic"),
                List.of(new Decision.PinStatus("pin-g1-premium", true, ""), new Decision.PinStatus("pin-g1-basic", false,
                        "value: 9 (expected: between 0 and 7: N = 10 slots, of which the other 3 flows need 3 (minWeight 1, minShare and the pins set before this one))")));
        return Stream.of(
                Arguments.of("gateway-stats.json", stats),
                Arguments.of("allocation.json", allocation),
                Arguments.of("power-order.json", power),
                Arguments.of("override.json", override),
                Arguments.of("decision.json", decision));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("goldens")
    void goldenFile_decodesToTheRecord_andTheRecordEncodesToTheGoldenFile(String file, Message expected) throws IOException {
        String golden = read(file);
        Decoded<? extends Message> decoded = MessageCodec.decode(golden, expected.getClass());
        assertThat(decoded).isEqualTo(new Decoded.Ok<>(expected));
        JsonNode encoded = MessageCodec.mapper().readTree(MessageCodec.encode(expected));
        assertThat(encoded).isEqualTo(MessageCodec.mapper().readTree(golden));
    }

    @Test
    void unknownFields_areIgnored() {
        String json = "{\"v\":1,\"at\":\"2026-11-22T10:00:00Z\",\"gateway\":\"g1\",\"version\":2,"
                + "\"weights\":{\"a\":1.5},\"serverCaps\":{},\"futureField\":{\"x\":[1,2]}}";
        assertThat(MessageCodec.decode(json, Allocation.class)).isInstanceOf(Decoded.Ok.class);
    }

    @ParameterizedTest(name = "{0}")
    @CsvSource(delimiter = '|', textBlock = """
            not json        | {nope                                                                    | not JSON
            empty object    | {}                                                                       | Allocation
            wrong version   | {"v":2,"at":"2026-11-22T10:00:00Z","gateway":"g1","version":1}          | Allocation v: 2 (expected: 1)
            no timestamp    | {"v":1,"gateway":"g1","version":1}                                       | Allocation at: missing (expected: an ISO-8601 instant)
            bad timestamp   | {"v":1,"at":"yesterday","gateway":"g1","version":1}                      | Allocation at
            no gateway      | {"v":1,"at":"2026-11-22T10:00:00Z","version":1}                          | Allocation gateway: missing (expected: a non-empty id)
            negative weight | {"v":1,"at":"2026-11-22T10:00:00Z","gateway":"g1","version":1,"weights":{"a":-1}} | Allocation weights.a: -1.0 (expected: >= 0)
            weights a list  | {"v":1,"at":"2026-11-22T10:00:00Z","gateway":"g1","version":1,"weights":[1]}     | Allocation weights
            null literal    | null                                                                     | null (expected: a JSON Allocation)
            """)
    void malformedInput_isATypedFailure_neverAnException(String name, String json, String reasonStart) {
        Decoded<Allocation> d = MessageCodec.decode(json, Allocation.class);
        assertThat(d).isInstanceOfSatisfying(Decoded.Failure.class,
                f -> assertThat(f.reason()).startsWith(reasonStart));
    }

    @Test
    void overrideValidation_namesTheField() {
        String json = "{\"v\":1,\"at\":\"2026-11-22T10:00:00Z\",\"id\":\"o\",\"kind\":\"concurrency\",\"server\":\"s1\",\"value\":2.5,\"active\":true}";
        assertThat(MessageCodec.decode(json, OperatorOverride.class)).isEqualTo(
                new Decoded.Failure<>("OperatorOverride value: 2.5 (expected: a whole number from 1 to 100000)"));
        String unknownKind = "{\"v\":1,\"at\":\"2026-11-22T10:00:00Z\",\"id\":\"o\",\"kind\":\"colour\",\"active\":true}";
        assertThat(MessageCodec.decode(unknownKind, OperatorOverride.class)).isInstanceOf(Decoded.Failure.class);
    }

    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            weight      | value | 1e10      | value: 1.0E10 (expected: between 0 and 1000000)
            weight      | value | 1e308     | value: 1.0E308 (expected: between 0 and 1000000)
            weight      | value | -1        | value: -1.0 (expected: between 0 and 1000000)
            weight      | value | "NaN"     | value: NaN (expected: between 0 and 1000000)
            weight      | value | "Infinity" | value: Infinity (expected: between 0 and 1000000)
            weight      | value | 1e400     | value: Infinity (expected: between 0 and 1000000)
            concurrency | value | 1e12      | value: 1.0E12 (expected: a whole number from 1 to 100000)
            concurrency | value | 0         | value: 0.0 (expected: a whole number from 1 to 100000)
            concurrency | value | -5        | value: -5.0 (expected: a whole number from 1 to 100000)
            concurrency | value | "-Infinity" | value: -Infinity (expected: a whole number from 1 to 100000)
            concurrency | value | "NaN"     | value: NaN (expected: a whole number from 1 to 100000)
            target      | value | 0         | value: 0.0 (expected: > 0 and <= 86400)
            target      | value | 1e9       | value: 1.0E9 (expected: > 0 and <= 86400)
            target      | value | "NaN"     | value: NaN (expected: > 0 and <= 86400)
            utility     | phi   | -1        | phi: -1.0 (expected: between 0 and 1000000)
            utility     | phi   | 1e300     | phi: 1.0E300 (expected: between 0 and 1000000)
            utility     | alpha | 0         | alpha: 0.0 (expected: > 0 and <= 10)
            utility     | alpha | 1000      | alpha: 1000.0 (expected: > 0 and <= 10)
            utility     | beta  | "Infinity" | beta: Infinity (expected: > 0 and <= 10)
            """)
    void overrideNumbers_outOfRange_areRefusedWithTheRange(String kind, String field, String value, String reason) {
        String json = "{\"v\":1,\"at\":\"2026-11-22T10:00:00Z\",\"id\":\"o\",\"kind\":\"" + kind + "\","
                + "\"gateway\":\"g1\",\"class\":\"premium\",\"server\":\"s1\",\"" + field + "\":" + value
                + ",\"active\":true}";
        assertThat(MessageCodec.decode(json, OperatorOverride.class)).isEqualTo(
                new Decoded.Failure<>("OperatorOverride " + reason));
    }

    @ParameterizedTest(name = "{0} {1}: {2}")
    @CsvSource(delimiter = '|', textBlock = """
            weight      | value | 0
            weight      | value | 1000000
            concurrency | value | 1
            concurrency | value | 100000
            target      | value | 86400
            utility     | phi   | 0
            utility     | alpha | 10
            utility     | beta  | 0.01
            """)
    void overrideNumbers_atTheEdgesOfTheirRange_areAccepted(String kind, String field, String value) {
        String json = "{\"v\":1,\"at\":\"2026-11-22T10:00:00Z\",\"id\":\"o\",\"kind\":\"" + kind + "\","
                + "\"gateway\":\"g1\",\"class\":\"premium\",\"server\":\"s1\",\"" + field + "\":" + value
                + ",\"active\":true}";
        assertThat(MessageCodec.decode(json, OperatorOverride.class)).isInstanceOf(Decoded.Ok.class);
    }

    @Test
    void overrideRanges_convertWithoutOverflow() {
        assertThat(OverrideRange.CONCURRENCY.toInt(100_000)).isEqualTo(100_000);
        assertThat(OverrideRange.WEIGHT.max() * 1000).isLessThan(Integer.MAX_VALUE);   // w · q, q <= 1000
        assertThat(OverrideRange.WEIGHT.contains(Double.NaN)).isFalse();
        assertThat(OverrideRange.TARGET.contains(Double.POSITIVE_INFINITY)).isFalse();
    }

    @Test
    void aDecisionWithoutPins_decodes_withNoPinStatus() throws IOException {
        String old = read("decision.json").replaceAll("(?s),\\s*\"pins\":\\s*\\[.*?\\]\\s*}\\s*$", "}");
        assertThat(old).doesNotContain("\"pins\"");
        Decoded<Decision> d = MessageCodec.decode(old, Decision.class);
        assertThat(d).isInstanceOfSatisfying(Decoded.Ok.class, ok -> assertThat(((Decision) ok.value()).pins()).isEmpty());
    }

    @Test
    void nullBytes_areAFailure() {
        assertThat(MessageCodec.decode((byte[]) null, Decision.class)).isInstanceOf(Decoded.Failure.class);
    }

    private static String read(String file) throws IOException {
        try (InputStream in = MessageCodecTest.class.getResourceAsStream("/golden/" + file)) {
            assertThat(in).as("golden file " + file).isNotNull();
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void gatewayStats_withoutBacklog_decodesWithAnEmptyOne_andABadBacklogIsNamed() throws IOException {
        String old = read("gateway-stats.json").replaceAll(",\\s*\"backlog\": \\{[^}]*\\}", "");
        assertThat(old).doesNotContain("backlog");
        assertThat(MessageCodec.decode(old, GatewayStats.class)).isInstanceOfSatisfying(Decoded.Ok.class,
                ok -> assertThat(((GatewayStats) ok.value()).backlog()).isEqualTo(GatewayStats.Backlog.EMPTY));
        String bad = read("gateway-stats.json").replace("\"seconds\": 3.5", "\"seconds\": -1");
        assertThat(MessageCodec.decode(bad, GatewayStats.class)).isInstanceOfSatisfying(Decoded.Failure.class,
                f -> assertThat(f.reason()).contains("backlog.seconds: -1.0"));
    }
}
