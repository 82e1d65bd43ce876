package org.arbiter.gateway.dispatch;

import static java.util.Objects.requireNonNull;

import java.util.random.RandomGenerator;
import org.arbiter.gateway.Balancer;

/**
 * Random polling (002 §3): sample d distinct servers among those with a free slot that are not
 * skipped for missing their polls, uniformly, and send to the one with the smallest load / N(g,s),
 * where the load is the server's own answer to its latest poll (active + queued, plus what this
 * gateway sent it since; {@code servers[].loadUrl}) when a fresh one is in, else inflight(g,s).
 * Each sampled server is asked to be polled ({@link ServerView#wantPoll}); the adapter polls it
 * asynchronously, so a decision uses the answers in by then and never waits for one. With d ≥ the
 * number of available servers and no answers this is least-outstanding. If every available server
 * is skipped, the skip is ignored (a request is not held back for it). The random source is injected
 * so the simulator and tests are reproducible. Not thread-safe; confined to the core's thread.
 */
public final class RandomPoll implements Balancer {

    private final int d;
    private final RandomGenerator random;
    private int[] candidates = new int[0];

    public RandomPoll(int d, RandomGenerator random) {
        if (d < 1) {
            throw new IllegalArgumentException("pollSize: " + d + " (expected: >= 1)");
        }
        this.d = d;
        this.random = requireNonNull(random, "random");
    }

    @Override
    public int pick(ServerView v, int excluded) {
        int n = v.serverCount();
        if (candidates.length < n) {
            candidates = new int[n];
        }
        int m = 0;
        for (int s = 0; s < n; s++) {
            if (s != excluded && v.available(s) && !v.skipped(s)) {
                candidates[m++] = s;
            }
        }
        if (m == 0) {
            for (int s = 0; s < n; s++) {
                if (s != excluded && v.available(s)) {
                    candidates[m++] = s;
                }
            }
        }
        if (m == 0) {
            return -1;
        }
        int polls = Math.min(d, m);
        int best = -1;
        double bestLoad = 0;
        for (int i = 0; i < polls; i++) {
            int j = i + random.nextInt(m - i); // partial Fisher-Yates: distinct samples
            int t = candidates[i];
            candidates[i] = candidates[j];
            candidates[j] = t;
            int s = candidates[i];
            v.wantPoll(s);
            int polled = v.polledLoad(s);
            double load = (double) (polled >= 0 ? polled : v.inFlight(s)) / v.cap(s);
            if (best < 0 || load < bestLoad) {
                best = s;
                bestLoad = load;
            }
        }
        return best;
    }
}
