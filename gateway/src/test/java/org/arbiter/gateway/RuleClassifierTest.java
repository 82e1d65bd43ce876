package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.junit.jupiter.api.Test;

final class RuleClassifierTest {

    private final Classifier classifier = Classifier.fromRules(Fixtures.parse("""
            classes:
              - {name: admin, target: 1s, match: {path: /admin, method: post}}
              - {name: premium, target: 1s, match: {header: {X-User: 'regex:gold-[0-9]+'}}}
              - {name: soap, target: 1s, match: {header: {SOAPAction: buy}, host: shop.example}}
              - {name: other, target: 1s, match: {path: /}}
              - {name: basic, target: 2s, default: true}
            servers: [{id: s1, url: 'http://127.0.0.1:9'}]
            """).classes());

    @Test
    void firstMatchingClassInFileOrder_wins() {
        assertThat(classifier.classify(RequestAttributes.of("POST", "/admin/x", null, Map.of("X-User", "gold-1"))))
                .isEqualTo("admin");
        assertThat(classifier.classify(RequestAttributes.of("GET", "/admin/x", null, Map.of("x-user", "gold-12"))))
                .isEqualTo("premium");
    }

    @Test
    void everyConditionOfARule_mustHold() {
        assertThat(classifier.classify(RequestAttributes.of("GET", "/p", "SHOP.example", Map.of("SOAPAction", "buy"))))
                .isEqualTo("soap");
        assertThat(classifier.classify(RequestAttributes.of("GET", "/p", "other", Map.of("SOAPAction", "buy"))))
                .isEqualTo("other");
    }

    @Test
    void regexMustMatchTheWholeValue() {
        assertThat(classifier.classify(RequestAttributes.of("GET", "/x", null, Map.of("X-User", "gold-1x"))))
                .isEqualTo("other");
    }

    @Test
    void unmatchedRequest_goesToTheDefaultClass() {
        assertThat(classifier.classify(RequestAttributes.of("GET", "", null, Map.of()))).isEqualTo("basic");
    }
}
