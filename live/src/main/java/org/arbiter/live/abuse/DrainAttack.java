package org.arbiter.live.abuse;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;

/**
 * {@code POST /drain} on g1's admin port without credentials, then on g2's with the admin token
 * but a foreign {@code Origin} and {@code Content-Type: text/plain} (what a web page the operator opens can
 * send without a preflight); each attempt meets a gateway no earlier attempt drained, without a
 * restart. After each, an ordinary {@code GET /} to the same gateway. Refused when both are
 * answered 401 or 403 and each gateway still answers the GET. Runs last: on a gateway that is not
 * fixed it ends the process (the ordinary client, on g1, records that; the campaign restarts a
 * gateway that a later run needs).
 */
final class DrainAttack implements Attack {

    private static final double PROBE_AFTER_SECONDS = 1;

    private record Attempt(String name, String gateway, String head) {
    }

    @Override
    public String name() {
        return "admin-drain";
    }

    @Override
    public String what() {
        return "POST /drain without a token (g1), then with the token and Origin: http://evil.example (g2); a GET after each";
    }

    @Override
    public String gateway() {
        return AbuseRig.PLAIN;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings s) throws Exception {
        List<Attempt> attempts = List.of(
                new Attempt("unauthenticated POST /drain refused", target.gateway(),
                        "POST /drain HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n"),
                new Attempt("cross-origin POST /drain refused, even with the token", AbuseRig.TLS,
                        "POST /drain HTTP/1.1\r\nHost: 127.0.0.1\r\nOrigin: http://evil.example\r\n"
                                + "Authorization: Bearer " + target.rig().adminToken() + "\r\n"
                                + "Content-Type: text/plain\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}"));
        Map<String, Integer> statuses = new TreeMap<>();
        List<Verdict> verdicts = new ArrayList<>();
        List<String> details = new ArrayList<>();
        int refused = 0;
        int accepted = 0;
        boolean allRefused = true;
        for (Attempt a : attempts) {
            Target t = target.rig().target(a.gateway());
            int status = RawHttp.once(t.connectAdmin(5), a.head(), 10);
            statuses.merge(status < 0 ? "none" : Integer.toString(status), 1, Integer::sum);
            Thread.sleep((long) (PROBE_AFTER_SECONDS * 1000));
            int probe = t.probe(s.requestTimeoutSeconds());
            boolean alive = t.rig().alive(t.gateway());
            boolean ok = (status == 401 || status == 403) && probe == 200 && alive;
            if (status == 401 || status == 403) {
                refused++;
            } else if (status / 100 == 2) {
                accepted++;
            }
            allRefused &= ok;
            verdicts.add(new Verdict(a.name(), ok, String.format(Locale.ROOT,
                    "%s answered %s; GET / %.1f s later: %s; process %s", t.gateway(), status < 0 ? "nothing" : status,
                    PROBE_AFTER_SECONDS, probe < 0 ? "no answer" : probe, alive ? "running" : "ended")));
            if (!alive) {
                details.add("after '" + a.name() + "': " + t.gateway() + " ended (the campaign restarts it if another run"
                        + " needs it)");
            }
        }
        verdicts.add(0, new Verdict(Verdict.ATTACK_REFUSED, allRefused,
                refused + " of " + attempts.size() + " refused, the gateway serving after each: " + allRefused));
        return new AttackOutcome(attempts.size(), refused, accepted, statuses, List.of(), details, verdicts);
    }
}
