package org.arbiter.gateway;

import java.util.function.LongSupplier;

/**
 * What the {@link Balancer} sees of a {@link GatewayCore}: its slot book, the servers' health and
 * the load polls at the core's latest time; {@link #wantPoll} queues a poll. A live view (nothing
 * copied); confined to the core's thread.
 */
final class SlotsView implements Balancer.ServerView {

    private final ServerSlots slots;
    private final ServerHealth health;
    private final LoadPolls polls;
    private final LongSupplier now;

    SlotsView(ServerSlots slots, ServerHealth health, LoadPolls polls, LongSupplier now) {
        this.slots = slots;
        this.health = health;
        this.polls = polls;
        this.now = now;
    }

    @Override
    public int serverCount() {
        return slots.count();
    }

    @Override
    public int inFlight(int s) {
        return slots.inFlight(s);
    }

    @Override
    public int cap(int s) {
        return slots.cap(s);
    }

    @Override
    public boolean available(int s) {
        return slots.hasFreeSlot(s) && health.admits(s, now.getAsLong());
    }

    @Override
    public int[] capped() {
        return slots.capped();
    }

    @Override
    public int polledLoad(int s) {
        return polls.load(s, now.getAsLong());
    }

    @Override
    public boolean skipped(int s) {
        return polls.skipped(s, now.getAsLong());
    }

    @Override
    public void wantPoll(int s) {
        polls.want(s);
    }
}
