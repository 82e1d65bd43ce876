package org.arbiter.live.abuse;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

/**
 * C h2c connections × S streams, each a {@code POST} whose body (just under the gateway's body
 * limit) is pushed as fast as the gateway's flow control allows, to the slow class ({@code X-Class:
 * slow}), for at most {@link AbuseSettings#h2SendSeconds()}. Issue 30's criterion for it is the
 * row's memory verdict (peak RSS within the bound) with the ordinary client answered; the attack's
 * own verdict says whether the gateway held the bodies back — refused or reset streams, or kept
 * its flow-control windows closed for {@link #STALL_SECONDS} or more while bodies were left — and
 * still answers an ordinary {@code GET /}, rather than buffering all it was sent.
 */
final class H2BodiesAttack implements Attack {

    /** Windows closed this long while bodies were left count as the gateway holding bodies back. */
    static final double STALL_SECONDS = 1;

    /** The error code's name (RFC 9113 §7). */
    static String resetName(long code) {
        String[] names = {"NO_ERROR", "PROTOCOL_ERROR", "INTERNAL_ERROR", "FLOW_CONTROL_ERROR", "SETTINGS_TIMEOUT",
            "STREAM_CLOSED", "FRAME_SIZE_ERROR", "REFUSED_STREAM", "CANCEL", "COMPRESSION_ERROR", "CONNECT_ERROR",
            "ENHANCE_YOUR_CALM", "INADEQUATE_SECURITY", "HTTP_1_1_REQUIRED"};
        return code >= 0 && code < names.length ? names[(int) code] : Long.toString(code);
    }

    @Override
    public String name() {
        return "h2-bodies";
    }

    @Override
    public String what() {
        return "C h2c connections x S streams x B-byte POST bodies, pushed as fast as flow control allows";
    }

    @Override
    public String gateway() {
        return AbuseRig.PLAIN;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings s) throws Exception {
        int c = s.h2Connections();
        int streams = s.h2Streams();
        long body = s.h2BodyBytes();
        long deadline = System.nanoTime() + (long) (s.h2SendSeconds() * 1e9);
        long start = System.nanoTime();
        List<H2Client> clients = new ArrayList<>();
        ExecutorService pushers = Executors.newFixedThreadPool(c);
        try {
            for (int i = 0; i < c; i++) {
                clients.add(new H2Client(target.connect(5)));
            }
            List<Future<H2Client.Pushed>> sent = new ArrayList<>();
            for (H2Client h : clients) {
                sent.add(pushers.submit(() -> h.pushBodies(streams, body, Map.of(AbuseRig.SLOW_HEADER, "slow"), deadline)));
            }
            long bytes = 0;
            double stall = 0;
            for (Future<H2Client.Pushed> f : sent) {
                H2Client.Pushed p = f.get(); // pushBodies ends by the deadline
                bytes += p.bytes();
                stall = Math.max(stall, p.longestStallSeconds());
            }
            double pushSeconds = (System.nanoTime() - start) / 1e9;
            // Give the answers the slow class's time to come (bounded).
            long until = System.nanoTime() + (long) ((4 * s.slowDemandSeconds() + 2) * 1e9);
            int opened = clients.stream().mapToInt(h -> (int) Math.min(streams, h.maxConcurrentStreams())).sum();
            while (System.nanoTime() < until && clients.stream().mapToInt(H2Client::ended).sum() < opened) {
                Thread.sleep(100);
            }
            Map<String, Integer> statuses = new TreeMap<>();
            int ok = 0;
            int refused = 0;
            int resets = 0;
            for (H2Client h : clients) {
                for (int st : h.answers.values()) {
                    statuses.merge(st == 0 ? "answered (status not indexed)" : Integer.toString(st), 1, Integer::sum);
                    if (st / 100 == 2) {
                        ok++;
                    } else {
                        refused++;
                    }
                }
                resets += h.resets.size();
                for (long code : h.resets.values()) {
                    statuses.merge("RST_STREAM " + resetName(code), 1, Integer::sum);
                }
            }
            refused += resets + (c * streams - opened); // streams beyond the concurrency limit were never opened
            long goaways = clients.stream().filter(H2Client::goaway).count();
            long offered = (long) c * streams * body;
            int probe = target.probe(s.requestTimeoutSeconds());
            boolean heldBack = (refused > 0 || stall >= STALL_SECONDS) && probe == 200;
            Verdict v = new Verdict(Verdict.ATTACK_REFUSED, heldBack, String.format(Locale.ROOT,
                    "the gateway took %d of %d MiB offered in %.1f s, its windows closed for at most %.1f s at a time;"
                            + " streams opened %d of %d, reset %d, answered %s, GOAWAY on %d of %d connections;"
                            + " GET / afterwards: %s", bytes >> 20, offered >> 20, pushSeconds, stall, opened, c * streams,
                    resets, statuses, goaways, c, probe < 0 ? "no answer" : probe));
            return new AttackOutcome(c * streams, refused, ok, statuses, List.of(),
                    List.of(String.format(Locale.ROOT, "%d connections x %d streams x %d-byte bodies, send time at most %.0f s",
                            c, streams, body, s.h2SendSeconds())), List.of(v));
        } finally {
            pushers.shutdownNow();
            pushers.awaitTermination(5, TimeUnit.SECONDS);
            clients.forEach(H2Client::close);
        }
    }
}
