package org.arbiter.runtime.admin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpMethod;
import io.netty.handler.codec.http.HttpVersion;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The token file's rules and each mutation verdict (AdminAuthSocketTest in the gateway drives them on sockets). */
final class AdminGuardTest {

    private static final String KEY = "gateway.adminTokenFile";
    private static final String TOKEN = "0123456789abcdef0123456789abcdef";
    private static final InetSocketAddress LOCAL = new InetSocketAddress("127.0.0.1", 8180);

    @TempDir
    Path dir;

    private Path file(String content, String mode) throws Exception {
        Path f = dir.resolve("token-" + mode);
        Files.writeString(f, content, StandardCharsets.US_ASCII);
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString(mode));
        return f;
    }

    private static FullHttpRequest post(String... headers) {
        FullHttpRequest r = new DefaultFullHttpRequest(HttpVersion.HTTP_1_1, HttpMethod.POST, "/drain");
        for (int i = 0; i < headers.length; i += 2) {
            r.headers().add(headers[i], headers[i + 1]);
        }
        return r;
    }

    private static Optional<String> verdict(AdminGuard g, FullHttpRequest r) {
        try {
            return g.check(r, LOCAL).map(x -> x.status().code() + " " + x.error());
        } finally {
            r.release();
        }
    }

    @Test
    void theTokenFile_mustBeOwnerOnly_nonEmpty_andOneToken() throws Exception {
        assertThat(AdminGuard.fromFile(KEY, file(TOKEN + "\n", "rw-------")).enabled()).isTrue();
        assertThat(AdminGuard.fromFile(KEY, file(TOKEN, "r--------")).enabled()).isTrue();
        Path groupReadable = file(TOKEN, "rw-r-----");
        assertThatThrownBy(() -> AdminGuard.fromFile(KEY, groupReadable)).isInstanceOf(IllegalArgumentException.class)
                .hasMessage(KEY + ": " + groupReadable + " has mode 0640 (expected: 0600 or 0400, readable by its owner only; chmod 600 "
                        + groupReadable + ")");
        assertThatThrownBy(() -> AdminGuard.fromFile(KEY, file(TOKEN, "rw-rw-rw-")))
                .hasMessageContaining("has mode 0666 (expected: 0600 or 0400");
        assertThatThrownBy(() -> AdminGuard.fromFile(KEY, file("\n", "rw-------")))
                .hasMessageContaining("is empty (expected: one token");
        assertThatThrownBy(() -> AdminGuard.fromFile(KEY, file("short", "rw-------")))
                .hasMessageContaining("holds 5 characters (expected: at least 16");
        assertThatThrownBy(() -> AdminGuard.fromFile(KEY, file(TOKEN + " second", "rw-------")))
                .hasMessageContaining("character 32 is U+0020").satisfies(e -> assertThat(e.getMessage()).doesNotContain(TOKEN));
        assertThatThrownBy(() -> AdminGuard.fromFile(KEY, dir.resolve("absent")))
                .hasMessageContaining(KEY + ": " + dir.resolve("absent") + " cannot be read: NoSuchFileException");
    }

    @Test
    void withoutATokenFile_mutationsAreRefused403_namingTheKey() {
        AdminGuard g = AdminGuard.disabled(KEY);
        FullHttpRequest r = post("Authorization", "Bearer " + TOKEN);
        try {
            AdminGuard.Refusal no = g.check(r, LOCAL).orElseThrow();
            assertThat(no.status().code()).isEqualTo(403);
            assertThat(no.detail()).contains("set " + KEY);
        } finally {
            r.release();
        }
    }

    @Test
    void eachVerdict() throws Exception {
        AdminGuard g = AdminGuard.fromFile(KEY, file(TOKEN + "\n", "rw-------"));
        assertThat(verdict(g, post())).hasValue("401 unauthorized");
        assertThat(verdict(g, post("Authorization", "Bearer " + TOKEN + "x"))).hasValue("401 unauthorized");
        assertThat(verdict(g, post("Authorization", "Bearer " + TOKEN.substring(1)))).hasValue("401 unauthorized");
        assertThat(verdict(g, post("Authorization", "Basic " + TOKEN))).hasValue("401 unauthorized");
        assertThat(verdict(g, post("Authorization", "Bearer " + TOKEN, "Authorization", "Bearer " + TOKEN)))
                .hasValue("401 unauthorized");
        assertThat(verdict(g, post("Authorization", "Bearer " + TOKEN))).isEmpty();
        assertThat(verdict(g, post("Authorization", "bearer  " + TOKEN))).isEmpty();
        // browsers: only the admin port's own origin
        String auth = "Bearer " + TOKEN;
        assertThat(verdict(g, post("Authorization", auth, "Origin", "http://127.0.0.1:8180"))).isEmpty();
        assertThat(verdict(g, post("Authorization", auth, "Origin", "http://localhost:8180"))).isEmpty();
        assertThat(verdict(g, post("Authorization", auth, "Origin", "http://evil.example"))).hasValue("403 crossOrigin");
        assertThat(verdict(g, post("Authorization", auth, "Origin", "http://evil.example:8180")))
                .as("a page's own name, even if it resolves here (DNS rebinding)").hasValue("403 crossOrigin");
        assertThat(verdict(g, post("Authorization", auth, "Origin", "http://127.0.0.1:8080"))).hasValue("403 crossOrigin");
        assertThat(verdict(g, post("Authorization", auth, "Origin", "https://127.0.0.1:8180"))).hasValue("403 crossOrigin");
        assertThat(verdict(g, post("Authorization", auth, "Origin", "null"))).hasValue("403 crossOrigin");
        assertThat(verdict(g, post("Authorization", auth, "Sec-Fetch-Site", "cross-site"))).hasValue("403 crossOrigin");
        assertThat(verdict(g, post("Authorization", auth, "Sec-Fetch-Site", "same-origin"))).isEmpty();
        assertThat(verdict(g, post("Origin", "http://evil.example"))).as("cross-origin before the token").hasValue("403 crossOrigin");
    }

    @Test
    void ownOrigin_onAnIpv6Port() {
        InetSocketAddress v6 = new InetSocketAddress("::1", 9190);
        assertThat(AdminGuard.ownOrigin("http://[::1]:9190", v6)).isTrue();
        assertThat(AdminGuard.ownOrigin("http://localhost:9190", v6)).isTrue();
        assertThat(AdminGuard.ownOrigin("http://[::2]:9190", v6)).isFalse();
        assertThat(AdminGuard.ownOrigin("http://127.0.0.1:9190/path", LOCAL)).isFalse();
    }
}
