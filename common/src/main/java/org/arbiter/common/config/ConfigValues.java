package org.arbiter.common.config;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Pattern;

/**
 * Values with a shape of their own that several sections read: ids, server URLs and PEM files, each
 * problem recorded with its path.
 *
 * <p>Stateless and thread-safe.
 */
final class ConfigValues {

    private static final Pattern ID = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]*");
    /** The rule of {@link #id}, as the reference table names it. */
    static final String ID_RULE = "letters, digits, `.`, `_`, `-`; unique";

    private ConfigValues() {
    }

    /** A required id: letters, digits, '.', '_' or '-'. Null when absent or bad (recorded). */
    static String id(Node n, String key) {
        if (!n.require(key)) {
            return null;
        }
        String v = n.string(key, null);
        if (v != null && !ID.matcher(v).matches()) {
            n.error(key, v + " (expected: letters, digits, '.', '_' or '-')");
            return null;
        }
        return v;
    }

    /** An {@code http://host:port} or {@code https://host:port} URL; null when absent or bad (recorded). */
    static URI uri(Node n, String key, String text) {
        if (text == null) {
            return null;
        }
        try {
            URI u = new URI(text);
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getHost() == null
                    || u.getPort() < 0) {
                n.error(key, text + " (expected: http://host:port or https://host:port)");
                return null;
            }
            return u;
        } catch (URISyntaxException e) {
            n.error(key, text + " (expected: http://host:port or https://host:port)");
            return null;
        }
    }

    /** A PEM file named by {@code key}: it must exist and be readable. Null when absent (an error if required). */
    static Path pemFile(Node n, String key, boolean required) {
        if (required ? !n.require(key) : !n.has(key)) {
            return null;
        }
        String text = n.string(key, null);
        if (text == null) {
            return null;
        }
        Path p = Path.of(text);
        if (!Files.isRegularFile(p) || !Files.isReadable(p)) {
            n.error(key, text + " (expected: a readable PEM file)");
            return null;
        }
        return p;
    }
}
