package org.arbiter.runtime.admin;

import static java.util.Objects.requireNonNull;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;
import io.netty.handler.codec.http.HttpResponseStatus;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.URI;
import java.net.URISyntaxException;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermission;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.EnumSet;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Set;

/**
 * Who may drive an admin port's mutations ({@code POST /drain}, {@code POST /reload}, any later
 * one); reads stay open. A mutation is refused, and nothing is done, when:
 * <ol>
 *   <li>no token file is configured: 403, naming the key to set (the secure default);</li>
 *   <li>it comes from a browser page of another origin: an {@code Origin} header whose
 *       {@code host:port} is not the admin port's own (its bound address, or {@code localhost} on a
 *       loopback port), or {@code Sec-Fetch-Site: cross-site}: 403. A request without {@code Origin}
 *       (curl, systemd, a health checker) passes this check;</li>
 *   <li>it lacks {@code Authorization: Bearer <token>} with the file's token: 401 with
 *       {@code WWW-Authenticate: Bearer}. Tokens are compared by their SHA-256 digests with
 *       {@link MessageDigest#isEqual}, in time independent of where they differ and of the length.</li>
 * </ol>
 *
 * <p>The token file must be owned-only (mode 0600 or 0400: no group or other bit) and hold one
 * token of at least {@value #MIN_TOKEN_CHARS} visible ASCII characters (surrounding white space,
 * such as the trailing newline, is ignored); otherwise {@link #fromFile} refuses it, naming the key, the file and the rule.
 *
 * <p>Immutable and thread-safe.
 */
public final class AdminGuard {

    /** The fewest characters a token may have ({@code openssl rand -hex 32} writes 64). */
    public static final int MIN_TOKEN_CHARS = 16;
    private static final int MAX_FILE_BYTES = 4096;

    /** Why a mutation was refused: the status, a short error tag and a sentence for the operator. */
    public record Refusal(HttpResponseStatus status, String error, String detail) {
        public Refusal {
            requireNonNull(status, "status");
            requireNonNull(error, "error");
            requireNonNull(detail, "detail");
        }

        /** A 401 asks for a bearer token ({@code WWW-Authenticate: Bearer}). */
        public boolean asksForToken() {
            return status.code() == 401;
        }
    }

    private final String key;
    private final byte[] digest; // null: mutations disabled

    private AdminGuard(String key, byte[] digest) {
        this.key = key;
        this.digest = digest;
    }

    /** No token configured: every mutation is refused with 403 naming {@code key}. */
    public static AdminGuard disabled(String key) {
        return new AdminGuard(requireNonNull(key, "key"), null);
    }

    /**
     * Reads the token from {@code file}.
     *
     * @param key the configuration key that names the file, for the messages ({@code gateway.adminTokenFile})
     * @throws IllegalArgumentException when the file cannot be read, is readable by group or others,
     *                                  is empty or holds something that is not one token (the message
     *                                  names the key, the file and the rule; never the file's content)
     */
    public static AdminGuard fromFile(String key, Path file) {
        requireNonNull(key, "key");
        requireNonNull(file, "file");
        String where = key + ": " + file;
        Set<PosixFilePermission> mode;
        byte[] bytes;
        try {
            mode = Files.getPosixFilePermissions(file);
            if (Files.size(file) > MAX_FILE_BYTES) {
                throw new IllegalArgumentException(where + " is " + Files.size(file) + " bytes (expected: one token, at most "
                        + MAX_FILE_BYTES + " bytes)");
            }
            bytes = Files.readAllBytes(file);
        } catch (UnsupportedOperationException e) {
            throw new IllegalArgumentException(where + " (expected: a file on a POSIX file system, whose mode can be checked)", e);
        } catch (IOException e) {
            throw new IllegalArgumentException(where + " cannot be read: " + e.getClass().getSimpleName()
                    + (e.getMessage() == null ? "" : " " + e.getMessage()) + " (expected: a readable file, mode 0600)", e);
        }
        Set<PosixFilePermission> allowed = EnumSet.of(PosixFilePermission.OWNER_READ, PosixFilePermission.OWNER_WRITE);
        if (!allowed.containsAll(mode)) {
            throw new IllegalArgumentException(where + " has mode " + octal(mode)
                    + " (expected: 0600 or 0400, readable by its owner only; chmod 600 " + file + ")");
        }
        String token = new String(bytes, StandardCharsets.US_ASCII).strip();
        if (token.isEmpty()) {
            throw new IllegalArgumentException(where + " is empty (expected: one token of at least " + MIN_TOKEN_CHARS
                    + " characters, e.g. from openssl rand -hex 32)");
        }
        for (int i = 0; i < token.length(); i++) {
            char c = token.charAt(i);
            if (c <= 0x20 || c >= 0x7f) {
                throw new IllegalArgumentException(where + ": character " + i + " is U+" + String.format(Locale.ROOT, "%04X", (int) c)
                        + " (expected: one token of visible ASCII characters, no spaces, then at most a newline)");
            }
        }
        if (token.length() < MIN_TOKEN_CHARS) {
            throw new IllegalArgumentException(where + " holds " + token.length() + " characters (expected: at least "
                    + MIN_TOKEN_CHARS + ", e.g. from openssl rand -hex 32)");
        }
        return new AdminGuard(key, sha256(token.getBytes(StandardCharsets.US_ASCII)));
    }

