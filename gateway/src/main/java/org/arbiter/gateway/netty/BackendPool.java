package org.arbiter.gateway.netty;

import io.netty.bootstrap.Bootstrap;
import io.netty.channel.Channel;
import io.netty.channel.ChannelFuture;
import io.netty.util.AttributeKey;
import java.net.InetSocketAddress;
import java.net.URI;
import java.util.ArrayDeque;
import java.util.function.IntSupplier;

/**
 * Keep-alive connections to one server. It never holds more than N(g,s) connections: a new one is
 * opened only for a dispatch (and the core dispatches only under the cap), and a connection that
 * comes back while the pool is over the cap (the cap was lowered) is closed. Confined to the
 * data-plane event loop.
 */
final class BackendPool {

    private final Bootstrap bootstrap;
    private static final AttributeKey<BackendPool> OWNER = AttributeKey.valueOf("arbiter.pool");
    private final InetSocketAddress address;
    private final URI url;
    private final IntSupplier cap;
    private final ArrayDeque<Channel> idle = new ArrayDeque<>();
    private int open;

    BackendPool(Bootstrap bootstrap, InetSocketAddress address, URI url, IntSupplier cap) {
        this.bootstrap = bootstrap;
        this.address = address;
        this.url = url;
        this.cap = cap;
    }

    /** An idle connection, or null when a new one must be opened with {@link #connect()}. */
    Channel pollIdle() {
        Channel ch;
        while ((ch = idle.pollFirst()) != null) {
            if (ch.isActive()) {
                return ch;
            }
            // closed while idle; its close listener already decremented open
        }
        return null;
    }

    ChannelFuture connect() {
        open++;
        ChannelFuture f = bootstrap.connect(address);
        f.channel().attr(OWNER).set(this);
        f.channel().closeFuture().addListener(x -> {
            open--;
            idle.remove(f.channel());
        });
        return f;
    }

    /** A connection is free again; it stays if reusable and the pool is within the cap. */
    void release(Channel ch, boolean reusable) {
        if (reusable && ch.isActive() && open <= cap.getAsInt() && ch.attr(OWNER).get() == this) {
            idle.addFirst(ch);
        } else {
            ch.close();
        }
    }

    /** Closes idle connections above the cap (after an allocation lowered it). */
    void trim() {
        int excess = open - cap.getAsInt();
        while (excess-- > 0 && !idle.isEmpty()) {
            idle.pollLast().close(); // the close listener decrements open
        }
    }

    /** The server's URL this pool connects to. */
    URI url() {
        return url;
    }

    int idle() {
        return idle.size();
    }

    /** Closes the idle connections (at shutdown, or when the server is ejected). */
    void closeAll() {
        // A close on the loop runs the close listener at once, and it removes from idle: copy first.
        Channel[] all = idle.toArray(new Channel[0]);
        idle.clear();
        for (Channel ch : all) {
            ch.close();
        }
    }
}
