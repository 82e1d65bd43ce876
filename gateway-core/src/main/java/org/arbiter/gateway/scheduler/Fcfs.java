package org.arbiter.gateway.scheduler;

import org.arbiter.gateway.Scheduler;

/**
 * First come, first served across all classes (003 §V-C's baseline): the head with the smallest
 * arrival sequence goes first, as if there were one queue. Stateless.
 */
public final class Fcfs implements Scheduler {

    @Override
    public int next(ClassView v) {
        int best = -1;
        long bestSeq = Long.MAX_VALUE;
        for (int c = 0; c < v.classCount(); c++) {
            if (v.backlog(c) > 0 && v.headSequence(c) < bestSeq) {
                best = c;
                bestSeq = v.headSequence(c);
            }
        }
        return best;
    }
}
