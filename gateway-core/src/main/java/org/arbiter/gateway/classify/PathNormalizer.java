package org.arbiter.gateway.classify;

import static java.util.Objects.requireNonNull;

/*
 * Normalisation of a request path before classification (RFC 3986 §6.2.2), so that a class
 * defined by `match.path: /admin` cannot be escaped by spelling the same resource differently.
 *
 *   1. Percent-encoded unreserved characters (ALPHA DIGIT - . _ ~, §2.3) are decoded; every other
 *      triplet is kept, its hex digits upper-cased (§6.2.2.1). So %61dmin -> admin, %2e -> '.'.
 *      An encoded '/' (%2F), '\' (%5C) or NUL (%00) is refused: a backend that decodes it would
 *      see a different path than the one classified.
 *   2. Path parameters are removed: from a literal ';' to the end of its segment
 *      ("/x/..;/admin" -> "/x/../admin", "/a;jsessionid=1/b" -> "/a/b"), as Tomcat, Jetty and
 *      Spring do before they map a request. An encoded ';' (%3B) is data and stays.
 *   3. Runs of '/' are merged into one ("//admin" -> "/admin").
 *   4. Dot segments are removed with remove_dot_segments (§5.2.4): "/x/../admin" -> "/admin";
 *      a ".." above the root is dropped ("/../admin" -> "/admin").
 *
 * The steps run in this order so that a decoded dot, a parameter or an extra slash cannot survive
 * step 4: "/x/%2e%2e;/admin" -> "/x/..;/admin" -> "/x/../admin" -> "/admin". The gateway forwards
 * this normal form, so the backend maps the path that was classified.
 * The result is idempotent: normalize(normalize(p)) == normalize(p).
 *
 * Refused outright: a path not starting with '/', a '%' not followed by two hex digits, a
 * backslash, a '#', control characters, space and anything outside US-ASCII.
 *
 * Stateless and thread-safe.
 */

/** Normalises request paths before classification. Stateless and thread-safe. */
public final class PathNormalizer {

    private PathNormalizer() {
    }

    /**
     * The normal form of {@code path} (no query string).
     *
     * @throws IllegalArgumentException naming the path and the rule it breaks
     */
    public static String normalize(String path) {
        requireNonNull(path, "path");
        if (path.isEmpty() || path.charAt(0) != '/') {
            throw new IllegalArgumentException("path: " + printable(path) + " (expected: an absolute path starting with /)");
        }
        // 1 + 2 + 3: decode unreserved triplets, upper-case the others, drop parameters, merge slashes
        StringBuilder sb = new StringBuilder(path.length());
        boolean parameter = false;
        for (int i = 0; i < path.length(); i++) {
            char ch = path.charAt(i);
            if (ch == ';') {
                parameter = true;  // to the end of the segment
                continue;
            }
            if (ch == '/') {
                parameter = false;
            }
            if (ch == '%') {
                if (i + 2 >= path.length() || hex(path.charAt(i + 1)) < 0 || hex(path.charAt(i + 2)) < 0) {
                    throw new IllegalArgumentException("path: " + printable(path)
                            + " (expected: '%' followed by two hex digits)");
                }
                int v = hex(path.charAt(i + 1)) * 16 + hex(path.charAt(i + 2));
                i += 2;
                if (v == '/' || v == '\\' || v == 0) {
                    throw new IllegalArgumentException("path: " + printable(path)
                            + " (expected: no encoded '/', '\\' or NUL)");
                }
                if (unreserved(v)) {
                    ch = (char) v;
                } else {
                    if (!parameter) {
                        sb.append('%').append(Character.toUpperCase(path.charAt(i - 1)))
                                .append(Character.toUpperCase(path.charAt(i)));
                    }
                    continue;
                }
            } else if (ch <= 0x20 || ch >= 0x7f || ch == '\\' || ch == '#') {
                throw new IllegalArgumentException("path: " + printable(path)
                        + " (expected: printable US-ASCII without space, '\\' or '#')");
            }
            if (parameter || ch == '/' && sb.length() > 0 && sb.charAt(sb.length() - 1) == '/') {
                continue;
            }
            sb.append(ch);
        }
        return removeDotSegments(sb);
    }

    /** RFC 3986 §5.2.4 on a path that starts with '/' and has no empty segments. */
    private static String removeDotSegments(CharSequence in) {
        String s = in.toString();
        if (s.indexOf('.') < 0) {
            return s;
        }
        // segments between slashes; the path starts with '/' so the first piece is empty
        String[] parts = s.split("/", -1);
        String[] out = new String[parts.length];
        int n = 0;
        for (int i = 1; i < parts.length; i++) {
            String seg = parts[i];
            boolean last = i == parts.length - 1;
            if (seg.equals(".")) {
                if (last) {
                    out[n++] = ""; // "/a/." -> "/a/"
                }
            } else if (seg.equals("..")) {
                if (n > 0) {
                    n--;
                }
                if (last) {
                    out[n++] = ""; // "/a/b/.." -> "/a/"
                }
            } else {
                out[n++] = seg;
            }
        }
        StringBuilder sb = new StringBuilder(s.length());
        for (int i = 0; i < n; i++) {
            sb.append('/').append(out[i]);
        }
        return sb.length() == 0 ? "/" : sb.toString();
    }

    private static boolean unreserved(int c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.'
                || c == '_' || c == '~';
    }

    private static int hex(char c) {
        if (c >= '0' && c <= '9') {
            return c - '0';
        }
        if (c >= 'a' && c <= 'f') {
            return c - 'a' + 10;
        }
        if (c >= 'A' && c <= 'F') {
            return c - 'A' + 10;
        }
        return -1;
    }

    private static String printable(String s) {
        StringBuilder sb = new StringBuilder();
        int max = Math.min(s.length(), 200);
        for (int i = 0; i < max; i++) {
            char c = s.charAt(i);
            if (c < 0x20 || c >= 0x7f) {
                sb.append(String.format("\\x%02x", (int) c & 0xff));
            } else {
                sb.append(c);
            }
        }
        return s.length() > max ? sb + "..." : sb.toString();
    }
}
