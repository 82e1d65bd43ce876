package org.arbiter.live.abuse;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManager;
import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

/**
 * A self-signed certificate for the TLS gateway, made by the {@code openssl} command as the
 * gateway's TLS tests make theirs (EC P-256, PKCS#8 key, SAN localhost and 127.0.0.1). Immutable.
 *
 * @param cert the PEM certificate
 * @param key  its PEM private key
 */
record SelfSignedCert(Path cert, Path key) {

    /** A new certificate in {@code dir} (files {@code gateway.crt}, {@code gateway.key}). */
    static SelfSignedCert make(Path dir) throws IOException, InterruptedException {
        Path cert = dir.resolve("gateway.crt");
        Path key = dir.resolve("gateway.key");
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.toString(), "-out", cert.toString(), "-days", "2",
                "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost,IP:127.0.0.1")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("openssl req failed: " + out);
        }
        return new SelfSignedCert(cert, key);
    }

    /** A client context that trusts this certificate only (the ordinary client's). */
    SSLContext trusting() throws Exception {
        X509Certificate x509;
        try (var in = Files.newInputStream(cert)) {
            x509 = (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        ks.setCertificateEntry("gateway", x509);
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }

    /** A context that accepts any certificate: the attacker's, never an ordinary client's. */
    static SSLContext trustAll() throws Exception {
        TrustManager any = new X509TrustManager() {
            @Override
            public void checkClientTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public void checkServerTrusted(X509Certificate[] chain, String authType) {
            }

            @Override
            public X509Certificate[] getAcceptedIssuers() {
                return new X509Certificate[0];
            }
        };
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, new TrustManager[] {any}, null);
        return ctx;
    }
}
