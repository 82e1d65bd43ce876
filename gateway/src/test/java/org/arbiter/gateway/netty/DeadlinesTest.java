package org.arbiter.gateway.netty;

import static org.assertj.core.api.Assertions.assertThat;

import io.netty.channel.DefaultEventLoop;
import io.netty.channel.EventLoop;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/** The per-loop backend timeouts on a real event loop: what fires, when, and in which order. */
final class DeadlinesTest {

    private final EventLoop loop = new DefaultEventLoop();
    private final Deadlines deadlines = new Deadlines(loop);
    /** Names of what fired, with the milliseconds since the test armed it. */
    private final List<String> fired = new CopyOnWriteArrayList<>();

    private static final class Item extends Deadlines.Armed {
        final String name;

        Item(String name) {
            this.name = name;
        }
    }

    @AfterEach
    void stop() {
        loop.shutdownGracefully(0, 1, TimeUnit.SECONDS);
    }

    private <T> T onLoop(Callable<T> c) throws Exception {
        return loop.submit(c).get(5, TimeUnit.SECONDS);
    }

    private void arm(Item i, long millis, long t0) {
        i.armTimeout(deadlines, () -> fired.add(i.name + "@" + (System.nanoTime() - t0) / 1_000_000), millis * 1_000_000);
    }

    /** Waits (5 s at most) until {@code n} have fired. */
    private void awaitFired(int n) throws InterruptedException {
        long end = System.nanoTime() + 5_000_000_000L;
        while (fired.size() < n && System.nanoTime() < end) {
            Thread.sleep(10);
        }
    }

    private long millisOf(String name) {
        return fired.stream().filter(f -> f.startsWith(name + "@")).mapToLong(f -> Long.parseLong(f.substring(f.indexOf('@') + 1)))
                .findFirst().orElseThrow();
    }

    private List<String> namesFired() {
        return fired.stream().map(f -> f.substring(0, f.indexOf('@'))).toList();
    }

    @Test
    void ofAThousandArmed_onlyTheThreeNotCancelledFire_atTheirDeadline_andNothingStaysArmed() throws Exception {
        long t0 = System.nanoTime();
        List<Item> items = new ArrayList<>();
        onLoop(() -> {
            for (int k = 0; k < 1000; k++) {
                Item i = new Item("i" + k);
                items.add(i);
                arm(i, 200, t0);
            }
            for (Item i : items) {
                if (!List.of("i0", "i500", "i999").contains(i.name)) {
                    i.cancelTimeout();
                }
            }
            return null;
        });
        assertThat(onLoop(deadlines::armed)).isEqualTo(3);
        awaitFired(3);
        Thread.sleep(100); // nothing else comes
        assertThat(namesFired()).containsExactly("i0", "i500", "i999");
        for (String f : fired) {
            assertThat(Long.parseLong(f.substring(f.indexOf('@') + 1))).as(f).isGreaterThanOrEqualTo(200L);
        }
        assertThat(onLoop(deadlines::armed)).isZero();
    }

    @Test
    void aShorterTimeoutArmedAfterLongerOnes_firesFirst() throws Exception {
        long t0 = System.nanoTime();
        onLoop(() -> {
            arm(new Item("long1"), 400, t0);
            arm(new Item("long2"), 400, t0);
            arm(new Item("short"), 100, t0); // a reload shortened dispatch.backendTimeout
            return null;
        });
        awaitFired(3);
        assertThat(namesFired()).containsExactly("short", "long1", "long2");
        assertThat(millisOf("short")).isGreaterThanOrEqualTo(100L);
        assertThat(millisOf("long1")).isGreaterThanOrEqualTo(400L);
    }

    @Test
    void reArmingMovesTheDeadline_andItFiresOnce_cancellingAfterwardsDoesNothing() throws Exception {
        long t0 = System.nanoTime();
        Item i = new Item("moved");
        onLoop(() -> {
            arm(i, 100, t0);
            arm(i, 300, t0);
            return null;
        });
        awaitFired(1);
        Thread.sleep(100); // and once only
        assertThat(namesFired()).containsExactly("moved");
        assertThat(millisOf("moved")).as("at the second deadline, not the first").isGreaterThanOrEqualTo(300L);
        onLoop(() -> {
            i.cancelTimeout();
            return null;
        });
        assertThat(onLoop(deadlines::armed)).isZero();
        assertThat(namesFired()).containsExactly("moved");
    }

    @Test
    void whenTheHeadIsCancelled_theNextOneStillFiresOnTime() throws Exception {
        long t0 = System.nanoTime();
        Item first = new Item("first");
        onLoop(() -> {
            arm(first, 100, t0);
            arm(new Item("second"), 300, t0);
            first.cancelTimeout();
            return null;
        });
        awaitFired(1);
        Thread.sleep(100);
        assertThat(namesFired()).containsExactly("second");
        assertThat(millisOf("second")).isGreaterThanOrEqualTo(300L);
    }
}
