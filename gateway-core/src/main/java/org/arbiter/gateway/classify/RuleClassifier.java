package org.arbiter.gateway.classify;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.regex.Pattern;
import org.arbiter.common.config.Cidr;
import org.arbiter.common.config.ClassConfig;
import org.arbiter.common.config.MatchRule;
import org.arbiter.gateway.Classifier;
import org.arbiter.gateway.RequestAttributes;

/**
 * First-match classification over {@code classes[].match} in file order (003 §III-A): every
 * condition of a rule must hold; header values match exactly, or as a regular expression when
 * written {@code regex:...} (the whole value must match); {@code path} is a prefix of the normalised
 * path ({@link PathNormalizer}), compared ignoring ASCII case when the rule says
 * {@code caseInsensitive}; method and
 * host compare case-insensitively; {@code source} holds when the client's address
 * ({@link RequestAttributes#clientAddress()}) lies in the block. An empty rule never matches; unmatched requests go to the
 * default class. Immutable and thread-safe.
 */
public final class RuleClassifier implements Classifier {

    private record HeaderCondition(String name, String exact, Pattern regex) {
        boolean test(String value) {
            if (value == null) {
                return false;
            }
            return regex != null ? regex.matcher(value).matches() : exact.equals(value);
        }
    }

    private record Rule(String className, List<HeaderCondition> headers, String pathPrefix, boolean caseInsensitive,
                        String method, String host, Cidr source) {
        boolean test(RequestAttributes r) {
            if (source != null) {
                byte[] client = r.clientAddress();
                if (client == null || !source.contains(client)) {
                    return false;
                }
            }
            if (method != null && !method.equalsIgnoreCase(r.method())) {
                return false;
            }
            if (pathPrefix != null && (r.path() == null
                    || !r.path().regionMatches(caseInsensitive, 0, pathPrefix, 0, pathPrefix.length()))) {
                return false;
            }
            if (host != null && (r.host() == null || !host.equalsIgnoreCase(r.host()))) {
                return false;
            }
            for (HeaderCondition h : headers) {
                if (!h.test(r.header(h.name()))) {
                    return false;
                }
            }
            return true;
        }
    }

    private final List<Rule> rules;
    private final String defaultClass;

    private RuleClassifier(List<Rule> rules, String defaultClass) {
        this.rules = rules;
        this.defaultClass = defaultClass;
    }

    public static RuleClassifier of(List<ClassConfig> classes) {
        requireNonNull(classes, "classes");
        List<Rule> rules = new ArrayList<>();
        String def = null;
        for (ClassConfig c : classes) {
            if (c.isDefault()) {
                def = c.name();
            }
            MatchRule m = c.match();
            if (m.isEmpty()) {
                continue;
            }
            List<HeaderCondition> hs = new ArrayList<>();
            for (Map.Entry<String, String> h : m.headers().entrySet()) {
                String v = h.getValue();
                hs.add(v.startsWith("regex:")
                        ? new HeaderCondition(h.getKey().toLowerCase(Locale.ROOT), null, Pattern.compile(v.substring(6)))
                        : new HeaderCondition(h.getKey().toLowerCase(Locale.ROOT), v, null));
            }
            rules.add(new Rule(c.name(), List.copyOf(hs), m.path(), m.caseInsensitive(), m.method(), m.host(), m.source()));
        }
        if (def == null) {
            if (classes.isEmpty()) {
                throw new IllegalArgumentException("classes: an empty list (expected: at least one class)");
            }
            def = classes.get(classes.size() - 1).name();
        }
        return new RuleClassifier(List.copyOf(rules), def);
    }

    @Override
    public String classify(RequestAttributes request) {
        for (Rule r : rules) {
            if (r.test(request)) {
                return r.className();
            }
        }
        return defaultClass;
    }
}
