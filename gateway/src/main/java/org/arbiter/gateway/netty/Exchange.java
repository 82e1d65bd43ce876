package org.arbiter.gateway.netty;

import io.netty.channel.Channel;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.util.concurrent.ScheduledFuture;
import org.arbiter.gateway.Ticket;

/** One request from arrival to its one response. Confined to its client connection's event loop. */
public final class Exchange {

    final FrontendHandler front;
    /** The event loop of its client connection: everything of this request runs there. */
    final io.netty.channel.EventLoop loop;
    final FullHttpRequest request;
    final String className;
    final boolean keepAlive;
    final boolean idempotent;
    final boolean head;
    final long arrivalNanos;
    Ticket<Exchange> ticket;
    Channel backend;
    boolean responseStarted;
    boolean connectFailed;
    /** A byte of the request may have reached the server (a write was attempted on a live connection). */
    boolean requestSent;
    /** An earlier attempt failed after the request had been sent: retry on a fresh connection. */
    boolean sentFailure;
    boolean freshConnection;
    boolean finished;
    ScheduledFuture<?> timeout;
    /** Its headers were rewritten for the servers (DataPlane#forwardable); every attempt sends them. */
    boolean prepared;
    /** The client sent no Host: each attempt names its server's address. */
    boolean hostAdded;
    /** The protocol the client asked to switch to ({@code Upgrade}, passed through to the server), or null. */
    String upgrade;

    Exchange(FrontendHandler front, FullHttpRequest request, String className, boolean keepAlive, boolean idempotent,
             boolean head, long arrivalNanos) {
        this.front = front;
        this.loop = front.channel().eventLoop();
        this.request = request;
        this.className = className;
        this.keepAlive = keepAlive;
        this.idempotent = idempotent;
        this.head = head;
        this.arrivalNanos = arrivalNanos;
    }

    void cancelTimeout() {
        if (timeout != null) {
            timeout.cancel(false);
            timeout = null;
        }
    }
}
