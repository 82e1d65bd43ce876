package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.Optional;

/**
 * A classification rule (003 §III-A): every condition given must hold. Header values match
 * exactly, or as a Java regular expression when written {@code "regex:..."}; {@code path} is a
 * prefix; {@code method} and {@code host} compare case-insensitively (host without port).
 * An empty rule matches nothing on its own: a class without a rule is reached only as the default.
 */
public record MatchRule(Map<String, String> headers, String path, String method, String host) {

    public static final MatchRule NONE = new MatchRule(Map.of(), null, null, null);

    public MatchRule {
        headers = Map.copyOf(requireNonNull(headers, "headers"));
    }

    /** True when the rule has no condition at all. */
    public boolean isEmpty() {
        return headers.isEmpty() && path == null && method == null && host == null;
    }

    public Optional<String> pathPrefix() {
        return Optional.ofNullable(path);
    }
}
