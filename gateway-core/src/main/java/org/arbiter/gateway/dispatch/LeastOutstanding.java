package org.arbiter.gateway.dispatch;

import java.util.Arrays;
import org.arbiter.gateway.Balancer;

/**
 * The available server with the smallest inflight(g,s) / N(g,s); ties round-robin after the last
 * choice. Not thread-safe (a cursor); confined to the core's thread.
 *
 * <p>The candidates are the servers in cyclic order from the cursor; when the view keeps the list of
 * servers with a cap above 0 ({@link ServerView#capped()}) only those, in the same cyclic order (no
 * other can be available), so the choice is the same and a pick costs the capped servers, not all. The
 * scan stops at the first idle server (load 0: none after it can be less loaded, and a tie goes to the
 * first), so on a lightly loaded gateway a pick costs a few servers.
 */
public final class LeastOutstanding implements Balancer {

    private int cursor;

    @Override
    public int pick(ServerView v, int excluded) {
        int n = v.serverCount();
        int[] capped = v.capped();
        int m = capped == null ? n : capped.length;
        int from = 0;
        if (capped != null) {
            from = Arrays.binarySearch(capped, cursor);
            from = from >= 0 ? from : -from - 1; // the first capped server at or after the cursor
        }
        int best = -1;
        double bestLoad = 0;
        for (int i = 0; i < m; i++) {
            int s = capped == null ? (cursor + i) % n : capped[(from + i) % m];
            if (s == excluded || !v.available(s)) {
                continue;
            }
            int inFlight = v.inFlight(s);
            if (inFlight == 0) {
                best = s; // an idle server: no later one can be less loaded, and ties go to the first
                break;
            }
            double load = (double) inFlight / v.cap(s);
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
