package org.arbiter.gateway.netty;

import io.netty.channel.Channel;
import io.netty.channel.EventLoop;
import io.netty.handler.codec.http.DefaultFullHttpRequest;
import io.netty.handler.codec.http.FullHttpRequest;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpHeaders;
import io.netty.handler.codec.http.HttpVersion;
import io.netty.handler.codec.http2.HttpConversionUtil.ExtensionHeaderNames;
import java.net.InetSocketAddress;
import java.util.EnumMap;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.arbiter.gateway.Ticket;

/**
 * One request from arrival to its one answer, as a state machine (docs/gateway.md, "The data
 * plane's parts, and a request's states"). Its {@link State} says where it is; a transition the machine does not allow fails
 * loudly ({@link IllegalStateException}), so two parties can never both finish it, or stream a
 * response that was already answered.
 *
 * <pre>
 *   NEW ──offer──▶ QUEUED ──▶ DISPATCHED ──▶ CONNECTING ──▶ SENDING_FRESH ──┐
 *                    ▲            │              │                          ├──▶ STREAMING ──▶ DONE
 *                    │            └──────────────┼──▶ SENDING_REUSED ───────┤
 *                    └── failed, nothing sent ───┘                          └──▶ UPGRADED ──▶ DONE
 *   failed after a byte may have reached the server, requeued by the core (a retry, on new connections only):
 *     SENDING_* ──▶ RETRY_QUEUED ──▶ RETRY_DISPATCHED ──▶ RETRY_CONNECTING ──▶ RETRY_SENDING ──▶ STREAMING …
 *   from any state that is not over: ──▶ DONE (the gateway's own answer) or FAILED (cut, or the client left)
 * </pre>
 *
 * The states carry no data (an enum: no allocation per transition); what the request holds while
 * at a server (its connection, its timeout, the core's ticket) are the fields below, valid in the
 * states their comments name.
 *
 * <p>Thread-safety: none; confined to its client connection's event loop ({@link #loop}).
 */
public final class Attempt extends Deadlines.Armed {

    /** Where a request is. */
    enum State {
        /** Read and classified, not yet offered to the core. */
        NEW,
        /** In a class queue of the core. */
        QUEUED,
        /** Released by the core to a server; about to be sent. */
        DISPATCHED,
        /** Waiting for a new connection to the server (and its TLS handshake): nothing written. */
        CONNECTING,
        /** Written (or being written) on a new connection; no byte of the response yet. */
        SENDING_FRESH,
        /** Written (or being written) on a kept-alive connection; no byte of the response yet. */
        SENDING_REUSED,
        /** Requeued after a failure once the request had been sent: the retry goes on a new connection. */
        RETRY_QUEUED,
        /** The retry, released by the core to a server. */
        RETRY_DISPATCHED,
        /** The retry, waiting for its new connection. */
        RETRY_CONNECTING,
        /** The retry, written on its new connection. */
        RETRY_SENDING,
        /** The server's response head went to the client; its body is being streamed. */
        STREAMING,
        /** The server switched protocols (101): the two connections are spliced. */
        UPGRADED,
        /** The client has its whole answer (the server's, or the gateway's own). */
        DONE,
        /** No whole answer: the response was cut, or the client went away. */
        FAILED;

        /** The request reached a connection that was live (a byte may have reached the server). */
        boolean sent() {
            return this == SENDING_FRESH || this == SENDING_REUSED || this == RETRY_SENDING;
        }

        /** A retry after a sent failure: it uses new connections only. */
        boolean retry() {
            return this == RETRY_QUEUED || this == RETRY_DISPATCHED || this == RETRY_CONNECTING || this == RETRY_SENDING;
        }

        /** Waiting for a connection to be opened. */
        boolean connecting() {
            return this == CONNECTING || this == RETRY_CONNECTING;
        }

        /** On a connection opened for it (a close without an error is the server's fault, not the keep-alive race). */
        boolean fresh() {
            return this == SENDING_FRESH || this == RETRY_SENDING || connecting();
        }

        boolean over() {
            return this == DONE || this == FAILED;
        }
    }

    // The allowed transitions (DONE and FAILED are reachable from every state that is not over).
    private static final EnumMap<State, Set<State>> NEXT = next();

