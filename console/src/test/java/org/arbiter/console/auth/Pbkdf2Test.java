package org.arbiter.console.auth;

import static org.assertj.core.api.Assertions.assertThat;

import java.security.SecureRandom;
import org.junit.jupiter.api.Test;

final class Pbkdf2Test {

    @Test
    void hash_verifiesWithTheSamePasswordOnly() {
        String h = Pbkdf2.hash("secret".toCharArray(), 1_000, new SecureRandom());
        assertThat(h).matches("pbkdf2:1000:[0-9a-f]{32}:[0-9a-f]{64}");
        assertThat(Pbkdf2.verify("secret".toCharArray(), h)).isTrue();
        assertThat(Pbkdf2.verify("Secret".toCharArray(), h)).isFalse();
    }

    @Test
    void hash_matchesAKnownVector() {
        // RFC 7914 §11 PBKDF2-HMAC-SHA256 test vector: P="passwd", S="salt", c=1, dkLen=64 (first 32 bytes here).
        String h = Pbkdf2.hash("passwd".toCharArray(), 1, "salt".getBytes(java.nio.charset.StandardCharsets.US_ASCII));
        assertThat(h).endsWith(":55ac046e56e3089fec1691c22544b605f94185216dde0465e68b9d57c20dacbc");
    }

    @Test
    void malformedHashes_neverVerify_andNeverThrow() {
        for (String bad : new String[] {null, "", "pbkdf2", "pbkdf2:0:00:" + "0".repeat(64), "pbkdf2:10:0:" + "0".repeat(64),
                "sha1:10:00:" + "0".repeat(64), "pbkdf2:10:zz:" + "0".repeat(64), "pbkdf2:99999999999:00:" + "0".repeat(64)}) {
            assertThat(Pbkdf2.verify("x".toCharArray(), bad)).as(String.valueOf(bad)).isFalse();
        }
        assertThat(Pbkdf2.verify(null, Pbkdf2.hash("x".toCharArray(), 1, new byte[4]))).isFalse();
    }
}
