package org.arbiter.grm.power;

import org.arbiter.grm.control.GrmCore.Seen;

import static java.util.Objects.requireNonNull;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.common.message.ServerState;
import org.arbiter.grm.sizing.Fleet;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/*
 * Design note — carrying out the fleet's actuations.
 *
 * Threads: submit() never blocks (the GRM's control thread calls it). Each server has a lane: its
 * actuations run one after the other, in the order submitted, on a cached pool of daemon threads
 * ("grm-power-*"); different servers act at once.
 *
 * Retries: an attempt that fails is tried again after retryDelay, 2·retryDelay, 4·retryDelay, …
 * up to `attempts` attempts. A newer actuation for the same server supersedes an older one: the
 * older one makes no further attempt and its reports are marked stale (isLatest false), so an old
 * "seen off" cannot undo a newer power-on in the model.
 *
 * Reports: one per attempt, to the listener, on the lane's thread: ok with what was seen; or a
 * failure, `last` when no attempt is left. The listener hands them to the control thread; a
 * listener that throws is logged and ignored.
 */

/** Runs {@link Fleet.Actuation}s through a {@link PowerActuator}, with retries. See the design note. Thread-safe. */
public final class PowerDriver implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(PowerDriver.class);

    /**
     * One attempt's outcome.
     *
     * @param actuation what was asked
     * @param ticket    grows with every actuation submitted for this server
     * @param attempt   1, 2, …
     * @param ok        the action was carried out
     * @param seen      what the actuator saw of the server
     * @param detail    the failure, or what was done
     * @param last      no attempt follows (succeeded, gave up, or superseded)
     */
    public record Report(Fleet.Actuation actuation, long ticket, int attempt, boolean ok, Seen seen,
                         String detail, boolean last) {
    }

    private final PowerActuator actuator;
    private final Map<String, ServerConfig> servers = new LinkedHashMap<>();
    private final int attempts;
    private final long retryDelayMillis;
    private final Consumer<Report> listener;
    private final ExecutorService pool;
    private final Map<String, AtomicLong> tickets = new LinkedHashMap<>();
    private final Map<String, CompletableFuture<Void>> lanes = new LinkedHashMap<>();

    /**
     * @param actuator         does the work
     * @param servers          the configured servers
     * @param attempts         per actuation, ≥ 1
     * @param retryDelaySeconds first back-off, doubling
     * @param listener         gets every report, on a driver thread
     */
    public PowerDriver(PowerActuator actuator, List<ServerConfig> servers, int attempts, double retryDelaySeconds,
                       Consumer<Report> listener) {
        this.actuator = requireNonNull(actuator, "actuator");
        this.listener = requireNonNull(listener, "listener");
        if (attempts < 1) {
            throw new IllegalArgumentException("attempts: " + attempts + " (expected: >= 1)");
        }
        this.attempts = attempts;
        this.retryDelayMillis = Math.max(0, Math.round(retryDelaySeconds * 1000));
        for (ServerConfig s : servers) {
            this.servers.put(s.id(), s);
            tickets.put(s.id(), new AtomicLong());
            lanes.put(s.id(), CompletableFuture.completedFuture(null));
        }
        AtomicLong threads = new AtomicLong();
        this.pool = Executors.newCachedThreadPool(r -> {
            Thread t = new Thread(r, "grm-power-" + threads.incrementAndGet());
            t.setDaemon(true);
            return t;
        });
    }

    /** The actuator's name (log, exec, http). */
    public String actuatorName() {
        return actuator.name();
    }

    /** Queues {@code a} on its server's lane; returns at once. */
    public void submit(Fleet.Actuation a) {
        requireNonNull(a, "a");
        ServerConfig server = servers.get(a.server());
        if (server == null) {
            throw new IllegalArgumentException("server: " + a.server() + " (expected: one of " + servers.keySet() + ")");
        }
        long ticket = tickets.get(a.server()).incrementAndGet();
        synchronized (lanes) {
            CompletableFuture<Void> lane = lanes.get(a.server());
            lanes.put(a.server(), lane.thenRunAsync(() -> run(server, a, ticket), pool).exceptionally(e -> null));
        }
    }

    /** True when {@code r} belongs to the newest actuation submitted for its server. */
    public boolean isLatest(Report r) {
        AtomicLong t = tickets.get(r.actuation().server());
        return t != null && t.get() == r.ticket();
    }

    private void run(ServerConfig server, Fleet.Actuation a, long ticket) {
        long backoff = retryDelayMillis;
        for (int attempt = 1; attempt <= attempts; attempt++) {
            if (tickets.get(server.id()).get() != ticket) {
                LOG.info("power {} {}: superseded by a newer order, no attempt {}", word(a.action()), server.id(), attempt);
                return;
            }
            try {
                Seen seen = actuator.actuate(server, a.action());
                report(new Report(a, ticket, attempt, true, seen, actuator.name() + ": power " + word(a.action())
                        + " done" + (seen == Seen.UNKNOWN ? "" : ", seen " + seen), true));
                return;
            } catch (ActuationException e) {
                boolean last = attempt == attempts;
                report(new Report(a, ticket, attempt, false, e.seen(), e.getMessage(), last));
                if (last) {
                    return;
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            } catch (RuntimeException e) {
                boolean last = attempt == attempts;
                report(new Report(a, ticket, attempt, false, Seen.UNKNOWN, e.toString(), last));
                if (last) {
                    return;
                }
            }
            try {
                Thread.sleep(backoff);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return;
            }
            backoff = Math.max(1, backoff * 2);
        }
    }

    private void report(Report r) {
        try {
            listener.accept(r);
        } catch (RuntimeException e) {
            LOG.warn("power report listener failed on {}: {}", r, e.toString(), e);
        }
    }

    private static String word(ServerState s) {
        return PowerActuator.word(s);
    }

    /** Stops: actuations under way are interrupted, queued ones dropped. */
    @Override
    public void close() {
        pool.shutdownNow();
        try {
            pool.awaitTermination(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
