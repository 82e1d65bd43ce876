package org.arbiter.gateway.server;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * Reload coalescing on a real one-thread executor, the run held by a latch so that "during a run"
 * is a fact, not a timing: requests made while a run is under way share exactly one more run, and
 * each gets the result of the first run that started after it.
 */
final class CoalescerTest {

    private final ExecutorService worker = Executors.newSingleThreadExecutor();

    @AfterEach
    void tearDown() {
        worker.shutdownNow();
    }

    @Test
    void requestsDuringARun_shareOneMoreRun_andGetItsResult() throws Exception {
        AtomicInteger started = new AtomicInteger();
        CountDownLatch firstRunning = new CountDownLatch(1);
        CountDownLatch releaseFirst = new CountDownLatch(1);
        Coalescer<Integer> c = new Coalescer<>(worker, () -> {
            int run = started.incrementAndGet();
            if (run == 1) {
                firstRunning.countDown();
                try {
                    releaseFirst.await(10, TimeUnit.SECONDS);
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            }
            return CompletableFuture.completedFuture(run);
        });
        CompletableFuture<Integer> first = c.request();
        assertThat(firstRunning.await(10, TimeUnit.SECONDS)).isTrue();
        List<CompletableFuture<Integer>> during = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            during.add(c.request());
        }
        releaseFirst.countDown();
        assertThat(first.get(10, TimeUnit.SECONDS)).isEqualTo(1);
        for (CompletableFuture<Integer> f : during) {
            assertThat(f.get(10, TimeUnit.SECONDS)).as("the run after the one under way").isEqualTo(2);
        }
        assertThat(started.get()).isEqualTo(2);
        assertThat(c.runs()).isEqualTo(2);
        // later: a new run
        assertThat(c.request().get(10, TimeUnit.SECONDS)).isEqualTo(3);
    }

    @Test
    void aFailedRun_failsEveryRequestItCovered_andTheNextRunStillRuns() throws Exception {
        AtomicInteger started = new AtomicInteger();
        Coalescer<Integer> c = new Coalescer<>(worker, () -> started.incrementAndGet() == 1
                ? CompletableFuture.failedFuture(new IllegalStateException("bad file"))
                : CompletableFuture.completedFuture(started.get()));
        assertThat(c.request()).failsWithin(10, TimeUnit.SECONDS).withThrowableThat()
                .withRootCauseInstanceOf(IllegalStateException.class).withMessageContaining("bad file");
        assertThat(c.request().get(10, TimeUnit.SECONDS)).isEqualTo(2);
    }

    @Test
    void completingACallersCopy_doesNotCompleteTheRunForOthers() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Coalescer<Integer> c = new Coalescer<>(worker, () -> {
            try {
                release.await(10, TimeUnit.SECONDS);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            return CompletableFuture.completedFuture(7);
        });
        CompletableFuture<Integer> a = c.request();
        CompletableFuture<Integer> b = c.request();
        a.complete(-1);
        release.countDown();
        assertThat(b.get(10, TimeUnit.SECONDS)).isEqualTo(7);
    }
}