    private static EnumMap<State, Set<State>> next() {
        EnumMap<State, Set<State>> n = new EnumMap<>(State.class);
        n.put(State.NEW, EnumSet.of(State.QUEUED));
        n.put(State.QUEUED, EnumSet.of(State.DISPATCHED));
        // a kept-alive connection found closed before the write: not sent, requeued
        n.put(State.DISPATCHED, EnumSet.of(State.CONNECTING, State.SENDING_REUSED, State.QUEUED));
        n.put(State.CONNECTING, EnumSet.of(State.SENDING_FRESH, State.QUEUED));
        n.put(State.SENDING_FRESH, EnumSet.of(State.STREAMING, State.UPGRADED, State.RETRY_QUEUED));
        n.put(State.SENDING_REUSED, EnumSet.of(State.STREAMING, State.UPGRADED, State.RETRY_QUEUED));
        n.put(State.RETRY_QUEUED, EnumSet.of(State.RETRY_DISPATCHED));
        n.put(State.RETRY_DISPATCHED, EnumSet.of(State.RETRY_CONNECTING));
        n.put(State.RETRY_CONNECTING, EnumSet.of(State.RETRY_SENDING, State.RETRY_QUEUED));
        n.put(State.RETRY_SENDING, EnumSet.of(State.STREAMING, State.UPGRADED, State.RETRY_QUEUED));
        n.put(State.STREAMING, EnumSet.noneOf(State.class));
        n.put(State.UPGRADED, EnumSet.noneOf(State.class));
        n.put(State.DONE, EnumSet.noneOf(State.class));
        n.put(State.FAILED, EnumSet.noneOf(State.class));
        for (State s : State.values()) {
            if (!s.over()) {
                n.get(s).add(State.DONE);
                n.get(s).add(State.FAILED);
            }
        }
        return n;
    }

    final FrontendHandler front;
    /** The event loop of its client connection: everything of this request runs there. */
    final EventLoop loop;
    /** The request, its headers already rewritten for the servers (see {@link #prepare}). */
    final FullHttpRequest request;
    final String className;
    final boolean keepAlive;
    final boolean idempotent;
    final boolean head;
    final long arrivalNanos;
    /** The protocol the client asked to switch to ({@code Upgrade}, passed through to the server), or null. */
    final String upgrade;
    /** The client's HTTP version (a bodyless request goes to the server as itself, rewritten to HTTP/1.1). */
    final HttpVersion clientVersion;
    /** The client sent no Host: each send names its server's address. */
    private final boolean hostAdded;

    private State state = State.NEW;
    /** The core's handle; set once, by {@link #offered}. */
    private Ticket<Attempt> ticket;
    /** The connection to the server: while connecting, sending, streaming or upgraded; else null. */
    Channel backend;
    /** The upgrade budget this request holds a place in until it is over; null if none. */
    private TunnelBudget tunnelHeld;

    Attempt(FrontendHandler front, FullHttpRequest request, String className, boolean keepAlive, boolean idempotent,
            boolean head, long arrivalNanos, String upgrade) {
        this.front = front;
        this.loop = front.channel().eventLoop();
        this.request = request;
        this.className = className;
        this.keepAlive = keepAlive;
        this.idempotent = idempotent;
        this.head = head;
        this.arrivalNanos = arrivalNanos;
        this.upgrade = upgrade;
        this.clientVersion = request.protocolVersion();
        prepare();
        this.hostAdded = !request.headers().contains(HttpHeaderNames.HOST);
    }

    State state() {
        return state;
    }

    boolean over() {
        return state.over();
    }

    /** The core's ticket, or null while {@link State#NEW}. */
    Ticket<Attempt> ticket() {
        return ticket;
    }

    private void to(State next) {
        if (!NEXT.get(state).contains(next)) {
            throw new IllegalStateException("request " + request.method() + " " + request.uri() + ": " + state + " -> "
                    + next + " (expected: one of " + NEXT.get(state) + ")");
        }
        state = next;
        if (next.over() && tunnelHeld != null) {
            tunnelHeld.end();
            tunnelHeld = null;
        }
    }

    /**
     * An upgrade takes its place in {@code budget} before it is offered (the gateway's slots are
     * {@code slots}); it keeps it until it is over, tunnel included. False when the budget is full.
     */
    boolean holdTunnel(TunnelBudget budget, int slots) {
        if (state != State.NEW || tunnelHeld != null) {
            throw new IllegalStateException("holdTunnel: " + state + " (expected: once, before the offer)");
        }
        if (!budget.admit(slots)) {
            return false;
        }
        tunnelHeld = budget;
        return true;
    }

    /** The core's answer to the offer: queued if {@code t} was accepted (a refused one is answered next). */
    void offered(Ticket<Attempt> t) {
        if (ticket != null) {
            throw new IllegalStateException("ticket: set already (expected: one offer per request)");
        }
        ticket = t;
        if (t.accepted()) {
            to(State.QUEUED);
        }
    }

