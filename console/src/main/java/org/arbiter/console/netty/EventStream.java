package org.arbiter.console.netty;

import static java.util.Objects.requireNonNull;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.netty.buffer.Unpooled;
import io.netty.channel.Channel;
import io.netty.channel.group.ChannelGroup;
import io.netty.channel.group.DefaultChannelGroup;
import io.netty.handler.codec.http.DefaultHttpContent;
import io.netty.util.concurrent.GlobalEventExecutor;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The open Server-Sent Events streams ({@code GET /api/events}) and the broadcast to them. Each
 * event is serialised once and written to every stream as one HTTP chunk:
 * {@code id: n\nevent: <type>\ndata: <json>\n\n}. A stream whose channel is not writable (a
 * client that does not read) is closed rather than buffered without bound; the page reconnects
 * by itself and refetches. Past {@code maxClients} open streams a new one is refused with 503 and
 * {@code Retry-After} before any byte of a 200 is sent.
 *
 * <p>Thread-safe: {@link #publish} may be called from any thread.
 */
public final class EventStream implements AutoCloseable {

    private static final Logger LOG = LoggerFactory.getLogger(EventStream.class);

    private final ObjectMapper mapper;
    private final int maxClients;
    private final ChannelGroup clients = new DefaultChannelGroup("console-sse", GlobalEventExecutor.INSTANCE);
    private final AtomicLong sequence = new AtomicLong();
    private final AtomicLong dropped = new AtomicLong();

    public EventStream(ObjectMapper mapper, int maxClients) {
        this.mapper = requireNonNull(mapper, "mapper");
        if (maxClients < 1) {
            throw new IllegalArgumentException("maxClients: " + maxClients + " (expected: >= 1)");
        }
        this.maxClients = maxClients;
    }

    /**
     * Takes a stream's place before its response head is written; false when {@code maxClients}
     * are open already (the caller answers 503). Atomic with respect to other reservations.
     */
    synchronized boolean reserve(Channel channel) {
        if (clients.size() >= maxClients) {
            return false;
        }
        clients.add(channel);  // removed automatically when the channel closes
        return true;
    }

    /** Streams open at most. */
    public int maxClients() {
        return maxClients;
    }

    /** Open streams. */
    public int clients() {
        return clients.size();
    }

    /** Streams closed because their client did not keep up. */
    public long dropped() {
        return dropped.get();
    }

    /** Sends one event to every open stream. Never throws. */
    public void publish(String type, Object payload) {
        if (clients.isEmpty()) {
            return;
        }
        byte[] frame;
        try {
            frame = ("id: " + sequence.incrementAndGet() + "\nevent: " + type + "\ndata: "
                    + mapper.writeValueAsString(payload) + "\n\n").getBytes(StandardCharsets.UTF_8);
        } catch (JsonProcessingException | RuntimeException e) {
            LOG.warn("cannot serialise {} event: {}", type, e.toString());
            return;
        }
        write(frame);
    }

    /** A comment line that keeps proxies and idle timers from closing quiet streams. */
    void heartbeat() {
        write(": ping\n\n".getBytes(StandardCharsets.US_ASCII));
    }

    private void write(byte[] frame) {
        for (Channel ch : clients) {
            if (!ch.isActive()) {
                continue;
            }
            if (!ch.isWritable()) {
                dropped.incrementAndGet();
                ch.close();
                continue;
            }
            ch.writeAndFlush(new DefaultHttpContent(Unpooled.wrappedBuffer(frame)));
        }
    }

    @Override
    public void close() {
        clients.close().awaitUninterruptibly(2_000);
    }
}
