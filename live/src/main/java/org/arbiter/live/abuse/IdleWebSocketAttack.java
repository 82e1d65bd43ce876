package org.arbiter.live.abuse;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * N WebSocket upgrades through gateway g3, whose only backend answers 101 and then holds the
 * tunnel; after the 101 the attacker sends nothing. Each tunnel holds a server slot at g3 (32), so
 * the rest wait in the class queue, and so does the ordinary client. Refused when every tunnel (or
 * queued upgrade) is closed by the gateway, or refused, within {@link AbuseSettings#closeBoundSeconds()}
 * of the last one sent (issue 30: {@code dispatch.tunnelIdleTimeout}, which the rig sets to the idle
 * timeout, closes the tunnels; {@code dispatch.tunnelShare}, the default 0.5, answers the upgrades
 * past half of g3's slots 503 at once, so they never queue ahead of the ordinary client).
 */
final class IdleWebSocketAttack implements Attack {

    private static final long STACK_BYTES = 128 * 1024;
    private static final int OPENERS = 4;

    @Override
    public String name() {
        return "idle-websocket";
    }

    @Override
    public String what() {
        return "N WebSocket upgrades through g3 (the backend answers 101 and holds them), then nothing";
    }

    @Override
    public String gateway() {
        return AbuseRig.WS;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings s) throws Exception {
        int n = s.wsTunnels();
        byte[] upgrade = ("GET /ws HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n")
                .getBytes(StandardCharsets.US_ASCII);
        Map<Integer, Integer> statuses = new ConcurrentHashMap<>();
        AtomicInteger closedByGateway = new AtomicInteger();
        AtomicInteger refusedAtConnect = new AtomicInteger();
        List<Socket> sockets = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean closing = new AtomicBoolean();
        ExecutorService openers = Executors.newFixedThreadPool(OPENERS);
        long start = System.nanoTime();
        try {
            for (int i = 0; i < n; i++) {
                openers.execute(() -> {
                    try {
                        Socket c = target.connect(5);
                        sockets.add(c);
                        c.getOutputStream().write(upgrade);
                        c.getOutputStream().flush();
                        Thread t = new Thread(null, () -> watch(c, statuses, closedByGateway, closing), "abuse-ws", STACK_BYTES);
                        t.setDaemon(true);
                        t.start();
                    } catch (IOException e) {
                        refusedAtConnect.incrementAndGet();
                    }
                });
            }
            openers.shutdown();
            openers.awaitTermination(10, TimeUnit.MINUTES);
            double sentSeconds = (System.nanoTime() - start) / 1e9;
            long until = System.nanoTime() + (long) (s.closeBoundSeconds() * 1e9);
            while (System.nanoTime() < until && closedByGateway.get() + refusedAtConnect.get() < n) {
                Thread.sleep(50);
            }
            int closed = closedByGateway.get();
            int upgraded = statuses.getOrDefault(101, 0);
            int answered = statuses.values().stream().mapToInt(Integer::intValue).sum();
            int held = target.rig().backendTunnels();
            Map<String, Integer> byStatus = new TreeMap<>();
            statuses.forEach((k, v) -> byStatus.put(Integer.toString(k), v));
            if (answered < n - refusedAtConnect.get()) {
                byStatus.put("none (queued)", n - refusedAtConnect.get() - answered);
            }
            int refused = closed + refusedAtConnect.get();
            Verdict v = new Verdict(Verdict.ATTACK_REFUSED, refused == n, String.format(Locale.ROOT,
                    "%d of %d closed by the gateway within %.1f s of the last one sent, %d refused at connect; answers %s;"
                            + " the backend holds %d tunnels", closed, n, s.closeBoundSeconds(), refusedAtConnect.get(),
                    byStatus, held));
            return new AttackOutcome(n, refused, Math.max(0, upgraded - closed), byStatus, List.of(),
                    List.of(String.format(Locale.ROOT, "%d upgrades sent in %.1f s; g3 has %d slots for the backend", n,
                            sentSeconds, AbuseRig.WS_SLOTS)), List.of(v));
        } finally {
            openers.shutdownNow();
            synchronized (sockets) {
                closing.set(true);
                for (Socket c : sockets) {
                    try {
                        c.close();
                    } catch (IOException ignored) {
                        // already closed
                    }
                }
            }
        }
    }

    /** Reads the answer's status line, then discards until the gateway closes; counts both. */
    private static void watch(Socket c, Map<Integer, Integer> statuses, AtomicInteger closedByGateway,
                              AtomicBoolean closing) {
        try {
            InputStream in = c.getInputStream();
            StringBuilder line = new StringBuilder();
            int b;
            while ((b = in.read()) >= 0 && b != '\n') {
                line.append((char) b);
            }
            String[] p = line.toString().split(" ", 3);
            if (p.length >= 2 && p[0].startsWith("HTTP/")) {
                statuses.merge(Integer.parseInt(p[1]), 1, Integer::sum);
            }
            byte[] buf = new byte[4096];
            while (b >= 0 && in.read(buf) >= 0) {
                // the rest of the answer, or the tunnel's bytes
            }
        } catch (IOException | RuntimeException e) {
            // reset, or closed by us
        }
        if (!closing.get()) {
            closedByGateway.incrementAndGet();
        }
    }
}
