package org.arbiter.common.config;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;
import java.util.regex.Pattern;

/**
 * An IPv4 or IPv6 address block ({@code 10.0.0.0/8}, {@code fd00::/8}; a bare address is a /32 or
 * /128). Parsing never resolves a name: only address literals are accepted. An IPv4-mapped IPv6
 * address ({@code ::ffff:10.1.2.3}) matches an IPv4 block. Immutable and thread-safe.
 *
 * @param address      the network address (host bits cleared)
 * @param prefixLength the number of leading bits that must match
 */
public record Cidr(InetAddress address, int prefixLength) {

    private static final Pattern IPV4 = Pattern.compile("(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})\\.(\\d{1,3})");
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:.]+");

    public Cidr {
        requireNonNull(address, "address");
        int bits = address.getAddress().length * 8;
        if (prefixLength < 0 || prefixLength > bits) {
            throw new IllegalArgumentException("prefixLength: " + prefixLength + " (expected: 0.." + bits + ")");
        }
    }

    /**
     * Parses {@code address[/prefix]}.
     *
     * @throws IllegalArgumentException naming the text and the rule
     */
    public static Cidr parse(String text) {
        requireNonNull(text, "text");
        String t = text.trim();
        int slash = t.indexOf('/');
        String addr = slash < 0 ? t : t.substring(0, slash);
        byte[] bytes = literal(addr);
        if (bytes == null) {
            throw new IllegalArgumentException(text + " (expected: an IPv4 or IPv6 address, optionally /prefix, "
                    + "e.g. 10.0.0.0/8 or fd00::/8)");
        }
        int bits = bytes.length * 8;
        int prefix = bits;
        if (slash >= 0) {
            String p = t.substring(slash + 1);
            if (!p.matches("\\d{1,3}") || Integer.parseInt(p) > bits) {
                throw new IllegalArgumentException(text + " (expected: a prefix length 0.." + bits + " after /)");
            }
            prefix = Integer.parseInt(p);
        }
        for (int i = 0; i < bytes.length; i++) {
            int keep = Math.max(0, Math.min(8, prefix - i * 8));
            bytes[i] &= (byte) (0xff00 >>> keep);
        }
        try {
            return new Cidr(InetAddress.getByAddress(bytes), prefix);
        } catch (UnknownHostException e) {
            throw new IllegalArgumentException(text + " (expected: an IP address)", e);
        }
    }

    private static byte[] literal(String s) {
        var m4 = IPV4.matcher(s);
        if (m4.matches()) {
            byte[] b = new byte[4];
            for (int i = 0; i < 4; i++) {
                int v = Integer.parseInt(m4.group(i + 1));
                if (v > 255) {
                    return null;
                }
                b[i] = (byte) v;
            }
            return b;
        }
        String unbracketed = s.startsWith("[") && s.endsWith("]") ? s.substring(1, s.length() - 1) : s;
        if (unbracketed.indexOf(':') < 0 || !IPV6.matcher(unbracketed).matches()) {
            return null;
        }
        try {
            // a string with ':' and only hex digits, dots and colons is parsed as a literal: no lookup
            byte[] b = InetAddress.getByName(unbracketed).getAddress();
            return b.length == 16 ? b : null;
        } catch (UnknownHostException e) {
            return null;
        }
    }

    /** True when {@code a} lies in this block. */
    public boolean contains(InetAddress a) {
        return contains(a.getAddress());
    }

    /**
     * True when the raw address {@code raw} ({@link InetAddress#getAddress()}: 4 bytes for IPv4,
     * 16 for IPv6, an IPv4-mapped IPv6 address counting as its IPv4 address) lies in this block.
     */
    public boolean contains(byte[] raw) {
        byte[] b = raw;
        byte[] net = address.getAddress();
        if (b.length == 16 && net.length == 4 && isV4Mapped(b)) {
            b = Arrays.copyOfRange(b, 12, 16);
        }
        if (b.length != net.length) {
            return false;
        }
        int full = prefixLength / 8;
        for (int i = 0; i < full; i++) {
            if (b[i] != net[i]) {
                return false;
            }
        }
        int rest = prefixLength % 8;
        if (rest == 0) {
            return true;
        }
        int mask = 0xff00 >>> rest & 0xff;
        return (b[full] & mask) == (net[full] & mask);
    }

    private static boolean isV4Mapped(byte[] b) {
        for (int i = 0; i < 10; i++) {
            if (b[i] != 0) {
                return false;
            }
        }
        return b[10] == (byte) 0xff && b[11] == (byte) 0xff;
    }

    @Override
    public String toString() {
        return address.getHostAddress() + "/" + prefixLength;
    }
}
