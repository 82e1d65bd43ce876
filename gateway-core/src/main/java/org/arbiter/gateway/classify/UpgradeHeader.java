package org.arbiter.gateway.classify;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Which protocols of a request's {@code Upgrade} header may be passed to a backend. The header is a
 * comma-separated list (RFC 9110 §7.8: {@code protocol-name ["/" protocol-version]}, tokens), in the
 * client's order of preference. HTTP/2 ({@code h2c}, and {@code h2}, which has no upgrade) is the
 * gateway's own protocol — its streams are classified one by one — so it is never passed through:
 * {@code Upgrade: websocket, h2c} passes {@code websocket}, and {@code Upgrade: h2c} nothing. A
 * list with an element that is not a token, or with nothing left, is no upgrade at all.
 *
 * <p>Stateless and thread-safe.
 */
public final class UpgradeHeader {

    private UpgradeHeader() {
    }

    /**
     * The protocols of {@code upgrade} a backend may be asked for, joined with ", ", or null when
     * there are none (the request is then forwarded as an ordinary one, its {@code Upgrade} removed).
     */
    public static String passThrough(String upgrade) {
        if (upgrade == null) {
            return null;
        }
        List<String> out = new ArrayList<>();
        for (String element : upgrade.split(",", -1)) {
            String p = element.trim();
            if (p.isEmpty()) {
                continue;  // RFC 9110 §5.6.1: empty list elements are ignored
            }
            int slash = p.indexOf('/');
            String name = slash < 0 ? p : p.substring(0, slash);
            String version = slash < 0 ? null : p.substring(slash + 1);
            if (!token(name) || version != null && !token(version)) {
                return null;
            }
            String lower = name.toLowerCase(Locale.ROOT);
            if (!lower.equals("h2c") && !lower.equals("h2")) {
                out.add(p);
            }
        }
        return out.isEmpty() ? null : String.join(", ", out);
    }

    /** RFC 9110 §5.6.2 token: one or more tchar. */
    private static boolean token(String s) {
        if (s.isEmpty()) {
            return false;
        }
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            boolean tchar = c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
                    || "!#$%&'*+-.^_`|~".indexOf(c) >= 0;
            if (!tchar) {
                return false;
            }
        }
        return true;
    }
}
