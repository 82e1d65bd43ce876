package org.arbiter.gateway.classify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ConfigException;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.RequestAttributes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Class rules that agree with backends (issue 30, item 6): path parameters and dot segments as
 * Tomcat and Spring map them, {@code match.caseInsensitive}, and {@code Upgrade} read as a list.
 */
final class ClassRulesTest {

    private static RuleClassifier classifier(String adminMatch) {
        return RuleClassifier.of(ConfigLoader.parse("""
                classes:
                  - {name: admin, target: 1s, match: %s}
                  - {name: web, target: 1s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9", concurrency: 1}
                """.formatted(adminMatch)).classes());
    }

    /** What the gateway does with a request target's path: normalise it, then classify the normal form. */
    private static String classify(RuleClassifier c, String rawPath) {
        return c.classify(RequestAttributes.of("GET", PathNormalizer.normalize(rawPath), "h", Map.of()));
    }

    @ParameterizedTest
    @CsvSource({
        "/x/..;/admin, /admin",
        "/x/%2e%2e;/admin, /admin",
        "/x/%2E%2E;a=b/admin, /admin",
        "/x/..;a%41%3b/admin, /admin",
        "/x;a/..;b/admin;c, /admin",
        "/;/admin, /admin",
        "/admin;jsessionid=A1, /admin",
        "/a;x=1/b;y=2, /a/b",
        "/a%3Bb/c, /a%3Bb/c",
        "/a/..%3B/admin, /a/..%3B/admin",
        "/a;, /a",
    })
    void pathParameters_areRemovedBeforeDotSegments(String raw, String normal) {
        String out = PathNormalizer.normalize(raw);
        assertThat(out).isEqualTo(normal);
        assertThat(PathNormalizer.normalize(out)).as("idempotent").isEqualTo(out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"/x/..;/admin", "/x/%2e%2e;/admin", "/x/..;foo=bar/admin", "/admin;jsessionid=1",
        "/x;p/..;q/admin/users"})
    void aPathParameterCannotLeaveTheAdminClass(String raw) {
        assertThat(classify(classifier("{path: /admin}"), raw)).as(raw).isEqualTo("admin");
    }

    @ParameterizedTest
    @ValueSource(strings = {"/x/..;%2f/admin", "/x;%00/admin", "/x;a b/admin", "/x;%zz/admin"})
    void aParameter_isCheckedLikeTheRestOfThePath(String raw) {
        assertThatThrownBy(() -> PathNormalizer.normalize(raw)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("path: ");
    }

    @Test
    void anEncodedSemicolon_isData_notAParameter() {
        // Tomcat decodes %3B after removing parameters: "..;" is then a plain segment name, not "..".
        assertThat(classify(classifier("{path: /admin}"), "/x/..%3B/admin")).isEqualTo("web");
    }

    @Test
    void caseInsensitive_isPerRule_andOffByDefault() {
        RuleClassifier sensitive = classifier("{path: /admin}");
        RuleClassifier insensitive = classifier("{path: /admin, caseInsensitive: true}");
        for (String p : List.of("/ADMIN", "/Admin/users", "/%41DMIN", "/x/..;/aDmIn")) {
            assertThat(classify(insensitive, p)).as(p).isEqualTo("admin");
            assertThat(classify(sensitive, p)).as(p).isEqualTo("web");
        }
        assertThat(classify(insensitive, "/admin")).isEqualTo("admin");
        assertThat(classify(insensitive, "/public/ADMIN")).isEqualTo("web");
        assertThat(classify(insensitive, "/adm")).isEqualTo("web");
    }

    @Test
    void caseInsensitive_withoutAPath_isAConfigError() {
        assertThatThrownBy(() -> classifier("{method: GET, caseInsensitive: true}")).isInstanceOf(ConfigException.class)
                .hasMessage("classes[0].match.caseInsensitive: true without a path (expected: match.path, whose case it ignores)");
        assertThat(ConfigLoader.parse("""
                classes:
                  - {name: admin, target: 1s, match: {path: /admin, caseInsensitive: true}}
                  - {name: web, target: 1s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9", concurrency: 1}
                """).classes().get(0).match().caseInsensitive()).isTrue();
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', nullValues = "NONE", value = {
        "websocket               | websocket",
        "WebSocket               | WebSocket",
        "websocket, h2c          | websocket",
        "h2c, websocket          | websocket",
        "websocket,H2C           | websocket",
        "h2c                     | NONE",
        "H2C                     | NONE",
        "h2c, h2                 | NONE",
        "' h2c ,  '              | NONE",
        "websocket, ,foo/1       | websocket, foo/1",
        "websocket, h2c/1        | websocket",
        "websocket h2c           | NONE",
        "web(socket)             | NONE",
        "''                      | NONE",
    })
    void upgradeIsAList_andH2cIsNeverPassedThrough(String header, String passed) {
        assertThat(UpgradeHeader.passThrough(header)).isEqualTo(passed);
    }
}
