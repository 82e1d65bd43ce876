package org.arbiter.gateway.scheduler;

import org.arbiter.gateway.Scheduler;

/**
 * Static priority in file order (003 §V-C's other baseline): the first backlogged class in
 * {@code classes[]} always goes first. Stateless.
 */
public final class StaticPriority implements Scheduler {

    @Override
    public int next(ClassView v) {
        for (int c = 0; c < v.classCount(); c++) {
            if (v.backlog(c) > 0) {
                return c;
            }
        }
        return -1;
    }
}
