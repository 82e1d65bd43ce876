package org.arbiter.console.kafka;

import static java.util.Objects.requireNonNull;

import java.util.ArrayList;
import java.util.List;
import org.arbiter.bus.KafkaBus;
import org.arbiter.bus.Subscriber;
import org.arbiter.common.bus.StatsTopics;
import org.arbiter.common.bus.Topics;
import org.arbiter.common.config.KafkaSecurity;
import org.arbiter.common.message.Allocation;
import org.arbiter.common.message.Decision;
import org.arbiter.common.message.GatewayStats;
import org.arbiter.common.message.OperatorOverride;
import org.arbiter.common.message.PowerOrder;
import org.arbiter.console.ConsoleFeed;

/**
 * Connects the console to the bus: group-less subscriptions to the stats and decisions streams and
 * to the compacted allocation, power and overrides topics, all read from the beginning (the
 * state's bounds keep only the recent history), each feeding {@link ConsoleFeed}. Malformed
 * records are skipped and counted by the bus.
 */
public final class BusWiring {

    private BusWiring() {
    }

    /** Starts the subscriptions; close them (or the bus) to stop. */
    public static List<Subscriber<?>> subscribe(KafkaBus bus, ConsoleFeed feed) {
        requireNonNull(bus, "bus");
        requireNonNull(feed, "feed");
        Topics t = bus.topics();
        List<Subscriber<?>> subs = new ArrayList<>(List.of(
                bus.subscribe(t.overrides(), OperatorOverride.class, Subscriber.Start.BEGINNING, feed::onOverride),
                bus.subscribe(t.allocation(), Allocation.class, Subscriber.Start.BEGINNING, feed::onAllocation),
                bus.subscribe(t.power(), PowerOrder.class, Subscriber.Start.BEGINNING, feed::onPower),
                bus.subscribe(t.decisions(), Decision.class, Subscriber.Start.BEGINNING, feed::onDecision)));
        // statistics from where each gateway may write them (the GRM's rule): the shared topic, and the
        // own topic of each gateway with a principal of its own
        KafkaSecurity security = bus.config().security();
        for (String topic : StatsTopics.topics(t, security)) {
            subs.add(bus.subscribe(topic, GatewayStats.class, Subscriber.Start.BEGINNING, (k, s) -> {
                if (s == null || StatsTopics.refusal(t, security, topic, s) == null) {
                    feed.onStats(k, s);
                }
            }));
        }
        return List.copyOf(subs);
    }
}
