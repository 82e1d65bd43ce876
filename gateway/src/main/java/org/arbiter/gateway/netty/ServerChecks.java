package org.arbiter.gateway.netty;

import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import java.net.URI;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.IntConsumer;
import org.arbiter.common.config.ClusterConfig;
import org.arbiter.common.config.ServerConfig;
import org.arbiter.gateway.GatewayCore;
import org.arbiter.gateway.PollBook;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the gateway learns about its servers besides their responses: active health probes
 * ({@link HealthProber}, renewed on every reload), load polls ({@link LoadPoller}, to the servers'
 * {@code loadUrl}s), and the log line of each health transition (down as WARN, up as INFO). Every
 * verdict goes into the core through the {@link LockedCore}; {@code onChange} runs after each
 * (readiness is refreshed there).
 *
 * <p>Thread-safety: {@link #poll} may be called from any thread (it hands over to the home loop);
 * {@link #reload} and {@link #close} on the home loop or once at shutdown.
 */
final class ServerChecks {

    private static final Logger LOG = LoggerFactory.getLogger(ServerChecks.class);

    private final EventLoop home;
    private final Class<? extends SocketChannel> socketChannel;
    private final LockedCore locked;
    private final GatewayCore<Attempt> core;
    private final ClientTls clientTls;
    private final Runnable onChange;
    private final LoadPoller poller;
    private HealthProber prober;
    /** Per server index, its {@code loadUrl} (null: none; the gateway's own counters stand in); renewed on reload. */
    private volatile URI[] loadUrls;

    /**
     * @param serverDown told (inside a core call, under the lock) of a server that went down: its
     *                   idle connections are not to be trusted
     * @param onChange   after every verdict and transition (under the lock for a transition)
     */
    ServerChecks(EventLoop home, Class<? extends SocketChannel> socketChannel, ClusterConfig cluster, LockedCore locked,
                 ClientTls clientTls, IntConsumer serverDown, Runnable onChange) {
        this.home = home;
        this.socketChannel = socketChannel;
        this.locked = locked;
        this.core = locked.core();
        this.clientTls = clientTls;
        this.onChange = onChange;
        core.health().listener(t -> { // inside a core call, under the lock
            if (t.up()) {
                LOG.info("{}", t.message());
            } else {
                LOG.warn("{} (out for {} ms)", t.message(), TimeUnit.NANOSECONDS.toMillis(t.backoffNanos()));
                serverDown.accept(t.server());
            }
            onChange.run();
        });
        this.prober = prober(cluster);
        this.loadUrls = loadUrls(cluster);
        this.poller = new LoadPoller(home, socketChannel, cluster.dispatch().pollDeadlineSeconds(), new LoadPoller.Outcome() {
            @Override
            public void answered(int s, int active, int queued) {
                locked.lock();
                try {
                    core.pollAnswered(s, active, queued, DataPlane.now());
                } finally {
                    locked.unlock();
                }
            }

            @Override
            public void missed(int s) {
                boolean skipped;
                locked.lock();
                try {
                    long now = DataPlane.now();
                    boolean was = core.polls().skipped(s, now);
                    core.pollMissed(s, now);
                    skipped = !was && core.polls().skipped(s, DataPlane.now());
                } finally {
                    locked.unlock();
                }
                if (skipped) {
                    LOG.warn("server {} missed {} load polls in a row: skipped for {} s", core.serverId(s),
                            core.polls().misses(s), PollBook.SKIP_SECONDS);
                }
            }
        });
    }

    /** Polls the load of {@code servers} (those with a loadUrl are asked; the rest answer from the gateway's counters). */
    void poll(List<Integer> servers) {
        URI[] urls = loadUrls;
        Runnable ask = () -> {
            for (int s : servers) {
                poller.poll(s, s < urls.length ? urls[s] : null);
            }
        };
        if (home.inEventLoop()) {
            ask.run();
        } else {
            home.execute(ask);
        }
    }

    /** After a reload (on the home loop): new probes, the new load URLs. */
    void reload(ClusterConfig next) {
        prober.close();
        prober = prober(next);
        loadUrls = loadUrls(next);
    }

    void close() {
        prober.close();
    }

    private HealthProber prober(ClusterConfig c) {
        return new HealthProber(home, socketChannel, c, core, clientTls == null ? null : clientTls::newHandler,
                (s, ok) -> locked.pump(() -> {
                    core.probed(s, ok, DataPlane.now());
                    onChange.run();
                }));
    }

    /** Per server index of the core, the server's {@code loadUrl} in {@code c} (null: none, or no longer configured). */
    private URI[] loadUrls(ClusterConfig c) {
        URI[] out = new URI[core.serverCount()];
        for (int s = 0; s < out.length; s++) {
            out[s] = c.server(core.serverId(s)).map(ServerConfig::loadUrl).orElse(null);
        }
        return out;
    }
}