    /** The core released it to a server (on its loop, after any hand-over). */
    void dispatched() {
        to(state == State.RETRY_QUEUED ? State.RETRY_DISPATCHED : State.DISPATCHED);
    }

    /** A new connection is being opened for it. */
    void connecting(Channel ch) {
        backend = ch;
        to(state == State.RETRY_DISPATCHED ? State.RETRY_CONNECTING : State.CONNECTING);
    }

    /** It is written on {@code ch}: a new connection after {@link #connecting}, else a kept-alive one. */
    void sending(Channel ch) {
        backend = ch;
        to(switch (state) {
            case CONNECTING -> State.SENDING_FRESH;
            case RETRY_CONNECTING -> State.RETRY_SENDING;
            default -> State.SENDING_REUSED;
        });
    }

    /** It failed before any byte of a response and the core requeued it. */
    void requeued() {
        backend = null;
        to(state.retry() || state.sent() ? State.RETRY_QUEUED : State.QUEUED);
    }

    /**
     * The status of the response head not yet told to the core (0: none). The head and the end of most
     * responses arrive in one read: the core then hears both in one locked section ({@link Forwarder#responseDone});
     * a response still streaming at the end of the read is told at once ({@link Forwarder#reportResponded}).
     */
    private int untoldStatus;

    /** The server's response head, with {@code status}, is going to the client. */
    void streaming(int status) {
        to(State.STREAMING);
        untoldStatus = status;
    }

    /** The response status the core has not heard yet, and from now on it has (0: none). */
    int takeUntoldStatus() {
        int s = untoldStatus;
        untoldStatus = 0;
        return s;
    }

    /** The server switched protocols: from now on the bytes are spliced. */
    void upgraded() {
        to(State.UPGRADED);
    }

    /** The client has its whole answer. */
    void done() {
        to(State.DONE);
    }

    /** The answer was cut, or the client went away. */
    void failed() {
        to(State.FAILED);
    }

    /** Whether {@code ch} is this request's connection to a server, and the request is not over. */
    boolean on(Channel ch) {
        return backend == ch && !state.over();
    }

    /** The connection to the server, given up (to be closed or pooled by the caller); null if none. */
    Channel detach() {
        Channel ch = backend;
        backend = null;
        return ch;
    }

    /**
     * Rewrites the headers once (at arrival), in place, for the servers: hop-by-hop fields out, HTTP/2's
     * extension fields out, {@code Upgrade} back for a tunnel, the forwarded fields in. Every send
     * uses them as they are: no copy per send, and a retry does not append its client to
     * {@code X-Forwarded-For} twice.
     */
    private void prepare() {
        HttpHeaders h = request.headers();
        boolean listed = HopByHop.anyListed(h); // most requests hold none of the fields removed below
        if (listed) {
            HopByHop.stripListed(h);
            h.remove(ExtensionHeaderNames.STREAM_ID.text());
            h.remove(ExtensionHeaderNames.SCHEME.text());
            h.remove(ExtensionHeaderNames.PATH.text());
            h.remove(ExtensionHeaderNames.STREAM_DEPENDENCY_ID.text());
            h.remove(ExtensionHeaderNames.STREAM_WEIGHT.text());
        }
        if (upgrade != null) {
            h.set(HttpHeaderNames.CONNECTION, HttpHeaderValues.UPGRADE);
            h.set(HttpHeaderNames.UPGRADE, upgrade);
        }
        front.addForwardedHeaders(h, listed);
    }

    /**
     * The request as it goes to the server at {@code ch}: HTTP/1.1 (the client's version, which decides the
     * answer's keep-alive, is kept in {@link #clientVersion}), a {@code Host} the gateway had to add naming
     * that server.
     */
    FullHttpRequest forServer(Channel ch) {
        FullHttpRequest in = request;
        HttpHeaders h = in.headers();
        if (hostAdded) {
            InetSocketAddress a = (InetSocketAddress) ch.remoteAddress();
            h.set(HttpHeaderNames.HOST, a.getHostString() + ":" + a.getPort());
        }
        if (!in.content().isReadable()) {
            // no body to rewind for a retry: the request itself goes, retained (the encoder releases what it
            // writes); a new request object would re-validate its request line (~2 % of the CPU samples)
            in.setProtocolVersion(HttpVersion.HTTP_1_1);
            return in.retain();
        }
        return new DefaultFullHttpRequest(HttpVersion.HTTP_1_1,
                in.method(), in.uri(), in.content().retainedDuplicate(), h, in.trailingHeaders());
    }
}
