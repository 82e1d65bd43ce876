package org.arbiter.console.auth;

import static java.util.Objects.requireNonNull;

import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.arbiter.common.config.Cidr;

/**
 * Who is on the other end of a console request, behind a reverse proxy or not ({@code
 * console.trustedProxies}).
 *
 * <p>From a peer that is not a trusted proxy, the client is the peer and nothing it says about
 * itself is believed. From a trusted proxy, the client is the right-most address of
 * {@code X-Forwarded-For} (all its lines, in order, as one comma-separated list) that is not itself
 * a trusted proxy: each trusted hop appended the address it saw, so that one was seen by a proxy
 * the operator trusts, while anything to its left is the client's own claim. If every hop is
 * trusted, the left-most one is the client; without the header, or when the hop to be read is not
 * an IP literal, the last trusted address read is (the proxy itself, which is never a key shared
 * by clients other than its own).
 *
 * <p>The request is secure (the session cookie gets {@code Secure}) when the connection to the
 * console is TLS, or when a trusted proxy's {@code X-Forwarded-Proto} says {@code https} (its
 * right-most element: the one that proxy wrote). Pure; stateless and thread-safe.
 *
 * @param address the client's address, as the login throttle keys and the log show it
 * @param secure  whether the client reached the console over TLS
 */
public record ClientAddress(String address, boolean secure) {

    public ClientAddress {
        requireNonNull(address, "address");
    }

    /**
     * @param peer           the TCP peer
     * @param peerTls        the connection to the console is TLS
     * @param forwardedFor   the values of every {@code X-Forwarded-For} line, in order (empty when none)
     * @param forwardedProto the values of every {@code X-Forwarded-Proto} line, in order
     * @param trustedProxies {@code console.trustedProxies}
     */
    public static ClientAddress of(InetAddress peer, boolean peerTls, List<String> forwardedFor,
                                   List<String> forwardedProto, List<Cidr> trustedProxies) {
        requireNonNull(peer, "peer");
        if (!trusted(peer, trustedProxies)) {
            return new ClientAddress(peer.getHostAddress(), peerTls);
        }
        List<String> hops = elements(forwardedFor);
        InetAddress client = peer;
        for (int i = hops.size() - 1; i >= 0; i--) {
            InetAddress hop = literal(hops.get(i));
            if (hop == null) {
                break;
            }
            client = hop;
            if (!trusted(hop, trustedProxies)) {
                break;
            }
        }
        List<String> protos = elements(forwardedProto);
        boolean https = !protos.isEmpty() && protos.get(protos.size() - 1).toLowerCase(Locale.ROOT).equals("https");
        return new ClientAddress(client.getHostAddress(), peerTls || https);
    }

    private static boolean trusted(InetAddress a, List<Cidr> trustedProxies) {
        for (Cidr c : trustedProxies) {
            if (c.contains(a)) {
                return true;
            }
        }
        return false;
    }

    private static List<String> elements(List<String> lines) {
        List<String> out = new ArrayList<>();
        for (String line : lines) {
            for (String e : line.split(",", -1)) {
                if (!e.isBlank()) {
                    out.add(e.trim());
                }
            }
        }
        return out;
    }

    /** An IPv4 or IPv6 literal (IPv6 possibly in brackets), never a name lookup; null otherwise. */
    static InetAddress literal(String text) {
        String t = text.startsWith("[") && text.endsWith("]") ? text.substring(1, text.length() - 1) : text;
        if (t.isEmpty() || t.length() > 45 || !t.matches("[0-9A-Fa-f:.]+") || !(t.indexOf(':') >= 0 || t.matches("[0-9.]+"))) {
            return null;
        }
        try {
            return Cidr.parse(t).address();
        } catch (IllegalArgumentException e) {
            return null;
        }
    }
}
