package org.arbiter.live.abuse;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * A flood of {@code POST /reload} on the admin port without credentials, from four connections at
 * a time, each request on its own connection. Refused when every one is answered 401 (issue 30:
 * mutations need the admin token) and the gateway's log shows no configuration applied; the
 * ordinary client's column says whether the flood hurt the data port.
 */
final class ReloadFloodAttack implements Attack {

    private static final int PARALLEL = 4;
    private static final double TIMEOUT_SECONDS = 15;

    @Override
    public String name() {
        return "reload-flood";
    }

    @Override
    public String what() {
        return "N POST /reload on the admin port, no token, 4 at a time";
    }

    @Override
    public String gateway() {
        return AbuseRig.PLAIN;
    }

    @Override
    public AttackOutcome run(Target target, AbuseSettings s) throws Exception {
        String head = "POST /reload HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n";
        long mark = GatewayLog.mark(target.rig().log(target.gateway()));
        ExecutorService pool = Executors.newFixedThreadPool(PARALLEL);
        long start = System.nanoTime();
        List<Future<long[]>> sent = new ArrayList<>();
        try {
            for (int i = 0; i < s.reloads(); i++) {
                sent.add(pool.submit(() -> {
                    long t = System.nanoTime();
                    int status = RawHttp.once(target.connectAdmin(5), head, TIMEOUT_SECONDS);
                    return new long[] {status, (System.nanoTime() - t) / 1_000_000};
                }));
            }
            Map<String, Integer> statuses = new TreeMap<>();
            long slowest = 0;
            int refused = 0;
            int accepted = 0;
            for (Future<long[]> f : sent) {
                long[] r;
                try {
                    r = f.get();
                } catch (ExecutionException e) {
                    r = new long[] {-1, 0}; // could not connect
                }
                int status = (int) r[0];
                slowest = Math.max(slowest, r[1]);
                statuses.merge(status < 0 ? "none" : Integer.toString(status), 1, Integer::sum);
                if (status == 401 || status == 403) {
                    refused++;
                } else if (status / 100 == 2) {
                    accepted++;
                }
            }
            double seconds = (System.nanoTime() - start) / 1e9;
            int unauthorized = statuses.getOrDefault("401", 0);
            int applied = GatewayLog.appliedSince(target.rig().log(target.gateway()), mark);
            Verdict v = new Verdict(Verdict.ATTACK_REFUSED, unauthorized == s.reloads() && applied == 0,
                    String.format(Locale.ROOT, "%d of %d answered 401; answers %s; configurations applied (gateway log): %d",
                            unauthorized, s.reloads(), statuses, applied));
            return new AttackOutcome(s.reloads(), refused, accepted, statuses, List.of(),
                    List.of(String.format(Locale.ROOT, "%d requests in %.1f s, slowest answer %d ms", s.reloads(), seconds,
                            slowest)), List.of(v));
        } finally {
            pool.shutdownNow();
        }
    }
}
