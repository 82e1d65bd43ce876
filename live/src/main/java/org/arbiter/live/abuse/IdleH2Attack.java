package org.arbiter.live.abuse;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import javax.net.ssl.SSLContext;

/**
 * N connections that send the HTTP/2 connection preface and then nothing: by prior knowledge on
 * the plain port (h2c) or after negotiating {@code h2} by ALPN on the TLS port. Refused when every
 * one of them is closed by the gateway (or refused at connect) within
 * {@link AbuseSettings#closeBoundSeconds()} of the last one opened.
 */
final class IdleH2Attack implements Attack {

    /** The client connection preface of RFC 9113 §3.4. */
    static final byte[] PREFACE = "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".getBytes(StandardCharsets.US_ASCII);

    /** How the connections reach HTTP/2. */
    enum Transport { H2C, ALPN }

    private static final int OPENERS = 4;

    private final Transport transport;

    IdleH2Attack(Transport transport) {
        this.transport = transport;
    }

    private static void closeQuietly(Socket c) {
        if (c != null) {
            try {
                c.close();
            } catch (IOException ignored) {
                // already closed
            }
        }
    }

    @Override
    public String name() {
        return transport == Transport.H2C ? "idle-h2c" : "idle-h2-alpn";
    }

    @Override
    public String what() {
        return transport == Transport.H2C ? "N connections send the h2c preface (prior knowledge), then nothing"
                : "N TLS connections negotiate h2 by ALPN, send the preface, then nothing";
    }

    @Override
    public String gateway() {
        return transport == Transport.H2C ? AbuseRig.PLAIN : AbuseRig.TLS;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings s) throws Exception {
        SSLContext attacker = transport == Transport.ALPN ? SelfSignedCert.trustAll() : null;
        AtomicInteger refusedAtConnect = new AtomicInteger();
        AtomicReference<String> firstError = new AtomicReference<>("");
        long start = System.nanoTime();
        try (ConnectionWatch watch = new ConnectionWatch()) {
            // A few openers at once: a TLS handshake costs the attacker CPU too.
            ExecutorService openers = Executors.newFixedThreadPool(OPENERS);
            for (int i = 0; i < s.connections(); i++) {
                openers.execute(() -> {
                    Socket c = null;
                    try {
                        c = attacker == null ? target.connect(5) : target.connectTls(attacker, "h2", 5);
                        c.getOutputStream().write(PREFACE);
                        c.getOutputStream().flush();
                        watch.hold(c);
                    } catch (IOException e) {
                        refusedAtConnect.incrementAndGet();
                        firstError.compareAndSet("", e.toString());
                        closeQuietly(c);
                    }
                });
            }
            openers.shutdown();
            if (!openers.awaitTermination(10 * 60, TimeUnit.SECONDS)) {
                openers.shutdownNow();
                throw new IllegalStateException(name() + ": opening " + s.connections() + " connections took over 10 min");
            }
            double openedSeconds = (System.nanoTime() - start) / 1e9;
            watch.awaitClosed(s.closeBoundSeconds());
            int closed = watch.closedByGateway();
            int held = watch.held();
            int open = held - closed;
            int refused = refusedAtConnect.get() + closed;
            Verdict v = new Verdict(Verdict.ATTACK_REFUSED, refused == s.connections(), String.format(Locale.ROOT,
                    "%d of %d closed by the gateway within %.1f s of the last one opened, %d refused at connect, %d still open",
                    closed, s.connections(), s.closeBoundSeconds(), refusedAtConnect.get(), open));
            List<String> details = new ArrayList<>(List.of(String.format(Locale.ROOT,
                    "opened %d in %.1f s", held, openedSeconds)));
            if (!firstError.get().isEmpty()) {
                details.add("first connect error: " + firstError.get());
            }
            return new AttackOutcome(s.connections(), refused, open, Map.of(), List.of(), details, List.of(v));
        }
    }
}
