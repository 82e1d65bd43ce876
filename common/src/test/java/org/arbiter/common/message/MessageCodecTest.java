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
    /** The epoch in the golden files: a leader that began a minute before {@link #AT}. */
    static final long EPOCH = Instant.parse("2026-11-22T09:59:00Z").toEpochMilli();

    static Stream<Arguments> goldens() {
        GatewayStats.ClassStats premium = new GatewayStats.ClassStats(9.5, 9.4, 2.4, 0.9, 1.5, 4.1, 3.2, 3, 6, 5.0,
                Map.of("queueFull", 2L), new GatewayStats.PeriodCounters(5, 48, 46, 2, 3.1, 12.0, 1000),
                new GatewayStats.YieldStats(38.0, 30.4, 20.0));
        GatewayStats stats = new GatewayStats(1, AT, "g1", 30, 7, Map.of("premium", premium),
                Map.of("s1", new GatewayStats.ServerStats(10, 10, 9.4, 1.06, 9.8, 0, true)),
                new GatewayStats.Backlog(5, 3.5, 33));
        Allocation allocation = new Allocation(1, AT, "g1", 8, Map.of("premium", 6.0, "basic", 4.0),
                Map.of("s1", 10), "grm", EPOCH);
        PowerOrder power = new PowerOrder(1, AT, "s2", ServerState.OFF, ServerState.DRAINING, "load fits on 1 server", 3,
                EPOCH);
        OperatorOverride override = new OperatorOverride(1, AT, "pin-g1-premium", OperatorOverride.Kind.WEIGHT, "g1",
                "premium", null, 7.0, null, null, null, null, true, "admin");
        Decision decision = new Decision(1, AT, "grm-a", 12, 8, "min", -0.35, 0.0004, List.of("g1"),
                List.of(new Decision.Flow("g1", "premium", 9.5, 2.4, 3, 5, 6, 1.93, 0.07, false)),
                Map.of("s1", new Decision.Server(ServerState.ON, 10, 11.2, 64.1)), 1234.5, List.of("pin-g1-premium", "pin-g1-basic"),
                List.of(new Decision.PinStatus("pin-g1-premium", true, ""), new Decision.PinStatus("pin-g1-basic", false,
                        "value: 9 (expected: between 0 and 7: N = 10 slots, of which the other 3 flows need 3 (minWeight 1, minShare and the pins set before this one))")),
                EPOCH, Map.of("premium", new Decision.PredictionError(0.12, 9)), "level");
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

    /** Records written before epochs (only {@code version} / {@code sequence}) decode as epoch 0. */
    @ParameterizedTest(name = "{0}")
    @MethodSource("goldens")
    void legacyGoldenFile_withoutEpoch_decodesAsEpochZero(String file, Message current) throws IOException {
        if (current instanceof GatewayStats || current instanceof OperatorOverride) {
            return; // no epoch
        }
        String legacy = read(file.replace(".json", "-legacy.json"));
        assertThat(legacy).doesNotContain("epoch");
        Decoded<? extends Message> decoded = MessageCodec.decode(legacy, current.getClass());
        Message expected;
        if (current instanceof Allocation a) {
            expected = new Allocation(a.v(), a.at(), a.gateway(), a.version(), a.weights(), a.serverCaps(), a.source());
        } else if (current instanceof PowerOrder o) {
            expected = new PowerOrder(o.v(), o.at(), o.server(), o.target(), o.state(), o.reason(), o.sequence());
        } else {
            Decision d = (Decision) current;
            expected = new Decision(d.v(), d.at(), d.grm(), d.sequence(), d.allocationVersion(), d.combine(),
                    d.objective(), d.solveSeconds(), d.liveGateways(), d.flows(), d.servers(), d.energyJoules(),
                    d.overrides());
        }
        assertThat(decoded).isEqualTo(new Decoded.Ok<>(expected));
    }

    /**
     * Every numeric field of every record (walked from its golden file, so a new field is covered
     * without editing this test) has a range: -1, NaN and Infinity are each refused with a reason
     * naming the field and the value — except where the record documents otherwise (Ω and the
     * predicted utility may be negative; Ω and the predictions may be NaN when nothing was solved).
     */
    @ParameterizedTest(name = "{0}")
    @MethodSource("goldens")
    void everyNumericField_hasARange_andOutOfRangeIsAFailureNamingFieldAndValue(String file, Message expected)
            throws IOException {
        JsonNode golden = MessageCodec.mapper().readTree(read(file));
        List<String> paths = new java.util.ArrayList<>();
        numericLeaves(golden, "", paths);
        assertThat(paths).hasSizeGreaterThanOrEqualTo(2);
        java.util.Set<String> signed = java.util.Set.of("objective", "predictedUtility");
        java.util.Set<String> nanMeansNone = java.util.Set.of("objective", "predictedResponseTime", "predictedUtility");
        int checked = 0;
        for (String path : paths) {
            String leaf = path.substring(path.lastIndexOf('.') + 1);
            for (String bad : List.of("-1", "\"NaN\"", "\"Infinity\"", "\"-Infinity\"")) {
                if (bad.equals("-1") && signed.contains(leaf) || bad.equals("\"NaN\"") && nanMeansNone.contains(leaf)) {
                    continue;
                }
                JsonNode copy = golden.deepCopy();
                set(copy, path, MessageCodec.mapper().readTree(bad));
                Decoded<? extends Message> d = MessageCodec.decode(copy.toString(), expected.getClass());
                assertThat(d).as(path + " = " + bad).isInstanceOfSatisfying(Decoded.Failure.class,
                        f -> assertThat(f.reason()).as(path + " = " + bad).contains(leaf + ": "));
                checked++;
            }
        }
        assertThat(checked).isGreaterThan(paths.size());
    }

    private static void numericLeaves(JsonNode node, String path, List<String> out) {
        if (node.isNumber()) {
            out.add(path);
        } else if (node.isObject()) {
            node.fieldNames().forEachRemaining(f -> numericLeaves(node.get(f), path.isEmpty() ? f : path + "." + f, out));
        } else if (node.isArray()) {
            for (int i = 0; i < node.size(); i++) {
                numericLeaves(node.get(i), path + "." + i, out);
            }
        }
    }

    private static void set(JsonNode root, String path, JsonNode value) {
        String[] parts = path.split("\\.");
        JsonNode parent = root;
        for (int i = 0; i < parts.length - 1; i++) {
            parent = parent.isArray() ? parent.get(Integer.parseInt(parts[i])) : parent.get(parts[i]);
        }
        ((com.fasterxml.jackson.databind.node.ObjectNode) parent).set(parts[parts.length - 1], value);
    }

    @Test
    void aNestedFieldOutOfRange_isNamedWithItsPath() throws IOException {
        String bad = read("gateway-stats.json").replace("\"queueLength\": 3", "\"queueLength\": -1");
        assertThat(MessageCodec.decode(bad, GatewayStats.class))
                .isEqualTo(new Decoded.Failure<>("GatewayStats classes.premium.queueLength: -1 (expected: >= 0)"));
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
            negative weight | {"v":1,"at":"2026-11-22T10:00:00Z","gateway":"g1","version":1,"weights":{"a":-1}} | Allocation weights.a: -1.0 (expected: 0..1.0E9)
            NaN weight      | {"v":1,"at":"2026-11-22T10:00:00Z","gateway":"g1","version":1,"weights":{"a":"NaN"}} | Allocation weights.a: NaN (expected: 0..1.0E9)
            infinite weight | {"v":1,"at":"2026-11-22T10:00:00Z","gateway":"g1","version":1,"weights":{"a":"Infinity"}} | Allocation weights.a: Infinity (expected: 0..1.0E9)
            legacy Long.MAX | {"v":1,"at":"2026-11-22T10:00:00Z","gateway":"g1","version":9223372036854775807} | Allocation version: 9223372036854775807 (expected: 0..1795341601000 = 1000 + ms from epoch 0 to at)
            counter > epoch | {"v":1,"at":"2026-11-22T10:00:00Z","gateway":"g1","epoch":1795341600000,"version":1001} | Allocation version: 1001 (expected: 0..1000 = 1000 + ms from epoch 1795341600000 to at)
            negative epoch  | {"v":1,"at":"2026-11-22T10:00:00Z","gateway":"g1","epoch":-1,"version":1}  | Allocation epoch: -1 (expected: 0..253402300799999
            epoch past 9999 | {"v":1,"at":"2026-11-22T10:00:00Z","gateway":"g1","epoch":253402300800000,"version":1} | Allocation epoch: 253402300800000 (expected: 0..253402300799999
            at past 9999    | {"v":1,"at":"+10000-01-01T00:00:00Z","gateway":"g1","version":1}          | Allocation at: +10000-01-01T00:00:00Z (expected: 1970-01-01T00:00:00Z..9999-12-31T23:59:59.999Z)
            negative cap    | {"v":1,"at":"2026-11-22T10:00:00Z","gateway":"g1","version":1,"serverCaps":{"s1":-1}} | Allocation serverCaps.s1: -1 (expected: 0..1000000)
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
        String old = read("decision.json").replaceAll("(?s)\"pins\":\\s*\\[.*?\\],\\s*", "");
        assertThat(old).doesNotContain("\"pins\"");
        Decoded<Decision> d = MessageCodec.decode(old, Decision.class);
        assertThat(d).isInstanceOfSatisfying(Decoded.Ok.class, ok -> assertThat(((Decision) ok.value()).pins()).isEmpty());
    }

    @Test
    void aDecisionWithoutTheSolvePath_decodes_withAnEmptyOne() throws IOException {
        String old = read("decision.json").replaceAll("(?s),\\s*\"solvePath\":\\s*\"[a-z]*\"", "");
        assertThat(old).doesNotContain("solvePath").contains("\"predictionErrors\"");
        Decoded<Decision> d = MessageCodec.decode(old, Decision.class);
        assertThat(d).isInstanceOfSatisfying(Decoded.Ok.class, ok -> assertThat(((Decision) ok.value()).solvePath()).isEmpty());
    }

    @Test
    void aDecisionWithoutPredictionErrors_decodes_withNone() throws IOException {
        String old = read("decision.json").replaceAll("(?s),\\s*\"predictionErrors\":\\s*\\{.*?\\}\\}", "");
        assertThat(old).doesNotContain("predictionErrors").contains("\"epoch\"");
        Decoded<Decision> d = MessageCodec.decode(old, Decision.class);
        assertThat(d).isInstanceOfSatisfying(Decoded.Ok.class,
                ok -> assertThat(((Decision) ok.value()).predictionErrors()).isEmpty());
    }

    @Test
    void aPredictionErrorWithoutSamples_isRefused_namingTheField() throws IOException {
        String bad = read("decision.json").replace("\"samples\": 9", "\"samples\": 0");
        assertThat(MessageCodec.decode(bad, Decision.class)).isInstanceOfSatisfying(Decoded.Failure.class,
                f -> assertThat(f.reason()).contains("samples: 0 (expected: >= 1)"));
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
    void gatewayStats_withoutYield_decodesWithAnEmptyOne_andABadYieldIsNamed() throws IOException {
        String old = read("gateway-stats.json").replaceAll(",\\s*\"yield\": \\{[^}]*\\}", "");
        assertThat(old).doesNotContain("yield");
        assertThat(MessageCodec.decode(old, GatewayStats.class)).isInstanceOfSatisfying(Decoded.Ok.class,
                ok -> assertThat(((GatewayStats) ok.value()).classes().get("premium").yield())
                        .isEqualTo(GatewayStats.YieldStats.EMPTY));
        String bad = read("gateway-stats.json").replace("\"realised\": 30.4", "\"realised\": -1");
        assertThat(MessageCodec.decode(bad, GatewayStats.class)).isInstanceOfSatisfying(Decoded.Failure.class,
                f -> assertThat(f.reason()).contains("yield.realised: -1.0"));
    }

    @Test
    void yieldStats_lossPercent_isTheShareOfTheOfferedYieldNotRealised() {
        assertThat(GatewayStats.YieldStats.of(40, 30).lossPercent()).isEqualTo(25.0);
        assertThat(GatewayStats.YieldStats.of(0, 0).lossPercent()).isZero();
        assertThat(GatewayStats.YieldStats.of(10, 12).lossPercent()).isZero();
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