    /** True when a token is configured (mutations can be allowed). */
    public boolean enabled() {
        return digest != null;
    }

    /**
     * Checks a mutation that arrived on an admin connection whose local address is {@code local}:
     * empty if it may run, else why not.
     */
    public Optional<Refusal> check(HttpRequest req, InetSocketAddress local) {
        if (digest == null) {
            return Optional.of(new Refusal(HttpResponseStatus.FORBIDDEN, "mutationsDisabled",
                    "no admin token is configured; set " + key + " to a file (mode 0600) holding a token to allow "
                            + req.method() + " on the admin port"));
        }
        List<String> origins = req.headers().getAll(HttpHeaderNames.ORIGIN);
        if (origins.size() > 1 || origins.size() == 1 && !ownOrigin(origins.get(0), local)) {
            return Optional.of(new Refusal(HttpResponseStatus.FORBIDDEN, "crossOrigin",
                    "Origin " + shorten(String.join(", ", origins)) + " is not this admin port's own ("
                            + ownOriginText(local) + "); a browser page of another origin may not drive the admin port"));
        }
        String site = req.headers().get("Sec-Fetch-Site");
        if (site != null && site.trim().equalsIgnoreCase("cross-site")) {
            return Optional.of(new Refusal(HttpResponseStatus.FORBIDDEN, "crossOrigin",
                    "Sec-Fetch-Site: cross-site; a browser page of another site may not drive the admin port"));
        }
        List<String> auth = req.headers().getAll(HttpHeaderNames.AUTHORIZATION);
        if (auth.isEmpty()) {
            return Optional.of(new Refusal(HttpResponseStatus.UNAUTHORIZED, "unauthorized",
                    "Authorization: Bearer <token> required (the token in " + key + ")"));
        }
        String presented = auth.size() == 1 ? bearer(auth.get(0)) : null;
        if (presented == null || !MessageDigest.isEqual(digest, sha256(presented.getBytes(StandardCharsets.UTF_8)))) {
            return Optional.of(new Refusal(HttpResponseStatus.UNAUTHORIZED, "unauthorized",
                    "the bearer token is not the one in " + key));
        }
        return Optional.empty();
    }

    /** The token of {@code Bearer <token>} (scheme case-insensitive), or null. */
    private static String bearer(String header) {
        String h = header.trim();
        if (h.length() < 7 || !h.regionMatches(true, 0, "Bearer ", 0, 7)) {
            return null;
        }
        String t = h.substring(7).trim();
        return t.isEmpty() ? null : t;
    }

    /** Whether {@code origin} ({@code scheme://host[:port]}) is the admin port's own. */
    static boolean ownOrigin(String origin, InetSocketAddress local) {
        URI u;
        try {
            u = new URI(origin.trim());
        } catch (URISyntaxException e) {
            return false; // "null", garbage
        }
        if (u.getHost() == null || !"http".equalsIgnoreCase(u.getScheme()) || u.getRawPath() != null && !u.getRawPath().isEmpty()
                || u.getUserInfo() != null) {
            return false;
        }
        int port = u.getPort() == -1 ? 80 : u.getPort();
        if (local == null || port != local.getPort()) {
            return false;
        }
        String host = u.getHost();
        if (host.startsWith("[") && host.endsWith("]")) {
            host = host.substring(1, host.length() - 1);
        }
        InetAddress addr = local.getAddress();
        if (host.equalsIgnoreCase("localhost")) {
            return addr.isLoopbackAddress();
        }
        if (!host.matches("[0-9.]+|[0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*")) {
            return false; // a name: never resolved here (a page's own name may point anywhere)
        }
        try {
            return InetAddress.getByName(host).equals(addr);
        } catch (UnknownHostException e) {
            return false;
        }
    }

    private static String ownOriginText(InetSocketAddress local) {
        if (local == null) {
            return "unknown";
        }
        InetAddress a = local.getAddress();
        String host = a.getHostAddress().contains(":") ? "[" + a.getHostAddress() + "]" : a.getHostAddress();
        return "http://" + host + ":" + local.getPort()
                + (a.isLoopbackAddress() ? " or http://localhost:" + local.getPort() : "");
    }

    private static String shorten(String s) {
        return s.length() <= 80 ? s : s.substring(0, 80) + "…";
    }

    private static String octal(Set<PosixFilePermission> mode) {
        int m = 0;
        for (PosixFilePermission p : mode) {
            m |= 1 << (8 - p.ordinal());
        }
        return String.format(Locale.ROOT, "0%03o", m);
    }

    private static byte[] sha256(byte[] b) {
        try {
            return MessageDigest.getInstance("SHA-256").digest(b);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
