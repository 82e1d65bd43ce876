package org.arbiter.gateway.server;

import static java.util.Objects.requireNonNull;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.function.Supplier;

/**
 * Runs a job on an executor for whoever asks, sharing runs: a request made while no run is waiting
 * schedules one; requests made before that run starts share it; a request made while a run is
 * under way gets the next run (which starts after it, so it sees what the request saw). However
 * many requests arrive during one run, at most one more run follows it. Every caller gets the
 * result of the first run that started after its request.
 *
 * <p>Thread-safe.
 *
 * @param <T> the job's result
 */
final class Coalescer<T> {

    private final Executor executor;
    private final Supplier<CompletableFuture<T>> job;
    private CompletableFuture<T> waiting; // the next run's result, not yet started; guarded by this
    private long runs; // guarded by this

    /**
     * @param executor one thread, so that runs never overlap
     * @param job      started on {@code executor}, which waits for its future
     */
    Coalescer(Executor executor, Supplier<CompletableFuture<T>> job) {
        this.executor = requireNonNull(executor, "executor");
        this.job = requireNonNull(job, "job");
    }

    /** The result of the first run that starts after this call (a copy: completing it does nothing). */
    CompletableFuture<T> request() {
        synchronized (this) {
            if (waiting == null) {
                waiting = new CompletableFuture<>();
                CompletableFuture<T> mine = waiting;
                try {
                    executor.execute(this::run);
                } catch (RuntimeException e) { // the executor is shut down
                    waiting = null;
                    mine.completeExceptionally(e);
                }
                return mine.copy();
            }
            return waiting.copy();
        }
    }

    /** Runs started so far. */
    synchronized long runs() {
        return runs;
    }

    private void run() {
        CompletableFuture<T> result;
        synchronized (this) {
            result = waiting;
            waiting = null;
            runs++;
        }
        try {
            result.complete(job.get().join()); // waits here: on a one-thread executor, runs never overlap
        } catch (CompletionException e) {
            result.completeExceptionally(e.getCause() != null ? e.getCause() : e);
        } catch (RuntimeException | Error e) {
            result.completeExceptionally(e);
        }
    }
}
