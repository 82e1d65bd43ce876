package org.arbiter.common.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;
import org.junit.jupiter.api.io.TempDir;

/** The reading front end: size limit before reading, plain YAML only, overflowing values. */
final class ConfigReadingTest {

    private static final String HEAD = """
            classes: [{name: a, target: 1s, default: true}]
            servers: [{id: s1, url: "http://127.0.0.1:1"}]
            """;

    @TempDir
    Path dir;

    /**
     * The refusals of an endless or huge input must end: a loader without its limits would read
     * /dev/zero, or expand the aliases, until it ran out of memory. The verdict is that they end
     * (within a guard that holds on a busy machine), not how fast: a time under a second was a
     * wall-clock verdict a loaded machine could fail.
     */
    private static final Duration HANG_GUARD = Duration.ofSeconds(30);

    /** Jackson's classes loaded once before the guarded tests. */
    @org.junit.jupiter.api.BeforeAll
    static void warmUp() {
        ConfigLoader.parse(HEAD);
    }

    // ---- size ----------------------------------------------------------------------------------

    @Test
    @EnabledOnOs({OS.LINUX, OS.MAC})
    void devZero_isRefusedAtTheLimit_andTheReadingEnds() {
        assertTimeoutPreemptively(HANG_GUARD, () -> {
            assertThatThrownBy(() -> ConfigLoader.load(Path.of("/dev/zero")))
                    .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).containsExactly(
                            "/dev/zero: larger than 4MiB (expected: a configuration file of at most 4MiB)"));
        });
    }

    @Test
    void fiftyMegabyteFile_isRefused_withoutBeingReadWhole() throws Exception {
        Path big = dir.resolve("big.yaml");
        try (RandomAccessFile f = new RandomAccessFile(big.toFile(), "rw")) {
            f.setLength(50L << 20);
        }
        assertTimeoutPreemptively(HANG_GUARD, () -> {
            assertThatThrownBy(() -> ConfigLoader.load(big))
                    .isInstanceOfSatisfying(ConfigException.class, e -> assertThat(e.errors()).containsExactly(
                            big + ": larger than 4MiB (expected: a configuration file of at most 4MiB)"));
        });
    }

    @Test
    void limit_isInclusive() throws Exception {
        Path f = dir.resolve("ten.yaml");
        Files.writeString(f, "a: 1234567");   // 10 bytes
        assertThat(ConfigLoader.readText(f, 10)).isEqualTo("a: 1234567");
        assertThatThrownBy(() -> ConfigLoader.readText(f, 9)).hasMessageContaining("larger than 9B");
    }

    @Test
    void textOverTheLimit_isRefusedByParse() {
        String huge = "#".repeat(ConfigLoader.MAX_FILE_BYTES + 1);
        assertThatThrownBy(() -> ConfigLoader.parse(huge)).isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.errors()).containsExactly("(yaml): 4194305 characters (expected: at most 4194304)"));
    }

    @Test
    void bytesThatAreNotUtf8_areOneError() throws Exception {
        Path f = dir.resolve("latin1.yaml");
        Files.write(f, (HEAD + "# caf\u00e9\n").getBytes(StandardCharsets.ISO_8859_1));
        assertThatThrownBy(() -> ConfigLoader.load(f)).isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.errors()).containsExactly(f + ": not UTF-8 text (expected: a YAML file in UTF-8)"));
    }

    // ---- duplicate keys --------------------------------------------------------------------------

    @Test
    void duplicateKeys_areErrors_namingBothLines_withTheOtherProblems() {
        String yaml = """
                classes:
                  - name: a
                    target: 1s
                    default: true
                    target: 2s
                servers: [{id: s1, url: "http://127.0.0.1:1"}]
                control: {period: 0s}
                servers: [{id: s2, url: "http://127.0.0.1:2"}]
                """;
        assertThat(errors(yaml)).containsExactly(
                "classes[0].target: given twice, at lines 3 and 5 (expected: each key once in a mapping)",
                "servers: given twice, at lines 6 and 8 (expected: each key once in a mapping)",
                "control.period: 0s (expected: > 0)");
    }

    @Test
    void dataPlaneLimits_haveDefaults_andBadValuesAreNamed() {
        String base = """
                classes: [{name: a, target: 1s, default: true}]
                servers: [{id: s1, url: "http://127.0.0.1:1"}]
                """;
        ClusterConfig c = ConfigLoader.parse(base);
        assertThat(c.dispatch().tunnelIdleTimeoutSeconds()).isEqualTo(600);
        assertThat(c.gatewayHttp().maxConnections()).isZero(); // sized from the descriptor limit at start
        assertThat(c.gatewayHttp().bodyBudgetBytes()).isZero(); // a quarter of the heap at start
        ClusterConfig set = ConfigLoader.parse(base + "dispatch: {tunnelIdleTimeout: 30s}\n"
                + "gateway: {maxConnections: 5000, bodyBudget: 256MiB}\n");
        assertThat(set.dispatch().tunnelIdleTimeoutSeconds()).isEqualTo(30);
        assertThat(set.gatewayHttp().maxConnections()).isEqualTo(5000);
        assertThat(set.gatewayHttp().bodyBudgetBytes()).isEqualTo(256L << 20);
        assertThat(errors(base + "dispatch: {tunnelIdleTimeout: 0s}\n"))
                .containsExactly("dispatch.tunnelIdleTimeout: 0s (expected: > 0)");
    }

    @Test
    void duplicateKey_inAFlowMapping_isFound() {
        assertThat(errors(HEAD + "dispatch: {pollSize: 2, pollSize: 3}\n"))
                .containsExactly("dispatch.pollSize: given twice, at lines 3 and 3 (expected: each key once in a mapping)");
    }

    // ---- tags ------------------------------------------------------------------------------------

    @Test
    void customTags_areRefused_withPathAndLine() {
        String yaml = HEAD + """
                kafka: {bootstrap: !!python/object:os.system "ls", topicPrefix: !Ref prefix}
                power: {command: !!binary aGVsbG8=}
                """;
        assertThat(errors(yaml)).containsExactly(
                "kafka.bootstrap: tag !!python/object:os.system at line 3 (expected: plain YAML, no tags but !!str, "
                        + "!!int, !!float, !!bool, !!null, !!map, !!seq)",
                "kafka.topicPrefix: tag !Ref at line 3 (expected: plain YAML, no tags but !!str, !!int, !!float, "
                        + "!!bool, !!null, !!map, !!seq)",
                "power.command: tag !!binary at line 4 (expected: plain YAML, no tags but !!str, !!int, !!float, "
                        + "!!bool, !!null, !!map, !!seq)");
    }

    @Test
    void coreSchemaTags_areAccepted() {
        ClusterConfig c = ConfigLoader.parse(HEAD + "kafka: !!map {topicPrefix: !!str 42}\ndispatch: {pollSize: !!int 3}\n");
        assertThat(c.kafka().topicPrefix()).isEqualTo("42");
        assertThat(c.dispatch().pollSize()).isEqualTo(3);
    }

    // ---- anchors and aliases -----------------------------------------------------------------------

    @Test
    void aliases_areExpanded_andMergeKeysApplied() {
        ClusterConfig c = ConfigLoader.parse("""
                classes: [{name: a, target: 1s, default: true}]
                servers:
                  - {id: s1, url: &u "http://127.0.0.1:1", power: &p {idle: 50, busy: 80}}
                  - {id: s2, url: "http://127.0.0.1:2", power: *p}
                  - {id: s3, url: "http://127.0.0.1:3", power: {<<: *p, busy: 90}}
                kafka: {bootstrap: *u}
                """);
        assertThat(c.servers().get(1).power()).isEqualTo(c.servers().get(0).power());
        assertThat(c.servers().get(2).power().idleWatts()).isEqualTo(50);
        assertThat(c.servers().get(2).power().busyWatts()).isEqualTo(90);
        assertThat(c.kafka().bootstrap()).isEqualTo("http://127.0.0.1:1");   // on main: "u"
    }

    @Test
    void undefinedAndRecursiveAliases_areErrors() {
        assertThat(errors(HEAD + "kafka: {bootstrap: *nowhere}\n")).containsExactly(
                "kafka.bootstrap: *nowhere at line 3 (expected: an alias of an anchor &nowhere complete before it)");
        assertThat(errors(HEAD + "kafka: &k {properties: {a: *k}}\n")).containsExactly(
                "kafka.properties.a: *k at line 3 (expected: an alias of an anchor &k complete before it)");
    }

    @Test
    void billionLaughs_isRefused_quickly_withOneLine() {
        StringBuilder y = new StringBuilder("a0: &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n");
        for (int i = 1; i < 10; i++) {
            y.append("a").append(i).append(": &a").append(i).append(" [");
            for (int j = 0; j < 10; j++) {
                y.append(j == 0 ? "" : ", ").append("*a").append(i - 1);
            }
            y.append("]\n");
        }
        assertTimeoutPreemptively(HANG_GUARD, () -> {
            assertThatThrownBy(() -> ConfigLoader.parse(y.toString())).isInstanceOfSatisfying(ConfigException.class,
                    e -> assertThat(e.errors()).singleElement().asString()
                            .startsWith("(yaml): aliases expand to more than 100000 values at line "));
        });
    }

    @Test
    void tooManyAliases_areRefused() {
        StringBuilder y = new StringBuilder("x: &x 1\nl: [");
        for (int i = 0; i <= YamlReader.MAX_ALIASES; i++) {
            y.append(i == 0 ? "" : ",").append("*x");
        }
        y.append("]\n");
        assertThatThrownBy(() -> ConfigLoader.parse(y.toString())).hasMessageContaining("more than 1000 aliases");
    }

    // ---- shape ---------------------------------------------------------------------------------------

    @Test
    void deepNesting_isRefused_withOneLine() {
        String deep = "a: " + "[".repeat(100) + "]".repeat(100) + "\n";
        assertThatThrownBy(() -> ConfigLoader.parse(deep)).isInstanceOfSatisfying(ConfigException.class,
                e -> assertThat(e.errors()).containsExactly("(yaml): nested deeper than 64 levels at line 1 (expected: at most 64)"));
    }

    @Test
    void aSecondDocument_isAnError() {
        assertThat(errors(HEAD + "---\nclasses: []\n")).containsExactly("(yaml): a second document at line 4 (expected: one document)");
    }

    @Test
    void theTree_isJacksonsTree_forPlainDocuments() throws Exception {
        YamlReader reader = new YamlReader(ConfigLoader.MAX_FILE_BYTES);
        for (String yaml : List.of(ConfigLoaderTest.MINIMAL, ConfigLoaderTest.FULL, HEAD + """
                dispatch: {maxBodyBytes: 12345678901, pollSize: 2}
                control: {minWeight: 0.25, gain: 1e3, period: null}
                x: [1, -2, 3.5, true, false, ~, "s", 'q', 0x1F, 99999999999999999999999]
                """)) {
            YamlReader.Result r = reader.read(yaml);
            assertThat(r.errors()).isEmpty();
            assertThat(r.root()).isEqualTo(ConfigLoader.YAML.readTree(yaml));
        }
        assertThat(reader.read("").root().isMissingNode()).isTrue();
        assertThat(reader.read("# only a comment\n").root().isMissingNode()).isTrue();
    }

    // ---- values that overflow ------------------------------------------------------------------------

    @Test
    void sizesAndDurationsThatOverflow_areErrors_notSaturated() {
        assertThat(errors(HEAD + """
                dispatch: {maxBodyBytes: 99999999999GiB, maxHeaderBytes: 99999999999999999999, backendTimeout: 99999999999999h,
                           connectTimeout: 1e300}
                control: {period: 999999999999999999999999999999999999999999999999999999999999999999999999999999s}
                """)).containsExactly(
                "dispatch.backendTimeout: 99999999999999h (expected: at most 106751d, about 292 years)",
                "dispatch.connectTimeout: 1.0E300 (expected: at most 106751d, about 292 years)",
                "dispatch.maxBodyBytes: 99999999999GiB (expected: at most 9223372036854775807 bytes, 8EiB)",
                "dispatch.maxHeaderBytes: 99999999999999999999 (expected: at most 9223372036854775807 bytes, 8EiB)",
                // a value past 64 characters is quoted by its first 64 and its length (issue 30)
                "control.period: " + "9".repeat(64) + "… (79 chars) (expected: at most 106751d, about 292 years)");
    }

    @Test
    void wholeNumbersBeyondALong_areErrors_neverWrapped() {
        // 2^64 + 8080 wraps to 8080 through longValue()
        assertThat(errors(HEAD + "console: {port: 18446744073709559696}\ncontrol: {granularity: \"99999999999999999999\"}\n"))
                .containsExactly("control.granularity: 99999999999999999999 (expected: 1..1000)",
                        "console.port: 18446744073709559696 (expected: 0..65535)");
    }

    // ---- console.login ---------------------------------------------------------------------------------

    @Test
    void consoleLogin_hasDefaults_andReadsItsKeys_andRoundTrips() {
        assertThat(ConfigLoader.parse(HEAD).console().login()).isEqualTo(ConsoleConfig.Login.DEFAULT);
        ClusterConfig c = ConfigLoader.parse(HEAD + """
                console:
                  login: {freeFailures: 2, delay: 250ms, maxDelay: 4s, lockoutAfter: 6, lockout: 2m, forgetAfter: 10m}
                """);
        assertThat(c.console().login()).isEqualTo(new ConsoleConfig.Login(2, 0.25, 4, 6, 120, 600));
        assertThat(ConfigLoader.parse(ConfigWriter.toYaml(c))).isEqualTo(c);
    }

    @Test
    void consoleLogin_rules_areErrorsWithPaths() {
        assertThat(errors(HEAD + """
                console:
                  login: {freeFailures: 5, delay: 2s, maxDelay: 1s, lockoutAfter: 5, lockout: 0s, lockotu: 1}
                """)).containsExactly(
                "console.login.lockout: 0s (expected: > 0 and <= 7d)",
                "console.login.lockotu: unknown key (expected: one of freeFailures, delay, maxDelay, lockoutAfter, lockout, "
                        + "forgetAfter; did you mean 'lockout'?)",
                "console.login.maxDelay: 1s (expected: >= console.login.delay, 2s)",
                "console.login.lockoutAfter: 5 (expected: 0 or > console.login.freeFailures, 5)");
    }

    private static List<String> errors(String yaml) {
        try {
            ConfigLoader.parse(yaml);
        } catch (ConfigException e) {
            return e.errors();
        }
        throw new AssertionError("no error for:\n" + yaml);
    }

    @Test
    void sixtyDuplicateKeys_listFiftyProblems_andCountTheRest_acrossReaderAndValidation() {
        // issue 30: the YAML reader's problems and validation's share one bound and one count
        StringBuilder yaml = new StringBuilder(ConfigLoaderTest.MINIMAL).append("console:\n");
        for (int i = 0; i < 61; i++) {
            yaml.append("  port: ").append(8000 + i).append('\n');
        }
        yaml.append("dispatch: {nope: 1}\n");
        assertThatThrownBy(() -> ConfigLoader.parse(yaml.toString())).isInstanceOfSatisfying(ConfigException.class, e -> {
            assertThat(e.errors()).hasSize(ConfigException.MAX_ERRORS + 1);
            assertThat(e.errors().get(0)).startsWith("console.port: given twice, at lines 11 and 12");
            assertThat(e.errors().get(ConfigException.MAX_ERRORS)).isEqualTo("(and 11 more problems)");
        });
    }
}
