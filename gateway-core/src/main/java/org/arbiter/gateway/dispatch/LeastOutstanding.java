package org.arbiter.gateway.dispatch;

import java.util.Arrays;
import org.arbiter.gateway.Balancer;

/**
 * The available server with the smallest inflight(g,s) / N(g,s); ties round-robin after the last
 * choice. Not thread-safe (a cursor); confined to the core's thread.
 */
public final class LeastOutstanding implements Balancer {

    private int cursor;

    @Override
    public int pick(ServerView v, int excluded) {
        int[] capped = v.capped();
        if (capped != null) {
            return pickAmong(v, capped, excluded);
        }
        int n = v.serverCount();
        int best = -1;
        double bestLoad = 0;
        for (int i = 0; i < n; i++) {
            int s = (cursor + i) % n;
            if (s == excluded || !v.available(s)) {
                continue;
            }
            double load = (double) v.inFlight(s) / v.cap(s);
            if (best < 0 || load < bestLoad) {
                best = s;
                bestLoad = load;
            }
        }
        if (best >= 0) {
            cursor = (best + 1) % n;
        }
        return best;
    }

    /**
     * The same choice over the servers with a cap only (no other can be available): the same cyclic
     * order from the cursor, the same strict comparison, so the same server.
     */
    private int pickAmong(ServerView v, int[] capped, int excluded) {
        int n = v.serverCount();
        int m = capped.length;
        int from = Arrays.binarySearch(capped, cursor);
        from = from >= 0 ? from : -from - 1; // the first capped server at or after the cursor
        int best = -1;
        double bestLoad = 0;
        for (int i = 0; i < m; i++) {
            int s = capped[(from + i) % m];
            if (s == excluded || !v.available(s)) {
                continue;
            }
            double load = (double) v.inFlight(s) / v.cap(s);
            if (best < 0 || load < bestLoad) {
                best = s;
                bestLoad = load;
            }
        }
        if (best >= 0) {
            cursor = (best + 1) % n;
        }
        return best;
    }
}
