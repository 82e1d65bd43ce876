package org.arbiter.gateway;

import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.arbiter.common.config.PoolConfig;
import org.arbiter.common.utility.YieldFunction;

/**
 * The pools of {@code pools[]} as the core dispatches them: a class's requests go only to its pool's
 * servers, and the scheduler shares each pool's slots among that pool's classes. For pool p,
 * {@link #servers(int, Balancer.ServerView)} shows the balancer only p's servers and
 * {@link #classes(int, Scheduler.ClassView)} shows the scheduler only p's classes (the others as empty
 * queues), so the same scheduler and balancer decide inside one pool as they do for a cluster without
 * pools. Classes and servers in no pool (none, in a validated configuration) are never dispatched.
 *
 * <p>Confined to the core's thread, like the core.
 */
final class CorePools {

    private final int count;
    /** pool index of each class, -1 for none. */
    private final int[] classPool;
    /** pool index of each server, -1 for none. */
    private final int[] serverPool;
    private final int[][] classes;
    private final String[] names;
    private final Set<String>[] classNames;
    private final boolean[][] masks;
    private final PoolServerView[] serverViews;
    private final PoolClassView[] classViews;

    CorePools(List<PoolConfig> pools, ClassQueues<?> queues, ServerSlots slots) {
        count = pools.size();
        classPool = new int[queues.count()];
        serverPool = new int[slots.count()];
        Arrays.fill(classPool, -1);
        Arrays.fill(serverPool, -1);
        classes = new int[count][];
        names = new String[count];
        @SuppressWarnings("unchecked")
        Set<String>[] cn = new Set[count];
        classNames = cn;
        masks = new boolean[count][slots.count()];
        for (int p = 0; p < count; p++) {
            PoolConfig pc = pools.get(p);
            names[p] = pc.name();
            classNames[p] = Set.copyOf(pc.classes());
            int[] cs = new int[pc.classes().size()];
            int n = 0;
            for (String name : pc.classes()) {
                int c = queues.indexOf(name);
                if (c >= 0) {
                    classPool[c] = p;
                    cs[n++] = c;
                }
            }
            classes[p] = Arrays.copyOf(cs, n);
            for (String id : pc.servers()) {
                int s = slots.indexOf(id);
                if (s >= 0) {
                    serverPool[s] = p;
                    masks[p][s] = true;
                }
            }
        }
        serverViews = new PoolServerView[count];
        classViews = new PoolClassView[count];
    }

    int count() {
        return count;
    }

    /** The index of pool {@code name}, or -1. */
    int indexOf(String name) {
        for (int p = 0; p < count; p++) {
            if (names[p].equals(name)) {
                return p;
            }
        }
        return -1;
    }

    /** Pool p's servers, by server index. */
    boolean[] serverMask(int p) {
        return masks[p];
    }

    /** Of {@code weights}, those of pool p's classes. */
    Map<String, Double> ownWeights(int p, Map<String, Double> weights) {
        Map<String, Double> out = new HashMap<>();
        weights.forEach((c, w) -> {
            if (classNames[p].contains(c)) {
                out.put(c, w);
            }
        });
        return out;
    }

    /** Requests queued in pool p's classes. */
    int queued(int p, ClassQueues<?> queues) {
        int n = 0;
        for (int c : classes[p]) {
            n += queues.size(c);
        }
        return n;
    }

    /** {@code base} showing pool p's servers only. */
    Balancer.ServerView servers(int p, Balancer.ServerView base) {
        PoolServerView v = serverViews[p];
        if (v == null || v.base != base) {
            v = serverViews[p] = new PoolServerView(base, p);
        }
        return v;
    }

    /** {@code base} showing pool p's classes only (the others with nothing queued). */
    Scheduler.ClassView classes(int p, Scheduler.ClassView base) {
        PoolClassView v = classViews[p];
        if (v == null || v.base != base) {
            v = classViews[p] = new PoolClassView(base, p);
        }
        return v;
    }

    private final class PoolServerView implements Balancer.ServerView {
        final Balancer.ServerView base;
        private final int pool;
        private int[] cappedOf;
        private int[] capped;

        PoolServerView(Balancer.ServerView base, int pool) {
            this.base = base;
            this.pool = pool;
        }

        private boolean mine(int s) {
            return s < serverPool.length && serverPool[s] == pool;
        }

        @Override
        public int serverCount() {
            return base.serverCount();
        }

        @Override
        public int inFlight(int s) {
            return base.inFlight(s);
        }

        @Override
        public int cap(int s) {
            return base.cap(s);
        }

        @Override
        public boolean available(int s) {
            return mine(s) && base.available(s);
        }

        @Override
        public int[] capped() {
            int[] all = base.capped();
            if (all == null) {
                return null;
            }
            if (all != cappedOf) {
                int[] out = new int[all.length];
                int n = 0;
                for (int s : all) {
                    if (mine(s)) {
                        out[n++] = s;
                    }
                }
                capped = Arrays.copyOf(out, n);
                cappedOf = all;
            }
            return capped;
        }

        @Override
        public int polledLoad(int s) {
            return base.polledLoad(s);
        }

        @Override
        public boolean skipped(int s) {
            return base.skipped(s);
        }

        @Override
        public void wantPoll(int s) {
            base.wantPoll(s);
        }
    }

    private final class PoolClassView implements Scheduler.ClassView {
        final Scheduler.ClassView base;
        private final int pool;

        PoolClassView(Scheduler.ClassView base, int pool) {
            this.base = base;
            this.pool = pool;
        }

        @Override
        public int classCount() {
            return base.classCount();
        }

        @Override
        public int backlog(int c) {
            return classPool[c] == pool ? base.backlog(c) : 0;
        }

        @Override
        public int inFlight(int c) {
            return base.inFlight(c);
        }

        @Override
        public double weight(int c) {
            return base.weight(c);
        }

        @Override
        public long headSequence(int c) {
            return base.headSequence(c);
        }

        @Override
        public long nowNanos() {
            return base.nowNanos();
        }

        @Override
        public long headArrivalNanos(int c) {
            return base.headArrivalNanos(c);
        }

        @Override
        public YieldFunction yield(int c) {
            return base.yield(c);
        }

        @Override
        public double expectedServiceSeconds(int c) {
            return base.expectedServiceSeconds(c);
        }

        @Override
        public double consumption(int c) {
            return base.consumption(c);
        }

        @Override
        public double recentConsumption(int c) {
            return base.recentConsumption(c);
        }

        @Override
        public double minShare(int c) {
            return base.minShare(c);
        }

        @Override
        public double dropRatio() {
            return base.dropRatio();
        }
    }
}
