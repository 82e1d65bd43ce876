package org.arbiter.live.abuse;

import static java.util.Objects.requireNonNull;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.URI;
import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLParameters;
import javax.net.ssl.SSLSocket;

/**
 * One gateway of the rig as an attack sees it: its ports, whether its request port speaks TLS, and
 * the rig that runs it (to signal, restart or reconfigure it). Immutable; thread-safe.
 *
 * @param gateway   its id ({@link AbuseRig#PLAIN} or {@link AbuseRig#TLS})
 * @param host      the address it listens on
 * @param port      its request port
 * @param adminPort its admin port
 * @param tls       whether the request port speaks TLS
 * @param rig       the rig that runs it
 */
public record Target(String gateway, String host, int port, int adminPort, boolean tls, AbuseRig rig) {

    public Target {
        requireNonNull(gateway, "gateway");
        requireNonNull(host, "host");
        requireNonNull(rig, "rig");
    }

    /** The URI an ordinary client sends {@code path} to. */
    public URI uri(String path) {
        return URI.create((tls ? "https://" : "http://") + host + ":" + port + path);
    }

    /** A new plain TCP connection to the request port. */
    Socket connect(double timeoutSeconds) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(host, port), (int) (timeoutSeconds * 1000));
        return s;
    }

    /**
     * A new TLS connection to the request port, handshake done, offering {@code alpn} (e.g. "h2")
     * and trusting any certificate (the attacker does not care who answers).
     */
    SSLSocket connectTls(SSLContext attacker, String alpn, double timeoutSeconds) throws IOException {
        Socket plain = connect(timeoutSeconds);
        try {
            SSLSocket s = (SSLSocket) attacker.getSocketFactory().createSocket(plain, host, port, true);
            SSLParameters p = s.getSSLParameters();
            p.setApplicationProtocols(new String[] {alpn});
            s.setSSLParameters(p);
            s.setSoTimeout((int) (timeoutSeconds * 1000));
            s.startHandshake();
            s.setSoTimeout(0);
            return s;
        } catch (IOException | RuntimeException e) {
            plain.close();
            throw e;
        }
    }

    /** A new connection to the admin port. */
    Socket connectAdmin(double timeoutSeconds) throws IOException {
        Socket s = new Socket();
        s.connect(new InetSocketAddress(host, adminPort), (int) (timeoutSeconds * 1000));
        return s;
    }

    /** One ordinary {@code GET /} on a new connection (over TLS where the port speaks it): its status, or -1. */
    int probe(double timeoutSeconds) {
        try {
            Socket s = tls ? connectTls(SelfSignedCert.trustAll(), "http/1.1", timeoutSeconds) : connect(timeoutSeconds);
            return RawHttp.once(s, "GET / HTTP/1.1\r\nHost: " + host + "\r\nConnection: close\r\n\r\n", timeoutSeconds);
        } catch (Exception e) {
            return -1;
        }
    }
}
