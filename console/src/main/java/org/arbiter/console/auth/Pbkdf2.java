package org.arbiter.console.auth;

import static java.util.Objects.requireNonNull;

import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import javax.crypto.SecretKeyFactory;
import javax.crypto.spec.PBEKeySpec;

/**
 * Password hashes as stored in {@code cluster.yaml}: {@code pbkdf2:<iterations>:<salt hex>:<hash hex>},
 * PBKDF2 with HMAC-SHA-256 ({@code javax.crypto}'s {@code PBKDF2WithHmacSHA256}); the derived key
 * is as long as the stored hash. Verification compares in constant time.
 *
 * <p>Stateless and thread-safe.
 */
public final class Pbkdf2 {

    /** Iterations {@code arbiter console hash-password} uses (OWASP's 2023 figure for PBKDF2-HMAC-SHA256). */
    public static final int DEFAULT_ITERATIONS = 600_000;

    private static final Pattern FORMAT = Pattern.compile("pbkdf2:([0-9]{1,9}):([0-9a-fA-F]{2,256}):([0-9a-fA-F]{32,256})");
    private static final int SALT_BYTES = 16;
    private static final int KEY_BYTES = 32;
    private static final HexFormat HEX = HexFormat.of();

    private Pbkdf2() {
    }

    /** Hashes {@code password} with a fresh random salt. */
    public static String hash(char[] password, int iterations, SecureRandom random) {
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        return hash(password, iterations, salt);
    }

    /** Hashes {@code password} with the given salt (tests, and the constant-time dummy check). */
    public static String hash(char[] password, int iterations, byte[] salt) {
        requireNonNull(password, "password");
        if (iterations < 1) {
            throw new IllegalArgumentException("iterations: " + iterations + " (expected: >= 1)");
        }
        return "pbkdf2:" + iterations + ":" + HEX.formatHex(salt) + ":" + HEX.formatHex(derive(password, salt, iterations, KEY_BYTES));
    }

    /** True when {@code encoded} is well formed. */
    public static boolean isWellFormed(String encoded) {
        return encoded != null && FORMAT.matcher(encoded).matches() && hexEven(encoded);
    }

    /**
     * True when {@code password} hashes to {@code encoded}; false for a wrong password or a
     * malformed hash. Never throws on bad input.
     */
    public static boolean verify(char[] password, String encoded) {
        if (password == null || !isWellFormed(encoded)) {
            return false;
        }
        Matcher m = FORMAT.matcher(encoded);
        if (!m.matches()) {
            return false;
        }
        int iterations = Integer.parseInt(m.group(1));
        if (iterations < 1) {
            return false;
        }
        byte[] salt = HEX.parseHex(m.group(2));
        byte[] expected = HEX.parseHex(m.group(3));
        byte[] actual = derive(password, salt, iterations, expected.length);
        return MessageDigest.isEqual(expected, actual);
    }

    /** The iteration count of a well-formed hash, or {@code fallback}. */
    static int iterationsOf(String encoded, int fallback) {
        if (!isWellFormed(encoded)) {
            return fallback;
        }
        Matcher m = FORMAT.matcher(encoded);
        return m.matches() ? Integer.parseInt(m.group(1)) : fallback;
    }

    private static boolean hexEven(String encoded) {
        String[] parts = encoded.split(":");
        return parts[2].length() % 2 == 0 && parts[3].length() % 2 == 0;
    }

    private static byte[] derive(char[] password, byte[] salt, int iterations, int keyBytes) {
        PBEKeySpec spec = new PBEKeySpec(password, salt, iterations, keyBytes * 8);
        try {
            return SecretKeyFactory.getInstance("PBKDF2WithHmacSHA256").generateSecret(spec).getEncoded();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("PBKDF2WithHmacSHA256 unavailable", e);
        } finally {
            spec.clearPassword();
        }
    }
}
