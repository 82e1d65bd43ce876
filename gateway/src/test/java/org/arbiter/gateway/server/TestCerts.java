package org.arbiter.gateway.server;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.util.concurrent.TimeUnit;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/** Self-signed test certificates made by the {@code openssl} command (EC P-256, PKCS#8 key, SAN localhost and 127.0.0.1). */
final class TestCerts {

    final Path cert;
    final Path key;

    private TestCerts(Path cert, Path key) {
        this.cert = cert;
        this.key = key;
    }

    /** A new certificate for {@code cn} in {@code dir} (files {@code name}.crt / .key). */
    static TestCerts make(Path dir, String name, String cn) throws IOException, InterruptedException {
        Path cert = dir.resolve(name + ".crt");
        Path key = dir.resolve(name + ".key");
        Process p = new ProcessBuilder("openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt",
                "ec_paramgen_curve:prime256v1", "-nodes", "-keyout", key.toString(), "-out", cert.toString(), "-days", "2",
                "-subj", "/CN=" + cn, "-addext", "subjectAltName=DNS:" + cn + ",DNS:localhost,IP:127.0.0.1")
                .redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes());
        if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
            throw new IOException("openssl failed: " + out);
        }
        return new TestCerts(cert, key);
    }

    X509Certificate x509() throws Exception {
        try (var in = Files.newInputStream(cert)) {
            return (X509Certificate) CertificateFactory.getInstance("X.509").generateCertificate(in);
        }
    }

    /** A client SSLContext that trusts this certificate only. */
    SSLContext trusting() throws Exception {
        KeyStore ks = KeyStore.getInstance(KeyStore.getDefaultType());
        ks.load(null, null);
        ks.setCertificateEntry("ca", x509());
        TrustManagerFactory tmf = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        tmf.init(ks);
        SSLContext ctx = SSLContext.getInstance("TLS");
        ctx.init(null, tmf.getTrustManagers(), null);
        return ctx;
    }
}
