package org.arbiter.gateway.dispatch;

import java.util.random.RandomGenerator;
import org.arbiter.common.config.DispatchConfig;
import org.arbiter.gateway.Balancer;

/**
 * The {@link Balancer}s by configuration ({@code dispatch.balancer}): the static factories, kept
 * beside the implementations so that the contract imports none of them. Each call returns a new
 * balancer; thread-safe.
 */
public final class Balancers {

    private Balancers() {
    }

    /** Least outstanding relative to the cap (smallest inflight/N(g,s)), ties round-robin. */
    public static Balancer leastOutstanding() {
        return new LeastOutstanding();
    }

    /** Random polling (002 §3): poll d available servers at random, take the least loaded. */
    public static Balancer randomPoll(int d, RandomGenerator random) {
        return new RandomPoll(d, random);
    }

    /** The balancer named in {@code dispatch.balancer}. */
    public static Balancer of(DispatchConfig.Balancer kind, int pollSize, RandomGenerator random) {
        return switch (kind) {
            case LEAST_OUTSTANDING -> leastOutstanding();
            case RANDOM_POLL -> randomPoll(pollSize, random);
        };
    }

    /** The balancer {@code dispatch} configures ({@code dispatch.balancer}, {@code dispatch.pollSize}). */
    public static Balancer of(DispatchConfig dispatch, RandomGenerator random) {
        return of(dispatch.balancer(), dispatch.pollSize(), random);
    }
}
