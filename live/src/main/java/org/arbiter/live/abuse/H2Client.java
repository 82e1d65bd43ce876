package org.arbiter.live.abuse;

import java.io.ByteArrayOutputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.HashSet;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.IntStream;

/**
 * A minimal HTTP/2 client over one h2c connection (prior knowledge), enough to push request
 * bodies as fast as the server's flow control lets it: frames by RFC 9113 §4, request headers as
 * HPACK literals without indexing (RFC 7541 §6.2.2, no Huffman), answers recognised by their
 * HEADERS frame (a status is read when the server sent it from the static table), RST_STREAM and
 * GOAWAY counted. One reader thread handles SETTINGS (acknowledged), WINDOW_UPDATE, PING.
 * Thread-safety: {@link #pushBodies} from one thread; the reader updates the windows under this
 * object's lock; socket writes are serialised by their own lock.
 */
final class H2Client implements AutoCloseable {

    private static final int DATA = 0x0;
    private static final int HEADERS = 0x1;
    private static final int RST_STREAM = 0x3;
    private static final int SETTINGS = 0x4;
    private static final int PING = 0x6;
    private static final int GOAWAY = 0x7;
    private static final int WINDOW_UPDATE = 0x8;
    private static final int END_STREAM = 0x1;
    private static final int END_HEADERS = 0x4;
    private static final int ACK = 0x1;
    private static final int FRAME = 16_384;
    /** HPACK static table entries 8-14 (RFC 7541 Appendix A). */
    private static final int[] STATIC_STATUS = {200, 204, 206, 304, 400, 404, 500};

    private final Socket socket;
    private final OutputStream out;
    private final Object writeLock = new Object();
    private final CountDownLatch settings = new CountDownLatch(1);
    private final Thread reader;
    // window state, under "this"
    private long connectionWindow = 65_535;
    private int initialStreamWindow = 65_535;
    private long maxConcurrentStreams = Long.MAX_VALUE;
    private final Map<Integer, Long> streamWindows = new TreeMap<>();
    private volatile boolean goaway;
    private volatile boolean closed;
    /** Answers by stream: a status code, or 0 for an answer whose status was not in the static table. */
    final Map<Integer, Integer> answers = new ConcurrentHashMap<>();
    /** Streams the server reset, by stream: the error code. */
    final Map<Integer, Long> resets = new ConcurrentHashMap<>();

    H2Client(Socket socket) throws IOException {
        this.socket = socket;
        this.out = socket.getOutputStream();
        write(IdleH2Attack.PREFACE);
        frame(SETTINGS, 0, 0, new byte[0]);
        reader = new Thread(this::read, "abuse-h2-reader");
        reader.setDaemon(true);
        reader.start();
    }

    /** Whether the server sent GOAWAY. */
    boolean goaway() {
        return goaway;
    }

    /** The server's SETTINGS_MAX_CONCURRENT_STREAMS (Long.MAX_VALUE if it sent none). */
    synchronized long maxConcurrentStreams() {
        return maxConcurrentStreams;
    }

    /**
     * Opens {@code streams} POST streams (at most the server's concurrent-stream limit) and sends
     * each a body of {@code bodyBytes}, frame by frame in turn, as the windows allow, until every
     * body is sent, the connection ends or {@code deadlineNanos}. Returns the bytes sent and the
     * longest time no frame could be sent though bodies were left (the windows were closed).
     */
    Pushed pushBodies(int streams, long bodyBytes, Map<String, String> headers, long deadlineNanos)
            throws IOException, InterruptedException {
        settings.await(5, TimeUnit.SECONDS);
        int n = (int) Math.min(streams, maxConcurrentStreams());
        long[] left = new long[n];
        for (int i = 0; i < n; i++) {
            int id = 2 * i + 1;
            synchronized (this) {
                streamWindows.put(id, (long) initialStreamWindow);
            }
            frame(HEADERS, END_HEADERS, id, headerBlock(bodyBytes, headers));
            left[i] = bodyBytes;
        }
        byte[] chunk = new byte[FRAME];
        long sent = 0;
        int done = 0;
        long lastProgress = System.nanoTime();
        long longestStall = 0;
        while (done < n && !closed && !goaway && System.nanoTime() < deadlineNanos) {
            boolean progress = false;
            for (int i = 0; i < n; i++) {
                int id = 2 * i + 1;
                if (left[i] == 0 || resets.containsKey(id)) {
                    continue;
                }
                int len;
                synchronized (this) {
                    len = (int) Math.min(Math.min(FRAME, left[i]), Math.min(connectionWindow, streamWindows.get(id)));
                    if (len <= 0) {
                        continue;
                    }
                    connectionWindow -= len;
                    streamWindows.merge(id, (long) -len, Long::sum);
                }
                left[i] -= len;
                frame(DATA, left[i] == 0 ? END_STREAM : 0, id, chunk, len);
                sent += len;
                progress = true;
                if (left[i] == 0) {
                    done++;
                }
            }
            long now = System.nanoTime();
            if (progress) {
                lastProgress = now;
            } else {
                longestStall = Math.max(longestStall, now - lastProgress);
                synchronized (this) {
                    wait(50); // for a WINDOW_UPDATE
                }
                done = (int) IntStream.range(0, n)
                        .filter(i -> left[i] == 0 || resets.containsKey(2 * i + 1)).count();
            }
        }
        return new Pushed(sent, longestStall / 1e9);
    }

    /** What {@link #pushBodies} sent, and the longest stall on closed windows. */
    record Pushed(long bytes, double longestStallSeconds) {
    }

