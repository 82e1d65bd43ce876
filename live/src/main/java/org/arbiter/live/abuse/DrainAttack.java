package org.arbiter.live.abuse;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code POST /drain} on the admin port without credentials, then the same with a foreign
 * {@code Origin} and {@code Content-Type: text/plain} (what a web page the operator opens can
 * send without a preflight). After each, an ordinary {@code GET /}: a drain that succeeds ends
 * the gateway, which the rig then starts again so the second attempt meets a running gateway.
 * Refused when both are answered 401 or 403 and the gateway answers the GET after each. Runs last:
 * on a gateway that is not fixed it ends the process.
 */
final class DrainAttack implements Attack {

    private static final double PROBE_AFTER_SECONDS = 1.5;

    private record Attempt(String name, String head) {
    }

    @Override
    public String name() {
        return "admin-drain";
    }

    @Override
    public String what() {
        return "POST /drain without a token, then with Origin: http://evil.example; a GET after each";
    }

    @Override
    public String gateway() {
        return AbuseRig.PLAIN;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings s) throws Exception {
        List<Attempt> attempts = List.of(
                new Attempt("unauthenticated POST /drain refused",
                        "POST /drain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
                new Attempt("cross-origin POST /drain refused",
                        "POST /drain HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n"
                                + "Content-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"));
        Map<String, Integer> statuses = new TreeMap<>();
        List<Verdict> verdicts = new ArrayList<>();
        List<String> details = new ArrayList<>();
        int refused = 0;
        int accepted = 0;
        boolean allRefused = true;
        for (Attempt a : attempts) {
            int status = RawHttp.once(target.connectAdmin(5), a.head(), 10);
            statuses.merge(status < 0 ? "none" : Integer.toString(status), 1, Integer::sum);
            Thread.sleep((long) (PROBE_AFTER_SECONDS * 1000));
            int probe = target.probe(s.requestTimeoutSeconds());
            boolean alive = target.rig().alive(target.gateway());
            boolean ok = (status == 401 || status == 403) && probe == 200 && alive;
            if (status == 401 || status == 403) {
                refused++;
            } else if (status / 100 == 2) {
                accepted++;
            }
            allRefused &= ok;
            verdicts.add(new Verdict(a.name(), ok, String.format(Locale.ROOT,
                    "answered %s; GET / %.1f s later: %s; process %s", status < 0 ? "nothing" : status, PROBE_AFTER_SECONDS,
                    probe < 0 ? "no answer" : probe, alive ? "running" : "ended")));
            if (!alive || probe != 200) {
                target.rig().restart(target.gateway());
                details.add("after '" + a.name() + "': gateway restarted by the rig");
            }
        }
        verdicts.add(0, new Verdict(Verdict.ATTACK_REFUSED, allRefused,
                refused + " of " + attempts.size() + " refused, the gateway serving after each: " + allRefused));
        return new AttackOutcome(attempts.size(), refused, accepted, statuses, List.of(), details, verdicts);
    }
}
