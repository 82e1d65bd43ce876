package org.arbiter.gateway;

import java.util.function.LongSupplier;
import org.arbiter.common.utility.YieldFunction;

/**
 * What the {@link Scheduler} sees of a {@link GatewayCore}: its class queues and yield book at the
 * core's latest time. A live view (nothing copied); confined to the core's thread.
 */
final class QueuesView<R> implements Scheduler.ClassView {

    private final ClassQueues<R> queues;
    private final YieldBook yields;
    private final LongSupplier now;

    QueuesView(ClassQueues<R> queues, YieldBook yields, LongSupplier now) {
        this.queues = queues;
        this.yields = yields;
        this.now = now;
    }

    @Override
    public int classCount() {
        return queues.count();
    }

    @Override
    public int backlog(int c) {
        return queues.size(c);
    }

    @Override
    public int inFlight(int c) {
        return queues.inFlight(c);
    }

    @Override
    public double weight(int c) {
        return queues.weight(c);
    }

    @Override
    public long headSequence(int c) {
        Ticket<R> head = queues.head(c);
        return head == null ? Long.MAX_VALUE : head.sequence;
    }

    @Override
    public long nowNanos() {
        return now.getAsLong();
    }

    @Override
    public long headArrivalNanos(int c) {
        Ticket<R> head = queues.head(c);
        return head == null ? now.getAsLong() : head.arrivalNanos();
    }

    @Override
    public YieldFunction yield(int c) {
        return yields.yield(c);
    }

    @Override
    public double expectedServiceSeconds(int c) {
        return yields.expectedServiceSeconds(c);
    }

    @Override
    public double consumption(int c) {
        return yields.consumption(c);   // as of the latest completion, as every class's: the shares are those of now
    }

    @Override
    public double recentConsumption(int c) {
        return yields.recentConsumption(c);
    }

    @Override
    public double minShare(int c) {
        return yields.minShare(c);
    }

    @Override
    public double dropRatio() {
        return yields.dropRatio(now.getAsLong());
    }
}