    /** Streams opened by {@link #pushBodies} that have been answered or reset. */
    int ended() {
        Set<Integer> s = new HashSet<>(answers.keySet());
        s.addAll(resets.keySet());
        return s.size();
    }

    private byte[] headerBlock(long bodyBytes, Map<String, String> headers) {
        ByteArrayOutputStream b = new ByteArrayOutputStream();
        b.write(0x83); // :method POST (static 3)
        b.write(0x86); // :scheme http (static 6)
        b.write(0x84); // :path / (static 4)
        literal(b, ":authority", "127.0.0.1");
        literal(b, "content-length", Long.toString(bodyBytes));
        headers.forEach((k, v) -> literal(b, k.toLowerCase(Locale.ROOT), v));
        return b.toByteArray();
    }

    /** A literal header field without indexing, new name (RFC 7541 §6.2.2), strings not Huffman-coded. */
    private static void literal(ByteArrayOutputStream b, String name, String value) {
        b.write(0x00);
        string(b, name);
        string(b, value);
    }

    private static void string(ByteArrayOutputStream b, String s) {
        byte[] bytes = s.getBytes(StandardCharsets.US_ASCII);
        int v = bytes.length;
        if (v < 127) {
            b.write(v);
        } else {
            b.write(127);
            v -= 127;
            while (v >= 128) {
                b.write((v & 0x7f) | 0x80);
                v >>>= 7;
            }
            b.write(v);
        }
        b.writeBytes(bytes);
    }

    private void frame(int type, int flags, int stream, byte[] payload) throws IOException {
        frame(type, flags, stream, payload, payload.length);
    }

    private void frame(int type, int flags, int stream, byte[] payload, int len) throws IOException {
        byte[] head = {(byte) (len >>> 16), (byte) (len >>> 8), (byte) len, (byte) type, (byte) flags,
                (byte) (stream >>> 24), (byte) (stream >>> 16), (byte) (stream >>> 8), (byte) stream};
        synchronized (writeLock) {
            out.write(head);
            out.write(payload, 0, len);
            out.flush();
        }
    }

    private void write(byte[] bytes) throws IOException {
        synchronized (writeLock) {
            out.write(bytes);
            out.flush();
        }
    }

    private void read() {
        try {
            DataInputStream in = new DataInputStream(socket.getInputStream());
            byte[] head = new byte[9];
            while (true) {
                in.readFully(head);
                int len = (head[0] & 0xff) << 16 | (head[1] & 0xff) << 8 | (head[2] & 0xff);
                int type = head[3] & 0xff;
                int flags = head[4] & 0xff;
                int stream = ((head[5] & 0x7f) << 24) | (head[6] & 0xff) << 16 | (head[7] & 0xff) << 8 | (head[8] & 0xff);
                byte[] p = new byte[len];
                in.readFully(p);
                switch (type) {
                    case SETTINGS -> {
                        if ((flags & ACK) == 0) {
                            settings(p);
                            frame(SETTINGS, ACK, 0, new byte[0]);
                            settings.countDown();
                        }
                    }
                    case WINDOW_UPDATE -> {
                        long inc = ((p[0] & 0x7fL) << 24) | (p[1] & 0xffL) << 16 | (p[2] & 0xffL) << 8 | (p[3] & 0xffL);
                        synchronized (this) {
                            if (stream == 0) {
                                connectionWindow += inc;
                            } else {
                                streamWindows.merge(stream, inc, Long::sum);
                            }
                            notifyAll();
                        }
                    }
                    case HEADERS -> answers.putIfAbsent(stream, status(p, flags));
                    case RST_STREAM -> {
                        resets.put(stream, ((p[0] & 0xffL) << 24) | (p[1] & 0xffL) << 16 | (p[2] & 0xffL) << 8 | (p[3] & 0xffL));
                        synchronized (this) {
                            notifyAll();
                        }
                    }
                    case PING -> {
                        if ((flags & ACK) == 0) {
                            frame(PING, ACK, 0, p);
                        }
                    }
                    case GOAWAY -> goaway = true;
                    default -> {
                        // DATA of answers, PRIORITY, CONTINUATION: not needed here
                    }
                }
            }
        } catch (IOException e) {
            // the connection ended
        } finally {
            closed = true;
            synchronized (this) {
                notifyAll();
            }
        }
    }

    private synchronized void settings(byte[] p) {
        for (int i = 0; i + 6 <= p.length; i += 6) {
            int id = (p[i] & 0xff) << 8 | (p[i + 1] & 0xff);
            long v = ((p[i + 2] & 0xffL) << 24) | (p[i + 3] & 0xffL) << 16 | (p[i + 4] & 0xffL) << 8 | (p[i + 5] & 0xffL);
            if (id == 0x3) {
                maxConcurrentStreams = v;
            } else if (id == 0x4) {
                long delta = v - initialStreamWindow;
                initialStreamWindow = (int) v;
                streamWindows.replaceAll((k, w) -> w + delta);
            }
        }
        notifyAll();
    }

    /** The status of an answer's HEADERS block if its first field is an indexed static status, else 0. */
    private static int status(byte[] p, int flags) {
        int off = 0;
        if ((flags & 0x8) != 0) { // PADDED
            off = 1;
        }
        if ((flags & 0x20) != 0) { // PRIORITY
            off += 5;
        }
        if (off >= p.length) {
            return 0;
        }
        int b = p[off] & 0xff;
        return b >= 0x88 && b <= 0x8e ? STATIC_STATUS[b - 0x88] : 0;
    }

    @Override
    public void close() {
        closed = true;
        try {
            socket.close();
        } catch (IOException ignored) {
            // already closed
        }
    }
}
