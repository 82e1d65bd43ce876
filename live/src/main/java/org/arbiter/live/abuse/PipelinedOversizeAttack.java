package org.arbiter.live.abuse;

import java.io.ByteArrayOutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code pipelined} requests written at once on one connection: {@code GET /slow} first (with
 * {@code X-Class: slow}: the backend takes seconds, exponentially distributed), plain {@code GET /}s, and in the middle a {@code POST} whose
 * Content-Length is 20 times the gateway's body limit (its body is never sent). Answers are read
 * off the wire in order. Refused (correctly) when the oversized request's 413 is the answer in its
 * own position: every earlier request was answered before it, so no later answer goes to the wrong
 * request.
 */
final class PipelinedOversizeAttack implements Attack {

    @Override
    public String name() {
        return "pipelined-413";
    }

    @Override
    public String what() {
        return "GET /slow, GETs, an oversized POST in the middle, GETs: pipelined on one connection";
    }

    @Override
    public String gateway() {
        return AbuseRig.PLAIN;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings s) throws Exception {
        int n = s.pipelined();
        int oversized = n / 2;
        ByteArrayOutputStream req = new ByteArrayOutputStream();
        for (int i = 0; i < n; i++) {
            String head;
            if (i == 0) {
                head = "GET /slow HTTP/1.1\r\nHost: 127.0.0.1\r\n" + AbuseRig.SLOW_HEADER + ": slow\r\n\r\n";
            } else if (i == oversized) {
                head = "POST / HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/octet-stream\r\nContent-Length: "
                        + 20 * s.maxBodyBytes() + "\r\n\r\n";
            } else {
                head = "GET / HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
            }
            req.write(head.getBytes(StandardCharsets.US_ASCII));
        }
        List<RawHttp.Answer> answers;
        double timeout = 10 * s.slowDemandSeconds() + 5;
        try (Socket c = target.connect(5)) {
            answers = RawHttp.exchange(c, req.toByteArray(), n, timeout);
        }
        Map<String, Integer> statuses = new TreeMap<>();
        List<String> wire = new ArrayList<>();
        int ok = 0;
        int notOk = 0;
        int first413 = -1;
        for (int i = 0; i < answers.size(); i++) {
            RawHttp.Answer a = answers.get(i);
            statuses.merge(Integer.toString(a.status()), 1, Integer::sum);
            wire.add(a.status() + "@" + a.atMillis() + "ms");
            if (a.status() / 100 == 2) {
                ok++;
            } else {
                notOk++;
            }
            if (a.status() == 413 && first413 < 0) {
                first413 = i;
            }
        }
        if (answers.size() < n) {
            statuses.merge("none", n - answers.size(), Integer::sum);
        }
        String measured = first413 < 0 ? "no 413 among " + answers.size() + " answers"
                : String.format(Locale.ROOT, "the 413 (request %d) came as answer %d%s", oversized + 1, first413 + 1,
                first413 < oversized ? ", before " + (oversized - first413) + " earlier requests' answers" : "");
        Verdict order = new Verdict(Verdict.ATTACK_REFUSED, first413 == oversized, measured);
        List<String> details = List.of(String.format(Locale.ROOT, "%d requests written, %d answers in %.0f s",
                n, answers.size(), timeout));
        return new AttackOutcome(n, notOk, ok, statuses, wire, details, List.of(order));
    }
}
