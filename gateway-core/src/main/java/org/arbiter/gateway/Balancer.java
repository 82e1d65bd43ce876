package org.arbiter.gateway;

import org.arbiter.common.config.DispatchConfig;
import java.util.random.RandomGenerator;
import org.arbiter.gateway.dispatch.LeastOutstanding;
import org.arbiter.gateway.dispatch.RandomPoll;

/**
 * Chooses the server for a released request among those with a free slot under N(g,s). Decides
 * only; the core enforces the caps. Confined to the thread that drives the core.
 */
public interface Balancer {

    /**
     * @param excluded a server not to choose (the one that just failed), or -1
     * @return the chosen server index, or -1 when no eligible server has a free slot
     */
    int pick(ServerView servers, int excluded);

    /** Read-only view of the servers as the core sees them now. */
    interface ServerView {
        int serverCount();

        int inFlight(int s);

        /** N(g,s) in force. */
        int cap(int s);

        /** Up and {@code inFlight(s) < cap(s)}. */
        boolean available(int s);

        /** Server s's load from a fresh poll answer (active + queued, plus what was sent since), or -1 (use inFlight). */
        default int polledLoad(int s) {
            return -1;
        }

        /** Server s missed its recent polls and is skipped ({@code dispatch.poll}, PollBook's rule). */
        default boolean skipped(int s) {
            return false;
        }

        /** The balancer sampled server s: poll it (if it has a loadUrl) so the next decisions know its load. */
        default void wantPoll(int s) {
        }
    }

    /** Least outstanding relative to the cap (smallest inflight/N(g,s)), ties round-robin. */
    static Balancer leastOutstanding() {
        return new LeastOutstanding();
    }

    /** Random polling (002 §3): poll d available servers at random, take the least loaded. */
    static Balancer randomPoll(int d, RandomGenerator random) {
        return new RandomPoll(d, random);
    }

    /** The balancer named in {@code dispatch.balancer}. */
    static Balancer of(DispatchConfig.Balancer kind, int pollSize, RandomGenerator random) {
        return switch (kind) {
            case LEAST_OUTSTANDING -> leastOutstanding();
            case RANDOM_POLL -> randomPoll(pollSize, random);
        };
    }
}
