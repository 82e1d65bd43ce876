package org.arbiter.gateway.netty;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.regex.Pattern;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import org.junit.jupiter.api.Test;

/**
 * {@link RequestChecks#validAuthority}'s character loops accept exactly what the regular expressions they
 * replaced accepted (the reference below, as it stood before issue 34), on strings built from the characters
 * that matter (brackets, colons, digits, hex, reg-name punctuation, and ones no authority may hold).
 */
final class AuthorityProperties {

    private static final Pattern REG_NAME = Pattern.compile("[A-Za-z0-9._~!$&'()*+,;=%-]*");
    private static final Pattern IPV6_LITERAL = Pattern.compile("\\[[0-9A-Fa-f:.]+\\]");
    private static final Pattern PORT = Pattern.compile("[0-9]{1,5}");

    /** The regular-expression version. */
    static boolean reference(String a) {
        String h = a;
        String port = null;
        if (a.startsWith("[")) {
            int close = a.indexOf(']');
            if (close < 0) {
                return false;
            }
            h = a.substring(0, close + 1);
            if (close + 1 < a.length()) {
                if (a.charAt(close + 1) != ':') {
                    return false;
                }
                port = a.substring(close + 2);
            }
            if (!IPV6_LITERAL.matcher(h).matches()) {
                return false;
            }
        } else {
            int colon = a.indexOf(':');
            if (colon >= 0) {
                h = a.substring(0, colon);
                port = a.substring(colon + 1);
            }
            if (h.isEmpty() || !REG_NAME.matcher(h).matches()) {
                return false;
            }
        }
        return port == null || port.isEmpty() || PORT.matcher(port).matches() && Integer.parseInt(port) <= 65535;
    }

    @Provide
    Arbitrary<String> authorities() {
        return Arbitraries.strings().withChars("[]:.0123456789abcdefABCDEFxyzXYZ-_~!$&'()*+,;=%@/ \t\u00e9\u0100\u2028")
                .ofMinLength(0).ofMaxLength(14);
    }

    @Property(tries = 20_000)
    void theLoopsAcceptWhatTheRegularExpressionsDid(@ForAll("authorities") String a) {
        assertThat(RequestChecks.validAuthority(a)).as("'%s'", a).isEqualTo(reference(a));
    }

    @Test
    void examples() {
        for (String ok : new String[] {"example.com", "example.com:8080", "127.0.0.1", "[::1]", "[::1]:443", "h:",
                "[fe80::1.2.3.4]:65535", "a%20b", "x:00080"}) {
            assertThat(RequestChecks.validAuthority(ok)).as(ok).isTrue();
            assertThat(reference(ok)).as(ok).isTrue();
        }
        for (String bad : new String[] {"", ":80", "[]", "[::1", "[::1]x", "[::g]", "a b", "h:65536", "h:123456",
                "h:1:2", "user@h", "h:-1", "\u00e9.com"}) {
            assertThat(RequestChecks.validAuthority(bad)).as(bad).isFalse();
            assertThat(reference(bad)).as(bad).isFalse();
        }
    }
}
