package org.arbiter.gateway.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.ChannelInitializer;
import io.netty.channel.ChannelOption;
import io.netty.channel.EventLoop;
import io.netty.channel.socket.SocketChannel;
import io.netty.handler.codec.http.HttpClientCodec;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.Arrays;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.IntFunction;
import java.util.function.IntUnaryOperator;

/**
 * The keep-alive connections to the servers: per event loop, one {@link BackendPool} per server
 * (created on first use, renewed when the server's URL changes on a reload). A request's
 * connection is always taken from its own loop's pools.
 *
 * <p>Thread-safety: {@link #urls} may be set from any thread (published before the core may
 * dispatch to an added server); each loop's pools are confined to that loop ({@link #of} on the
 * loop; {@link #onEveryLoop} hands over).
 */
final class BackendPools {

    private final Loop[] loops;
    private final Class<? extends SocketChannel> socketChannel;
    private final int connectTimeoutMillis;
    private final ClientTls clientTls;
    private final IntUnaryOperator cap;
    private final IntFunction<String> serverId;
    /** Per server index of the core, its URL. */
    private volatile URI[] urls;

    /**
     * @param cap per server index, the cap N(g,s) (a pool never keeps more connections)
     */
    BackendPools(List<? extends EventLoop> loops, Class<? extends SocketChannel> socketChannel, double connectTimeoutSeconds,
                 ClientTls clientTls, URI[] urls, IntUnaryOperator cap, IntFunction<String> serverId) {
        this.socketChannel = socketChannel;
        this.connectTimeoutMillis = (int) Math.max(1, connectTimeoutSeconds * 1000);
        this.clientTls = clientTls;
        this.cap = cap;
        this.serverId = serverId;
        this.urls = urls;
        this.loops = new Loop[loops.size()];
        for (int i = 0; i < this.loops.length; i++) {
            this.loops[i] = new Loop(loops.get(i));
        }
    }

    /** Per server index, its URL (thread-safe). */
    URI[] urls() {
        return urls;
    }

    /** Sets the servers' URLs (after a reload; thread-safe): a moved server's pools are renewed on use. */
    void urls(URI[] next) {
        urls = next;
    }

    int loops() {
        return loops.length;
    }

    /** The pools of {@code loop} (on that loop). */
    Loop of(EventLoop loop) {
        for (Loop l : loops) {
            if (l.loop == loop) {
                return l;
            }
        }
        throw new IllegalStateException("a connection on an event loop this data plane does not run (" + loop + ")");
    }

    /** Runs {@code r} on every loop (at once on this one). */
    void onEveryLoop(Consumer<Loop> r) {
        for (Loop l : loops) {
            if (l.loop.inEventLoop()) {
                r.accept(l);
            } else {
                l.loop.execute(() -> r.accept(l));
            }
        }
    }

    /** Runs {@code r} on every loop, always handed over (also on this one: never inside the caller's section). */
    void later(Consumer<Loop> r) {
        for (Loop l : loops) {
            l.loop.execute(() -> r.accept(l));
        }
    }

    /** The backend pools of one event loop. Confined to its loop. */
    final class Loop {
        final EventLoop loop;
        /** The backend timeouts of this loop's requests. */
        final Deadlines deadlines;
        private final Bootstrap bootstrap;
        private BackendPool[] pools = new BackendPool[0];

        Loop(EventLoop loop) {
            this.loop = loop;
            this.deadlines = new Deadlines(loop);
            this.bootstrap = new Bootstrap().group(loop).channel(socketChannel)
                    .option(ChannelOption.TCP_NODELAY, true)
                    .option(ChannelOption.CONNECT_TIMEOUT_MILLIS, connectTimeoutMillis);
        }

        /** Server s's pool on this loop, at its current URL. */
        BackendPool pool(int s) {
            URI[] u = urls;
            if (s >= pools.length) {
                pools = Arrays.copyOf(pools, Math.max(s + 1, u.length));
            }
            BackendPool p = pools[s];
            if (p == null || !p.url().equals(u[s])) {
                if (p != null) {
                    p.closeAll(); // the server moved: requests at the old address finish on their connections
                }
                p = newPool(s, u[s]);
                pools[s] = p;
            }
            return p;
        }

        /** Server s's pool on this loop, or null if none was made yet. */
        BackendPool existing(int s) {
            return s < pools.length ? pools[s] : null;
        }

        void closeAll(int s) {
            BackendPool p = existing(s);
            if (p != null) {
                p.closeAll();
            }
        }

        void closeAll() {
            for (BackendPool p : pools) {
                if (p != null) {
                    p.closeAll();
                }
            }
        }

        void trim() {
            for (BackendPool p : pools) {
                if (p != null) {
                    p.trim();
                }
            }
        }

        /** After a reload: retired servers' idle connections closed, moved servers' pools renewed, caps trimmed. */
        void refresh(boolean[] retired) {
            URI[] u = urls;
            for (int s = 0; s < pools.length; s++) {
                BackendPool p = pools[s];
                if (p == null) {
                    continue;
                }
                if ((s < retired.length && retired[s]) || s >= u.length || !p.url().equals(u[s])) {
                    p.closeAll();
                    if (s >= u.length || !p.url().equals(u[s])) {
                        pools[s] = null;
                        continue;
                    }
                }
                p.trim();
            }
        }

        /** The keep-alive pool of server s at {@code url} (TLS for https://, SNI and verification by its host). */
        private BackendPool newPool(int s, URI url) {
            boolean https = "https".equals(url.getScheme());
            if (https && clientTls == null) {
                throw new IllegalStateException("server " + serverId.apply(s) + ": " + url + " (expected: TLS set up at start)");
            }
            int port = url.getPort() > 0 ? url.getPort() : https ? 443 : 80;
            String host = url.getHost();
            Bootstrap b = bootstrap.clone().handler(new ChannelInitializer<SocketChannel>() {
                @Override
                protected void initChannel(SocketChannel ch) {
                    if (https) {
                        ch.pipeline().addLast("tls", clientTls.newHandler(ch.alloc(), host, port));
                    }
                    ch.pipeline().addLast(new HttpClientCodec(), new BackendHandler());
                }
            });
            return new BackendPool(b, new InetSocketAddress(host, port), url, () -> cap.applyAsInt(s));
        }
    }
}
