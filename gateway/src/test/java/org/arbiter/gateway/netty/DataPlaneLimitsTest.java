package org.arbiter.gateway.netty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.netty.buffer.ByteBufAllocator;
import io.netty.buffer.Unpooled;
import io.netty.channel.embedded.EmbeddedChannel;
import org.junit.jupiter.api.Test;

/** The sizing rules of gateway.maxConnections and the accounting of gateway.bodyBudget. */
final class DataPlaneLimitsTest {

    @Test
    void maxConnections_isEightyPercentOfTheDescriptorLimit_cappedAndWithAFallback() {
        assertThat(ConnectionLimit.sized(1024)).isEqualTo(819);
        assertThat(ConnectionLimit.sized(1)).isEqualTo(1);
        assertThat(ConnectionLimit.sized(Long.MAX_VALUE / 16)).isEqualTo(ConnectionLimit.CEILING);
        assertThat(ConnectionLimit.sized(-1)).isEqualTo(ConnectionLimit.FALLBACK);
        assertThat(ConnectionLimit.of(7).max()).isEqualTo(7);
        assertThatThrownBy(() -> new ConnectionLimit(0)).hasMessage("maxConnections: 0 (expected: >= 1)");
    }

    @Test
    void connectionsBeyondTheLimit_areClosedAndCounted_andAClosedOneGivesItsSlotBack() {
        ConnectionLimit limit = new ConnectionLimit(2);
        EmbeddedChannel a = new EmbeddedChannel();
        EmbeddedChannel b = new EmbeddedChannel();
        EmbeddedChannel c = new EmbeddedChannel();
        assertThat(limit.admit(a)).isTrue();
        assertThat(limit.admit(b)).isTrue();
        assertThat(limit.admit(c)).isFalse();
        assertThat(c.isOpen()).isFalse();
        assertThat(limit.refused()).isEqualTo(1);
        a.close();
        assertThat(limit.open()).isEqualTo(1);
        EmbeddedChannel d = new EmbeddedChannel();
        assertThat(limit.admit(d)).isTrue();
        b.close();
        d.close();
        assertThat(limit.open()).isZero();
    }

    @Test
    void aBodysReservation_isGivenBackWhenItsBufferIsFreed_andNeverExceedsTheLimit() {
        BodyBudget budget = new BodyBudget(100);
        RequestAggregator.Reserved one = new RequestAggregator.Reserved(ByteBufAllocator.DEFAULT, budget);
        RequestAggregator.Reserved two = new RequestAggregator.Reserved(ByteBufAllocator.DEFAULT, budget);
        assertThat(one.reserve(60)).isTrue();
        one.addComponent(true, Unpooled.wrappedBuffer(new byte[60]));
        assertThat(two.reserve(50)).isFalse(); // 110 > 100: refused, nothing taken
        assertThat(two.reserve(40)).isTrue();
        assertThat(budget.held()).isEqualTo(100);
        var slice = one.retainedSlice(); // a view shares the buffer's life: the bytes are still held
        one.release();
        assertThat(budget.held()).isEqualTo(100);
        slice.release();
        assertThat(budget.held()).isEqualTo(40);
        two.release();
        assertThat(budget.held()).isZero();
    }
}
