package org.arbiter.gateway;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.Map;
import org.arbiter.gateway.classify.Classifiers;
import org.junit.jupiter.api.Test;

final class RuleClassifierTest {

    private final Classifier classifier = Classifiers.fromRules(Fixtures.parse("""
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

    @Test
    void sourceRule_matchesTheClientsAddress_andNothingWhenItIsUnknown() throws Exception {
        Classifier c = Classifiers.fromRules(Fixtures.parse("""
                classes:
                  - {name: partner, target: 1s, match: {source: 203.0.113.0/24}}
                  - {name: v6, target: 1s, match: {source: "2001:db8::/32", path: /v6}}
                  - {name: basic, target: 2s, default: true}
                servers: [{id: s1, url: 'http://127.0.0.1:9'}]
                """).classes());
        assertThat(c.classify(from("203.0.113.7", "/"))).isEqualTo("partner");
        assertThat(c.classify(from("203.0.114.7", "/"))).isEqualTo("basic");
        assertThat(c.classify(from("::ffff:203.0.113.200", "/"))).as("IPv4-mapped").isEqualTo("partner");
        assertThat(c.classify(from("2001:db8::5", "/v6/x"))).isEqualTo("v6");
        assertThat(c.classify(from("2001:db8::5", "/other"))).as("every condition").isEqualTo("basic");
        assertThat(c.classify(RequestAttributes.of("GET", "/", null, Map.of()))).as("no address").isEqualTo("basic");
    }

    private static RequestAttributes from(String address, String path) throws Exception {
        java.net.InetAddress a = java.net.InetAddress.getByName(address);
        RequestAttributes base = RequestAttributes.of("GET", path, null, Map.of());
        return new RequestAttributes() {
            @Override
            public String method() {
                return base.method();
            }

            @Override
            public String path() {
                return base.path();
            }

            @Override
            public String host() {
                return null;
            }

            @Override
            public String header(String name) {
                return null;
            }

            @Override
            public byte[] clientAddress() {
                return a == null ? null : a.getAddress();
            }
        };
    }
}
