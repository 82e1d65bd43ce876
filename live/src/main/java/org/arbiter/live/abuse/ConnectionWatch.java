package org.arbiter.live.abuse;

import java.io.IOException;
import java.io.InputStream;
import java.net.Socket;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Holds an attack's connections open and notices when the gateway closes them: one small reader
 * thread per connection reads (and discards: SETTINGS frames, TLS tickets) until the end of the
 * stream or a reset, and records when. Thread-safe: {@link #hold} from one thread, the counts from any.
 */
final class ConnectionWatch implements AutoCloseable {

    /** Reader threads need little stack: they only read into a small buffer. */
    private static final long STACK_BYTES = 128 * 1024;

    private final List<Held> held = new ArrayList<>();
    private final long t0 = System.nanoTime();
    private final AtomicInteger closedByPeer = new AtomicInteger();
    private volatile boolean closing;

    /** One connection and when the gateway closed it (-1: not yet). */
    private static final class Held {
        final Socket socket;
        volatile long closedAtMillis = -1;

        Held(Socket socket) {
            this.socket = socket;
        }
    }

    /** Starts watching {@code s}. */
    void hold(Socket s) {
        Held h = new Held(s);
        synchronized (held) {
            held.add(h);
        }
        Thread t = new Thread(null, () -> read(h), "abuse-watch", STACK_BYTES);
        t.setDaemon(true);
        t.start();
    }

    private void read(Held h) {
        byte[] buf = new byte[4096];
        try {
            InputStream in = h.socket.getInputStream();
            while (in.read(buf) >= 0) {
                // discard what the gateway sends (h2 SETTINGS, TLS session tickets, an error page)
            }
        } catch (IOException e) {
            // reset, or closed by close() below
        }
        if (!closing) {
            h.closedAtMillis = (System.nanoTime() - t0) / 1_000_000;
            closedByPeer.incrementAndGet();
        }
    }

    /** Connections held so far. */
    int held() {
        synchronized (held) {
            return held.size();
        }
    }

    /** Connections the gateway has closed so far. */
    int closedByGateway() {
        return closedByPeer.get();
    }

    /** The open sockets, e.g. for a slowloris writer (a snapshot). */
    List<Socket> open() {
        synchronized (held) {
            return held.stream().filter(h -> h.closedAtMillis < 0).map(h -> h.socket).toList();
        }
    }

    /** Waits until every held connection is closed by the gateway or {@code seconds} have passed. */
    void awaitClosed(double seconds) throws InterruptedException {
        long until = System.nanoTime() + (long) (seconds * 1e9);
        while (System.nanoTime() < until && closedByGateway() < held()) {
            Thread.sleep(50);
        }
    }

    /** Closes every connection still open (the attacker lets go). */
    @Override
    public void close() {
        closing = true;
        synchronized (held) {
            for (Held h : held) {
                try {
                    h.socket.close();
                } catch (IOException ignored) {
                    // already gone
                }
            }
        }
    }
}
