package org.arbiter.gateway.classify;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import java.util.Map;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.ConfigLoader;
import org.arbiter.gateway.RequestAttributes;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

final class PathNormalizerTest {

    @ParameterizedTest
    @CsvSource({
        "/admin, /admin",
        "//admin, /admin",
        "/%61dmin, /admin",
        "/%41DMIN, /ADMIN",
        "/x/../admin, /admin",
        "/x/./../admin/, /admin/",
        "/%2e%2e/admin, /admin",
        "/x/%2E%2E/admin, /admin",
        "/../../admin, /admin",
        "/a/b/.., /a/",
        "/a/., /a/",
        "/.., /",
        "/, /",
        "/a//b///c, /a/b/c",
        "/a%7e%5fb, /a~_b",
        "/a%3fb, /a%3Fb",
        "/a%20b, /a%20b",
        "/file.txt, /file.txt",
        "/a/.../b, /a/.../b",
        "/a/..b/c, /a/..b/c",
        "/x%2f/admin, REFUSED",
    })
    void normalForm(String in, String expected) {
        if (expected.equals("REFUSED")) {
            assertThatThrownBy(() -> PathNormalizer.normalize(in)).isInstanceOf(IllegalArgumentException.class);
            return;
        }
        String out = PathNormalizer.normalize(in);
        assertThat(out).isEqualTo(expected);
        assertThat(PathNormalizer.normalize(out)).as("idempotent").isEqualTo(out);
    }

    @ParameterizedTest
    @ValueSource(strings = {"admin", "", "/a%2", "/a%zz", "/a%2F", "/a%5cb", "/a%00", "/a\\b", "/a#b", "/a\u00e9", "/a\tb"})
    void refused(String path) {
        assertThatThrownBy(() -> PathNormalizer.normalize(path)).isInstanceOf(IllegalArgumentException.class)
                .hasMessageStartingWith("path: ");
    }

    @Test
    void everySpellingOfAdmin_landsInTheAdminClass() {
        List<ClassConfig> classes = ConfigLoader.parse("""
                classes:
                  - {name: admin, target: 1s, match: {path: /admin}}
                  - {name: web, target: 1s, default: true}
                servers:
                  - {id: s1, url: "http://127.0.0.1:9", concurrency: 1}
                """).classes();
        RuleClassifier c = RuleClassifier.of(classes);
        for (String p : List.of("/admin", "//admin", "/%61dmin", "/x/../admin", "/./admin/x", "/%2E/admin")) {
            String normal = PathNormalizer.normalize(p);
            assertThat(c.classify(RequestAttributes.of("GET", normal, "h", Map.of()))).as(p).isEqualTo("admin");
        }
        assertThat(c.classify(RequestAttributes.of("GET", PathNormalizer.normalize("/public/admin"), "h", Map.of())))
                .isEqualTo("web");
    }
}
