package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.util.Map;
import java.util.Optional;

/**
 * A classification rule (003 §III-A): every condition given must hold. Header values match
 * exactly, or as a Java regular expression when written {@code "regex:..."}; {@code path} is a
 * prefix; {@code method} and {@code host} compare case-insensitively (host without port);
 * {@code source} is the block the client's address must lie in (the address a PROXY protocol header
 * carried, else the TCP peer's). An empty rule matches nothing on its own: a class without a rule is
 * reached only as the default.
 *
 * @param source          the client's address block, or null for any client
 * @param caseInsensitive compare {@code path} ignoring ASCII case ({@code /ADMIN} matches {@code /admin}),
 *                        for backends that serve paths case-insensitively
 */
public record MatchRule(Map<String, String> headers, String path, String method, String host, Cidr source,
                        boolean caseInsensitive) {

    public static final MatchRule NONE = new MatchRule(Map.of(), null, null, null, null);

    public MatchRule {
        headers = Map.copyOf(requireNonNull(headers, "headers"));
    }

    /** A rule whose path compares case-sensitively. */
    public MatchRule(Map<String, String> headers, String path, String method, String host, Cidr source) {
        this(headers, path, method, host, source, false);
    }

    /** A rule without a source condition. */
    public MatchRule(Map<String, String> headers, String path, String method, String host) {
        this(headers, path, method, host, null);
    }

    /** True when the rule has no condition at all. */
    public boolean isEmpty() {
        return headers.isEmpty() && path == null && method == null && host == null && source == null;
    }

    public Optional<String> pathPrefix() {
        return Optional.ofNullable(path);
    }
}
